'use strict';

// Hearth & Thyme: a tiny recipe site. No dependencies: templates are HTML files with
// {{name}} (escaped) and {{{name}}} (raw HTML) placeholders.
const http = require('http');
const fs = require('fs');
const path = require('path');
const { recipes, sections, featured, findRecipe, relatedTo } = require('./lib/recipes');

const PORT = Number(process.env.PORT) || 3000;
const ROOT = __dirname;
const PUBLIC = path.join(ROOT, 'public');
const TYPES = { '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon' };

function escapeHtml(value) {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

function template(name) {
  return fs.readFileSync(path.join(ROOT, 'templates', name), 'utf8');
}

function fill(source, vars) {
  return source
    .replace(/\{\{\{(\w+)\}\}\}/g, (_, key) => (vars[key] === undefined ? '' : String(vars[key])))
    .replace(/\{\{(\w+)\}\}/g, (_, key) => (vars[key] === undefined ? '' : escapeHtml(vars[key])));
}

function page({ title, styles = [], current, body }) {
  const nav = [
    { href: '/', label: 'Home' },
    { href: '/recipes', label: 'Recipes' },
    { href: '/about', label: 'About' },
  ]
    .map((item) => {
      const active = item.href === current ? ' aria-current="page"' : '';
      return `<li><a href="${item.href}"${active}>${item.label}</a></li>`;
    })
    .join('');
  const links = ['/css/base.css', ...styles].map((href) => `<link rel="stylesheet" href="${href}">`).join('\n  ');
  return fill(template('layout.html'), { title, stylesheets: links, nav, body });
}

// ---- cards: three different implementations, grown over time
function featureTile(recipe) {
  return fill(template('partials/feature-tile.html'), recipe);
}

function recipeCard(recipe) {
  return fill(template('partials/recipe-card.html'), { ...recipe, meta: `${recipe.minutes} min · Serves ${recipe.serves}` });
}

function relatedItem(recipe) {
  return (
    `<li class="rel-item"><a href="/recipes/${recipe.slug}">` +
    `<img src="${recipe.image}" alt="" width="96" height="72" style="border-radius:6px">` +
    `<b>${escapeHtml(recipe.title)}</b></a><small>${recipe.minutes} mins</small></li>`
  );
}

// ---- routes
function home() {
  const tiles = featured.map((slug) => featureTile(findRecipe(slug))).join('\n');
  return page({ title: 'Hearth & Thyme — seasonal home cooking', styles: ['/css/home.css'], current: '/', body: fill(template('home.html'), { tiles }) });
}

function recipeIndex() {
  const groups = sections
    .map((name) => {
      const cards = recipes.filter((r) => r.section === name).map(recipeCard).join('\n');
      return `<section class="recipe-group">\n<h2 class="heading-lg">${escapeHtml(name)}</h2>\n<div class="card-grid">\n${cards}\n</div>\n</section>`;
    })
    .join('\n');
  return page({ title: 'Recipes — Hearth & Thyme', styles: ['/css/recipes.css'], current: '/recipes', body: fill(template('recipes.html'), { groups }) });
}

function recipeDetail(recipe) {
  const body = fill(template('recipe.html'), {
    ...recipe,
    meta: `${recipe.minutes} min · Serves ${recipe.serves}`,
    ingredients: recipe.ingredients.map((i) => `<li>${escapeHtml(i)}</li>`).join(''),
    method: recipe.method.map((m) => `<li>${escapeHtml(m)}</li>`).join(''),
    related: relatedTo(recipe.slug).map(relatedItem).join(''),
  });
  return page({ title: `${recipe.title} — Hearth & Thyme`, styles: ['/css/recipe.css'], current: '/recipes', body });
}

function about() {
  return page({ title: 'About — Hearth & Thyme', styles: ['/css/recipes.css'], current: '/about', body: template('about.html') });
}

function notFound() {
  return page({ title: 'Not found — Hearth & Thyme', body: template('not-found.html') });
}

function send(res, status, type, body) {
  res.writeHead(status, { 'Content-Type': type });
  res.end(body);
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const pathname = decodeURIComponent(url.pathname);
  try {
    if (pathname.startsWith('/css/') || pathname.startsWith('/images/') || pathname === '/favicon.ico') {
      const file = path.join(PUBLIC, path.normalize(pathname));
      if (!file.startsWith(PUBLIC) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
        return send(res, 404, 'text/plain', 'Not found');
      }
      return send(res, 200, TYPES[path.extname(file)] || 'application/octet-stream', fs.readFileSync(file));
    }
    const html = 'text/html; charset=utf-8';
    if (pathname === '/') return send(res, 200, html, home());
    if (pathname === '/recipes' || pathname === '/recipes/') return send(res, 200, html, recipeIndex());
    if (pathname === '/about') return send(res, 200, html, about());
    const m = pathname.match(/^\/recipes\/([a-z0-9-]+)\/?$/);
    if (m && findRecipe(m[1])) return send(res, 200, html, recipeDetail(findRecipe(m[1])));
    return send(res, 404, html, notFound());
  } catch (err) {
    console.error(err);
    return send(res, 500, 'text/plain', 'Server error');
  }
});

server.listen(PORT, '0.0.0.0', () => {
  console.log(`Hearth & Thyme on http://0.0.0.0:${PORT}`);
});
