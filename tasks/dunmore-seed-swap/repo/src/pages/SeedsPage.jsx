import { useState } from 'preact/hooks';
import { KINDS, PACKETS } from '../data/packets.js';
import { useReserved } from '../reserved.js';

// The shelf filter lives in the address (?type=herbs) so a filtered shelf can be shared.
function readKind() {
  const type = new URLSearchParams(window.location.search).get('type');
  return KINDS.find((k) => k.toLowerCase() === type) ?? 'All';
}

function showKind(kind) {
  const url = new URL(window.location.href);
  if (kind === 'All') url.searchParams.delete('type');
  else url.searchParams.set('type', kind.toLowerCase());
  window.history.replaceState(null, '', url);
}

export function SeedsPage() {
  const [kind, setKind] = useState(readKind);
  const [reserved, toggle] = useReserved();
  const choose = (k) => {
    showKind(k);
    setKind(k);
  };
  const shown = kind === 'All' ? PACKETS : PACKETS.filter((p) => p.kind === kind);
  return (
    <>
      <h1>The seed shelves</h1>
      <p class="lede">Every packet here was grown and saved by a Dunmore gardener. Reserve the ones you want and collect them on a swap day.</p>
      <div class="shelf-filter" role="group" aria-label="Show">
        {['All', ...KINDS].map((k) => (
          <button type="button" class="chip" aria-pressed={kind === k ? 'true' : 'false'} onClick={() => choose(k)}>
            {k === 'All' ? 'All seeds' : k}
          </button>
        ))}
      </div>
      <div class="shelf">
        {shown.map((p) => {
          const on = reserved.includes(p.id);
          return (
            <article class={on ? 'packet is-reserved' : 'packet'} key={p.id}>
              <p class="kind">{p.kind}</p>
              <h2><a href={`/packet.html?id=${p.id}`}>{p.name}</a></h2>
              <p class="crop">{p.crop}</p>
              <p class="saved-by">Saved by {p.savedBy}</p>
              <button type="button" class="reserve" aria-pressed={on ? 'true' : 'false'} onClick={() => toggle(p.id)}>
                {on ? 'Reserved' : 'Reserve packet'}
              </button>
            </article>
          );
        })}
      </div>
    </>
  );
}
