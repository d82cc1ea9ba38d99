// One guided swim, as a card: used by the Swims page and the home page's "This week".
export default function SwimCard({ swim }) {
  return (
    <article className="swim">
      <p className="when">
        {swim.day} · in the water at {swim.start}
      </p>
      <h3>{swim.title}</h3>
      <p className="meet">Meet at {swim.leader}</p>
      <p>{swim.note}</p>
      <p className="led">Led by {swim.leader}</p>
      <p className="places">{swim.places} places left</p>
    </article>
  );
}
