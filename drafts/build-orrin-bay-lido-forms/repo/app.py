"""Orrin Bay Lido: the designer's starter, one placeholder page until the site is built."""

from flask import Flask, render_template

app = Flask(__name__)


@app.get("/")
def home():
    return render_template("home.html")
