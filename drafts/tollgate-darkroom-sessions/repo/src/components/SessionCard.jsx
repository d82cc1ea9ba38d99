import { PROCESSES } from '../data/sessions.js';

// One session as a card; the home page shows its headings one level down.
export default function SessionCard({ session, headingLevel = 2 }) {
  const Heading = `h${headingLevel}`;
  return (
    <article className="session-card">
      <p className={`process-tag process-${session.process}`}>{PROCESSES[session.process]}</p>
      <Heading>{session.title}</Heading>
      <p className="when">
        {session.day} · {session.time}
      </p>
      <p className="note">{session.note}</p>
      <p className="card-foot">
        <span className="places">{session.places} places left</span>
        <span className="price">£{session.price} a session</span>
      </p>
    </article>
  );
}
