const LINKS = [
  { page: 'home', href: '/', label: 'Home' },
  { page: 'workshops', href: '/workshops.html', label: 'Workshops' },
  { page: 'commissions', href: '/commissions.html', label: 'Commissions' },
];

// The shared header: the studio's mark and the main navigation, on every page.
export default function Header({ current }) {
  return (
    <header className="site-header">
      <a className="brand" href="/">
        <img src="/images/awl.svg" alt="" width="28" height="36" />
        <span>Quillmere Bindery</span>
      </a>
      <nav aria-label="Main">
        {LINKS.map((link) => (
          <a key={link.page} href={link.href} aria-current={link.page === current ? 'page' : undefined}>
            {link.label}
          </a>
        ))}
      </nav>
    </header>
  );
}
