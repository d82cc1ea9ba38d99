import { useState } from 'react';

export default function Home() {
  const [started, setStarted] = useState(false);
  return (
    <>
      <h1>Welcome to __TITLE__</h1>
      <p>Replace this page with the product R0 should be.</p>
      <button className="cta" type="button" onClick={() => setStarted(true)}>
        {started ? 'Coming soon' : 'Get started'}
      </button>
      <h2>What we do</h2>
      <p>Say what the product offers, in a sentence or two.</p>
      <h2>Find us</h2>
      <p>Where and when: realistic copy the checks can protect.</p>
    </>
  );
}
