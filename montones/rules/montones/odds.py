"""The exact odds of the table's bets."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import permutations

from montones.rules.cards import SPANISH
from montones.rules.montones.settle import heap_payout, heap_wins
from montones.rules.odds import Odds
from montones.rules.table import State

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
        heap_payout(card, 1) if heap_wins(bank_card, card) else -1 for bank_card, card in _pairs()
    )


@cache
def banker_card_bet() -> Odds:
    """A bet on the banker's card against a heap: even money, never double."""
    return Odds.counted(-1 if heap_wins(bank_card, card) else 1 for bank_card, card in _pairs())


@cache
def whole_bank_bet() -> Odds:
    """Pagando y cobrando, per chip of the bank played for: even money, never double."""
    return Odds.counted(1 if heap_wins(bank_card, card) else -1 for bank_card, card in _pairs())


def table_odds(state: State) -> dict[str, Odds]:
    """Each kind of bet of a hand, by the engine's name for it: the same at every table."""
    return {"heap": heap_bet(), "against": banker_card_bet(), "whole_bank": whole_bank_bet()}
