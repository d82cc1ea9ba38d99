// Every plot on the site, in plot-number order: size in square metres.
export const plots = [
  { number: 1, size: 250, status: "let", note: "Fruit cage and a shed in good order." },
  { number: 4, size: 125, status: "vacant", note: "Sunny corner beside the water trough." },
  { number: 7, size: 125, status: "let", note: "Raised beds, no-dig since 2019." },
  { number: 9, size: 62, status: "vacant", note: "Small and sheltered: a good first plot." },
  { number: 12, size: 250, status: "let", note: "Shared with Ketterby Primary's garden club." },
  { number: 15, size: 62, status: "let", note: "Herbs and cut flowers along the hedge." },
];
