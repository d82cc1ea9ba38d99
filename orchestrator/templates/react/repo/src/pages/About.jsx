export default function About() {
  return (
    <>
      <h1>About __TITLE__</h1>
      <p>Who runs the product, and why: a few sentences of realistic copy.</p>
      <h2>What we do</h2>
      <p>Say what the product offers, in a sentence or two.</p>
      <h2>Find us</h2>
      <p>Where and when: realistic copy the checks can protect.</p>
    </>
  );
}
