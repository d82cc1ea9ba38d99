import { WORKSHOPS } from '../data/workshops.js';

function placesLeft(places) {
  if (places === 0) return 'Fully booked';
  return places === 1 ? '1 place left' : `${places} places left`;
}

export default function Workshops() {
  return (
    <>
      <h1 className="ws-title">Saturday workshops</h1>
      <p className="ws-intro">
        Four people to a bench, with every tool, thread and sheet of paper provided. Each class runs from
        09:30 to 13:00, with tea at eleven.
      </p>
      <div className="ws-list">
        {WORKSHOPS.map((w) => (
          <article key={w.id} className="ws-card">
            <h2 className="ws-name">{w.name}</h2>
            <p className="ws-when">
              {w.date} &middot; {w.price} &middot; {placesLeft(w.places)}
            </p>
            <p>{w.blurb}</p>
            <a className="ws-book" href={`/commissions.html#enquire`}>
              {w.action}
            </a>
          </article>
        ))}
      </div>
    </>
  );
}
