const LINKS = [
  { page: 'home', href: '/', label: 'Home' },
  { page: 'menu', href: '/menu.html', label: 'Menu' },
  { page: 'order', href: '/order.html', label: 'Order ahead' },
  { page: 'visit', href: '/visit.html', label: 'Visit' },
];

// The shared header: the horseshoe mark, the bakery's name and the main navigation.
export default function Header({ current }) {
  return (
    <header className="site-header">
      <a className="brand" href="/">
        <img src="/images/horseshoe.svg" alt="" width="36" height="36" />
        <span>Ostler Yard Bakery</span>
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
