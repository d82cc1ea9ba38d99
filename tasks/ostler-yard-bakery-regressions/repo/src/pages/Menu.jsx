import { useState } from 'react';
import { BAKES, SHELVES } from '../data/bakes.js';

export default function Menu() {
  const [active, setActive] = useState('all');
  const shown = active === 'all' ? BAKES : BAKES.filter((bake) => bake.shelf === active);
  return (
    <>
      <h1>On the counter</h1>
      <p className="lede">Everything is baked in the yard each morning. Order ahead and we will keep yours by the hatch.</p>
      <div className="shelves" role="group" aria-label="Show a shelf">
        {SHELVES.map((shelf) => (
          <button
            key={shelf.id}
            type="button"
            className="shelf"
            aria-pressed={shelf.id === active}
            onClick={() => setActive(shelf.id)}
          >
            {shelf.label}
          </button>
        ))}
      </div>
      {shown.length === 0 ? (
        <p className="empty">Nothing on this shelf today.</p>
      ) : (
        <div className="bakes">
          {shown.map((bake) => (
            <article key={bake.id} className="bake">
              <h2>{bake.name}</h2>
              <p className="meta">
                <span className="tag">{SHELVES.find((shelf) => shelf.id === bake.category)?.label}</span>
                <span className="price">{bake.price}</span>
              </p>
              <p>{bake.blurb}</p>
              <a className="order-link" href={`/order.html?product=${bake.id}`}>
                Order ahead<span className="sr-only">: {bake.name}</span>
              </a>
            </article>
          ))}
        </div>
      )}
    </>
  );
}
