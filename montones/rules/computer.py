"""What every game's computer player shares: a careful player's small stakes, a cut, and a
banker's patience.

A computer player is a function of its seat's view (``Game.play``), as a phone is drawn from it:
it never sees the deck. Each game's own play lives with its engine (``play`` in ``montones``,
``monte``, ``monte_bank``); the caller gives it a seeded :class:`random.Random`, how long the
table has stood still and how long a banker waits for a table of people (``patience``), and acts
on what it returns: ``(kind, params)``, one of the game's
``ACTIONS`` that the rules allow this seat now, or None (nothing to do, or not yet).
"""

from __future__ import annotations

from random import Random
from typing import Any

from montones.rules.errors import Phrase

Move = tuple[str, dict[str, Any]] | None

# Seconds a computer banker gives a table of people: to bet, before it closes the bets (unless
# every punter who can bet has), and to see a hand's result, before it deals again. The app
# passes its own (its COMPUTER_PATIENCE setting, this by default) as ``patience``.
PATIENCE = 12.0

# The names computer players take at a table, the first one nobody there has; each screen
# writes them as its language does (marked for pybabel: a name read from a table is no literal).
NAMES = (
    Phrase("Lola"), Phrase("Paco"), Phrase("Carmen"), Phrase("Pepe"), Phrase("Rosario"),
    Phrase("Manolo"), Phrase("Inés"), Phrase("Tomás"), Phrase("Julia"), Phrase("Ramón"),
    Phrase("Amparo"), Phrase("Curro"),
)  # fmt: skip

# A careful player stakes about a tenth of their chips at most.
SHARE = 10


def stake(rng: Random, least: int, most: int, chips: int) -> int | None:
    """A small stake, varied: from ``least`` up to a tenth of ``chips``, never above ``most``
    (what the rules let this bet be); None when no stake is allowed."""
    high = min(most, max(least, chips // SHARE))
    return rng.randint(least, high) if high >= least else None


def cut(rng: Random, cards: int) -> tuple[str, dict[str, Any]]:
    """A cut somewhere in a deck of ``cards``, leaving cards on both sides."""
    return "cut", {"position": rng.randint(1, cards - 1)}


def result_seen(idle: float, patience: float = PATIENCE) -> bool:
    """Whether a banker may go on after a hand: the table has had ``patience`` seconds to see
    how it came out."""
    return idle >= patience


def bets_are_in(view: dict[str, Any], least: int, idle: float, patience: float = PATIENCE) -> bool:
    """Whether a banker may close the bets: every punter who can bet has a stake down (a
    punter is one of the view's ``players`` who is not the banker nor sitting out), or the
    table has stood still for ``patience`` seconds."""
    if idle >= patience:
        return True
    return all(
        p["staked"] > 0 or p["chips"] < least
        for p in view["players"]
        if not p["is_banker"] and not p.get("sitting_out")
    )
