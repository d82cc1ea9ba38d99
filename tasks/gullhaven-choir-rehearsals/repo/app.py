"""Gullhaven Harbour Choir: the choir's website, a small Flask application."""

from flask import Flask, render_template, request

from data import CHOIR, PIECES, TERM

app = Flask(__name__)


@app.context_processor
def choir():
    return {"choir": CHOIR}


@app.get("/")
def home():
    return render_template("home.html", next_rehearsal=TERM[0])


@app.get("/rehearsals")
def rehearsals():
    return render_template("rehearsals.html", term=TERM)


@app.get("/repertoire")
def repertoire():
    return render_template("repertoire.html", pieces=PIECES)


@app.route("/join", methods=["GET", "POST"])
def join():
    if request.method == "GET":
        return render_template("join.html", form={}, error=None)
    name = request.form.get("name", "").strip()
    part = request.form.get("part", "")
    if not name:
        return render_template("join.html", form=request.form, error="Please tell us your name.")
    return render_template("joined.html", name=name, part=part, first=TERM[0])


@app.get("/about")
def about():
    return render_template("about.html")
