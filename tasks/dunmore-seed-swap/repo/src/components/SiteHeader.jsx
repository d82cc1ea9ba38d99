import { useState } from 'preact/hooks';
import { readReserved } from '../reserved.js';

const LINKS = [
  { href: '/', label: 'Home', page: 'home' },
  { href: '/seeds.html', label: 'Seed shelves', page: 'seeds' },
  { href: '/visit.html', label: 'Swap days', page: 'visit' },
];

export function SiteHeader({ page }) {
  // How many packets are put by for you, read when the page opens.
  const [count] = useState(() => readReserved().length);
  return (
    <header class="site-header">
      <a class="brand" href="/">
        <img src="/images/dunmore-mark.svg" alt="" width="40" height="40" />
        <span>Dunmore Seed Library</span>
      </a>
      <nav aria-label="Main">
        {LINKS.map((l) => (
          <a href={l.href} aria-current={l.page === page || (page === 'packet' && l.page === 'seeds') ? 'page' : undefined}>
            {l.label}
          </a>
        ))}
      </nav>
      <p class="reserved-count">Reserved: <strong>{count}</strong></p>
    </header>
  );
}
