// The counter, in shelf order. `category` is the shelf the menu filter groups by.
export const SHELVES = [
  { id: 'all', label: 'All' },
  { id: 'bread', label: 'Bread' },
  { id: 'pastries', label: 'Pastries' },
  { id: 'cakes', label: 'Cakes' },
];

export const BAKES = [
  { id: 'stable-sour', name: 'Stable Door Sourdough', category: 'bread', price: '£4.80', blurb: 'Our everyday white sourdough, proved overnight in the old tack room and baked dark.' },
  { id: 'rye-caraway', name: 'Rye & Caraway Loaf', category: 'bread', price: '£5.20', blurb: 'Dense, dark and a little sour, with toasted caraway through the crumb.' },
  { id: 'hayloft-seeded', name: 'Hayloft Seeded Tin', category: 'bread', price: '£4.50', blurb: 'Sunflower, pumpkin and linseed in a soft sandwich tin.' },
  { id: 'cardamom-knot', name: 'Cardamom Knot', category: 'pastries', price: '£3.10', blurb: 'Laminated dough twisted with cardamom sugar and glazed with syrup.' },
  { id: 'bramble-danish', name: 'Bramble Danish', category: 'pastries', price: '£3.40', blurb: 'Custard and blackberries from the hedge behind the yard, in season.' },
  { id: 'cheddar-leek', name: 'Cheddar & Leek Turnover', category: 'pastries', price: '£3.90', blurb: 'Flaky pastry around mature cheddar, soft leeks and a little mustard.' },
  { id: 'treacle-tart', name: 'Farrier’s Treacle Tart', category: 'cakes', price: '£3.60', blurb: 'A slice of golden syrup tart with lemon zest and a short crust.' },
  { id: 'parsnip-cake', name: 'Spiced Parsnip Cake', category: 'cakes', price: '£3.50', blurb: 'Like carrot cake, only earthier, with a brown-butter icing.' },
];
