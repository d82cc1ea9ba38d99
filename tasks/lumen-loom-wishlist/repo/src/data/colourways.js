// This season's colourways, in the order of the shade card.
export const colourways = [
  { id: 'kelp-forest', name: 'Kelp Forest', base: 'Merino DK', price: '£19', hex: '#2f5d50' },
  { id: 'ember-moss', name: 'Ember Moss', base: 'Bluefaced Leicester 4-ply', price: '£21', hex: '#8a4b2a' },
  { id: 'harbour-fog', name: 'Harbour Fog', base: 'Merino DK', price: '£19', hex: '#9aa7b0' },
  { id: 'saffron-lamp', name: 'Saffron Lamp', base: 'Corriedale Aran', price: '£22', hex: '#e0a42b' },
  { id: 'sloe-gin', name: 'Sloe Gin', base: 'Bluefaced Leicester 4-ply', price: '£21', hex: '#5b2a4e' },
  { id: 'tidewrack', name: 'Tidewrack', base: 'Corriedale Aran', price: '£22', hex: '#4f6b3a' },
  { id: 'lantern-glass', name: 'Lantern Glass', base: 'Merino DK', price: '£19', hex: '#c9d9c2' },
  { id: 'peat-smoke', name: 'Peat Smoke', base: 'Bluefaced Leicester 4-ply', price: '£21', hex: '#4a3f38' },
];

export const colourOfTheMonth = 'saffron-lamp';
