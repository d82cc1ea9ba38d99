"""__TITLE__: R0's Flask application (routes here, pages in templates/)."""

from flask import Flask, render_template

app = Flask(__name__)


@app.get("/")
def home() -> str:
    return render_template("index.html")


@app.get("/about.html")
def about() -> str:
    return render_template("about.html")
