// The shared header: the brand and the main navigation, on every page.
const LINKS = [
  { page: 'home', href: '/', label: 'Home' },
  { page: 'sessions', href: '/sessions.html', label: 'Sessions' },
  { page: 'visit', href: '/visit.html', label: 'Visit' },
];

export default function Header({ page }) {
  return (
    <header className="masthead">
      <a className="brand" href="/">
        <img src="/images/safelight.svg" alt="" width="28" height="28" />
        <span>Tollgate Darkroom</span>
      </a>
      <nav aria-label="Main">
        {LINKS.map((link) => (
          <a key={link.page} href={link.href} aria-current={link.page === page ? 'page' : undefined}>
            {link.label}
          </a>
        ))}
      </nav>
    </header>
  );
}
