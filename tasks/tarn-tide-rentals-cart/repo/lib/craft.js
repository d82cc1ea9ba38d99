'use strict';

// The fleet, in the order the Craft page lists it. Prices are for a half-day (four hours).
const craft = [
  {
    id: 'sit-on-top',
    name: 'Sit-on-top kayak',
    price: 22,
    seats: 'One paddler',
    about: 'Stable and forgiving, the one to take if you have never paddled before. You sit on it, not in it, so a capsize just means climbing back on.',
  },
  {
    id: 'double-sit-on-top',
    name: 'Double sit-on-top',
    price: 34,
    seats: 'Two paddlers, or one adult and a child under 10',
    about: 'Room for two and a cool box. Slower than two singles, and far more sociable.',
  },
  {
    id: 'touring-kayak',
    name: 'Touring kayak',
    price: 30,
    seats: 'One paddler with some experience',
    about: 'A long, narrow boat with a skeg and a spray deck that covers the miles to Heron Point and back on one tide.',
  },
  {
    id: 'paddleboard',
    name: 'Inflatable paddleboard',
    price: 20,
    seats: 'One paddler',
    about: 'Pumped up on the slipway and stiff as a plank. Best on the still water of the top of the tide.',
  },
];

const tides = [
  { day: 'Monday', high: '06:12 and 18:31', low: '12:20', note: 'Neaps: gentle streams all day' },
  { day: 'Tuesday', high: '06:58 and 19:15', low: '13:04', note: '' },
  { day: 'Wednesday', high: '07:41 and 19:57', low: '13:47', note: '' },
  { day: 'Thursday', high: '08:22 and 20:38', low: '14:29', note: 'Evening paddle on the flood' },
  { day: 'Friday', high: '09:04 and 21:20', low: '15:11', note: '' },
  { day: 'Saturday', high: '09:49 and 22:06', low: '15:56', note: 'Springs building: stronger ebb' },
  { day: 'Sunday', high: '10:38 and 22:57', low: '16:44', note: 'Hut closes at 18:00' },
];

module.exports = { craft, tides };
