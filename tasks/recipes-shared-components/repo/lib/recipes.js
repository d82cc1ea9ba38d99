'use strict';

// The recipe box. `minutes` and `serves` feed the card meta line.
const recipes = [
  {
    slug: 'charred-leek-toast',
    title: 'Charred leek & white bean toast',
    minutes: 20,
    serves: 2,
    vegetarian: true,
    image: '/images/toast.svg',
    summary: 'Sweet blistered leeks over lemony crushed beans on thick sourdough.',
    section: 'Quick weeknights',
    ingredients: ['2 leeks, halved lengthways', '1 tin cannellini beans, drained', '1 lemon, zest and juice', '4 slices sourdough', 'A handful of parsley'],
    method: [
      'Char the leeks cut-side down in a dry pan for 6 minutes, then turn and soften.',
      'Crush the beans with lemon, olive oil, salt and pepper.',
      'Toast the sourdough, pile on the beans and top with the leeks and parsley.',
    ],
  },
  {
    slug: 'miso-squash-soup',
    title: 'Miso butternut soup',
    minutes: 35,
    serves: 4,
    vegetarian: true,
    image: '/images/bowl.svg',
    summary: 'Roasted squash blended with white miso and ginger, finished with crispy shallots.',
    section: 'Slow & cosy',
    ingredients: ['1 butternut squash, cubed', '2 tbsp white miso', 'A thumb of ginger, grated', '1 litre vegetable stock', '2 shallots, thinly sliced'],
    method: [
      'Roast the squash at 200°C for 25 minutes until caramelised at the edges.',
      'Simmer with the stock and ginger for 5 minutes, then blend with the miso.',
      'Fry the shallots until crisp and scatter over each bowl.',
    ],
  },
  {
    slug: 'harissa-chicken-traybake',
    title: 'Harissa chicken traybake',
    minutes: 50,
    serves: 4,
    vegetarian: false,
    image: '/images/tray.svg',
    summary: 'Thighs, peppers and chickpeas roasted in rose harissa, with a cool yoghurt drizzle.',
    section: 'Slow & cosy',
    ingredients: ['8 chicken thighs', '2 tbsp rose harissa', '2 red peppers, in strips', '1 tin chickpeas, drained', '150 g Greek yoghurt'],
    method: [
      'Toss everything but the yoghurt with the harissa and a glug of oil.',
      'Roast at 200°C for 40 minutes, turning the peppers halfway.',
      'Loosen the yoghurt with lemon and drizzle over to serve.',
    ],
  },
  {
    slug: 'herby-lentil-salad',
    title: 'Warm herby lentil salad',
    minutes: 25,
    serves: 3,
    vegetarian: true,
    image: '/images/bowl.svg',
    summary: 'Puy lentils dressed while warm with mustard, soft herbs and salty feta.',
    section: 'Quick weeknights',
    ingredients: ['200 g Puy lentils', '1 tsp Dijon mustard', '1 small red onion, finely diced', 'Parsley, mint and dill', '100 g feta'],
    method: [
      'Simmer the lentils for 20 minutes until just tender, then drain.',
      'Whisk the mustard with oil and vinegar and toss through the warm lentils.',
      'Fold in the onion and herbs and crumble over the feta.',
    ],
  },
  {
    slug: 'smoked-haddock-chowder',
    title: 'Smoked haddock chowder',
    minutes: 40,
    serves: 4,
    vegetarian: false,
    image: '/images/bowl.svg',
    summary: 'A creamy, smoky pot of potato, sweetcorn and flaky haddock.',
    section: 'Slow & cosy',
    ingredients: ['400 g smoked haddock', '3 potatoes, diced', '1 onion, chopped', '200 g sweetcorn', '500 ml milk'],
    method: [
      'Soften the onion in butter, add the potatoes and milk and simmer for 15 minutes.',
      'Lay the haddock on top, cover and poach for 8 minutes, then flake.',
      'Stir in the sweetcorn, season with pepper and serve with crusty bread.',
    ],
  },
  {
    slug: 'pear-ginger-crumble',
    title: 'Pear & ginger crumble',
    minutes: 45,
    serves: 6,
    vegetarian: true,
    image: '/images/tray.svg',
    summary: 'Soft pears with stem ginger under an oaty, demerara crumble.',
    section: 'Something sweet',
    ingredients: ['6 ripe pears, chopped', '2 balls stem ginger, chopped', '150 g plain flour', '100 g cold butter', '75 g oats and 75 g demerara'],
    method: [
      'Tumble the pears and ginger into a baking dish.',
      'Rub the butter into the flour, then stir in the oats and sugar.',
      'Scatter over the fruit and bake at 190°C for 35 minutes until golden.',
    ],
  },
];

const sections = ['Quick weeknights', 'Slow & cosy', 'Something sweet'];
const featured = ['charred-leek-toast', 'miso-squash-soup', 'harissa-chicken-traybake'];

function findRecipe(slug) {
  return recipes.find((r) => r.slug === slug);
}

function relatedTo(slug) {
  return recipes.filter((r) => r.slug !== slug).slice(0, 3);
}

module.exports = { recipes, sections, featured, findRecipe, relatedTo };
