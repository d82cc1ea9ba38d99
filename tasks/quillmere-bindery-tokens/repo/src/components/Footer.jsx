export default function Footer() {
  return (
    <footer className="site-footer">
      <p>Quillmere Bindery, upper floor of the old Ropeworks, Tanner&rsquo;s Row, Quillmere.</p>
      <p>Books sewn by hand since 2009.</p>
    </footer>
  );
}
