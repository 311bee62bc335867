"""The bank's edge on each kind of bet, counted exactly from the rules (RULES.md).

Nothing here restates a rule: every deal is enumerated and settled with the functions the
engines settle real hands with (``heap_wins`` and ``heap_payout`` for Montones, ``layout_wins``
and ``generous_triple`` for Monte, ``deciding`` and ``PAYS`` for Casino Monte Bank), so the
figures change if the rules ever do. Values are
:class:`~fractions.Fraction`, per chip staked, for a bet the bank covers in full: a short bank
can only void part of a bet, which is no part of the odds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations, permutations
from typing import Any

from montones.rules import casino, heaps, monte
from montones.rules.cards import FRENCH, SPANISH


@dataclass(frozen=True)
class Odds:
    """What one chip staked comes to: each net result (−1 lost, 1 even money, 2 or 3 for the
    better payouts) with its chance, lowest net first."""

    chances: tuple[tuple[int, Fraction], ...]

    @classmethod
    def counted(cls, nets: Iterable[int]) -> Odds:
        """From the net of each equally likely case."""
        counts = Counter(nets)
        total = sum(counts.values())
        return cls(tuple((net, Fraction(n, total)) for net, n in sorted(counts.items())))

    @property
    def edge(self) -> Fraction:
        """The bank's edge: what the bank expects to keep of each chip staked.

        Negative when the bet favours the punter.
        """
        return -sum((net * p for net, p in self.chances), Fraction(0))

    @property
    def win(self) -> Fraction:
        return sum((p for net, p in self.chances if net > 0), Fraction(0))

    @property
    def lose(self) -> Fraction:
        return sum((p for net, p in self.chances if net < 0), Fraction(0))

    def chance(self, net: int) -> Fraction:
        return dict(self.chances).get(net, Fraction(0))


# --- Montones ----------------------------------------------------------------------------------
# The heaps' bottom cards are distinct cards of one shuffled deck, and the banker's heap is chosen
# before any is turned: the banker's card and a heap's card are a uniformly drawn ordered pair of
# distinct cards, so the 40 × 39 pairs, each once, are the exact odds.


def _pairs() -> Iterable[tuple[str, str]]:
    """(the banker's card, the heap's card) for every ordered pair of distinct cards."""
    return permutations(SPANISH.codes, 2)


@cache
def heap_bet() -> Odds:
    """A bet on a heap: paid as settle_hand pays it, double on the Rey de oros."""
    return Odds.counted(
        heaps.heap_payout(card, 1) if heaps.heap_wins(bank_card, card) else -1
        for bank_card, card in _pairs()
    )


@cache
def banker_card_bet() -> Odds:
    """A bet on the banker's card against a heap: even money, never double."""
    return Odds.counted(
        -1 if heaps.heap_wins(bank_card, card) else 1 for bank_card, card in _pairs()
    )


@cache
def whole_bank_bet() -> Odds:
    """Pagando y cobrando, per chip of the bank played for: even money, never double."""
    return Odds.counted(
        1 if heaps.heap_wins(bank_card, card) else -1 for bank_card, card in _pairs()
    )


def montones_bets() -> dict[str, Odds]:
    """Each kind of bet of a hand, by the engine's name for it."""
    return {"heap": heap_bet(), "against": banker_card_bet(), "whole_bank": whole_bank_bet()}


# --- Monte -------------------------------------------------------------------------------------


def _gate_nets(
    name: str, bottom: list[str], top: list[str], gates: Iterable[str], options: dict
) -> Iterable[int]:
    layout = {"bottom": bottom, "top": top}[name]
    for gate in gates:
        if monte.layout_wins(layout, gate):
            yield 3 if monte.generous_triple(bottom, top, gate, options) else 1
        else:
            yield -1


def coup_bets(bottom: list[str], top: list[str], unseen: list[str], options: dict) -> dict:
    """A bet on each layout of a dealt coup, every unseen card being as likely to be the gate."""
    return {
        name: Odds.counted(_gate_nets(name, bottom, top, unseen, options)) for name in monte.LAYOUTS
    }


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
    monte.check_options(options)
    size = 1 if two_card else 2
    nets: list[int] = []
    for bottom in combinations(FRENCH.codes, size):
        rest = [card for card in FRENCH.codes if card not in bottom]
        tops = combinations(rest, size) if two_card else [()]
        for top in tops:
            gates = [card for card in rest if card not in top]
            nets.extend(_gate_nets("bottom", list(bottom), list(top), gates, options))
    return Odds.counted(nets)


def monte_bets(state: dict[str, Any]) -> dict[str, Any]:
    """A layout bet on a fresh deck with this table's options, and while bets are open, a bet
    on each layout of the coup given every card seen so far."""
    settings = state["settings"]
    coup = state["coup"]
    betting = state["phase"] == monte.BETTING and coup is not None
    return {
        "layout": fresh_layout_bet(settings["two_card"], settings["generous"]),
        # In play, the deck is exactly the cards nobody has seen, the gate among them.
        "coup": coup_bets(coup["bottom"], coup["top"], state["deck"], settings) if betting else {},
    }


# --- Casino Monte Bank -----------------------------------------------------------------------------
# A part of a bet is decided by the first turned card among its deciding cards (``deciding``), and
# every order of the unseen cards is as likely: it wins with the share of its winning cards among
# its deciding cards, and is won by the very first card (the levy) with the share of its winning
# cards among all the unseen cards. Exact, with no enumeration needed beyond those counts.

# A layout of each kind: the chances depend only on the stack at ul (the colour rule is the same
# for every rank and suit), so these stand for every deal with no stack, a pair or a triple.
CASINO_LAYOUTS = {
    1: {"ul": ["5S"], "ur": ["JD"], "ll": ["3C"], "lr": ["KH"]},
    2: {"ul": ["7S", "7C"], "ur": ["AD"], "ll": ["3C"], "lr": ["KH"]},
    3: {"ul": ["7S", "7C", "7H"], "ur": ["AD"], "ll": ["3C"], "lr": ["KH"]},
}


def casino_part(layout: dict, part: dict, levy: bool) -> Odds:
    """One part of a bet on a dealt layout, per chip staked (the levy as a quarter of the win,
    what it takes of a stake that is a multiple of 4; less, rounded down, of others)."""
    win, lose = casino.deciding(layout, part)
    unseen = 40 - sum(len(cards) for cards in layout.values())
    pays = casino.PAYS[part["part"]]
    p_win = Fraction(len(win), len(win) + len(lose))
    chances = [(-1, 1 - p_win)]
    if levy:
        first = Fraction(len(win), unseen)
        chances += [(pays - Fraction(pays, casino.LEVY_SHARE), first), (pays, p_win - first)]
    else:
        chances.append((pays, p_win))
    return Odds(tuple((net, p) for net, p in chances if p))


def casino_layout_bets(layout: dict, levy: bool) -> dict[str, Odds]:
    """Each kind of bet on a layout: a round, a cross of two singles, a cross of the stack
    against a single (with a stack), a double. A Monte Carlo is its three parts."""
    bets = {
        "round": casino_part(layout, {"part": "round", "on": "ur"}, levy),
        "cross": casino_part(layout, {"part": "cross", "on": "ur", "against": "ll"}, levy),
        "double": casino_part(layout, {"part": "double", "side": "upper"}, levy),
    }
    if len(layout["ul"]) > 1:
        bets["cross_stack"] = casino_part(
            layout, {"part": "cross", "on": "ul", "against": "lr"}, levy
        )
    return bets


def casino_bets(state: dict[str, Any]) -> dict[str, Any]:
    """The bets on a layout of each kind with this table's levy, and on the deal in play."""
    levy = state["settings"]["levy"]
    deal = state["deal"]
    betting = state["phase"] == casino.BETTING and deal is not None
    return {
        "kinds": {
            size: casino_layout_bets(layout, levy) for size, layout in CASINO_LAYOUTS.items()
        },
        "deal": casino_layout_bets(deal["layout"], levy) if betting else {},
        "stack": len(deal["layout"]["ul"]) if betting else None,
    }


def table_bets(state: dict[str, Any]) -> dict[str, Any]:
    if state["game"] == "montones":
        return montones_bets()
    if state["game"] == casino.NAME:
        return casino_bets(state)
    return monte_bets(state)
