export default function Home() {
  return (
    <>
      <section className="hero">
        <div>
          <h1>Bread from the old stable yard</h1>
          <p className="lede">
            Ostler Yard Bakery bakes in the coach house of a Victorian stable block: sourdough before dawn,
            pastries by eight, and a pot of tea at the tables where the horses used to be shod.
          </p>
          <a className="cta" href="/order.html">Order ahead for collection</a>
        </div>
        <img
          src="/images/yard.svg"
          alt="Arched stable doors with a bread peel leaning by the mounting block"
          width="420"
          height="300"
        />
      </section>
      <h2>How ordering ahead works</h2>
      <ol className="steps">
        <li>Pick a loaf or a pastry from the menu before 18:00 the day before.</li>
        <li>Collect it from the hatch by the mounting block, still warm.</li>
        <li>Pay at the hatch by card or cash; there is no deposit.</li>
      </ol>
      <h2>From the yard</h2>
      <p>
        The stables were built in 1868 for the coaching inn on Marrow Lane. We kept the cobbles, the tack hooks
        and the hayloft ladder; the ovens went where the forge was.
      </p>
    </>
  );
}
