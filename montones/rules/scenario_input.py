"""Reading a scenario file (docs/scenarios.md): what every game's ``replay`` checks the same way.

Any value that breaks a rule raises :class:`ScenarioError` (a :class:`RulesError`, so a
``ValueError``) with one line that names the problem.
"""

from __future__ import annotations

from typing import Any

from montones.rules.cards import Deck
from montones.rules.errors import RulesError


class ScenarioError(RulesError):
    pass


def quoted(value: object, most: int = 40) -> str:
    """A value as an error line quotes it, cut short: the line stays one readable line."""
    text = repr(value)
    return text if len(text) <= most else text[: most - 1] + "…"


def field(data: dict, key: str, where: str = "the scenario") -> Any:
    if key not in data:
        raise ScenarioError(f'{where} has no "{key}"')
    return data[key]


def whole_number(value: object, what: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(f"{what} must be a whole number, not {quoted(value)}")
    if value < minimum:
        raise ScenarioError(f"{what} must be at least {minimum}, not {value}")
    return value


def listed(data: dict, key: str, where: str = "the scenario") -> list:
    value = field(data, key, where)
    if not isinstance(value, list):
        raise ScenarioError(f'"{key}" in {where} must be a list')
    return value


def seated_chips(data: dict) -> dict[str, int]:
    """The scenario's ``players``: each player's name and chips. It may be empty: a table's
    banker deals on alone once every punter has left (and records that hand)."""
    players = field(data, "players")
    if not isinstance(players, dict):
        raise ScenarioError('"players" maps each player\'s name to their chips')
    return {name: whole_number(chips, f"{name}'s chips") for name, chips in players.items()}


def distinct_cards(deck: Deck, codes: object, what: str) -> list[str]:
    try:
        return deck.parse_distinct(codes, what)
    except RulesError as error:
        raise ScenarioError(str(error)) from None


def deck_order(deck: Deck, codes: object) -> list[str]:
    """A whole deck in the order given, every card of ``deck`` once."""
    try:
        return deck.parse_order(codes)
    except RulesError as error:
        raise ScenarioError(str(error)) from None


def net_chips(players: dict[str, int], settled: list[dict]) -> dict[str, int]:
    """Each player's chips once the ``settled`` lines are paid."""
    chips = dict(players)
    for line in settled:
        chips[line["player"]] += line["net"]
    return chips


def scenario_lines(settled: list[dict]) -> list[dict[str, Any]]:
    """Settled lines as a scenario's result has them."""
    return [{"bet": line["bet"], "result": line["result"], "net": line["net"]} for line in settled]
