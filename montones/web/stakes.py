"""The quick stakes of a phone's bar: a chip each to tap, the web's choice for every game.

The rules say what a seat may stake, from the table's least bet to the most its chips and the
bank allow (a bar's view gives both as ``me.stakes``, None while it may not bet); which of those
a bar offers a tap each is the screen's choice, made here once for the three games' bars.
"""

from __future__ import annotations

from typing import Any

QUICK_STAKES = (1, 5, 10, 25)  # the chips a bar offers, a tap each, where the rules allow them


def quick_stakes(least: int, most: int) -> list[int]:
    """The stakes a bar offers a tap each to a seat that may stake ``least`` to ``most``: the
    table's least first, then those of :data:`QUICK_STAKES` above it and under ``most``, which
    the bar's own "max" chip stakes."""
    if least >= most:
        return []
    return [least, *(q for q in QUICK_STAKES if least < q < most)]


def bar_region(bar: dict[str, Any] | None) -> dict[str, Any] | None:
    """A bar's view (the engine's ``regions``' ``"bar"``) as its template draws it and its
    drawing is kept by (``screens.seat_keys``): the least and most its seat may stake
    (``me.stakes``) become the quick stakes they offer (``me.quick``), so that a bar that does
    not show the most is drawn again when its quick stakes change, not at every chip its seat
    bets (a bet of 1 leaves the bar of 28 chips as it was)."""
    me = bar and bar.get("me")
    if not me or "stakes" not in me:
        return bar
    stakes = me["stakes"]
    mine = {key: value for key, value in me.items() if key != "stakes"}
    mine["quick"] = quick_stakes(*stakes) if stakes else None
    return {**bar, "me": mine}
