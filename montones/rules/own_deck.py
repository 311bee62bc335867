"""Our own deck: a table whose cards are real, entered one at a time as the game shows them.

A table set to ``own_deck`` (``"banker"`` or ``"host"``: who enters the cards) deals nothing
itself: it has no shuffle, no seal and no cut (the deck on the table is cut by hand). Where an
engine would take its next card from its shuffled deck it waits instead, in the phase
:data:`ENTERING`, until the card is entered; each engine keeps what was entered as a plain list
and reads its layout (heaps, layouts, positions, turned cards) from that list, so the undo of
the last card is a pop. What is the same for every game lives here: the setting, who may enter,
the refusal of a card seen already, and the four actions (the banker's or the host's).
"""

from __future__ import annotations

from collections.abc import Callable

from montones.rules import table
from montones.rules.cards import Deck
from montones.rules.errors import Phrase, RulesError
from montones.rules.table import Action, Events, Field, State

SETTING = table.OWN_DECK
ENTERING = "entering"  # a phase: the table waits for the next card to be entered


def own(state: State) -> bool:
    """Whether the table plays with its own cards, entered as they are shown."""
    return state["settings"].get(SETTING) is not None


def require_own(state: State) -> None:
    if not own(state):
        raise RulesError("this table deals its own cards: there is nothing to enter")


def enterer(state: State, banker: str | None) -> str:
    """Who enters the cards now: the host at a table set so; at a table where the banker
    enters, the banker, unless the banker is a computer player (it never touches real
    cards): then the host enters for it, as at a table where the host does."""
    if state["settings"][SETTING] == "host":
        return "host"
    if banker is not None and table.is_computer(state, banker):
        return "host"
    return "banker"


def require_enterer(state: State, who: str, banker: str | None) -> None:
    """Refuse a card or an undo from anyone but the one who enters now (:func:`enterer`)."""
    require_own(state)
    if enterer(state, banker) == "host":
        if who != "host":
            raise RulesError("at this table the host enters the cards")
    elif who != banker:
        raise RulesError("only the banker enters the cards")


def fresh(deck: Deck, seen: list[str], code: object) -> str:
    """``code``, a card of ``deck`` not seen yet in this deal (or deck): else refused in words."""
    card = deck.parse(code)
    if card in seen:
        raise RulesError(
            "%(card)s is on the table already: each card is seen once until the deck is shuffled",
            card=card,
        )
    return card


def require_card(waiting: bool) -> None:
    if not waiting:
        raise RulesError("no card is awaited now")


def require_undo(entered: list[str]) -> None:
    if not entered:
        raise RulesError("there is no card to take back")


def entry_actions(
    enter: Callable[[State, str, str], tuple[State, Events]],
    undo: Callable[[State, str], tuple[State, Events]],
) -> dict[str, Action]:
    """The actions of an own-deck table: a card entered and the last one taken back, by the
    banker's phone (``card``, ``undo_card``) or the host's (``host_card``, ``host_undo_card``);
    the engine's ``enter`` and ``undo`` refuse the one the table's setting does not name."""
    card = Field("card", Phrase("The card"), str)
    return {
        "card": Action(lambda s, who, p, now: enter(s, who, p["card"]), (card,)),
        "undo_card": Action(lambda s, who, p, now: undo(s, who)),
        "host_card": Action(
            lambda s, who, p, now: enter(s, who, p["card"]), (card,), host=True, plays=True
        ),
        "host_undo_card": Action(lambda s, who, p, now: undo(s, who), host=True, plays=True),
    }


def entered_event(card: str, what: str) -> dict:
    return {"type": "card_entered", "card": card, "for": what}


def shown(
    state: State,
    deck: Deck,
    waiting: str | None,
    seen: list[str],
    banker: str | None,
    undoable: bool,
) -> dict | None:
    """What every screen shows of the entry (None at a table that deals): who enters now
    (:func:`enterer`: the host for a computer banker), what
    card is awaited (``waiting``, the engine's word for it), the cards seen in this deal or
    deck, and whether the last one entered can still be taken back (``undoable``: the engine's
    ``can_undo``, what its ``undo_card`` allows the one who enters)."""
    if not own(state):
        return None
    return {
        "by": enterer(state, banker),
        "waiting": waiting,
        "seen": list(seen),
        "codes": list(deck.codes),
        "undo": undoable,
    }


def seat_can(entry: dict | None, seat: str | None, banker: str | None) -> set[str]:
    """What a seat's phone may do of the entry: the banker enters (and takes back) at a table
    where the banker enters; the host's page does at a table where the host does."""
    if entry is None or entry["by"] != "banker" or seat is None or seat != banker:
        return set()
    return ({"card"} if entry["waiting"] else set()) | ({"undo_card"} if entry["undo"] else set())
