import SessionCard from '../components/SessionCard.jsx';
import { SESSIONS } from '../data/sessions.js';

export default function Sessions() {
  return (
    <>
      <h1>Darkroom sessions</h1>
      <p className="lede">
        Every session has a volunteer on hand. Places are per enlarger or per bench, and you
        pay on the night.
      </p>
      <div className="card-grid">
        {SESSIONS.map((session) => (
          <SessionCard key={session.id} session={session} />
        ))}
      </div>
    </>
  );
}
