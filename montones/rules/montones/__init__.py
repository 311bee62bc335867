"""Montones, the Murcia heap game (docs/rules.md, "Montones").

The state of a table is a plain dict that round-trips through JSON. Every action is a function
``action(state, ...) -> (new_state, events)``: it works on a copy, so a :class:`RulesError`
leaves the caller's state untouched. The engine never reads the clock (``now`` is passed in,
in seconds) and draws its randomness from ``chance.SYSTEM`` (a rehearsal's seeded one inside
:func:`montones.rules.chance.rehearsal`) unless a test passes the
outcome (a deck order, a cut, heap sizes, the winner of a tie).

Heaps are numbered from 1. A heap is a list of cards, top first; only its bottom card counts.
Players' ``chips`` are the chips in front of them: a bet's stake leaves them when it is placed
and comes back, with what it won or less what it lost, at settlement.
"""

from __future__ import annotations

from typing import Any

from montones.rules import betting_time, hand_records, own_deck, table
from montones.rules.cards import SPANISH
from montones.rules.errors import Phrase, RulesError
from montones.rules.montones.bank import (
    auction_complete,
    close_auction,
    close_bank,
    finish,
    join,
    leave,
    offer_bank,
    pass_bank,
    se_abona,
    sit_out,
    standings,
    top_up,
    tres_ultimas_manos,
)
from montones.rules.montones.bets import (
    bet,
    bet_against,
    choose_bank_heap,
    close_bets,
    declare,
    most_stake,
    withdraw,
)
from montones.rules.montones.computer import play
from montones.rules.montones.deal import (
    cut_deck,
    cut_timed_out,
    deal_heaps,
    keep_heaps,
    make_heaps,
    next_hand,
    split_heaps,
    uneven_sizes,
)
from montones.rules.montones.entry import (
    enter_card,
    keep_entered,
    most_kept,
    turned,
    undo_card,
    waiting_for,
)
from montones.rules.montones.odds import banker_card_bet, heap_bet, table_odds, whole_bank_bet
from montones.rules.montones.record import (
    check_dealt,
    emptied_by,
    feat,
    hand_record,
    live_commitment,
    record_lines,
    replay,
    shares,
)
from montones.rules.montones.settle import (
    REY,
    REY_DE_OROS,
    explained,
    heap_payout,
    heap_wins,
    lifting_order,
    settle_hand,
)
from montones.rules.montones.state import (
    AUCTION,
    BETTING,
    CUT,
    DEFAULT_SETTINGS,
    FINISHED,
    HEAPS,
    MIN_HEAP_CARDS,
    NAME,
    SETTLED,
    after_pause,
    bank_closing,
    bank_time_up,
    banker_of,
    can_keep_heaps,
    cut_deadline,
    new_table,
    punters,
    tied_heaps,
)
from montones.rules.montones.views import bar_view, my_view, stacks, status_view
from montones.rules.montones.views import view as _whole_view
from montones.rules.table import Action, Events, Field, State

TITLE = Phrase("Montones")
SETTLES = "settled"  # the event of an action that settles a hand, recorded by hand_record
DECK = SPANISH
# What of a table's settings its TV's demonstration plays with (montones.rules.demo).
DEMO_SETTINGS: tuple[str, ...] = ()


def while_live(entry: dict[str, Any]) -> dict[str, Any]:
    """A hand's record while its deck is live: without the shuffle's secrets and the heaps'
    hidden cards, still to come if the heaps are kept."""
    return hand_records.while_live(entry, sealed=(*hand_records.OPENS, "heaps"))


def _all_in(state: State, pid: str) -> int:
    """What the all-in chip stakes: the most ``pid`` can stake now."""
    table.player(state, pid)
    most = most_stake(state, pid)
    if most <= 0 and state["bank"]:  # with no bank, the bet itself says why not
        raise RulesError("you have no chips left to bet")
    return most


_HEAP = Field("heap", Phrase("The heap"))
_AMOUNT = Field("amount", Phrase("The amount"))

ACTIONS: dict[str, Action] = {
    "offer": Action(
        lambda s, who, p, now: offer_bank(s, who, p["amount"]),
        (Field("amount", Phrase("The offer")),),
    ),
    "pass": Action(lambda s, who, p, now: pass_bank(s, who)),
    "cut": Action(
        lambda s, who, p, now: cut_deck(s, who, p["position"], now),
        (Field("position", Phrase("The cut")),),
    ),
    "heaps": Action(
        lambda s, who, p, now: make_heaps(s, who, p["count"]),
        (Field("count", Phrase("The number of heaps")),),
    ),
    "bet": Action(
        lambda s, who, p, now: bet(s, who, p["heap"], p["amount"]),
        (_HEAP, _AMOUNT),
        all_in=_all_in,
        tap=True,
    ),
    "against": Action(
        lambda s, who, p, now: bet_against(s, who, p["heap"], p["amount"]),
        (_HEAP, _AMOUNT),
        all_in=_all_in,
        tap=True,
    ),
    "declare": Action(lambda s, who, p, now: declare(s, who, p["heap"]), (_HEAP,), tap=True),
    "choose": Action(
        lambda s, who, p, now: choose_bank_heap(s, who, p["heap"]), (_HEAP,), tap=True
    ),
    "withdraw": Action(
        lambda s, who, p, now: withdraw(s, who, p["bet"]), (Field("bet", Phrase("The bet")),)
    ),
    "close": Action(lambda s, who, p, now: close_bets(s, who)),
    "next": Action(lambda s, who, p, now: next_hand(s, who, now)),
    "keep": Action(lambda s, who, p, now: keep_heaps(s, who, p["heap"], now), (_HEAP,)),
    # With the table's own cards, the banker says how many heaps the kept ones make.
    "keep_entered": Action(
        lambda s, who, p, now: keep_entered(s, who, p["count"], now),
        (Field("count", Phrase("The number of heaps")),),
    ),
    "abona": Action(
        lambda s, who, p, now: se_abona(s, who, p["amount"], now),
        (Field("amount", Phrase("The new bank")),),
    ),
    "close_bank": Action(lambda s, who, p, now: close_bank(s, who)),
    "tres": Action(lambda s, who, p, now: tres_ultimas_manos(s, who), confirm=True),
    "sit_out": Action(lambda s, who, p, now: sit_out(s, who, True)),
    "sit_in": Action(lambda s, who, p, now: sit_out(s, who, False)),
    "close_auction": Action(lambda s, who, p, now: close_auction(s, now), host=True, plays=True),
    **own_deck.entry_actions(enter_card, undo_card),
    **table.host_actions(leave),
}

SETTINGS = (
    Field("min_bet", Phrase("The minimum bet")),
    Field("heaps_min", Phrase("The fewest heaps")),
    Field("heaps_max", Phrase("The most heaps")),
    Field("tenure", Phrase("The bank's time")),
    Field("cut_timeout", Phrase("The time to cut")),
)


def settings_from(values: dict[str, Any]) -> dict[str, Any]:
    """A table's settings from the lobby's fields (:data:`SETTINGS`), for :func:`new_table`."""
    return {
        "min_bet": values["min_bet"],
        "heap_counts": [values["heaps_min"], values["heaps_max"]],
        "tenure_minutes": values["tenure"],
        "cut_timeout": values["cut_timeout"],
    }


def settings_for_rounds(rounds: int) -> dict[str, Any]:
    """A Montones night lasts until its host ends it: any table plays ``rounds`` hands."""
    return {}


def stage(state: State) -> str:
    """What a screen was showing: a request made at another stage of the table is stale."""
    entered = len(state["hand"].get("entered", ())) if state["hand"] else 0
    return f"{state['hands']}-{state['phase']}" + (f"-{entered}" if entered else "")


def balances(state: State) -> dict[str, int]:
    """Where every chip of the table is: the players', the bank, stakes on the table."""
    accounts = table.players_chips(state)
    accounts["bank"] = state["bank"]["amount"] if state["bank"] else 0
    hand = state["hand"]
    open_bets = hand and state["phase"] in (BETTING, own_deck.ENTERING)
    accounts["stakes"] = table.stakes(hand["bets"]) if open_bets else 0
    return accounts


def _betting(state: State) -> bool:
    return state["phase"] == BETTING


# Each action starts the betting time when it opens bets (betting_time.timed).
ACTIONS = betting_time.timed(ACTIONS, lambda state: stage(state), _betting)


# Bets close by the clock as the banker's close closes them, once the punters have chosen the
# banker's heap (bets cannot close without it: the clock waits for it, then closes).
betting_deadline, bets_timed_out = betting_time.clock(
    _betting,
    lambda s: close_bets(s, banker_of(s)),
    waits=lambda s: s["hand"]["bank_heap"] is None,
)


def follow_up(state: State, now: float) -> tuple[str, State, Events] | None:
    """What happens by itself after an action: an auction everyone has answered closes."""
    if state["phase"] == AUCTION and auction_complete(state):
        return ("close_auction", *close_auction(state, now))
    return None


def over(state: State) -> bool:
    """A Montones night ends only when the host ends it."""
    return False


view = table.seat_view(_whole_view, my_view)
regions = table.seat_regions(status=status_view, bar=bar_view)

__all__ = [
    "ACTIONS",
    "AUCTION",
    "BETTING",
    "CUT",
    "DECK",
    "DEMO_SETTINGS",
    "DEFAULT_SETTINGS",
    "FINISHED",
    "HEAPS",
    "MIN_HEAP_CARDS",
    "NAME",
    "REY",
    "REY_DE_OROS",
    "SETTINGS",
    "SETTLED",
    "SETTLES",
    "TITLE",
    "after_pause",
    "auction_complete",
    "balances",
    "bank_closing",
    "bank_time_up",
    "banker_card_bet",
    "bets_timed_out",
    "betting_deadline",
    "bet",
    "bet_against",
    "can_keep_heaps",
    "check_dealt",
    "choose_bank_heap",
    "close_auction",
    "close_bank",
    "close_bets",
    "cut_deadline",
    "cut_deck",
    "cut_timed_out",
    "deal_heaps",
    "declare",
    "emptied_by",
    "feat",
    "enter_card",
    "explained",
    "finish",
    "follow_up",
    "hand_record",
    "heap_bet",
    "heap_payout",
    "heap_wins",
    "join",
    "keep_entered",
    "keep_heaps",
    "leave",
    "lifting_order",
    "live_commitment",
    "make_heaps",
    "most_kept",
    "most_stake",
    "new_table",
    "next_hand",
    "offer_bank",
    "over",
    "pass_bank",
    "play",
    "punters",
    "record_lines",
    "regions",
    "replay",
    "se_abona",
    "settings_for_rounds",
    "settings_from",
    "settle_hand",
    "shares",
    "sit_out",
    "split_heaps",
    "stacks",
    "stage",
    "standings",
    "table_odds",
    "tied_heaps",
    "top_up",
    "turned",
    "undo_card",
    "tres_ultimas_manos",
    "uneven_sizes",
    "view",
    "waiting_for",
    "while_live",
    "whole_bank_bet",
    "withdraw",
]
