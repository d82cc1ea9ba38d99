import SessionCard from '../components/SessionCard.jsx';
import { SESSIONS } from '../data/sessions.js';

export default function Home() {
  return (
    <>
      <section className="hero">
        <div className="hero-text">
          <h1>Print your own photographs in the old tollhouse</h1>
          <p className="lede">
            Tollgate Darkroom is a shared darkroom for film photographers: nine enlargers, a
            colour processor and a glasshouse for sun printing, run by the people who use it.
          </p>
          <a className="button" href="/sessions.html">
            See January&rsquo;s sessions
          </a>
        </div>
        <img
          className="hero-picture"
          src="/images/tray.svg"
          alt="A print coming up in a developing tray under a red safelight"
          width="360"
          height="270"
        />
      </section>

      <section className="upcoming" aria-labelledby="upcoming-title">
        <h2 id="upcoming-title">Next in the darkroom</h2>
        <div className="card-grid">
          {SESSIONS.slice(0, 3).map((session) => (
            <SessionCard key={session.id} session={session} headingLevel={3} />
          ))}
        </div>
      </section>

      <section className="steps">
        <h2>How a session works</h2>
        <ol>
          <li>Book a place on a session; the first one includes a half-hour induction.</li>
          <li>Bring your negatives. Chemistry, trays and tongs are ready when you arrive.</li>
          <li>Buy paper by the sheet from the cabinet, or bring your own box.</li>
          <li>Leave your prints on the drying rack and collect them next time.</li>
        </ol>
      </section>
    </>
  );
}
