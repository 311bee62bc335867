"""A hand played with the table's own cards (:mod:`montones.rules.own_deck`): once bets close,
each heap's bottom card is entered as it is turned, in the order the banker lifts them, then
the heaps nobody bet on, the banker's heap last; its card settles the hand."""

from __future__ import annotations

from montones.rules import own_deck
from montones.rules.cards import SPANISH
from montones.rules.montones.bets import settle
from montones.rules.montones.state import banker_of
from montones.rules.table import Events, State, action


def waiting_for(state: State) -> int | None:
    """The heap whose bottom card the table waits for, or None."""
    hand = state["hand"]
    if state["phase"] != own_deck.ENTERING:
        return None
    return hand["turning"][len(hand["entered"])]


def turned(hand: dict) -> dict[int, str]:
    """The cards entered so far, by heap."""
    return dict(zip(hand.get("turning", ()), hand.get("entered", ()), strict=False))


@action
def enter_card(state: State, events: Events, who: str, code: str) -> None:
    """The bottom card of the heap turned now; the banker's, the last, settles the hand."""
    own_deck.require_enterer(state, who, banker_of(state))
    heap = waiting_for(state)
    own_deck.require_card(heap is not None)
    hand = state["hand"]
    card = own_deck.fresh(SPANISH, hand["entered"], code)
    hand["entered"].append(card)
    events.append({**own_deck.entered_event(card, f"heap {heap}"), "heap": heap})
    if len(hand["entered"]) == len(hand["turning"]):
        by_heap = turned(hand)
        cards = [by_heap[number] for number in range(1, len(hand["heaps"]) + 1)]
        hand["heaps"] = [[card] for card in cards]
        settle(state, events, cards)


def can_undo(state: State) -> bool:
    """Whether :func:`undo_card` takes a card back now: one is entered and the hand still
    waits for the next (the banker's card settles it)."""
    return waiting_for(state) is not None and bool(state["hand"]["entered"])


@action
def undo_card(state: State, events: Events, who: str) -> None:
    """The last card entered taken back (the banker's settles the hand: it is never waiting)."""
    own_deck.require_enterer(state, who, banker_of(state))
    own_deck.require_card(waiting_for(state) is not None)
    entered = state["hand"]["entered"]
    own_deck.require_undo(entered)
    events.append({"type": "card_taken_back", "card": entered.pop()})
