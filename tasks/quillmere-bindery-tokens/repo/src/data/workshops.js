// Saturday classes, in date order. `places` is how many seats are left (0 = fully booked).
export const WORKSHOPS = [
  {
    id: 'pamphlet',
    name: 'Pamphlet stitch for beginners',
    date: 'Saturday 14 March',
    price: '£45',
    places: 2,
    blurb: 'Fold, pierce and sew a three-hole pamphlet, then a five-hole one with a paper cover of your choosing.',
    action: 'Book now',
  },
  {
    id: 'coptic',
    name: 'Coptic binding',
    date: 'Saturday 28 March',
    price: '£60',
    places: 4,
    blurb: 'An exposed-spine binding that lies flat when open; you go home with an eighty-page sketchbook.',
    action: 'Reserve a seat',
  },
  {
    id: 'case',
    name: 'Case binding in cloth',
    date: 'Saturday 11 April',
    price: '£75',
    places: 0,
    blurb: 'Take a text block all the way to cloth-covered boards, with headbands and a ribbon marker.',
    action: 'Waitlist',
  },
  {
    id: 'marbling',
    name: 'Marbled endpapers',
    date: 'Saturday 25 April',
    price: '£50',
    places: 3,
    blurb: 'Float colour on carrageen size and pull a set of papers for the next book you bind.',
    action: 'Join',
  },
];
