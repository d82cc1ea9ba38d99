import { useState } from 'react';
import { FOODS, STALLS, foodLabel } from '../data/stalls.js';
import { readSaved, writeSaved } from '../lib/savedList.js';

export default function Stalls() {
  const [food, setFood] = useState(() => new URLSearchParams(window.location.search).get('cuisine') ?? 'all');
  const [saved, setSaved] = useState(readSaved);

  function toggleSaved(id) {
    const next = saved.includes(id) ? saved.filter((s) => s !== id) : [...saved, id];
    setSaved(next);
    writeSaved(saved);
  }

  const shown = food === 'all' ? STALLS : STALLS.filter((s) => s.food === food);
  return (
    <>
      <h1>Tonight&rsquo;s stalls</h1>
      <p className="lede">Save the stalls you want to try and we&rsquo;ll keep them on your list for the evening.</p>
      <div className="chips" role="group" aria-label="Filter by food">
        {FOODS.map((f) => (
          <button
            key={f.id}
            type="button"
            className="chip"
            aria-pressed={food === f.id}
            onClick={() => setFood(f.id)}
          >
            {f.label}
          </button>
        ))}
      </div>
      <div className="stall-grid">
        {shown.map((stall) => {
          const isSaved = saved.includes(stall.id);
          return (
            <article key={stall.id} className="stall">
              <h2>{stall.name}</h2>
              <p className="stall-meta">
                {foodLabel(stall.food)} &middot; Pitch {stall.pitch}
              </p>
              <p>{stall.blurb}</p>
              <button type="button" className="save" aria-pressed={isSaved} onClick={() => toggleSaved(stall.id)}>
                {isSaved ? 'Saved' : 'Save'}
                <span className="sr-only"> {stall.name}</span>
              </button>
            </article>
          );
        })}
      </div>
    </>
  );
}
