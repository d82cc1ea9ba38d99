import { useState } from 'react';
import { STALLS } from '../data/stalls.js';

// The saved list as the first version of the site stored it.
function readOldList() {
  try {
    return JSON.parse(window.localStorage.getItem('savedStalls') ?? '[]');
  } catch {
    return [];
  }
}

export default function Visit() {
  const [saved, setSaved] = useState(readOldList);
  const mine = STALLS.filter((s) => saved.includes(s.id));

  function clearList() {
    window.localStorage.removeItem('savedStalls');
    setSaved([]);
  }

  return (
    <>
      <h1>Plan your visit</h1>
      <section>
        <h2>Opening times</h2>
        <ul className="times">
          <li>Fridays 17:00 to 23:00</li>
          <li>Saturdays 16:00 to 23:00</li>
          <li>Last orders at 22:30</li>
        </ul>
      </section>
      <section>
        <h2>Getting there</h2>
        <p>Wharf Street car park, Tallowby, behind the old grain store.</p>
        <p>The 7 and 12 buses stop on Quay Road, two minutes&rsquo; walk away.</p>
        <p>Bike racks by the east gate; there is no parking on site on market nights.</p>
      </section>
      <section className="your-list" aria-labelledby="your-list-title">
        <h2 id="your-list-title">Your list</h2>
        {mine.length === 0 ? (
          <p>
            You haven&rsquo;t saved any stalls yet. <a href="/stalls.html">Browse tonight&rsquo;s stalls</a>
          </p>
        ) : (
          <>
            <ul className="mine">
              {mine.map((s) => (
                <li key={s.id}>
                  {s.name} <span className="stall-meta">Pitch {s.pitch}</span>
                </li>
              ))}
            </ul>
            <button type="button" className="save" onClick={clearList}>
              Clear my list
            </button>
          </>
        )}
      </section>
    </>
  );
}
