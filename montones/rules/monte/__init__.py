"""Monte as Foster's Complete Hoyle gives it (docs/rules.md, "Monte").

Same shape as :mod:`montones.rules.montones`: the state is a plain dict, each action works on
a copy and returns ``(new_state, events)``, a :class:`RulesError` changes nothing. The deck is a
list of codes, top card first: layouts come from both ends, the gate from the bottom.
"""

from __future__ import annotations

from typing import Any

from montones.rules import betting_time, hand_records, own_deck, rotation, table
from montones.rules.cards import FRENCH
from montones.rules.errors import Phrase
from montones.rules.monte.actions import (
    COUP_OVER,
    DEFAULT_SETTINGS,
    NAME,
    SEATING,
    bet,
    cut_deck,
    cut_timed_out,
    decline,
    finish,
    leave,
    new_table,
    next_coup,
    put_up_bank,
    turn_gate,
    withdraw,
)
from montones.rules.monte.computer import play
from montones.rules.monte.entry import enter_card, seen, undo_card, waiting_for
from montones.rules.monte.odds import coup_bets, fresh_layout_bet, table_odds
from montones.rules.monte.record import (
    check_dealt,
    emptied_by,
    feat,
    hand_record,
    live_commitment,
    record_lines,
    replay,
    shares,
)
from montones.rules.monte.settle import (
    FOUR_CARD_COUPS,
    LAYOUTS,
    PRIVATE_CIRCLE_COUPS,
    TWO_CARD_COUPS,
    check_bet,
    check_options,
    deal_layouts,
    generous_triple,
    layout_wins,
    max_coups,
    settle_coup,
    winning_unseen,
)
from montones.rules.monte.views import bar_view, my_view, status_view
from montones.rules.monte.views import view as _whole_view

# Seating, the host's pause and the night's end are the rotation's, as at every table whose bank
# goes round (montones.rules.rotation).
from montones.rules.rotation import (
    BANK,
    BETTING,
    CUT,
    FINISHED,
    after_pause,
    cut_deadline,
    draw_for_bank,
    follow_up,
    join,
    over,
    standings,
)
from montones.rules.table import Action, Field, State, active, top_up

TITLE = Phrase("Monte")
SETTLES = "gate_turned"  # the event of an action that settles a coup, recorded by hand_record
DECK = FRENCH
# What of a table's settings its TV's demonstration plays with (montones.rules.demo).
DEMO_SETTINGS: tuple[str, ...] = ()


def while_live(entry: dict[str, Any]) -> dict[str, Any]:
    """A coup's record while its deck is live: a scenario whose deck is the order still to be
    dealt, hidden with the shuffle's secrets."""
    return hand_records.while_live(entry, hidden=("deck",))


ACTIONS: dict[str, Action] = {
    **rotation.bank_actions(put_up_bank),
    "cut": Action(
        lambda s, who, p, now: cut_deck(s, who, p["position"], now),
        (Field("position", Phrase("The cut")),),
    ),
    "bet": Action(
        lambda s, who, p, now: bet(s, who, p["layout"], p["amount"]),
        (Field("layout", Phrase("The layout"), str), Field("amount", Phrase("The amount"))),
        tap=True,
    ),
    "withdraw": Action(
        lambda s, who, p, now: withdraw(s, who, p["bet"]), (Field("bet", Phrase("The bet")),)
    ),
    "gate": Action(lambda s, who, p, now: turn_gate(s, who)),
    "next": Action(lambda s, who, p, now: next_coup(s, who)),
    "decline": Action(lambda s, who, p, now: decline(s, who)),
    **own_deck.entry_actions(enter_card, undo_card),
    **table.host_actions(leave),
}

SETTINGS = (
    Field("bank_size", Phrase("The bank")),
    Field("min_bet", Phrase("The minimum bet")),
    Field("max_bet", Phrase("The maximum bet")),
    Field("banks_each", Phrase("Banks for each player")),
    Field("two_card", Phrase("Two-card Monte"), bool),
    Field("generous", Phrase("Generous banker"), bool),
    Field("short_bank", Phrase("A short bank"), optional=True),
    Field("private_circle", Phrase("Private circle"), bool),
    Field("cut_timeout", Phrase("The time to cut"), optional=True),
)


def settings_from(values: dict[str, Any]) -> dict[str, Any]:
    """A table's settings from the lobby's fields (:data:`SETTINGS`), for :func:`new_table`."""
    settings = {**values, "short_bank": values.get("short_bank")}
    return {key: value for key, value in settings.items() if key in DEFAULT_SETTINGS}


def stage(state: State) -> str:
    """What a screen was showing: the bank's coups count its deals."""
    entered = state["coup"].get("entered") if state["coup"] else None
    return rotation.stage(state, state["coups"]) + (f"-{len(entered)}" if entered else "")


def balances(state: State) -> dict[str, int]:
    """Where every chip of the table is: the players', the bank, stakes on the table."""
    coup = state["coup"]
    return rotation.balances(
        state, table.stakes(coup["bets"]) if coup and state["phase"] == BETTING else 0
    )


settings_for_rounds = rotation.settings_for_rounds

view = table.seat_view(_whole_view, my_view)
regions = table.seat_regions(status=status_view, bar=bar_view)


# Each action, and the clock's cut (which deals), starts the betting time when it opens bets.
ACTIONS = betting_time.timed(ACTIONS, stage, rotation.betting)
cut_timed_out = betting_time.timed_out(cut_timed_out, stage, rotation.betting)


# Bets close by the clock as the banker's turn of the gate settles the coup; a table of its own
# cards has no betting time (its gate is turned by hand and entered).
betting_deadline, bets_timed_out = betting_time.clock(
    rotation.betting, lambda s: turn_gate(s, s["banker"]), waits=own_deck.own
)


__all__ = [
    "ACTIONS",
    "BANK",
    "BETTING",
    "COUP_OVER",
    "CUT",
    "DECK",
    "DEMO_SETTINGS",
    "DEFAULT_SETTINGS",
    "FINISHED",
    "FOUR_CARD_COUPS",
    "LAYOUTS",
    "NAME",
    "PRIVATE_CIRCLE_COUPS",
    "SEATING",
    "SETTINGS",
    "SETTLES",
    "TITLE",
    "TWO_CARD_COUPS",
    "active",
    "after_pause",
    "bets_timed_out",
    "betting_deadline",
    "balances",
    "bet",
    "check_bet",
    "check_dealt",
    "check_options",
    "coup_bets",
    "cut_deadline",
    "cut_deck",
    "cut_timed_out",
    "deal_layouts",
    "decline",
    "draw_for_bank",
    "emptied_by",
    "feat",
    "enter_card",
    "finish",
    "follow_up",
    "fresh_layout_bet",
    "generous_triple",
    "hand_record",
    "join",
    "layout_wins",
    "leave",
    "live_commitment",
    "max_coups",
    "new_table",
    "next_coup",
    "over",
    "play",
    "put_up_bank",
    "record_lines",
    "regions",
    "replay",
    "settings_for_rounds",
    "settings_from",
    "seen",
    "settle_coup",
    "shares",
    "stage",
    "standings",
    "table_odds",
    "top_up",
    "turn_gate",
    "undo_card",
    "view",
    "waiting_for",
    "while_live",
    "winning_unseen",
    "withdraw",
]
