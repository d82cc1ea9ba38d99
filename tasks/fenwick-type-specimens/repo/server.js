'use strict';

// Fenwick Type Foundry: a small site on Node's http module, no dependencies.
const http = require('http');
const fs = require('fs');
const path = require('path');
const { page, escapeHtml } = require('./lib/layout');
const { faces, licences } = require('./lib/faces');

const PORT = Number(process.env.PORT) || 3000;
const PUBLIC = path.join(__dirname, 'public');
const TYPES = { '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

function home() {
  const latest = faces
    .slice()
    .sort((a, b) => b.year - a.year)
    .slice(0, 2)
    .map((f) => `<li><strong>${escapeHtml(f.name)}</strong> (${f.year}): ${escapeHtml(f.about)}</li>`)
    .join('\n      ');
  return page({
    title: 'Home',
    current: '/',
    body: `<section class="lead-in">
  <div class="lead-in__text">
    <h1>Letters cut for long reading</h1>
    <p class="standfirst">Fenwick is a two-person type foundry in an old print works. We draw text faces for books, timetables and signs, proof every one on paper, and license them on plain terms.</p>
    <a class="action" href="/typefaces">Browse the typefaces</a>
  </div>
  <img class="lead-in__art" src="/images/composing-stick.svg" alt="Metal letters spelling Fenwick set in a composing stick" width="420" height="280">
</section>

<section aria-labelledby="latest">
  <h2 id="latest">New from the foundry</h2>
  <ul class="newsfeed">
      ${latest}
  </ul>
</section>

<section aria-labelledby="proof">
  <h2 id="proof">Proofed on paper</h2>
  <p>Before a face is released it is printed on our Vandercook at six sizes and read by people who are not designers. What they stumble over, we redraw.</p>
</section>`,
  });
}

function typefaces() {
  const cards = faces
    .map(
      (f) => `  <article class="specimen">
    <h2>${escapeHtml(f.name)}</h2>
    <p class="specimen__styles">${escapeHtml(f.styles)}</p>
    <p class="specimen__sample" style="font-family: ${escapeHtml(f.family)}">${escapeHtml(f.sample)}</p>
    <p class="specimen__about">${escapeHtml(f.about)}</p>
  </article>`,
    )
    .join('\n');
  return page({
    title: 'Typefaces',
    current: '/typefaces',
    body: `<section class="opening">
  <h1>Typefaces</h1>
  <p class="standfirst">Four families, each with a licence for print, web and apps. Samples are shown in a stand-in face until you download the trial files.</p>
</section>
<div class="specimens">
${cards}
</div>`,
  });
}

function licensing() {
  const rows = licences
    .map((l) => `<tr><th scope="row">${escapeHtml(l.kind)}</th><td>${escapeHtml(l.covers)}</td><td>${escapeHtml(l.price)}</td></tr>`)
    .join('\n      ');
  return page({
    title: 'Licensing',
    current: '/licensing',
    body: `<section class="opening">
  <h1>Licensing</h1>
  <p class="standfirst">One price per family, whatever the number of styles. Students and charities pay half: write to us.</p>
</section>
<table class="rates">
  <caption>Licences per family</caption>
  <thead><tr><th scope="col">Licence</th><th scope="col">Covers</th><th scope="col">Price</th></tr></thead>
  <tbody>
      ${rows}
  </tbody>
</table>
<p class="smallprint">Prices exclude VAT. A licence never expires; updates to the family are free.</p>`,
  });
}

function studio() {
  return page({
    title: 'Studio',
    current: '/studio',
    body: `<section class="opening">
  <h1>The studio</h1>
  <p class="standfirst">Ada Fenwick and Joel Marr started the foundry in the back room of her father's print works on Tanner Row.</p>
</section>
<section aria-labelledby="how">
  <h2 id="how">How we work</h2>
  <p>Every face starts as pencil drawings at a hundred millimetres a capital, goes through a year of proofs, and ships only when it reads well at small sizes.</p>
  <p>We take two custom commissions a year, usually for public signage or a publisher's house face.</p>
</section>
<section aria-labelledby="visit">
  <h2 id="visit">Visit</h2>
  <p>The press room is open on the first Friday of the month, 14:00 to 17:00. Come and set your name in metal type.</p>
</section>`,
  });
}

function notFound() {
  return page({ title: 'Not found', current: '', body: '<h1>Page not found</h1>\n<p><a href="/">Back to the foundry</a></p>' });
}

const ROUTES = { '/': home, '/typefaces': typefaces, '/licensing': licensing, '/studio': studio };

function send(res, status, type, body) {
  res.writeHead(status, { 'Content-Type': type });
  res.end(body);
}

const server = http.createServer((req, res) => {
  const { pathname } = new URL(req.url, 'http://localhost');
  try {
    if (pathname.startsWith('/css/') || pathname.startsWith('/images/')) {
      const file = path.join(PUBLIC, path.normalize(pathname));
      if (!file.startsWith(PUBLIC + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
        return send(res, 404, 'text/plain', 'Not found');
      }
      return send(res, 200, TYPES[path.extname(file)] || 'application/octet-stream', fs.readFileSync(file));
    }
    const route = ROUTES[pathname];
    if (route) return send(res, 200, 'text/html; charset=utf-8', route());
    return send(res, 404, 'text/html; charset=utf-8', notFound());
  } catch (err) {
    console.error(err);
    return send(res, 500, 'text/plain', 'Server error');
  }
});

server.listen(PORT, '0.0.0.0', () => {
  console.log(`Fenwick Type Foundry on http://0.0.0.0:${PORT}`);
});
