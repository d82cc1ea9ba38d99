// The year's courses, in date order. The home page shows the first three.
export const courses = [
  {
    title: "Beginners' weekend",
    when: "Saturday 6 and Sunday 7 March · Calderwick Village Hall",
    price: "£85, with a year's membership",
    about: "Two days of talks and a first look inside a hive. We lend suits, gloves and boots.",
  },
  {
    title: "Bees through the season",
    when: "Six Thursday evenings from 8 April · the teaching apiary",
    price: "£60",
    about: "Open a hive with a mentor every fortnight and learn what to look for as the colony grows.",
  },
  {
    title: "Queen rearing",
    when: "Saturday 22 May · the teaching apiary",
    price: "£30, members only",
    about: "Raise a few queens from your best colony, for keepers in their second year or later.",
  },
  {
    title: "Honey from hive to jar",
    when: "Sunday 8 August · Calderwick Village Hall",
    price: "£25",
    about: "Taking off the supers, extracting, filtering and labelling a jar you can sell.",
  },
  {
    title: "Winter care and candle making",
    when: "Saturday 16 October · Calderwick Village Hall",
    price: "£20",
    about: "Feeding, mouse guards and a quiet winter, then candles from this year's wax.",
  },
];
