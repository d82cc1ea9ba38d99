'use strict';

// The frame every page shares: head, header with the main navigation and the basket link, footer.
const NAV = [
  { href: '/', label: 'Home' },
  { href: '/craft', label: 'Craft to hire' },
  { href: '/tides', label: 'Tides & safety' },
];

function escapeHtml(value) {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function page({ title, current, body }) {
  const nav = NAV.map((item) => {
    const here = item.href === current ? ' aria-current="page"' : '';
    return `<li><a href="${item.href}"${here}>${escapeHtml(item.label)}</a></li>`;
  }).join('\n          ');
  const basketHere = current === '/basket' ? ' aria-current="page"' : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)} · Tarn Tide Rentals</title>
  <link rel="icon" href="/images/mark.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/css/site.css">
  <script src="/js/basket.js" defer></script>
</head>
<body>
  <header class="topbar">
    <div class="wrap topbar__inner">
      <a class="brand" href="/"><img src="/images/mark.svg" alt="" width="36" height="36"><span>Tarn Tide Rentals</span></a>
      <nav aria-label="Main">
        <ul class="menu">
          ${nav}
        </ul>
      </nav>
      <a class="basket-link" href="/basket"${basketHere}>Basket (<span data-basket-count>0</span>)</a>
    </div>
  </header>
  <main class="wrap">
${body}
  </main>
  <footer class="footing">
    <div class="wrap">
      <p>Tarn Tide Rentals hires kayaks and paddleboards from the hut at the end of Tarn Quay, on the Ossel estuary, from Easter to the end of October.</p>
      <p>Every hire comes with a buoyancy aid, a dry bag and a tide card.</p>
    </div>
  </footer>
</body>
</html>
`;
}

module.exports = { page, escapeHtml };
