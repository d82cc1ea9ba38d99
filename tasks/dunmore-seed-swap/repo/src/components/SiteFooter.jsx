export function SiteFooter() {
  return (
    <footer class="site-footer">
      <p>Dunmore Seed Library lends seed from the back room of the Dunmore Community Hall, Chapel Road.</p>
      <p>Borrow a packet, grow it out, bring some seed back in autumn.</p>
    </footer>
  );
}
