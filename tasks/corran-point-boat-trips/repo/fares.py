"""What a booking costs."""


def total(trip, adults, children):
    """The price of a booking, in pounds."""
    return trip["adult"] * adults + trip["adult"] * children
