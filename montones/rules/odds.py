"""The bank's edge on each kind of bet at a table, counted exactly from the rules (RULES.md).

Nothing restates a rule: each engine's ``table_odds`` enumerates its deals and settles them with
the functions it settles real hands with, so the figures change if the rules ever do. Values
are :class:`~montones.rules.chances.Odds`, per chip staked, for a bet the bank covers in full: a
short bank can only void part of a bet, which is no part of the odds.
"""

from __future__ import annotations

from typing import Any

from montones.rules.games import game


def table_bets(state: dict[str, Any]) -> dict[str, Any]:
    """The odds a table's screens show, from its game's engine; a :class:`RulesError` for a
    game there is none of."""
    return game(state["game"]).table_odds(state)
