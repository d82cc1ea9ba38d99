
function Header() {
  return (
    <header class="site-header">
      <div class="inner">
        <a class="brand" href="/">
          <img src="/logo.svg" alt="" width="44" height="44" />
          <span>Harbourside Gig Board</span>
        </a>
      </div>
    </header>
  );
}

function Footer() {
  return (
    <footer class="site-footer">
      <p>Harbourside Gig Board · Listings from venues around the harbour · Tips to listings@harbourside.example</p>
    </footer>
  );
}

export function App() {
  return (
    <>
      <Header />
      <main id="main">
        <section class="placeholder">
          <h1>Harbourside Gig Board</h1>
          <p>Listings are on their way. Check back soon.</p>
        </section>
      </main>
      <Footer />
    </>
  );
}
