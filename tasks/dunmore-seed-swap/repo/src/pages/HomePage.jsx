export function HomePage() {
  return (
    <>
      <section class="hero">
        <div class="hero-text">
          <h1>Seed saved on Dunmore plots, lent out for free</h1>
          <p class="lede">
            The Dunmore Seed Library keeps seed that neighbours have grown and saved for years.
            Reserve a packet, collect it on a swap day, grow it out, and bring a little seed back
            in the autumn so the shelf stays full.
          </p>
          <a class="cta" href="/seeds.html">Browse the seed shelves</a>
        </div>
        <img class="hero-picture" src="/images/seed-packets.svg" width="360" height="260"
          alt="Three paper seed packets tied with string beside a trowel" />
      </section>
      <section class="how">
        <h2>How borrowing works</h2>
        <ol>
          <li>Reserve up to three packets on the seed shelves.</li>
          <li>Collect them at the hall on the next swap day.</li>
          <li>Grow them out and let a plant or two go to seed.</li>
          <li>Bring back a spoonful of seed, labelled, by the end of October.</li>
        </ol>
      </section>
      <section class="notice">
        <h2>This season's shelves</h2>
        <p>Eight varieties this spring, from runner beans to sorrel. Everything on the shelves was grown within five miles of the hall.</p>
      </section>
    </>
  );
}
