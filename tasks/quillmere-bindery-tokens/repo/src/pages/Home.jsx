export default function Home() {
  return (
    <>
      <section className="hero">
        <div>
          <h1>Books sewn by hand, one signature at a time</h1>
          <p className="lede">
            Quillmere Bindery is a two-bench studio above the old Ropeworks. We rebind family bibles and
            cookbooks that have come apart, make blank journals to order, and teach small classes on
            Saturday mornings.
          </p>
          <a className="button" href="/workshops.html">
            See the workshops
          </a>
        </div>
        <img
          className="hero-art"
          src="/images/open-book.svg"
          alt="An open hand-sewn book with its linen thread trailing from the spine"
          width="320"
          height="240"
        />
      </section>
      <h2>What we make</h2>
      <ul className="makes">
        <li>Blank journals in goatskin, buckram or marbled paper, any size up to folio.</li>
        <li>Repairs to loose boards, split spines and torn pages, with the old cover kept where it can be.</li>
        <li>Presentation bindings for theses, wedding albums and parish registers.</li>
      </ul>
      <h2>Visit the studio</h2>
      <p>
        We are open Wednesday to Saturday, 10:00 to 16:00. Ring the brass bell by the blue door; the
        stairs are steep, so tell us if you would like us to come down to you.
      </p>
    </>
  );
}
