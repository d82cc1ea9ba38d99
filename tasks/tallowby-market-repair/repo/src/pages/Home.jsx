import { FOODS } from '../data/stalls.js';

export default function Home() {
  return (
    <>
      <section className="hero">
        <div>
          <h1>Street food under the lanterns</h1>
          <p className="lede">
            Every Friday and Saturday night, fourteen independent cooks fire up their stoves on the old wharf. Come
            hungry, bring friends, stay for the fiddle band.
          </p>
          <a className="cta" href="/stalls.html">
            See tonight&rsquo;s stalls
          </a>
        </div>
        <img
          className="hero-art"
          src="/images/market-dusk.svg"
          alt="Strings of paper lanterns over market stalls at dusk"
          width="360"
          height="240"
        />
      </section>
      <section>
        <h2>Craving something?</h2>
        <p>Jump straight to the stalls that cook it.</p>
        <ul className="cravings">
          {FOODS.filter((f) => f.id !== 'all').map((f) => (
            <li key={f.id}>
              <a href={`/stalls.html?type=${f.id}`}>{f.label}</a>
            </li>
          ))}
        </ul>
      </section>
      <section>
        <h2>How the market works</h2>
        <ol className="steps">
          <li>Pay at any stall by card or cash.</li>
          <li>Grab a seat at the long tables by the river wall.</li>
          <li>Bring your own cup for 50p off at the drinks hut.</li>
        </ol>
      </section>
    </>
  );
}
