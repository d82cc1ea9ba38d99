// The spring programme. Nights go ahead only under a clear sky.
export const nights = [
  {
    date: '2027-03-12',
    label: 'Friday 12 March',
    title: 'Jupiter and the Galilean moons',
    about: 'Watch Io slip behind Jupiter at 21:14 through the 14-inch reflector.',
    doors: '19:30',
    members: false,
  },
  {
    date: '2027-03-26',
    label: 'Friday 26 March',
    title: 'Messier marathon',
    about: 'An all-night attempt to log all 110 Messier objects before dawn; bring a flask.',
    doors: '19:00',
    members: true,
  },
  {
    date: '2027-04-09',
    label: 'Friday 9 April',
    title: 'Galaxies of the Leo Triplet',
    about: 'Three spiral galaxies in one field of view, best after 22:00 when Leo is high.',
    doors: '20:00',
    members: false,
  },
  {
    date: '2027-04-23',
    label: 'Friday 23 April',
    title: 'Lyrid meteor watch',
    about: 'Deckchairs on the lawn and red torches only; the shower peaks after midnight.',
    doors: '21:00',
    members: false,
  },
  {
    date: '2027-05-07',
    label: 'Friday 7 May',
    title: 'Imaging workshop',
    about: 'Bring your own camera and learn to stack frames of the Whirlpool Galaxy.',
    doors: '20:30',
    members: true,
  },
];
