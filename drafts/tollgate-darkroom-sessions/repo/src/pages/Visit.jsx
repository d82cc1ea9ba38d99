export default function Visit() {
  return (
    <>
      <h1>Visit the darkroom</h1>
      <section>
        <h2>Where we are</h2>
        <p>The Old Tollhouse, Brindle Road, Harrowby, on the corner by the canal bridge.</p>
        <p>The 14 bus stops outside; there are two bike hoops by the glasshouse door.</p>
      </section>
      <section>
        <h2>Your first visit</h2>
        <p>
          Everyone&rsquo;s first session starts with a half-hour induction: where the
          chemistry lives, how the timers work and how to leave the sinks for the next person.
        </p>
      </section>
      <section>
        <h2>What to bring</h2>
        <ul>
          <li>Your negatives, in sleeves.</li>
          <li>Clothes you don&rsquo;t mind splashing; we lend aprons.</li>
          <li>A towel for your hands if you like your own.</li>
        </ul>
      </section>
    </>
  );
}
