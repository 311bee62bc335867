"""A deal played with the table's own cards (:mod:`montones.rules.own_deck`): the four
positions are entered as they are laid out (``ul`` and the cards of its rank stacked on it as
they come, ``ur``, then ``ll`` and ``lr``), a void deal said as soon as the positions show it;
then the table's side cards as they are dealt from the top, a card whose rank shows entered too
and set aside; once bets close, each card turned from the bottom until the last bet is decided
(or, when a bet cannot be, until the deck is out)."""

from __future__ import annotations

from typing import Any

from montones.rules import own_deck
from montones.rules.cards import FRENCH
from montones.rules.errors import RulesError
from montones.rules.monte_bank.bank import SETTLES, _shuffle, side_cards
from montones.rules.monte_bank.bets import settle_deal
from montones.rules.monte_bank.settle import (
    FOUR_OF_A_RANK,
    LOWER_MATCHES_UPPER,
    LOWER_PAIR,
    POSITIONS,
    SET_ASIDE,
    SIDE_CARDS,
    deciding,
    parts,
    rank,
    side_count,
)
from montones.rules.rotation import BETTING
from montones.rules.table import Events, State, action


def laid_out(cards: list[str], sides: int = 0) -> tuple[dict[str, list[str]], str | None]:
    """The positions the ``cards`` entered so far make, as :func:`~.settle.deal_layout` lays
    a deck out, and why the deal is void, else None: a fourth card of ``ul``'s rank makes it
    void at once, the lower cards once both are down (as the dealt layout says it, before
    any bet, a lower pair before a lower card matching an upper one). On a valid layout, the
    cards after ``lr`` are its ``sides`` side cards, each card whose rank shows set aside."""
    layout: dict[str, list[str]] = {position: [] for position in POSITIONS}
    for card in cards:
        upper = {rank(c) for c in layout["ul"] + layout["ur"]}
        if layout["lr"]:
            showing = {rank(c[0]) for p, c in layout.items() if p != SET_ASIDE}
            if rank(card) in showing:
                layout[SET_ASIDE].append(card)
            else:
                layout[SIDE_CARDS[side_count(layout)]] = [card]
        elif not layout["ur"]:
            if layout["ul"] and rank(card) != rank(layout["ul"][0]):
                layout["ur"] = [card]
            else:
                layout["ul"].append(card)
                if len(layout["ul"]) == 4:
                    return layout, FOUR_OF_A_RANK
        elif not layout["ll"]:
            layout["ll"] = [card]
        else:
            layout["lr"] = [card]
            if rank(card) == rank(layout["ll"][0]):
                return layout, LOWER_PAIR
            if {rank(card), rank(layout["ll"][0])} & upper:
                return layout, LOWER_MATCHES_UPPER
            if sides:
                layout[SET_ASIDE] = []
    return layout, None


def waiting_for(state: State) -> str | None:
    """What the next card entered is: a position (``"ul"`` also for a card stacked on it), a
    side card (``"s1"``, ``"s2"``, also for a card set aside while it is dealt), or
    ``"turned"``; None when no card is awaited."""
    deal = state["deal"]
    if not own_deck.own(state) or state["phase"] != own_deck.ENTERING or deal is None:
        return None
    if deal["turned"] is not None:
        return "turned"
    layout = deal["layout"]
    wanted = POSITIONS + SIDE_CARDS[: side_cards(state["settings"])]
    return next((p for p in wanted if not layout.get(p)), wanted[-1])


def seen(state: State) -> list[str]:
    """The cards of this deal seen so far (each deal is a fresh shuffle)."""
    deal = state["deal"]
    return deal.get("entered", []) + (deal.get("turned") or []) if deal else []


def undecided(deal: dict[str, Any]) -> int:
    """How many parts of the deal's bets the cards turned so far leave undecided."""
    turned = set(deal["turned"] or [])
    left = 0
    for placed in deal["bets"]:
        for part in parts(placed):
            win, lose = deciding(deal["layout"], part)
            left += not (turned & (win | lose))
    return left


@action
def enter_card(state: State, events: Events, who: str, code: str) -> None:
    """A card of the layout as it is laid out, or a card turned; the one that decides the last
    bet settles the deal, and one that makes the deal void has it gathered and shuffled."""
    own_deck.require_enterer(state, who, state["banker"])
    what = waiting_for(state)
    own_deck.require_card(what is not None)
    deal = state["deal"]
    card = own_deck.fresh(FRENCH, seen(state), code)
    if what == "turned":
        events.append(own_deck.entered_event(card, what))
        deal["turned"].append(card)
        # A bet no card left can decide (a set-aside card took its last live one) waits for
        # the deck to be out, as a dealt deck is turned to its end for it.
        if not undecided(deal) or len(seen(state)) == len(FRENCH.codes):
            settle_deal(state, events, deal["turned"][::-1])
        return
    deal["entered"].append(card)
    sides = side_cards(state["settings"])
    deal["layout"], void = laid_out(deal["entered"], sides)
    aside = card in deal["layout"].get(SET_ASIDE, ())
    events.append(own_deck.entered_event(card, SET_ASIDE if aside else what))
    if void:
        _void(state, events, void)
    elif deal["layout"]["lr"] and side_count(deal["layout"]) == sides:
        state["phase"] = BETTING
        events.append({"type": "dealt", "number": deal["number"], "layout": deal["layout"]})


def _void(state: State, events: Events, why: str) -> None:
    """As a dealt deal found void: its record, then the cards gathered and shuffled again."""
    deal = state["deal"]
    state["void"] = {
        "why": why,
        "layout": deal["layout"],
        "deal": deal["number"],
        "version": state["version"] + 1,
    }
    state["last_deal"] = {**deal, "shuffle": None, "void": why}
    events.append({"type": SETTLES, "void": why, "layout": deal["layout"]})
    _shuffle(state, events, 0.0)


def can_undo(state: State) -> bool:
    """Whether :func:`undo_card` takes a card back now: a turned card; a layout's card (a side
    card's, a card set aside) while no bet is on the layout (the card that settles or voids a deal is never waiting)."""
    deal = state["deal"]
    if not own_deck.own(state) or deal is None:
        return False
    if state["phase"] == BETTING:
        return not deal["bets"] and bool(deal["entered"])
    if state["phase"] != own_deck.ENTERING:
        return False
    return bool(deal["turned"] if deal["turned"] is not None else deal["entered"])


@action
def undo_card(state: State, events: Events, who: str) -> None:
    """The last card taken back: a turned card, or a layout's (a side card, a card set aside)
    while no bet is on it."""
    own_deck.require_enterer(state, who, state["banker"])
    deal = state["deal"]
    if state["phase"] == BETTING and deal is not None and own_deck.own(state):
        if deal["bets"]:
            raise RulesError("bets are on this layout: the card stays")
        state["phase"] = own_deck.ENTERING
    own_deck.require_card(waiting_for(state) is not None)
    entered = deal["turned"] if deal["turned"] is not None else deal["entered"]
    own_deck.require_undo(entered)
    events.append({"type": "card_taken_back", "card": entered.pop()})
    deal["layout"], _ = laid_out(deal["entered"], side_cards(state["settings"]))
