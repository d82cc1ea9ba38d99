"""The trips we run, the dates they sail and the questions people ask."""

TRIPS = {
    "seal-colony": {
        "slug": "seal-colony",
        "name": "Seal colony at Carrick Rocks",
        "length": "90 minutes",
        "adult": 18,
        "child": 9,
        "image": "seal.svg",
        "blurb": "Drift past the grey seals hauled out on Carrick Rocks, with the engine off.",
    },
    "lighthouse": {
        "slug": "lighthouse",
        "name": "Round the Corran light",
        "length": "2 hours",
        "adult": 24,
        "child": 12,
        "image": "lighthouse.svg",
        "blurb": "Out past the point to the 1861 lighthouse and back along the cliffs.",
    },
    "sunset": {
        "slug": "sunset",
        "name": "Sunset over the sound",
        "length": "75 minutes",
        "adult": 20,
        "child": 10,
        "image": "sunset.svg",
        "blurb": "An evening sail timed for the sun going down behind Inchmore.",
    },
}

DATES = ["Saturday 14 June", "Sunday 15 June", "Saturday 21 June", "Sunday 22 June"]

FAQ = [
    ("What if the weather is bad?", "We decide at 8am on the day and text you; a cancelled trip is refunded in full."),
    ("Can I bring a dog?", "Yes, on a lead. Dogs travel free and there is a water bowl on board."),
    ("Who counts as a child?", "Anyone aged 3 to 15. Under-3s sail free on a lap."),
    ("Is the boat accessible?", "There is step-free boarding from the pontoon at high tide; call us to plan your trip."),
]
