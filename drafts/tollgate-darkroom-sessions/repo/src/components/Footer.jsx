export default function Footer() {
  return (
    <footer className="site-footer">
      <p>Tollgate Darkroom, The Old Tollhouse, Brindle Road, Harrowby.</p>
      <p>A members&rsquo; co-operative since 2009. Open sessions are for everyone.</p>
    </footer>
  );
}
