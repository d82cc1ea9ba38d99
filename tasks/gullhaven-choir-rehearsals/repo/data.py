"""What the choir's pages show: the choir, this term's rehearsals and the repertoire."""

CHOIR = {
    "name": "Gullhaven Harbour Choir",
    "night": "Tuesday",
    "time": "7:30pm",
    "venue": "St Brigid's Hall",
    "address": "14 Ropewalk Lane, Gullhaven",
}

# Spring term: one rehearsal a week.
TERM = [
    {"date": "Tuesday 13 January", "focus": "Warm-ups, sight-reading and a taster night for newcomers"},
    {"date": "Tuesday 20 January", "focus": "Sea shanties: 'The Gullhaven Pilot' in four parts"},
    {"date": "Tuesday 27 January", "focus": "Altos and basses: the harmony line of 'Lantern Tide'"},
    {"date": "Tuesday 3 February", "focus": "Sopranos and tenors: the descant of 'Lantern Tide'"},
    {"date": "Tuesday 10 February", "focus": "Putting it together: the full spring set"},
    {"date": "Tuesday 17 February", "focus": "Half-term social: songs by request and soup"},
]

PIECES = [
    {"title": "The Gullhaven Pilot", "parts": "SATB", "note": "A capstan shanty we learnt from the lifeboat crew."},
    {"title": "Lantern Tide", "parts": "SATB with descant", "note": "Arranged for us by Jen Trewin for the Shrove Tuesday lantern walk."},
    {"title": "Salt on the Window", "parts": "SSA", "note": "A lullaby from the net-menders of the old quay."},
    {"title": "Herring Road", "parts": "TTBB", "note": "The basses' favourite, sung at every harbour fair since 1998."},
    {"title": "Come All You Ropewalk Girls", "parts": "SATB", "note": "A call-and-response song with a clapping break."},
]
