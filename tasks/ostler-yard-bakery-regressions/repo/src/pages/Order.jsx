import { useState } from 'react';
import { BAKES } from '../data/bakes.js';

const params = new URLSearchParams(window.location.search);

export default function Order() {
  const [item, setItem] = useState(() => (BAKES.some((bake) => bake.id === params.get('item')) ? params.get('item') : ''));
  const [name, setName] = useState('');
  const [sent, setSent] = useState(false);
  const chosen = BAKES.find((bake) => bake.id === item);
  const submit = (event) => {
    event.preventDefault();
    if (chosen && name.trim()) setSent(true);
  };
  return (
    <>
      <h1>Order ahead</h1>
      <p className="lede">Order before 18:00 and collect from the hatch the next morning.</p>
      <form className="order-form" onSubmit={submit}>
        <label htmlFor="order-item">What would you like?</label>
        <select id="order-item" value={item} onChange={(event) => setItem(event.target.value)}>
          <option value="">Choose a bake</option>
          {BAKES.map((bake) => (
            <option key={bake.id} value={bake.id}>
              {bake.name} ({bake.price})
            </option>
          ))}
        </select>
        <label htmlFor="order-name">Name for the hatch</label>
        <input id="order-name" value={name} onChange={(event) => setName(event.target.value)} autoComplete="name" />
        <p className="summary" aria-live="polite">
          {chosen ? `Your order: ${chosen.name}` : 'Your order: nothing chosen yet'}
        </p>
        <button type="submit" className="cta">Keep it for me</button>
      </form>
      {sent && <p className="confirm">Thanks, {name.trim()}. Your {chosen.name} will be waiting at the hatch.</p>}
      <p className="back">
        <a href="/menu.html">Back to the menu</a>
      </p>
    </>
  );
}
