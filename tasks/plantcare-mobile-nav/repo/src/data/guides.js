export const guides = [
  {
    slug: 'monstera',
    name: 'Monstera deliciosa',
    nickname: 'Swiss cheese plant',
    level: 'Easy',
    light: 'Bright, indirect light',
    water: 'When the top 5 cm of soil is dry, roughly every 10 days',
    summary: 'Big split leaves, forgiving nature. Give it a moss pole and room to sprawl.',
    steps: [
      'Place it a metre or two from a bright window, out of direct afternoon sun.',
      'Water thoroughly, then let the top 5 cm of compost dry before watering again.',
      'Wipe the leaves every month so they can catch the light.',
      'Tie new aerial roots to the moss pole as they appear.',
    ],
  },
  {
    slug: 'calathea',
    name: 'Calathea orbifolia',
    nickname: 'Prayer plant',
    level: 'Tricky',
    light: 'Medium, indirect light',
    water: 'Keep evenly moist with rain or filtered water',
    summary: 'Silver-striped leaves that fold up at night. Loves humidity, hates drafts.',
    steps: [
      'Keep it away from radiators and open windows.',
      'Use rain water or filtered water: tap water browns the leaf edges.',
      'Group it with other plants or stand it on a pebble tray for humidity.',
      'Trim crispy leaves at the base with clean scissors.',
    ],
  },
  {
    slug: 'snake-plant',
    name: 'Dracaena trifasciata',
    nickname: 'Snake plant',
    level: 'Easy',
    light: 'Low to bright light',
    water: 'Every 3–4 weeks; less in winter',
    summary: 'Upright, architectural and nearly impossible to kill. Ideal for dim corners.',
    steps: [
      'Any spot works, from a shady hallway to a sunny sill.',
      'Water only when the compost is completely dry.',
      'Use a terracotta pot so the roots never sit wet.',
      'Repot every two to three years in spring.',
    ],
  },
]

export function findGuide(slug) {
  return guides.find((g) => g.slug === slug)
}
