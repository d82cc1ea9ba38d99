import SwimCard from '../components/SwimCard.jsx';
import { swims } from '../data/swims.js';

export default function Swims() {
  return (
    <>
      <h1>Guided swims in January</h1>
      <p className="lede">
        Every swim has a leader in the water and a spotter on the shore. Come ten minutes early
        if it is your first time with us.
      </p>
      <div className="cards">
        {swims.map((swim) => (
          <SwimCard key={swim.id} swim={swim} />
        ))}
      </div>
    </>
  );
}
