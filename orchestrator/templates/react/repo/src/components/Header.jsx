// The shared header: the brand and the main navigation, on every page.
export default function Header() {
  return (
    <header>
      <a className="brand" href="/">
        __TITLE__
      </a>
      <nav aria-label="Main">
        <a href="/">Home</a> <a href="/about.html">About</a>
      </nav>
    </header>
  );
}
