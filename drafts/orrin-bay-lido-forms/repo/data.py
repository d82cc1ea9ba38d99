"""Orrin Bay Lido: what the pages show (the lido, its swim times and prices)."""

LIDO = {
    "name": "Orrin Bay Lido",
    "address": "Esplanade Gardens, Orrin Bay",
    "phone": "01632 960 273",
    "charity": "Orrin Bay Lido Trust, registered charity no. 1190458",
}

SESSIONS = [
    {"name": "Early lengths", "when": "Monday to Friday, 6:30 to 9:00", "note": "Lanes roped: slow, medium, fast."},
    {"name": "Public swim", "when": "Every day, 10:00 to 17:30", "note": "Whole pool open; the shallow end is for children."},
    {"name": "Family splash", "when": "Saturday and Sunday, 14:00 to 16:00", "note": "Floats and the inflatable out; one adult for up to three children."},
    {"name": "Sunset swim", "when": "Wednesday and Friday, 18:30 to 20:30", "note": "Adults only, the café stays open."},
]

PRICES = [
    ("Adult swim", "£5.20"),
    ("Child swim (4 to 15)", "£2.80"),
    ("Family swim (two adults, two children)", "£13.00"),
    ("Season ticket, adult", "£96.00"),
]

AGES = ["4", "5", "6", "7", "8", "9", "10", "11"]

HELP_WITH = ["Poolside and lifeguard support", "The café kiosk", "Gardens and painting"]
