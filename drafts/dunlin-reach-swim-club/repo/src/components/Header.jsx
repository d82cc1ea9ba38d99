// The shared header: the brand and the main navigation, on every page.
export default function Header({ page }) {
  const here = (name) => (page === name ? 'page' : undefined);
  return (
    <header>
      <a className="brand" href="/">
        Dunlin Reach Swim Club
      </a>
      <nav aria-label="Main">
        <a href="/" aria-current={here('home')}>Home</a>
        <a href="/swims.html" aria-current={here('swims')}>Swims</a>
        <a href="/join.html" aria-current={here('join')}>Join</a>
      </nav>
    </header>
  );
}
