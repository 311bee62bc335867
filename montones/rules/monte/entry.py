"""A coup played with the table's own cards (:mod:`montones.rules.own_deck`): the bottom
layout then the top one are entered as they are laid out, then the gate as it is turned. The
deck is kept across coups: the cards seen stay seen until the next banker shuffles."""

from __future__ import annotations

from montones.rules import own_deck
from montones.rules.cards import FRENCH
from montones.rules.errors import RulesError
from montones.rules.monte.actions import turned_gate
from montones.rules.rotation import BETTING
from montones.rules.table import Events, State, action


def _size(state: State) -> int:
    return 1 if state["settings"]["two_card"] else 2


def waiting_for(state: State) -> str | None:
    """What the next card entered is: ``"bottom"`` or ``"top"`` (a layout's card), ``"gate"``,
    or None when no card is awaited."""
    if not own_deck.own(state) or state["coup"] is None:
        return None
    if state["phase"] == BETTING:
        return "gate"
    if state["phase"] != own_deck.ENTERING:
        return None
    return "bottom" if len(state["coup"]["entered"]) < _size(state) else "top"


def seen(state: State) -> list[str]:
    """The cards of this deck seen so far: the coups done and this coup's."""
    coup = state["coup"]
    return state["discards"] + (coup.get("entered", []) if coup else [])


def _lay_out(state: State) -> None:
    """The layouts as entered so far: the bottom layout's cards first, then the top's."""
    coup, size = state["coup"], _size(state)
    coup["bottom"], coup["top"] = coup["entered"][:size], coup["entered"][size:]


@action
def enter_card(state: State, events: Events, who: str, code: str) -> None:
    """A layout's card as it is laid out, or the gate as it is turned (which closes the bets
    and settles the coup)."""
    own_deck.require_enterer(state, who, state["banker"])
    what = waiting_for(state)
    own_deck.require_card(what is not None)
    card = own_deck.fresh(FRENCH, seen(state), code)
    events.append(own_deck.entered_event(card, what))
    coup = state["coup"]
    if what == "gate":
        turned_gate(state, events, card)
        return
    coup["entered"].append(card)
    _lay_out(state)
    if len(coup["entered"]) == 2 * _size(state):
        state["phase"] = BETTING
        events.append(
            {
                "type": "coup_dealt",
                "number": coup["number"],
                "bottom": coup["bottom"],
                "top": coup["top"],
            }
        )


def can_undo(state: State) -> bool:
    """Whether :func:`undo_card` takes a card back now: a layout's card is entered and no bet
    is on the layouts yet (the gate settles the coup: it is never taken back)."""
    coup = state["coup"]
    return waiting_for(state) is not None and bool(coup["entered"]) and not coup["bets"]


@action
def undo_card(state: State, events: Events, who: str) -> None:
    """The last layout card taken back, while no bet is on it (the gate settles: never)."""
    own_deck.require_enterer(state, who, state["banker"])
    coup = state["coup"]
    own_deck.require_card(waiting_for(state) is not None)
    own_deck.require_undo(coup["entered"])
    if coup["bets"]:
        raise RulesError("bets are on these layouts: the card stays")
    events.append({"type": "card_taken_back", "card": coup["entered"].pop()})
    _lay_out(state)
    state["phase"] = own_deck.ENTERING
