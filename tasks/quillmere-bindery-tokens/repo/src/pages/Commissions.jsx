const SERVICES = [
  {
    name: 'Journals to order',
    price: 'From £85',
    text: 'Choose the paper, the size and the cover; we sew it on the frame and letter the spine by hand.',
  },
  {
    name: 'Repairs and rebinding',
    price: 'From £40',
    text: 'Loose boards reattached, split spines relined and torn leaves mended with Japanese tissue.',
  },
  {
    name: 'Presentation bindings',
    price: 'From £120',
    text: 'Theses, albums and registers in full cloth or quarter leather, ready in three weeks.',
  },
];

export default function Commissions() {
  return (
    <>
      <h1 className="comm-heading">Commissions</h1>
      <p>
        Every commission starts with a conversation at the bench: bring the book, or an idea of it, and we
        will talk through materials, time and cost before anything is cut.
      </p>
      <div className="comm-services">
        {SERVICES.map((s) => (
          <article key={s.name} className="comm-box">
            <h2 className="comm-sub">{s.name}</h2>
            <p className="comm-price">{s.price}</p>
            <p>{s.text}</p>
          </article>
        ))}
      </div>
      <section id="enquire" aria-labelledby="enquire-title">
        <h2 className="comm-sub" id="enquire-title">
          Ask about a commission or a workshop place
        </h2>
        <p>Write to studio@quillmere-bindery.example or call 01632 960 418 during opening hours.</p>
        <a className="comm-cta" href="mailto:studio@quillmere-bindery.example">
          Email us
        </a>
      </section>
    </>
  );
}
