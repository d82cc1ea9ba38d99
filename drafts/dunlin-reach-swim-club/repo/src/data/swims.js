// January's guided swims, in date order. `meet` is where the group gathers,
// `leader` the volunteer who leads it, `start` when the group gets in the water.
export const swims = [
  {
    id: 'sunrise-dip',
    title: 'Sunrise dip',
    day: 'Saturday 9 January',
    start: '07:30',
    meet: 'Gull Steps',
    leader: 'Ros Tregear',
    places: 6,
    note: 'Ten minutes in the bay as the sun comes over Penmarrow Head.',
  },
  {
    id: 'beginners-ten',
    title: 'Beginners’ ten minutes',
    day: 'Sunday 10 January',
    start: '10:00',
    meet: 'the lifeguard hut',
    leader: 'Dev Anand',
    places: 1,
    note: 'Your first winter swim, with two of us in the water beside you.',
  },
  {
    id: 'lunchtime-out-and-back',
    title: 'Lunchtime out-and-back',
    day: 'Wednesday 13 January',
    start: '12:15',
    meet: 'the harbour slipway',
    leader: 'Mags Pellow',
    places: 4,
    note: 'Along the harbour wall to the green buoy and back, about 300 metres.',
  },
  {
    id: 'buoy-to-buoy',
    title: 'Buoy to buoy',
    day: 'Saturday 16 January',
    start: '08:00',
    meet: 'Gull Steps',
    leader: 'Ros Tregear',
    places: 3,
    note: 'For regulars: the four marker buoys of the bay, with a kayak alongside.',
  },
  {
    id: 'family-paddle',
    title: 'Family paddle',
    day: 'Sunday 17 January',
    start: '11:00',
    meet: 'the beach café steps',
    leader: 'Tamsin Hoar',
    places: 8,
    note: 'Children with an adult, knee to waist deep, hot squash afterwards.',
  },
];

// Membership, in pence.
export const prices = [
  { id: 'year', name: 'Full year', pence: 4500, per: 'a year', detail: 'Every guided swim, the club’s insurance and a vote at the AGM.' },
  { id: 'winter', name: 'Winter season', pence: 2800, per: 'a season', detail: 'November to March, when the lifeguards have gone.' },
  { id: 'single', name: 'One guided swim', pence: 750, per: 'a swim', detail: 'Try us before you join; pay on the beach.' },
  { id: 'junior', name: 'Under-16s with an adult', pence: 350, per: 'a swim', detail: 'The adult swims with them, at their own price.' },
];
