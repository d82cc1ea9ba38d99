import { HOURS } from '../data/hours.js';

export default function Visit() {
  return (
    <>
      <h1>Find the yard</h1>
      <p className="lede">Through the carriage arch on Marrow Lane, past the mounting block, second door on the left.</p>
      <h2>Opening hours</h2>
      <ul className="hours">
        {HOURS.map((row) => (
          <li key={row.day}>
            <span className="day">{row.day}</span>
            <span className={row.hours ? 'badge badge-open' : 'badge badge-closed'}>{row.hours ? 'Open' : 'Closed'}</span>
            <span className="times">{row.times ?? 'Ovens resting'}</span>
          </li>
        ))}
      </ul>
      <h2>Getting here</h2>
      <p>The 14 bus stops at Cressbury Green, a four-minute walk away.</p>
      <p>There is no parking in the yard itself; use the Marrow Lane car park opposite.</p>
      <p>Dogs are welcome at the outside tables by the water trough.</p>
    </>
  );
}
