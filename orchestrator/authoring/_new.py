"""`new`: scaffold a task package for a stack, its R0 a small two-page site with the
stack's server or build (`SERVE`) and, for npm stacks, a pinned lock file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..contract import CANARY_LINE

# `[serve]` and the R0 skeleton per stack (AUTHORING.md, "Serving by stack").
# npm stacks: dependencies come from the task image (installed when it is built, from
# package.json/package-lock.json), so `npm ci` in the cell runs offline.
_VITE_SERVE = (
    'install = "npm ci --no-audit --no-fund"\nbuild = "npm run build"\n'
    'start = "npx vite preview --host 0.0.0.0 --port $PORT --strictPort"\n'
    'ready_path = "/"\nrebuild_on_change = true\nrestart_on_change = true\n'
)
SERVE: dict[str, str] = {
    "static": 'start = "python3 -m http.server $PORT --bind 0.0.0.0"\nready_path = "/"\n',
    "node": 'start = "node server.js"\nready_path = "/"\n',
    "php": 'start = "php -d opcache.enable=0 -S 0.0.0.0:$PORT -t public"\nready_path = "/"\n',
    "vite": _VITE_SERVE,
    "react": _VITE_SERVE,
    "svelte": _VITE_SERVE,
    # Hugo builds into dist/ (no lock file in the workspace; pages a change removes are
    # removed from the output too) and Python's file server serves it.
    "hugo": (
        'build = "hugo --noBuildLock --cleanDestinationDir --destination dist"\n'
        'start = "python3 -m http.server $PORT --bind 0.0.0.0 --directory dist"\n'
        'ready_path = "/"\nrebuild_on_change = true\nrestart_on_change = true\n'
    ),
    # Eleventy (npm, pinned in the stack image: images/eleventy/) builds src/ into a fresh
    # dist/ (it never deletes output itself, so a page removed from src/ leaves dist/ too)
    # and Python's file server serves it.
    "eleventy": (
        'build = "rm -rf dist && eleventy --quiet --output=dist"\n'
        'start = "python3 -m http.server $PORT --bind 0.0.0.0 --directory dist"\n'
        'ready_path = "/"\nrebuild_on_change = true\nrestart_on_change = true\n'
    ),
    # Astro (npm, pinned in the stack image: images/astro/) builds src/pages/ into a
    # fresh dist/ (static output) and Python's file server serves it. Its generated types
    # (.astro/) are removed after the build, so the build leaves nothing in the diff
    # (src/env.d.ts, which it writes when missing, is part of the skeleton).
    "astro": (
        'build = "rm -rf dist && astro build --silent && rm -rf .astro"\n'
        'start = "python3 -m http.server $PORT --bind 0.0.0.0 --directory dist"\n'
        'ready_path = "/"\nrebuild_on_change = true\nrestart_on_change = true\n'
    ),
    # Flask's own server; it reads templates once (not in debug mode): restart on change.
    "flask": (
        'start = "python3 -m flask --app app run --host 0.0.0.0 --port $PORT"\n'
        'ready_path = "/"\nrestart_on_change = true\n'
    ),
}
FRAMEWORK: dict[str, str] = {
    "static": "vanilla",
    "node": "vanilla",
    "php": "vanilla",
    "vite": "vite5-vanilla",
    "react": "vite5-react18",
    "svelte": "vite5-svelte5",
    "hugo": "hugo0.111",
    "eleventy": "eleventy3.1",
    "astro": "astro4.16",
    "flask": "flask2.2-jinja3",
}
_VITE_PATHS = '"index.html", "about.html", "src/**", "public/**", "vite.config.js"'
ALLOWED: dict[str, str] = {
    "static": '"*.html", "*.css", "*.js"',
    "node": '"public/**"',
    "php": '"public/**"',
    "vite": _VITE_PATHS,
    "react": _VITE_PATHS,
    "svelte": _VITE_PATHS,
    "hugo": '"hugo.toml", "content/**", "layouts/**", "static/**", "assets/**", "data/**"',
    "eleventy": '"eleventy.config.mjs", "src/**"',
    "astro": '"astro.config.mjs", "src/**", "public/**"',
    "flask": '"*.py", "templates/**", "static/**"',
}
# npm stacks: pinned (dependencies, devDependencies), and a lock made once with npm
# (templates/<stack>/package-lock.json; `npm install --package-lock-only`).
VITE_VERSION = "5.4.10"
NPM_DEPS: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "vite": ({}, {"vite": VITE_VERSION}),
    "react": (
        {"react": "18.3.1", "react-dom": "18.3.1"},
        {"@vitejs/plugin-react": "4.3.3", "vite": VITE_VERSION},
    ),
    "svelte": (
        {},
        {"@sveltejs/vite-plugin-svelte": "4.0.0", "svelte": "5.1.16", "vite": VITE_VERSION},
    ),
}
TEMPLATES = Path(__file__).parent.parent / "templates"
# Stacks whose R0 skeleton is a tree of files under templates/<stack>/repo (`__TITLE__`
# is replaced by the task's title); where their shared stylesheet goes.
TREE_STYLE: dict[str, str] = {
    "react": "public/style.css",
    "svelte": "public/style.css",
    "hugo": "static/style.css",
    "eleventy": "src/style.css",
    "astro": "public/style.css",
    "flask": "static/style.css",
}
GITIGNORE: dict[str, str] = {
    "vite": "node_modules/\ndist/\n",
    "react": "node_modules/\ndist/\n",
    "svelte": "node_modules/\ndist/\n",
    "hugo": "dist/\nresources/\n.hugo_build.lock\n",
    "eleventy": "dist/\nnode_modules/\n",
    "astro": "dist/\nnode_modules/\n.astro/\n",
}
PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="/style.css">
</head>
<body>
<header>
  <a class="brand" href="/">{title}</a>
  <nav aria-label="Main"><a href="/">Home</a> <a href="/about.html">About</a></nav>
</header>
<main>
  <h1>Welcome to {title}</h1>
  <p>Replace this page with the product R0 should be.</p>
  <button class="cta" type="button">Get started</button>
  <p id="notice" role="status">Orders placed before noon ship the same day.</p>
  <h2>What we do</h2>
  <p>Say what the product offers, in a sentence or two.</p>
  <h2>Find us</h2>
  <p>Where and when: realistic copy the checks can protect.</p>
</main>
</body>
</html>
"""
ABOUT = PAGE.replace("<h1>Welcome to {title}</h1>", "<h1>About {title}</h1>")
STYLE = """:root { --ink: #1f2a24; --paper: #ffffff; --brand: #2f6b4f; }
body { margin: 0; font-family: sans-serif; color: var(--ink); background: var(--paper); }
header { display: flex; justify-content: space-between; padding: 16px 24px; }
nav a { margin-left: 16px; color: var(--brand); }
main { padding: 24px; }
.cta { background: var(--brand); color: var(--paper); border: 0; padding: 10px 18px; }
"""
NODE_SERVER = """// R0's server: serves public/ on process.env.PORT, no dependencies.
const http = require('http');
const fs = require('fs');
const path = require('path');
const root = path.join(__dirname, 'public');
const types = { '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript' };
http.createServer((req, res) => {
  let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (p.endsWith('/')) p += 'index.html';
  const file = path.join(root, path.normalize(p));
  if (!file.startsWith(root)) { res.writeHead(403); return res.end(); }
  fs.readFile(file, (err, body) => {
    if (err) { res.writeHead(404); return res.end('not found'); }
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
    res.end(body);
  });
}).listen(Number(process.env.PORT), '0.0.0.0');
"""
# The vite skeleton: pinned vite, both pages as build inputs, the stylesheet in public/
# (served as is), one module script.
VITE_CONFIG = """import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const page = (name) => fileURLToPath(new URL(name, import.meta.url));

// Every HTML page is a build input: add new pages here.
export default defineConfig({
  build: { rollupOptions: { input: { main: page('index.html'), about: page('about.html') } } },
});
"""
VITE_MAIN = """// R0's script: the call to action answers on the page.
const cta = document.querySelector('.cta');
cta?.addEventListener('click', () => {
  cta.textContent = 'Coming soon';
});
"""
VITE_SCRIPT = '<script type="module" src="/src/main.js"></script>\n</body>'
TASK = """{canary}id = "{id}"
title = "{title}: TODO what changes"
regime = "change"
capability = "edit"
facet = "content"
stack = "{stack}"
framework = "{framework}"
allowed_paths = [{allowed}]

[serve]
{serve}
# ------------------------------------------------------------------ states
[[states]]
id = "home_d"
route = "/"

[[states]]
id = "home_m"
route = "/"
viewport = "mobile"

# ------------------------------------------------------------------ checks
# The unit's completion check: edit selector and value to what the request asks for.
[[checks]]
id = "u1-headline"
gate = "text"
state = "home_d"
describe = "The home page headline says what the request asks for."
assert = {{ kind = "text_equals", selector = "h1", value = "TODO: the new headline" }}

# Preservation checks: paste the output of `python -m orchestrator suggest {id}` here.

# ------------------------------------------------------------------ units
[[units]]
id = "u1"
request = "TODO: what a PM, QA lead or designer asks for, in their words."
checks = ["u1-headline"]
"""
README = """# {id}

TODO: what the product is and what this task exercises (short).

Scaffolded by `python -m orchestrator new {id} --stack {stack}`. Next (tasks/AUTHORING.md,
"Worked example"): make R0 in repo/, write reference/u1.patch, `capture`, `suggest`,
paste its TOML into task.toml, `capture` again, `lint`, `admit`.
"""


def _slug(task_id: str) -> str:
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{1,62}", task_id):
        raise ValueError(f"task id {task_id!r}: expected lowercase letters, digits and '-'")
    return task_id


def scaffold(root: Path, task_id: str, stack: str) -> list[Path]:
    """Write a package that `tasks` accepts under `root` (a new directory named `task_id`)."""
    _slug(task_id)
    if stack not in SERVE:
        raise ValueError(f"stack {stack!r}: expected one of {', '.join(sorted(SERVE))}")
    if root.exists():
        raise ValueError(f"{root}: already exists; `new` never overwrites a package")
    title = " ".join(w.capitalize() for w in task_id.split("-"))
    files: dict[str, str] = {
        **_repo_files(stack, task_id, title),
        "README.md": README.format(id=task_id, stack=stack),
        # Unit 1's reference: the canary line, then the diff (see AUTHORING.md).
        "reference/u1.patch": CANARY_LINE,
    }
    files["task.toml"] = TASK.format(
        canary=CANARY_LINE,
        id=task_id,
        title=title,
        stack=stack,
        framework=FRAMEWORK[stack],
        allowed=ALLOWED[stack],
        serve=SERVE[stack],
    )
    written = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    (root / "negatives").mkdir()
    return written


def _repo_files(stack: str, task_id: str, title: str) -> dict[str, str]:
    """R0's skeleton, by path under the package."""
    files: dict[str, str] = {}
    if stack in TREE_STYLE:
        tree = TEMPLATES / stack / "repo"
        for path in sorted(tree.rglob("*")):
            if path.is_file():
                text = path.read_text(encoding="utf-8").replace("__TITLE__", title)
                files[f"repo/{path.relative_to(tree).as_posix()}"] = text
        files[f"repo/{TREE_STYLE[stack]}"] = STYLE
    else:
        web = {"static": "", "node": "public/", "php": "public/", "vite": ""}[stack]
        css = "public/" if stack == "vite" else web
        files[f"repo/{web}index.html"] = PAGE.format(title=title)
        files[f"repo/{web}about.html"] = ABOUT.format(title=title)
        files[f"repo/{css}style.css"] = STYLE
    if stack == "node":
        files["repo/server.js"] = NODE_SERVER
    if stack == "vite":
        files["repo/vite.config.js"] = VITE_CONFIG
        files["repo/src/main.js"] = VITE_MAIN
        for page in ("index.html", "about.html"):
            files[f"repo/{page}"] = files[f"repo/{page}"].replace("</body>", VITE_SCRIPT)
    if stack in NPM_DEPS:
        files |= _npm_files(task_id, stack)
    if stack in GITIGNORE:
        files["repo/.gitignore"] = GITIGNORE[stack]
    return files


def _npm_files(task_id: str, stack: str) -> dict[str, str]:
    """package.json and its lock, both named after the task."""
    deps, dev_deps = NPM_DEPS[stack]
    package: dict[str, Any] = {
        "name": task_id,
        "private": True,
        "version": "0.0.0",
        "type": "module",
        "scripts": {"dev": "vite", "build": "vite build", "preview": "vite preview"},
    }
    if deps:
        package["dependencies"] = deps
    package["devDependencies"] = dev_deps
    lock_path = TEMPLATES / stack / "package-lock.json"
    lock = json.loads(lock_path.read_text(encoding="utf-8"))
    lock["name"] = lock["packages"][""]["name"] = task_id
    return {
        "repo/package.json": json.dumps(package, indent=2) + "\n",
        "repo/package-lock.json": json.dumps(lock, indent=2) + "\n",
    }
