const DAYS = [
  { date: 'Saturday 7 March', time: '10:00 to 12:30', note: 'Spring opening: tray sowing demonstration at 11.' },
  { date: 'Saturday 4 April', time: '10:00 to 12:30', note: 'Bring spare seedlings for the swap table.' },
  { date: 'Saturday 2 May', time: '10:00 to 12:30', note: 'Last collection before the summer break.' },
];

export function VisitPage() {
  return (
    <>
      <h1>Swap days</h1>
      <p class="lede">Reserved packets wait for you in the back room of the Dunmore Community Hall, Chapel Road, on the first Saturday of the month.</p>
      <ul class="days">
        {DAYS.map((d) => (
          <li>
            <h2>{d.date}</h2>
            <p class="time">{d.time}</p>
            <p>{d.note}</p>
          </li>
        ))}
      </ul>
      <h2>House rules</h2>
      <p>Packets not collected by the end of a swap day go back on the shelves.</p>
      <p>Returned seed must be dry, cleaned and labelled with the variety and the year.</p>
    </>
  );
}
