"""The exact odds of a coup's bets, from the cards still unseen."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import combinations
from typing import Any

from montones.rules.cards import FRENCH
from montones.rules.monte.settle import LAYOUTS, check_options, generous_triple, layout_wins
from montones.rules.odds import Odds
from montones.rules.rotation import BETTING
from montones.rules.table import State


def _gate_nets(
    name: str, bottom: list[str], top: list[str], gates: Iterable[str], options: dict
) -> Iterable[int]:
    layout = {"bottom": bottom, "top": top}[name]
    for gate in gates:
        if layout_wins(layout, gate):
            yield 3 if generous_triple(bottom, top, gate, options) else 1
        else:
            yield -1


def coup_bets(bottom: list[str], top: list[str], unseen: list[str], options: dict) -> dict:
    """A bet on each layout of a dealt coup, every unseen card being as likely to be the gate."""
    return {name: Odds.counted(_gate_nets(name, bottom, top, unseen, options)) for name in LAYOUTS}


@cache
def fresh_layout_bet(two_card: bool = False, generous: bool = False) -> Odds:
    """A bet on a layout before any card of the deck is seen.

    Both layouts are dealt alike from a shuffled deck, so a bet on the bottom one stands for
    either. Every bottom layout and every gate among the other cards is enumerated. The top
    layout only matters to the generous 3 to 1, so it is enumerated in two-card Monte (1,560
    pairs × 38 gates); in four-card Monte its cards merely leave the deck, and the gate is
    still equally likely to be any card outside the bottom layout.
    """
    options = {"two_card": two_card, "generous": generous}
    check_options(options)
    size = 1 if two_card else 2
    nets: list[int] = []
    for bottom in combinations(FRENCH.codes, size):
        rest = [card for card in FRENCH.codes if card not in bottom]
        tops = combinations(rest, size) if two_card else [()]
        for top in tops:
            gates = [card for card in rest if card not in top]
            nets.extend(_gate_nets("bottom", list(bottom), list(top), gates, options))
    return Odds.counted(nets)


def table_odds(state: State) -> dict[str, Any]:
    """A layout bet on a fresh deck with this table's options, and while bets are open, a bet
    on each layout of the coup given every card seen so far."""
    settings = state["settings"]
    coup = state["coup"]
    betting = state["phase"] == BETTING and coup is not None
    return {
        "layout": fresh_layout_bet(settings["two_card"], settings["generous"]),
        # In play, the deck is exactly the cards nobody has seen, the gate among them.
        "coup": coup_bets(coup["bottom"], coup["top"], state["deck"], settings) if betting else {},
    }
