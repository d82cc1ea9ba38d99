// The visitor's saved stalls ("My list"), kept in localStorage as a JSON array of ids.
const KEY = 'tallowby.saved';

export function readSaved() {
  try {
    const ids = JSON.parse(window.localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(ids) ? ids : [];
  } catch {
    return [];
  }
}

export function writeSaved(ids) {
  window.localStorage.setItem(KEY, JSON.stringify(ids));
}
