"""What the Bike Kitchen's pages show: the workshop, this month's sessions and the parts shelf.

Tidied up in March: sessions have ids (the booking links use them) and every price is
kept in pence, so nothing is rounded on the way to the page.
"""

KITCHEN = {
    "name": "Tanners Wharf Bike Kitchen",
    "address": "Unit 4, Tanners Wharf, Lockside Road",
    "suggested_pence": 300,
}

# Open workshop sessions this month, soonest first.
SESSIONS = [
    {
        "id": "wed-11-mar",
        "day": "Wednesday 11 March",
        "time": "6pm to 8:30pm",
        "focus": "Punctures and brakes: the two fixes every rider should know",
        "spaces": 4,
    },
    {
        "id": "sat-14-mar",
        "day": "Saturday 14 March",
        "time": "10am to 1pm",
        "focus": "Open workshop: bring whatever squeaks, rubs or rattles",
        "spaces": 6,
    },
    {
        "id": "wed-18-mar",
        "day": "Wednesday 18 March",
        "time": "6pm to 8:30pm",
        "focus": "Gears: cables, indexing and knowing when a chain is worn out",
        "spaces": 3,
    },
    {
        "id": "sat-21-mar",
        "day": "Saturday 21 March",
        "time": "10am to 1pm",
        "focus": "Women and non-binary riders' morning, with Dot on the stands",
        "spaces": 5,
    },
    {
        "id": "wed-25-mar",
        "day": "Wednesday 25 March",
        "time": "6pm to 8:30pm",
        "focus": "Wheels: truing, spokes and hub bearings",
        "spaces": 2,
    },
]

# The parts shelf: prices in pence.
PARTS = [
    {"name": "Inner tube, any size we stock", "pence": 450},
    {"name": "Puncture patch kit", "pence": 250},
    {"name": "Brake pads, per pair", "pence": 600},
    {"name": "Brake or gear cable, with end caps", "pence": 300},
    {"name": "Chain, 8 or 9 speed", "pence": 1250},
    {"name": "Second-hand tyre, checked by us", "pence": 500},
]
