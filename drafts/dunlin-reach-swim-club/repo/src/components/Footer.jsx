export default function Footer() {
  return (
    <footer>
      <p>Dunlin Reach Swim Club, the Old Lifeboat House, Quay Road, Penmarrow.</p>
      <p>Volunteer-run since 2014. Swim within your limits; every guided swim has a spotter on the shore.</p>
    </footer>
  );
}
