"""The exact odds of a layout's bets."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from montones.rules.cards import FRENCH
from montones.rules.monte_bank.settle import LEVY_SHARE, SIDE_CARDS, deciding, pays, positions
from montones.rules.odds import Odds
from montones.rules.rotation import BETTING
from montones.rules.table import State

# A part of a bet is decided by the first turned card among its deciding cards (``deciding``), and
# every order of the unseen cards is as likely: it wins with the share of its winning cards among
# its deciding cards, and is won by the very first card (the levy) with the share of its winning
# cards among all the unseen cards. Exact, with no enumeration needed beyond those counts.

# A layout of each kind: the chances depend only on the stack at ul (the colour rule is the same
# for every rank and suit), so these stand for every deal with no stack, a pair or a triple.
ODDS_LAYOUTS = {
    1: {"ul": ["5S"], "ur": ["JD"], "ll": ["3C"], "lr": ["KH"]},
    2: {"ul": ["7S", "7C"], "ur": ["AD"], "ll": ["3C"], "lr": ["KH"]},
    3: {"ul": ["7S", "7C", "7H"], "ur": ["AD"], "ll": ["3C"], "lr": ["KH"]},
}


def part_odds(layout: dict, part: dict, levy: bool) -> Odds:
    """One part of a bet on a dealt layout, per chip staked (the levy as a quarter of the win,
    what it takes of a stake that is a multiple of 4; less, rounded down, of others)."""
    win, lose = deciding(layout, part)
    # The layout holds its side cards and the cards set aside: all seen.
    unseen = len(FRENCH.codes) - sum(len(cards) for cards in layout.values())
    paid = pays(layout, part)
    if not win and not lose:  # no live card either way (a set-aside card): void, stake back
        return Odds(((0, Fraction(1)),))
    p_win = Fraction(len(win), len(win) + len(lose))
    chances = [(-1, 1 - p_win)]
    if levy:
        first = Fraction(len(win), unseen)
        chances += [(paid - Fraction(paid, LEVY_SHARE), first), (paid, p_win - first)]
    else:
        chances.append((paid, p_win))
    return Odds(tuple((net, p) for net, p in chances if p))


def layout_odds(layout: dict, levy: bool) -> dict[str, Odds]:
    """Each kind of bet on a layout: a round, a cross of two singles, a cross of the stack
    against a single (with a stack), a double. A Monte Carlo is its three parts."""
    bets = {
        "round": part_odds(layout, {"part": "round", "on": "ur"}, levy),
        "cross": part_odds(layout, {"part": "cross", "on": "ur", "against": "ll"}, levy),
        "double": part_odds(layout, {"part": "double", "side": "upper"}, levy),
    }
    if len(layout["ul"]) > 1:
        bets["cross_stack"] = part_odds(
            layout, {"part": "cross", "on": "ul", "against": "lr"}, levy
        )
    return bets


def side_odds(layout: dict, levy: bool) -> list[dict[str, Any]]:
    """Each bet on each side card of a dealt layout, from its unseen cards: the round on it,
    and its cross against every other position (``{"card", "round", "crosses": {P: Odds}}``)."""
    return [
        {
            "card": s,
            "round": part_odds(layout, {"part": "round", "on": s}, levy),
            "crosses": {
                p: part_odds(layout, {"part": "cross", "on": s, "against": p}, levy)
                for p in positions(layout)
                if p != s
            },
        }
        for s in SIDE_CARDS
        if s in layout
    ]


def table_odds(state: State) -> dict[str, Any]:
    """The bets on a layout of each kind with this table's levy, and on the deal in play."""
    levy = state["settings"]["levy"]
    deal = state["deal"]
    betting = state["phase"] == BETTING and deal is not None
    return {
        "kinds": {size: layout_odds(layout, levy) for size, layout in ODDS_LAYOUTS.items()},
        "deal": layout_odds(deal["layout"], levy) if betting else {},
        "stack": len(deal["layout"]["ul"]) if betting else None,
        "sides": side_odds(deal["layout"], levy) if betting else [],
    }
