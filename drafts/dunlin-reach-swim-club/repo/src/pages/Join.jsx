import { prices } from '../data/swims.js';

export default function Join() {
  return (
    <>
      <h1>Join the club</h1>
      <p className="lede">
        Membership pays for the spotters’ radios, the kayak and our insurance. Pay on the beach
        or at the lifeboat house on Saturday mornings.
      </p>
      <h2>Prices</h2>
      <ul className="prices">
        {prices.map((p) => (
          <li key={p.id}>
            <h3>{p.name}</h3>
            <p className="price">
              £{p.pence} {p.per}
            </p>
            <p>{p.detail}</p>
          </li>
        ))}
      </ul>
      <h2>Before you join</h2>
      <p>Come on one guided swim first, and talk to your doctor if you have a heart condition.</p>
    </>
  );
}
