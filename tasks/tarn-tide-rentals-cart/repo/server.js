'use strict';

// Tarn Tide Rentals: kayak and paddleboard hire on the Ossel estuary. Node's http module, no dependencies.
const http = require('http');
const fs = require('fs');
const path = require('path');
const { page, escapeHtml } = require('./lib/layout');
const { craft, tides } = require('./lib/craft');

const PORT = Number(process.env.PORT) || 3000;
const PUBLIC = path.join(__dirname, 'public');
const TYPES = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

function home() {
  return page({
    title: 'Home',
    current: '/',
    body: `<section class="hero">
  <div class="hero__text">
    <h1>Paddle the Ossel on the falling tide</h1>
    <p class="lede">Kayaks and paddleboards by the half-day from the hut at the end of Tarn Quay. Go up the creeks on the flood, drift home on the ebb, and look out for the little egrets on the saltmarsh.</p>
    <a class="button" href="/craft">Choose your craft</a>
  </div>
  <img class="hero__picture" src="/images/estuary.svg" alt="Two kayaks and a paddleboard on the estuary at high water, the quay hut behind them" width="440" height="300">
</section>

<section aria-labelledby="how">
  <h2 id="how">How hiring works</h2>
  <ol class="steps">
    <li><strong>Fill a basket.</strong> Add the craft you want on the Craft to hire page; the basket keeps them on this device.</li>
    <li><strong>Check the tide.</strong> We only send boats out from two hours before high water to two hours after.</li>
    <li><strong>Show us the basket at the hut.</strong> We fit buoyancy aids, walk you through the route and take payment there.</li>
  </ol>
</section>

<section aria-labelledby="where">
  <h2 id="where">Finding the hut</h2>
  <p>Park in the Tarn Quay pay-and-display and walk past the oyster sheds to the green hut on the slipway. Dogs are welcome in the doubles.</p>
</section>`,
  });
}

function craftPage() {
  const cards = craft
    .map(
      (c) => `  <article class="craft-card">
    <h2>${escapeHtml(c.name)}</h2>
    <p class="craft-card__seats">${escapeHtml(c.seats)}</p>
    <p>${escapeHtml(c.about)}</p>
    <div class="craft-card__buy">
      <p class="craft-card__price">£${c.price} <span>a half-day</span></p>
      <button type="button" class="add" data-id="${c.id}" data-name="${escapeHtml(c.name)}" data-price="${c.price}">Add <span class="sr-only">${escapeHtml(c.name)}</span> to basket</button>
    </div>
  </article>`,
    )
    .join('\n');
  return page({
    title: 'Craft to hire',
    current: '/craft',
    body: `<section class="intro">
  <h1>Craft to hire</h1>
  <p class="lede">Every price is for a half-day, four hours around high water, and includes a buoyancy aid, a paddle and a dry bag.</p>
</section>
<div class="fleet">
${cards}
</div>
<p class="aside">Under 16s paddle with an adult in the same group. Wetsuits are £6 extra at the hut.</p>`,
  });
}

function tidesPage() {
  const rows = tides
    .map(
      (t) =>
        `<tr><th scope="row">${t.day}</th><td>${t.high}</td><td>${t.low}</td><td>${escapeHtml(t.note)}</td></tr>`,
    )
    .join('\n      ');
  return page({
    title: 'Tides & safety',
    current: '/tides',
    body: `<section class="intro">
  <h1>Tides &amp; safety</h1>
  <p class="lede">The Ossel empties to mud at low water. We hire from two hours before high water to two hours after, and we call everyone in if the wind rises above a force 4.</p>
</section>
<table class="tide-table">
  <caption>High and low water at Tarn Quay this week</caption>
  <thead><tr><th scope="col">Day</th><th scope="col">High water</th><th scope="col">Low water</th><th scope="col">Note</th></tr></thead>
  <tbody>
      ${rows}
  </tbody>
</table>
<section aria-labelledby="rules">
  <h2 id="rules">Three rules on the water</h2>
  <ul class="rules">
    <li>Wear the buoyancy aid, zipped, the whole time.</li>
    <li>Stay above the moorings at Heron Point: below them the channel runs fast on the ebb.</li>
    <li>Back at the slipway by the time on your tide card.</li>
  </ul>
</section>`,
  });
}

function basketPage() {
  return page({
    title: 'Your basket',
    current: '/basket',
    body: `<section class="intro">
  <h1>Your basket</h1>
  <p class="lede">Your basket stays on this device. Show it to us at the hut and we will have the craft ready on the slipway.</p>
</section>
<p class="basket-empty" data-basket-empty>Your basket is empty. <a href="/craft">Choose your craft</a></p>
<div class="basket" data-basket hidden>
  <table class="basket-table">
    <caption>Craft in your basket</caption>
    <thead><tr><th scope="col">Craft</th><th scope="col">How many</th><th scope="col">Half-day price</th><th scope="col"><span class="sr-only">Remove</span></th></tr></thead>
    <tbody data-basket-lines></tbody>
  </table>
  <p class="basket-summary" data-basket-summary></p>
</div>
<p class="aside">Payment is taken at the hut, by card. Nothing is reserved until you are on the slipway.</p>`,
  });
}

function notFound() {
  return page({ title: 'Not found', current: '', body: '<h1>Page not found</h1>\n<p><a href="/">Back to the quay</a></p>' });
}

const ROUTES = { '/': home, '/craft': craftPage, '/tides': tidesPage, '/basket': basketPage };

function send(res, status, type, body) {
  res.writeHead(status, { 'Content-Type': type });
  res.end(body);
}

const server = http.createServer((req, res) => {
  const { pathname } = new URL(req.url, 'http://localhost');
  try {
    if (pathname.startsWith('/css/') || pathname.startsWith('/images/') || pathname.startsWith('/js/')) {
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
  console.log(`Tarn Tide Rentals on http://0.0.0.0:${PORT}`);
});
