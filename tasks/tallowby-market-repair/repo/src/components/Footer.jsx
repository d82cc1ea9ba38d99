export default function Footer() {
  return (
    <footer className="site-footer">
      <p>Fridays and Saturdays on Wharf Street car park, April to October.</p>
      <p>Run by the Tallowby Traders&rsquo; Co-operative since 2014.</p>
    </footer>
  );
}
