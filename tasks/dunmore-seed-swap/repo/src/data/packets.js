// The seed shelves: every packet the library holds this season, in shelf order.
export const KINDS = ['Vegetables', 'Flowers', 'Herbs'];

export const PACKETS = [
  {
    id: 'cosgrave-runner',
    name: "Cosgrave's Scarlet Runner",
    kind: 'Vegetables',
    crop: 'Runner bean',
    savedBy: 'Nessa Cosgrave, plot 14',
    sow: 'Sow outdoors in late May, two beans to a pole.',
    story: 'Grown up the same hazel poles on Mill Row since 1962. Red flowers, long flat pods, and it still crops when the August wind comes off the lough.',
  },
  {
    id: 'tobermore-kale',
    name: 'Tobermore Black Kale',
    kind: 'Vegetables',
    crop: 'Kale',
    savedBy: 'Dessie Muldoon, plot 3',
    sow: 'Sow in trays in April, plant out in June.',
    story: 'Dark, puckered leaves that stand through a hard winter. Pick from the bottom up and it will feed you until March.',
  },
  {
    id: 'millweir-butterhead',
    name: 'Millweir Butterhead',
    kind: 'Vegetables',
    crop: 'Lettuce',
    savedBy: 'The Millweir school garden',
    sow: 'Sow a short row every three weeks from March to August.',
    story: 'Soft, pale hearts that are slow to bolt. The school garden has saved it for eleven summers running.',
  },
  {
    id: 'harbour-wall-calendula',
    name: 'Harbour Wall Calendula',
    kind: 'Flowers',
    crop: 'Pot marigold',
    savedBy: 'Ita Brennan, Quay Street',
    sow: 'Sow where it is to flower, from April.',
    story: 'Self-seeded out of a crack in the harbour wall and kept ever since. Deep orange, flowering from June until the first frost.',
  },
  {
    id: 'annie-roe-sweet-pea',
    name: "Annie Roe's Sweet Pea",
    kind: 'Flowers',
    crop: 'Sweet pea',
    savedBy: 'Annie Roe, plot 9',
    sow: 'Soak overnight and sow in deep pots in October or February.',
    story: 'Small, maroon and purple flowers with the strongest scent on the allotments. Pick them often and they keep coming.',
  },
  {
    id: 'glebe-lane-chives',
    name: 'Glebe Lane Chives',
    kind: 'Herbs',
    crop: 'Chives',
    savedBy: 'Father Colm, Glebe Lane',
    sow: 'Sow in pots in spring; split clumps every third year.',
    story: 'Mauve pompom flowers the bees queue for. A clump by the back door is worth three in the far corner.',
  },
  {
    id: 'schoolhouse-dill',
    name: 'Schoolhouse Dill',
    kind: 'Herbs',
    crop: 'Dill',
    savedBy: 'Maura Keane, the Old Schoolhouse',
    sow: 'Sow where it is to grow, from May; it hates being moved.',
    story: 'Tall and feathery, with seed heads like green umbrellas. Let one plant go to seed and you will have dill for life.',
  },
  {
    id: 'lough-shore-sorrel',
    name: 'Lough Shore Sorrel',
    kind: 'Herbs',
    crop: 'Broad-leaved sorrel',
    savedBy: 'Pádraig Foley, plot 21',
    sow: 'Sow in spring or autumn, in a damp corner.',
    story: 'Sharp, lemony leaves from March, long before anything else is ready. Cut the flower stalks and it keeps on leafing.',
  },
];

export function packetById(id) {
  return PACKETS.find((p) => p.id === id) ?? null;
}
