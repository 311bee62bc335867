"""A hand played with the table's own cards (:mod:`montones.rules.own_deck`): once bets close,
each heap's bottom card is entered as it is turned, in the order the banker lifts them, then
the heaps nobody bet on, the banker's heap last; its card settles the hand. After a Rey the
banker may keep the heaps, as at a table that deals: the banker says how many lie on the table
then, and the next hand's cards are entered as they are turned, those shown before never again."""

from __future__ import annotations

from montones.rules import own_deck
from montones.rules.cards import SPANISH
from montones.rules.errors import RulesError
from montones.rules.montones.bets import settle
from montones.rules.montones.deal import deal_kept, require_keeping
from montones.rules.montones.state import banker_of
from montones.rules.table import Events, State, action, is_count


def waiting_for(state: State) -> int | None:
    """The heap whose bottom card the table waits for, or None."""
    hand = state["hand"]
    if state["phase"] != own_deck.ENTERING:
        return None
    return hand["turning"][len(hand["entered"])]


def turned(hand: dict) -> dict[int, str]:
    """The cards entered so far, by heap."""
    return dict(zip(hand.get("turning", ()), hand.get("entered", ()), strict=False))


def seen(hand: dict | None) -> list[str]:
    """The cards of this deck seen so far: those shown in the hands whose heaps were kept
    (discarded, never in a heap again), then this hand's."""
    return hand.get("discards", []) + hand.get("entered", []) if hand else []


@action
def enter_card(state: State, events: Events, who: str, code: str) -> None:
    """The bottom card of the heap turned now; the banker's, the last, settles the hand."""
    own_deck.require_enterer(state, who, banker_of(state))
    heap = waiting_for(state)
    own_deck.require_card(heap is not None)
    hand = state["hand"]
    card = own_deck.fresh(SPANISH, seen(hand), code)
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


def most_kept(hand: dict) -> int:
    """The most heaps the banker can keep after a Rey: every heap and the new one, each of at
    least one of the cards nobody has seen yet."""
    return min(len(hand["heaps"]) + 1, len(SPANISH.codes) - len(seen(hand)))


@action
def keep_entered(state: State, events: Events, pid: str, count: int, now: float) -> None:
    """After a Rey, the heaps of the table's own cards kept: each shown card taken away (a heap
    left with none is gone) and a new heap made from one of them, laid last; the banker says
    how many heaps that makes, ``count``, numbered as they lie. Their cards are entered as
    they are turned."""
    require_keeping(state, pid, now)
    own_deck.require_own(state)
    hand = state["hand"]
    most = most_kept(hand)
    if most < 2:
        raise RulesError("too few cards are left in the heaps: gather and shuffle")
    if not is_count(count) or not 2 <= count <= most:
        raise RulesError(
            "the heaps kept and the new one make 2 to %(most)s heaps: with fewer, gather and "
            "shuffle",
            most=most,
        )
    deal_kept(state, events, [[] for _ in range(count)], {"heaps": count})
