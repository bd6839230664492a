"""Quantities written for people: durations in the unit that shows them."""


def duration_text(seconds: float) -> str:
    """`1.23 s`, `45.6 ms` or `789 µs`: a duration in the unit that shows it."""
    if seconds >= 1:
        return f"{seconds:,.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"
