"""Orrin Bay Lido: the lido's website, a small Flask application."""

from flask import Flask, render_template, request

from data import AGES, HELP_WITH, LIDO, PRICES, SESSIONS

app = Flask(__name__)


@app.context_processor
def lido():
    return {"lido": LIDO}


@app.get("/")
def home():
    return render_template("home.html", sessions=SESSIONS[:2])


@app.get("/swim-times")
def swim_times():
    return render_template("swim_times.html", sessions=SESSIONS, prices=PRICES)


@app.route("/lessons", methods=["GET", "POST"])
def lessons():
    if request.method == "GET":
        return render_template("lessons.html", form={}, error=None, ages=AGES)
    form = request.form
    child = form.get("child", "").strip()
    age = form.get("age", "")
    email = form.get("email", "").strip()
    if not child or not age or not email:
        return render_template("lessons.html", form=form, error="Please fill in every field.", ages=AGES)
    return render_template("thanks.html", heading="You're on the waiting list",
                           message=f"We'll email {email} when a place comes up for {child}.")


@app.route("/volunteer", methods=["GET", "POST"])
def volunteer():
    if request.method == "GET":
        return render_template("volunteer.html", notice=None, help_with=HELP_WITH)
    name = request.form.get("name", "").strip()
    email = request.form.get("email", "").strip()
    if not name or not email:
        return render_template("volunteer.html", notice="Name and email are required.", help_with=HELP_WITH)
    return render_template("thanks.html", heading="Thank you for offering to help",
                           message=f"Our volunteer coordinator will write to {email} within a week.")


@app.route("/contact", methods=["GET", "POST"])
def contact():
    if request.method == "GET":
        return render_template("contact.html", form={}, errors={})
    form = request.form
    errors = {}
    if not form.get("name", "").strip():
        errors["name"] = "Please tell us your name."
    email = form.get("email", "").strip()
    if not email:
        errors["email"] = "Please give us an email address."
    elif "@" not in email:
        errors["email"] = "Please enter a valid email."
    if not form.get("message", "").strip():
        errors["message"] = "Please write your message."
    if errors:
        return render_template("contact.html", form=form, errors=errors)
    return render_template("thanks.html", heading="Message sent",
                           message="We answer messages within two days, and check lost property every evening.")
