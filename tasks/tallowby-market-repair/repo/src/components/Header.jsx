import { useState } from 'react';
import { readSaved } from '../lib/savedList.js';

const LINKS = [
  { page: 'home', href: '/', label: 'Home' },
  { page: 'stalls', href: '/stalls.html', label: 'Stalls' },
  { page: 'visit', href: '/visit.html', label: 'Visit' },
];

// The shared header: the brand, the main navigation and the size of "My list", on every page.
export default function Header({ current }) {
  const [count] = useState(() => readSaved().length);
  return (
    <header className="site-header">
      <a className="brand" href="/">
        <img src="/images/lantern.svg" alt="" width="32" height="40" />
        <span>Tallowby Night Market</span>
      </a>
      <nav aria-label="Main">
        {LINKS.map((link) => (
          <a key={link.page} href={link.href} aria-current={link.page === current ? 'page' : undefined}>
            {link.label}
          </a>
        ))}
      </nav>
      <p className="my-list-count">My list ({count})</p>
    </header>
  );
}
