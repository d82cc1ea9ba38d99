import { useState } from 'preact/hooks';

// The packets a member has reserved for the next swap day, kept in this browser.
const KEY = 'dunmore-reserved';

export function readReserved() {
  try {
    const ids = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(ids) ? ids : [];
  } catch {
    return [];
  }
}

function writeReserved(ids) {
  localStorage.setItem(KEY, JSON.stringify(ids));
}

// The shelves' reservations: a list of packet ids and a toggle that saves them.
export function useReserved() {
  const [ids, setIds] = useState(readReserved);
  const toggle = (id) => {
    const next = ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id];
    writeReserved(next);
    setIds(next);
  };
  return [ids, toggle];
}
