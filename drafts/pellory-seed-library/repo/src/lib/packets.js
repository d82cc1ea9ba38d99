// The seed tins on the lending desk, as the volunteers catalogued them this autumn.
// `tin` is the number painted on the tin the packet lives in.
export const packets = [
  { id: 'crimson-bean', name: 'Crimson Flowered broad bean', kind: 'Broad bean', tin: 2, sow: 'March to April', saver: 'Saved by Nell, plot 14' },
  { id: 'sugar-ann', name: 'Sugar Ann pea', kind: 'Pea', tin: 5, sow: 'April to June', saver: 'Saved by the Tuesday group' },
  { id: 'black-krim', name: 'Black Krim tomato', kind: 'Tomato', tin: 7, sow: 'February to March, indoors', saver: 'Saved by Osman, greenhouse 2' },
  { id: 'tromba', name: 'Tromboncino squash', kind: 'Squash', tin: 6, sow: 'May, indoors', saver: 'Saved by Ruth, plot 3' },
  { id: 'cosmic-purple', name: 'Cosmic Purple carrot', kind: 'Carrot', tin: 1, sow: 'April to July', saver: 'Saved by Pellory Primary' },
  { id: 'blue-lake', name: 'Blue Lake climbing bean', kind: 'French bean', tin: 3, sow: 'May to June', saver: 'Saved by Nell, plot 14' },
];
