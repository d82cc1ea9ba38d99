"""Tanners Wharf Bike Kitchen: the workshop's website, a small Flask application."""

from flask import Flask, render_template, request

from data import KITCHEN, PARTS, SESSIONS

app = Flask(__name__)

SESSIONS_BY_DAY = {session["day"]: session for session in SESSIONS}


@app.context_processor
def kitchen():
    return {"kitchen": KITCHEN}


@app.template_filter("pounds")
def pounds(amount):
    """A price as the pages show it: 4.5 -> '£4.50'."""
    return f"£{amount:.2f}"


@app.get("/")
def home():
    return render_template("home.html", upcoming=SESSIONS[:2])


@app.get("/sessions")
def sessions():
    return render_template("sessions.html", sessions=SESSIONS)


@app.get("/prices")
def prices():
    return render_template("prices.html", parts=PARTS)


@app.route("/book", methods=["GET", "POST"])
def book():
    if request.method == "GET":
        form = {"session": request.args.get("session", "")}
        return render_template("book.html", sessions=SESSIONS, form=form, error=None)
    name = request.form.get("name", "").strip()
    chosen = SESSIONS_BY_DAY.get(request.form.get("session", ""))
    if not name:
        error = "Please tell us your name."
    elif chosen is None:
        error = "Please choose a session."
    else:
        return render_template("booked.html", name=name, session=chosen)
    form = {"name": name, "session": request.form.get("session", "")}
    return render_template("book.html", sessions=SESSIONS, form=form, error=error)


@app.get("/about")
def about():
    return render_template("about.html")
