"""Checking an exported night: every hand re-settled, every commitment opened.

An export (``montones.history.export``) is ``{"hands": [...]}``: each hand is a scenario of
SCENARIOS.md with its ``result`` as recorded, its ``meta`` and its ``shuffle`` (the deck order,
the salt and the cut that open the commitment shown at the table). :func:`verify` returns one
line per problem; an export with none is a night whose every hand the rules confirm.
"""

from __future__ import annotations

from typing import Any

from montones.rules import monte
from montones.rules.cards import FRENCH, SPANISH, cut
from montones.rules.errors import RulesError
from montones.rules.fairness import commitment
from montones.rules.heaps import deal_heaps, split_heaps
from montones.rules.scenario import replay


def verify(export: object) -> list[str]:
    if not isinstance(export, dict) or not isinstance(export.get("hands"), list):
        return ['not an export: no "hands" list']
    problems: list[str] = []
    decks: dict[str, list[tuple[str, dict]]] = {}
    for i, hand in enumerate(export["hands"], start=1):
        where = f"hand {i}"
        if not isinstance(hand, dict):
            problems.append(f"{where}: not an object")
            continue
        try:
            replayed = replay(hand)
        except RulesError as error:
            problems.append(f"{where}: {error}")
            continue
        difference = _difference(hand.get("result"), replayed, "result")
        if difference:
            problems.append(
                f"{where}: the recorded result is not what the rules give: {difference}"
            )
        shuffle = hand.get("shuffle")
        if not isinstance(shuffle, dict) or not isinstance(shuffle.get("commitment"), str):
            problems.append(f"{where}: no commitment to its deck")
            continue
        decks.setdefault(shuffle["commitment"], []).append((where, hand))
    for hands in decks.values():
        problems += _check_deck(hands)
    return problems


def _difference(recorded: Any, replayed: Any, path: str) -> str | None:
    """The first place where two results differ, as ``path: recorded X, replayed Y``."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in sorted(set(recorded) | set(replayed), key=str):
            found = _difference(recorded.get(key), replayed.get(key), f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(replayed, list) and len(recorded) == len(replayed):
        for i, (a, b) in enumerate(zip(recorded, replayed, strict=True)):
            found = _difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    if recorded != replayed:
        return f"{path}: recorded {recorded!r}, replayed {replayed!r}"
    return None


def _check_deck(hands: list[tuple[str, dict]]) -> list[str]:
    """Open one deck's commitment and check that its hands were dealt from that order."""
    where, first = hands[0]
    shuffle = first["shuffle"]
    deck = SPANISH if first.get("game") == "montones" else FRENCH
    try:
        order = deck.parse_order(shuffle.get("order"))
        dealt = cut(order, shuffle.get("cut"))
    except (RulesError, TypeError) as error:
        return [f"{where}: the committed deck cannot be opened: {error}"]
    if commitment(order, str(shuffle.get("salt"))) != shuffle["commitment"]:
        return [f"{where}: the deck order and salt do not hash to the commitment"]
    for other, hand in hands[1:]:
        if {k: hand["shuffle"].get(k) for k in ("salt", "order", "cut")} != {
            k: shuffle.get(k) for k in ("salt", "order", "cut")
        }:
            return [f"{other}: its deck is not the one its commitment names"]
    try:
        if first.get("game") == "montones":
            return _check_heaps(hands, dealt)
        return _check_coups(hands, dealt)
    except (RulesError, TypeError, ValueError, AttributeError, IndexError, KeyError) as error:
        return [f"{where}: the deal cannot be rebuilt from the committed deck: {error}"]


def _check_heaps(hands: list[tuple[str, dict]], dealt: list[str]) -> list[str]:
    """Montones: the first hand's heaps are the cut deck in the recorded sizes; a hand that kept
    the heaps after a Rey split the previous hand's heaps as recorded."""
    problems = []
    heaps = None
    for where, hand in sorted(hands, key=lambda item: item[1].get("meta", {}).get("hand", 0)):
        shuffle = hand["shuffle"]
        kept = shuffle.get("kept")
        if kept is None:
            expected = deal_heaps(dealt, shuffle["sizes"])
        elif heaps is None:
            problems.append(f"{where}: it keeps the heaps of a hand missing from the export")
            continue
        else:
            expected = split_heaps(heaps, kept["split"], kept["position"])
        if shuffle.get("heaps") != expected:
            problems.append(f"{where}: the heaps are not the ones dealt from the committed deck")
        elif hand.get("heaps") != [heap[-1] for heap in expected]:
            problems.append(f"{where}: the turned cards are not the bottoms of the dealt heaps")
        heaps = expected
    return problems


def _check_coups(hands: list[tuple[str, dict]], dealt: list[str]) -> list[str]:
    """Monte: dealing coup after coup from the cut deck gives each coup's recorded cards."""
    problems = []
    coups = {}
    deck = dealt
    two_card = hands[0][1].get("options", {}).get("two_card", False)
    for number in range(1, monte.max_coups({"two_card": two_card}) + 1):
        bottom, top, deck = monte.deal_layouts(deck, two_card)
        coups[number] = {"bottom": bottom, "top": top, "gate": deck.pop()}
    for where, hand in hands:
        number = hand["shuffle"].get("coup")
        recorded = hand["result"]["coups"][0]
        if {k: recorded.get(k) for k in ("bottom", "top", "gate")} != coups.get(number):
            problems.append(f"{where}: its cards are not coup {number} of the committed deck")
    return problems
