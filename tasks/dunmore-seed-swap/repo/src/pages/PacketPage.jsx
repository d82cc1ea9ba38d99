import { useState } from 'preact/hooks';
import { packetById } from '../data/packets.js';

export function PacketPage() {
  const packet = packetById(new URLSearchParams(window.location.search).get('id'));
  const [reserved, setReserved] = useState(false);
  if (!packet) {
    return (
      <>
        <h1>No such packet</h1>
        <p><a href="/seeds.html">Back to the seed shelves</a></p>
      </>
    );
  }
  return (
    <>
      <p class="back"><a href="/seeds.html">Back to the seed shelves</a></p>
      <article class={reserved ? 'packet-detail is-reserved' : 'packet-detail'}>
        <p class="kind">{packet.kind}</p>
        <h1>{packet.name}</h1>
        <p class="crop">{packet.crop}</p>
        <p>{packet.story}</p>
        <h2>Sowing</h2>
        <p>{packet.sow}</p>
        <h2>Saved by</h2>
        <p>{packet.savedBy}</p>
        <button type="button" class="reserve" aria-pressed={reserved ? 'true' : 'false'} onClick={() => setReserved(!reserved)}>
          {reserved ? 'Reserved' : 'Reserve packet'}
        </button>
      </article>
    </>
  );
}
