"""A greenfield twin's starter (`twin`): what the kit writes besides the files the author
keeps, the build's configuration and a placeholder home page, by stack."""

from __future__ import annotations

import html

from ..contract import TaskPackage

# What the starter needs besides what the author keeps, from the source's R0 when there
# (AUTHORING.md, "Serving by stack"): the build's configuration and lock files.
STACK_FILES: dict[str, tuple[str, ...]] = {
    "static": (),
    "node": ("server.js", "package.json", "package-lock.json"),
    "php": (),
    "vite": ("package.json", "package-lock.json", ".gitignore"),
    "react": ("package.json", "package-lock.json", ".gitignore"),
    "svelte": ("package.json", "package-lock.json", ".gitignore"),
    "hugo": ("hugo.toml", ".gitignore"),
    "eleventy": ("eleventy.config.mjs", ".gitignore"),
    "astro": ("astro.config.mjs", "src/env.d.ts", ".gitignore"),
    "flask": (),
}
# The placeholder home page, by stack: where it goes, and the prefix that maps a kept
# file's path to its URL (None: served from the repository's root as it is).
HOME: dict[str, str] = {
    "static": "index.html",
    "node": "public/index.html",
    "php": "public/index.php",
    "vite": "index.html",
    "react": "index.html",
    "svelte": "index.html",
    "hugo": "layouts/index.html",
    "eleventy": "src/index.njk",
    "astro": "src/pages/index.astro",
    "flask": "templates/index.html",
}
SERVED_FROM: dict[str, str] = {
    "node": "public/",
    "php": "public/",
    "vite": "public/",
    "react": "public/",
    "svelte": "public/",
    "hugo": "static/",
    "eleventy": "src/",
    "astro": "public/",
}
PLACEHOLDER = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{name}</title>
{links}</head>
<body>
<header>
  <a class="brand" href="/">{name}</a>
</header>
<main>
<h1>Our new website is on its way</h1>
<p>Until it is ready, {name} is open as usual.</p>
</main>
</body>
</html>
"""
ASTRO_FRONT = "---\n// A placeholder until the site is built: a whole page, no layout yet.\n---\n"
VITE_CONFIG = """import { defineConfig } from 'vite';

// The starter: one placeholder page (index.html) until the site is built.
export default defineConfig({});
"""
FLASK_APP = '''"""{name}: the starter, one placeholder page until the site is built."""

from flask import Flask, render_template

app = Flask(__name__)


@app.get("/")
def home():
    return render_template("{template}")
'''


def _product(title: str, fallback: str) -> str:
    """The product's name: a source title reads `Product: what the task changes`."""
    name = title.split(":", 1)[0].strip()
    return name or " ".join(w.capitalize() for w in fallback.split("-"))


def _url(stack: str, rel: str) -> str:
    prefix = SERVED_FROM.get(stack)
    if prefix and rel.startswith(prefix):
        return "/" + rel.removeprefix(prefix)
    return "/" + rel


def _made(source: TaskPackage, kept: list[str]) -> dict[str, str]:
    """The files the kit writes into the starter: the placeholder home page and what the
    stack needs to serve it, unless the author kept a file of that name."""
    c = source.contract
    name = html.escape(_product(c.title, c.id))
    links = "".join(
        f'<link rel="stylesheet" href="{html.escape(_url(c.stack, rel))}">\n'
        for rel in kept
        if rel.endswith(".css")
    )
    home = HOME.get(c.stack, "index.html")
    made: dict[str, str] = {}
    if c.stack == "flask":
        template = "home.html" if (source.repo / "templates/home.html").is_file() else "index.html"
        home = f"templates/{template}"
        made["app.py"] = FLASK_APP.format(name=_product(c.title, c.id), template=template)
    if c.stack in ("vite", "react", "svelte"):
        made["vite.config.js"] = VITE_CONFIG
    page = PLACEHOLDER.format(name=name, links=links)
    made[home] = ASTRO_FRONT + page if c.stack == "astro" else page
    return {rel: text for rel, text in made.items() if rel not in kept}
