export default function Footer() {
  return (
    <footer className="site-footer">
      <p>Ostler Yard Bakery, Unit 3, The Old Stables, Marrow Lane, Cressbury.</p>
      <p>Baking in the coach house since 2017.</p>
    </footer>
  );
}
