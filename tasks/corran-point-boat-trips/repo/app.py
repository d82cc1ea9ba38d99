"""Corran Point Boat Trips: trips, booking and questions, a small Flask application."""

from flask import Flask, abort, render_template, request

from data import DATES, FAQ, TRIPS
from fares import total

app = Flask(__name__)


@app.get("/")
def home():
    return render_template("home.html", trips=TRIPS.values())


def _trip(slug):
    trip = TRIPS.get(slug)
    if trip is None:
        abort(404)
    return trip


@app.get("/trips/<slug>")
def trip(slug):
    return render_template("trip.html", trip=_trip(slug), dates=DATES, form={}, error=None)


@app.post("/trips/<slug>/book")
def book(slug):
    trip = _trip(slug)
    name = request.form.get("name", "").strip()
    date = request.form.get("date", "")
    adults = int(request.form.get("adults", "0") or 0)
    children = int(request.form.get("children", "0") or 0)
    if not name:
        error = "Please give a name for the booking."
        return render_template("trip.html", trip=trip, dates=DATES, form={}, error=error)
    if adults + children == 0:
        error = "Choose at least one passenger."
        return render_template("trip.html", trip=trip, dates=DATES, form={}, error=error)
    return render_template(
        "booked.html",
        trip=trip,
        name=name,
        date=date,
        adults=adults,
        children=children,
        total=total(trip, adults, children),
    )


@app.get("/faq")
def faq():
    return render_template("faq.html", faq=FAQ)
