import SwimCard from '../components/SwimCard.jsx';
import { swims } from '../data/swims.js';

export default function Home() {
  return (
    <>
      <section className="hero">
        <div>
          <h1>Cold water, good company, all winter</h1>
          <p>
            We swim in Dunlin Reach every week of the year: short guided swims from the beach
            and the harbour, with a spotter on the shore and tea in the lifeboat house after.
          </p>
          <a className="cta" href="/swims.html">See January’s swims</a>
        </div>
        <img
          src="/images/dunlin.svg"
          width="480"
          height="240"
          alt="A dunlin on the tideline of the bay at sunrise"
        />
      </section>
      <h2 id="week-title">This week</h2>
      <div className="cards" aria-labelledby="week-title">
        {swims.slice(0, 2).map((swim) => (
          <SwimCard key={swim.id} swim={swim} />
        ))}
      </div>
      <h2>Before your first swim</h2>
      <ol className="steps">
        <li>Book a place with the leader, or just turn up early and ask.</li>
        <li>Bring a towel, a warm hat and something hot to drink.</li>
        <li>Get in slowly; ten minutes is plenty in January.</li>
        <li>Warm up in layers, not in a hot shower.</li>
      </ol>
    </>
  );
}
