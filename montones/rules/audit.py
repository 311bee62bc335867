"""Checking an exported night: every hand re-settled, every commitment opened.

An export (``montones.data.history.export``) is ``{"hands": [...]}``: each hand is a scenario of
docs/scenarios.md with its ``result`` as recorded, its ``meta`` and its ``shuffle`` (the deck order,
the salt and the cut that open the commitment shown at the table). :func:`verify` returns one
line per problem; an export with none is a night whose every hand the rules confirm.
"""

from __future__ import annotations

from typing import Any

from montones.rules.cards import cut
from montones.rules.errors import RulesError
from montones.rules.fairness import commitment
from montones.rules.games import game
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
    """Open one deck's commitment and check that its hands were dealt from that order (the
    game's ``check_dealt``)."""
    where, first = hands[0]
    shuffle = first["shuffle"]
    engine = game(first["game"])  # each hand here was replayed: its game is one of the registry
    try:
        order = engine.DECK.parse_order(shuffle.get("order"))
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
        return engine.check_dealt(hands, dealt)
    except (RulesError, TypeError, ValueError, AttributeError, IndexError, KeyError) as error:
        return [f"{where}: the deal cannot be rebuilt from the committed deck: {error}"]
