'use strict';

// The frame every page shares: head, header with the main navigation, footer.
const NAV = [
  { href: '/', label: 'Home' },
  { href: '/typefaces', label: 'Typefaces' },
  { href: '/licensing', label: 'Licensing' },
  { href: '/studio', label: 'Studio' },
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
    return `<li><a href="${item.href}"${here}>${item.label}</a></li>`;
  }).join('\n          ');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)} · Fenwick Type Foundry</title>
  <link rel="icon" href="/images/mark.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/css/site.css">
</head>
<body>
  <header class="masthead">
    <div class="measure masthead__bar">
      <a class="wordmark" href="/"><img src="/images/mark.svg" alt="" width="32" height="32"><span>Fenwick Type Foundry</span></a>
      <nav aria-label="Main">
        <ul class="menu">
          ${nav}
        </ul>
      </nav>
    </div>
  </header>
  <main class="measure">
${body}
  </main>
  <footer class="imprint">
    <div class="measure">
      <p>Fenwick Type Foundry draws, cuts and licenses typefaces from a former print works on Tanner Row, Fenwick.</p>
      <p>Two designers, one proofing press, and letters since 1994.</p>
    </div>
  </footer>
</body>
</html>
`;
}

module.exports = { page, escapeHtml };
