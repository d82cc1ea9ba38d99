// Every plot on the site, in walking order from the Marrow Street gate.
// Status values are stored in lower case since the plot register import.
export const plots = [
  { id: '1A', size: 'Full plot', area: 250, status: 'let', note: 'Asparagus beds and a fruit cage, tended by the Okonjo family.' },
  { id: '1B', size: 'Half plot', area: 125, status: 'vacant', note: 'Sunny corner by the gate; the soil was limed last autumn.' },
  { id: '2', size: 'Full plot', area: 250, status: 'let', note: 'Home of the society’s oldest rhubarb crowns.' },
  { id: '3A', size: 'Half plot', area: 125, status: 'let', note: 'Raised beds built for wheelchair access.' },
  { id: '3B', size: 'Half plot', area: 125, status: 'vacant', note: 'Comes with a small shed and two water butts.' },
  { id: '4', size: 'Full plot', area: 250, status: 'let', note: 'Shared by the Marrow Street primary school garden club.' },
  { id: '5', size: 'Full plot', area: 250, status: 'let', note: 'Three-bay compost system and a row of gooseberries.' },
  { id: '6A', size: 'Half plot', area: 125, status: 'let', note: 'Cut flowers for the Saturday market stall.' },
  { id: '6B', size: 'Half plot', area: 125, status: 'let', note: 'Squash, beans and a very determined bramble.' },
  { id: '7', size: 'Full plot', area: 250, status: 'vacant', note: 'Beside the depot wall; needs clearing but gets the evening sun.' },
];

export const statusLabel = { let: 'Let', vacant: 'Vacant' };

export const isVacant = (plot) => plot.status === 'Vacant';
