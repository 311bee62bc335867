"""What every game's hand records (each engine's ``hand_record``) write the same way."""

from __future__ import annotations

from typing import Any


def punters_chips(
    before: dict, after: dict, banker: str, bets: list[dict]
) -> tuple[dict[str, int], dict[str, int]]:
    """Each punter's chips before the hand, its stakes counted in (as docs/scenarios.md has them),
    and after it: every seated player but the banker, and anyone who left with a bet down."""
    stakes: dict[str, int] = {}
    for placed in bets:
        stakes[placed["player"]] = stakes.get(placed["player"], 0) + (placed["amount"] or 0)
    seats = [
        pid
        for pid, p in before["players"].items()
        if pid != banker and (not p.get("left") or pid in stakes)
    ]
    chips_before = {pid: before["players"][pid]["chips"] + stakes.get(pid, 0) for pid in seats}
    return chips_before, {pid: after["players"][pid]["chips"] for pid in seats}


def settled(lines: list[dict], bets: list[dict]) -> list[dict[str, Any]]:
    """Settled lines as a scenario result has them: ``bet`` is the index in ``bets``, not its id."""
    index = {placed["id"]: i for i, placed in enumerate(bets)}
    return [
        {"bet": index[line["bet"]], "result": line["result"], "net": line["net"]} for line in lines
    ]


def names(state: dict) -> dict[str, str]:
    """Every seat's name, as a record's ``meta`` keeps them (names may repeat; seats do not)."""
    return {pid: p["name"] for pid, p in state["players"].items()}


# What of a record's ``shuffle`` opens its deck's commitment: hidden while the deck is live
# (:func:`while_live`).
OPENS = ("salt", "order")


def while_live(
    entry: dict[str, Any], sealed: tuple[str, ...] = OPENS, hidden: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A hand's record as a screen or an export may show it while its deck is live (an engine's
    ``while_live``): its ``shuffle`` without what opens the deck's commitment and whatever else
    of it tells the cards to come (``sealed``), and without the record's ``hidden`` parts."""
    shuffle = {key: value for key, value in entry["shuffle"].items() if key not in sealed}
    return {**{key: value for key, value in entry.items() if key not in hidden}, "shuffle": shuffle}


# A hand played with the table's own cards (montones.rules.own_deck) was never shuffled by the
# app: its record's ``shuffle`` says so, and nothing claims a seal the app could not give.
OWN_DECK = {"commitment": None, "own_deck": True}


def sealed(shuffle: dict | None, cut: int | None, **more: Any) -> dict[str, Any]:
    """A record's ``shuffle``: what opens the deck's commitment, the cut made after it, and
    what else the game needs to rebuild the hand from that order (:data:`OWN_DECK` for a
    hand of the table's own cards)."""
    if shuffle is None:
        return dict(OWN_DECK)
    return {
        "commitment": shuffle["commitment"],
        "salt": shuffle["salt"],
        "order": shuffle["order"],
        "cut": cut,
        **more,
    }


def own_deck(entry: dict[str, Any]) -> bool:
    """Whether a record is of a hand played with the table's own cards."""
    shuffle = entry.get("shuffle")
    return isinstance(shuffle, dict) and shuffle.get("own_deck") is True


def unseen(codes: tuple[str, ...], seen: list[str]) -> list[str]:
    """The cards of a deck nobody saw, in the deck's own order: what fills the scenario deck of
    an own-deck hand around the cards entered (a hand never reaches them)."""
    shown = set(seen)
    return [card for card in codes if card not in shown]
