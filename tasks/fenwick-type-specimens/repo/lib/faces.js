'use strict';

// The foundry's typefaces and licences. Every sample is set in a system face that stands
// in for the real one (the site ships no font files).
const faces = [
  {
    name: 'Fenwick Grotesk',
    styles: '8 styles · Sans serif',
    sample: 'Harbour lights burn late over the quayside.',
    about: 'Our first face, drawn from the lettering on the Fenwick ferry piers: open, sturdy, at home on signs and screens.',
    family: "'DejaVu Sans', sans-serif",
    year: 1996,
  },
  {
    name: 'Harrow Book',
    styles: '6 styles · Serif',
    sample: 'Every chapter begins with a quiet capital.',
    about: 'A book face with short descenders and generous counters, for novels set at eleven point and read at night.',
    family: "'DejaVu Serif', serif",
    year: 2004,
  },
  {
    name: 'Lintel Mono',
    styles: '4 styles · Monospace',
    sample: 'ledger 0417: twelve crates, two unsigned',
    about: 'Fixed-width and friendly, cut for timetables, invoices and code that people print out.',
    family: "'DejaVu Sans Mono', monospace",
    year: 2011,
  },
  {
    name: 'Callard Condensed',
    styles: '5 styles · Display',
    sample: 'SALE OF WORK AT THE DRILL HALL',
    about: 'Tall, narrow capitals after the posters pasted on the old drill hall: headlines in half the width.',
    family: "'DejaVu Sans', sans-serif",
    year: 2025,
  },
];

const licences = [
  { kind: 'Desktop', covers: 'Print, posters and documents, up to 5 computers', price: '£120' },
  { kind: 'Web', covers: 'One website, up to 50,000 visits a month', price: '£150' },
  { kind: 'App', covers: 'One mobile or desktop application', price: '£380' },
  { kind: 'Studio', covers: 'Everything above for a team of up to 20', price: '£900' },
];

module.exports = { faces, licences };
