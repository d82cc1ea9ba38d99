// Tonight's traders, in pitch order. `id` is what the saved list stores.
export const FOODS = [
  { id: 'all', label: 'All' },
  { id: 'noodles', label: 'Noodles' },
  { id: 'grill', label: 'Grill' },
  { id: 'sweet', label: 'Sweet' },
  { id: 'veg', label: 'Veg' },
];

export const STALLS = [
  {
    id: 'ember-ramen',
    name: 'Ember Ramen',
    food: 'noodles',
    pitch: 2,
    blurb: 'Smoky pork-bone broth and a miso-butter corn bowl, ladled from a copper pot.',
  },
  {
    id: 'salt-and-smoke',
    name: 'Salt & Smoke',
    food: 'grill',
    pitch: 3,
    blurb: 'Charcoal skewers of lamb, halloumi and glazed king oyster mushrooms.',
  },
  {
    id: 'little-dough',
    name: 'Little Dough Co.',
    food: 'sweet',
    pitch: 5,
    blurb: 'Cardamom knots and brown-butter doughnuts, fried to order while you wait.',
  },
  {
    id: 'green-ladle',
    name: 'The Green Ladle',
    food: 'veg',
    pitch: 6,
    blurb: 'Red lentil dhal, blistered flatbread and a mint yoghurt that sells out by eight.',
  },
  {
    id: 'threadline',
    name: 'Threadline Noodles',
    food: 'noodles',
    pitch: 8,
    blurb: 'Hand-pulled belt noodles in black vinegar and chilli oil, stretched in front of you.',
  },
  {
    id: 'coalhouse',
    name: 'Coalhouse Arepas',
    food: 'grill',
    pitch: 9,
    blurb: 'Griddled corn arepas stuffed with black beans, plantain and salty white cheese.',
  },
  {
    id: 'frost-and-fig',
    name: 'Frost & Fig',
    food: 'sweet',
    pitch: 11,
    blurb: 'Fig-leaf ice cream and burnt-honey sundaes served in paper cones.',
  },
];

export const foodLabel = (food) => FOODS.find((f) => f.id === food)?.label ?? food;
