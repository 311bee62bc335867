"""Monte Bank, the casino game that opens the Russian source (docs/rules.md, "Monte Bank").

Ranks, not suits, are matched. Two cards from the bottom make the upper layout (``ul`` with its
stack, then ``ur``), two from the top the lower one (``ll``, ``lr``); punters bet on which
position is matched first, and the cards are turned from the bottom until every bet is decided.

Same shape as :mod:`montones.rules.monte`: the state is a plain dict, each action works on a
copy and returns ``(new_state, events)``, a :class:`RulesError` changes nothing. Each deal is a
fresh shuffle, sealed before its cut (:mod:`montones.rules.fairness`) and opened once it is
done; a void deal is opened at once, and the next shuffle sealed again.
"""

from __future__ import annotations

from typing import Any

from montones.rules import betting_time, hand_records, own_deck, rotation, table
from montones.rules.cards import FRENCH
from montones.rules.errors import Phrase
from montones.rules.monte_bank.bank import (
    DEAL_OVER,
    DEFAULT_SETTINGS,
    NAME,
    SEATING,
    SETTLES,
    aces,
    check_settings,
    cut_deck,
    cut_timed_out,
    finish,
    leave,
    new_table,
    next_deal,
    put_up_bank,
)
from montones.rules.monte_bank.bets import bet, change, close_bets, parse_spot, tapped, withdraw
from montones.rules.monte_bank.computer import play
from montones.rules.monte_bank.entry import enter_card, laid_out, seen, undo_card, waiting_for
from montones.rules.monte_bank.odds import ODDS_LAYOUTS, layout_odds, part_odds, table_odds
from montones.rules.monte_bank.record import (
    check_dealt,
    emptied_by,
    feat,
    hand_record,
    live_commitment,
    record_lines,
    replay,
    scenario_bet,
    shares,
)
from montones.rules.monte_bank.settle import (
    FOUR_OF_A_RANK,
    KINDS,
    LEVY_SHARE,
    LOWER_MATCHES_UPPER,
    LOWER_PAIR,
    OPPOSITE,
    PAYS,
    POSITIONS,
    SET_ASIDE,
    SIDE_CARDS,
    SIDES,
    by_rank,
    check_bet,
    colour,
    cost,
    deal_layout,
    decide,
    deciding,
    live_words,
    matching,
    parts,
    pays,
    play_deal,
    positions,
    rank,
    stack_size,
    turning_order,
    void_cards,
)
from montones.rules.monte_bank.views import bar_view, my_view, status_view
from montones.rules.monte_bank.views import view as _whole_view

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

TITLE = Phrase("Monte Bank")
DECK = FRENCH
# A table's side cards are dealt in its TV's demonstration too (montones.rules.demo).
DEMO_SETTINGS: tuple[str, ...] = ("side_cards",)


def while_live(entry: dict[str, Any]) -> dict[str, Any]:
    """A deal's record while its deck is live: a scenario whose deck is the order still to be
    turned, hidden with the shuffle's secrets."""
    return hand_records.while_live(entry, hidden=("deck",))


ACTIONS: dict[str, Action] = {
    **rotation.bank_actions(put_up_bank),
    "cut": Action(
        lambda s, who, p, now: cut_deck(s, who, p["position"], now),
        (Field("position", Phrase("The cut")),),
    ),
    "bet": Action(
        lambda s, who, p, now: bet(s, who, tapped(p), p["amount"]),
        (
            Field("at", Phrase("The place"), str),
            Field("bet_kind", Phrase("The kind of bet"), str),
            Field("first", Phrase("The position tapped first"), str, optional=True),
            Field("against", Phrase("The position it plays against"), str),
            Field("side", Phrase("The side"), str),
            Field("amount", Phrase("The amount")),
        ),
        tap=True,
    ),
    "change": Action(
        lambda s, who, p, now: change(s, who, p["bet"], p["amount"]),
        (Field("bet", Phrase("The bet")), Field("amount", Phrase("The amount"))),
    ),
    "withdraw": Action(
        lambda s, who, p, now: withdraw(s, who, p["bet"]), (Field("bet", Phrase("The bet")),)
    ),
    "close": Action(lambda s, who, p, now: close_bets(s, who)),
    "next": Action(lambda s, who, p, now: next_deal(s, who, now)),
    "aces": Action(lambda s, who, p, now: aces(s, who)),
    **own_deck.entry_actions(enter_card, undo_card),
    **table.host_actions(leave),
}

SETTINGS = (
    Field("min_bet", Phrase("The minimum bet")),
    Field("mb_bank_size", Phrase("The bank")),
    Field("mb_levy", Phrase("The levy"), bool),
    Field("mb_deals_per_bank", Phrase("Deals per bank"), optional=True),
    Field("mb_banks_each", Phrase("Banks for each player")),
    Field("mb_side_cards", Phrase("Side cards"), optional=True),
    Field("cut_timeout", Phrase("The time to cut"), optional=True),
)


def settings_from(values: dict[str, Any]) -> dict[str, Any]:
    """A table's settings from the lobby's fields (:data:`SETTINGS`; this game's own fields
    are prefixed, the lobby's form holding every game's), for :func:`new_table`."""
    settings = {
        "min_bet": values["min_bet"],
        "bank_size": values["mb_bank_size"],
        "levy": values["mb_levy"],
        "deals_per_bank": values.get("mb_deals_per_bank"),
        "banks_each": values["mb_banks_each"],
        "side_cards": values.get("mb_side_cards", 0),
    }
    if "cut_timeout" in values:
        settings["cut_timeout"] = values["cut_timeout"]
    return settings


def stage(state: State) -> str:
    """What a screen was showing: a void deal is shuffled again, so shuffles count the deals."""
    deal = state["deal"]
    entered = len(deal.get("entered", ())) + len(deal.get("turned") or ()) if deal else 0
    return rotation.stage(state, state["shuffles"]) + (f"-{entered}" if entered else "")


def balances(state: State) -> dict[str, int]:
    """Where every chip of the table is: the players', the bank, stakes on the table, the levy
    pot, and what the house has taken of it (chips that left play)."""
    deal = state["deal"]
    open_bets = deal["bets"] if deal and state["phase"] in (BETTING, own_deck.ENTERING) else []
    accounts = rotation.balances(state, sum(cost(b) for b in open_bets))
    accounts["levy"] = state["pot"]
    accounts["house"] = state["house"]
    return accounts


settings_for_rounds = rotation.settings_for_rounds

view = table.seat_view(_whole_view, my_view)
regions = table.seat_regions(status=status_view, bar=bar_view)


# Each action, and the clock's cut (which deals), starts the betting time when it opens bets.
ACTIONS = betting_time.timed(ACTIONS, stage, rotation.betting)
cut_timed_out = betting_time.timed_out(cut_timed_out, stage, rotation.betting)


# Bets close by the clock as the banker's close closes them.
betting_deadline, bets_timed_out = betting_time.clock(
    rotation.betting, lambda s: close_bets(s, s["banker"])
)


__all__ = [
    "ACTIONS",
    "BANK",
    "BETTING",
    "CUT",
    "DEAL_OVER",
    "DECK",
    "DEMO_SETTINGS",
    "DEFAULT_SETTINGS",
    "FINISHED",
    "FOUR_OF_A_RANK",
    "KINDS",
    "LEVY_SHARE",
    "LOWER_MATCHES_UPPER",
    "LOWER_PAIR",
    "NAME",
    "ODDS_LAYOUTS",
    "OPPOSITE",
    "PAYS",
    "POSITIONS",
    "SEATING",
    "SETTINGS",
    "SETTLES",
    "SET_ASIDE",
    "SIDES",
    "SIDE_CARDS",
    "TITLE",
    "aces",
    "active",
    "after_pause",
    "bets_timed_out",
    "betting_deadline",
    "balances",
    "bet",
    "by_rank",
    "change",
    "check_bet",
    "check_dealt",
    "check_settings",
    "close_bets",
    "colour",
    "cost",
    "cut_deadline",
    "cut_deck",
    "cut_timed_out",
    "deal_layout",
    "decide",
    "deciding",
    "draw_for_bank",
    "emptied_by",
    "feat",
    "enter_card",
    "finish",
    "follow_up",
    "hand_record",
    "join",
    "laid_out",
    "seen",
    "layout_odds",
    "leave",
    "live_commitment",
    "live_words",
    "matching",
    "new_table",
    "next_deal",
    "over",
    "parse_spot",
    "part_odds",
    "parts",
    "pays",
    "play",
    "play_deal",
    "positions",
    "put_up_bank",
    "rank",
    "record_lines",
    "regions",
    "replay",
    "scenario_bet",
    "settings_for_rounds",
    "settings_from",
    "shares",
    "stack_size",
    "stage",
    "standings",
    "table_odds",
    "tapped",
    "top_up",
    "turning_order",
    "undo_card",
    "view",
    "waiting_for",
    "while_live",
    "void_cards",
    "withdraw",
]
