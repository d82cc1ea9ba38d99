// Opening hours by day; a day with no `times` is a closed day.
export const HOURS = [
  { day: 'Monday', times: null },
  { day: 'Tuesday', times: null },
  { day: 'Wednesday', times: '7:30 to 15:00' },
  { day: 'Thursday', times: '7:30 to 15:00' },
  { day: 'Friday', times: '7:30 to 16:00' },
  { day: 'Saturday', times: '8:00 to 16:00' },
  { day: 'Sunday', times: '9:00 to 13:00' },
];
