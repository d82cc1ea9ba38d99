// The week's classes, in timetable order.
export const classes = [
  {
    day: 'Monday',
    name: 'First steps induction',
    when: '18:30 to 19:30',
    level: 'New climbers',
    coach: 'Ines',
    details: 'How to fall, how to read a grade, and your first five problems on the slab. Shoes and a chalk bag are lent for the evening.',
  },
  {
    day: 'Wednesday',
    name: 'Technique clinic',
    when: '19:00 to 20:30',
    level: 'Greens and blues',
    coach: 'Marek',
    details: 'Footwork drills on the vertical wall, then flagging and drop knees in the cave. Bring a problem that has been beating you.',
  },
  {
    day: 'Thursday',
    name: 'Setting session',
    when: '10:00 to 14:00',
    level: 'Anyone watching',
    coach: 'The setting team',
    details: 'The cave and the slab are closed while the setters strip and reset them. Watch from the benches and try the new problems from two o’clock.',
  },
  {
    day: 'Saturday',
    name: 'Family hour',
    when: '9:00 to 10:00',
    level: 'Ages 6 and up with an adult',
    coach: 'Ines',
    details: 'The low wall and the kids’ corner are kept for families. A coach shows the grown-ups how to spot and the children how to climb down.',
  },
];
