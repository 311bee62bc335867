"""Replaying a scenario file (SCENARIOS.md): one Montones hand, a run of Monte coups, or one
deal of Casino Monte Bank.

:func:`replay` takes the parsed JSON and returns the result as plain data. Any scenario that
breaks a rule raises :class:`ScenarioError` (a :class:`RulesError`, so a ``ValueError``) with
one line that names the problem.
"""

from __future__ import annotations

from typing import Any

from montones.rules import casino, monte
from montones.rules.cards import FRENCH, SPANISH
from montones.rules.errors import RulesError
from montones.rules.heaps import settle_hand


class ScenarioError(RulesError):
    pass


def replay(data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object")
    game = data.get("game")
    if game == "montones":
        return replay_montones(data)
    if game == "monte":
        return replay_monte(data)
    if game == casino.NAME:
        return replay_monte_bank(data)
    raise ScenarioError(
        f'unknown game {_shown(game)}: "game" is "montones", "monte" or "{casino.NAME}"'
    )


def _shown(value: object, most: int = 40) -> str:
    """A value as an error line quotes it, cut short: the line stays one readable line."""
    text = repr(value)
    return text if len(text) <= most else text[: most - 1] + "…"


def _field(data: dict, key: str, where: str = "the scenario") -> Any:
    if key not in data:
        raise ScenarioError(f'{where} has no "{key}"')
    return data[key]


def _count(value: object, what: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(f"{what} must be a whole number, not {_shown(value)}")
    if value < minimum:
        raise ScenarioError(f"{what} must be at least {minimum}, not {value}")
    return value


def _players(data: dict) -> dict[str, int]:
    players = _field(data, "players")
    if not isinstance(players, dict) or not players:
        raise ScenarioError('"players" maps each player\'s name to their chips')
    return {name: _count(chips, f"{name}'s chips") for name, chips in players.items()}


def _cards(deck, codes: object, what: str) -> list[str]:
    try:
        return deck.parse_distinct(codes, what)
    except RulesError as error:
        raise ScenarioError(str(error)) from None


def _list(data: dict, key: str, where: str = "the scenario") -> list:
    value = _field(data, key, where)
    if not isinstance(value, list):
        raise ScenarioError(f'"{key}" in {where} must be a list')
    return value


# --- Montones ----------------------------------------------------------------------------


def replay_montones(data: dict) -> dict[str, Any]:
    bank = _count(_field(data, "bank"), "the bank", 1)
    players = _players(data)
    cards = _cards(SPANISH, _field(data, "heaps"), "the heaps")
    if len(cards) < 2:
        raise ScenarioError("a hand needs at least two heaps: the banker's and one to bet on")
    bank_heap = _count(_field(data, "bank_heap"), "bank_heap", 1)
    if bank_heap > len(cards):
        raise ScenarioError(f"bank_heap {bank_heap} is not a heap: the heaps are 1 to {len(cards)}")
    bets = [
        _montones_bet(i, raw, players, bank, bank_heap, len(cards))
        for i, raw in enumerate(_list(data, "bets"))
    ]
    declarations = [i for i, b in enumerate(bets) if b["kind"] == "whole_bank"]
    if len(declarations) > 1:
        raise ScenarioError(
            f"bets[{declarations[1]}]: only one punter a hand may declare pagando y cobrando"
        )
    staked: dict[str, int] = {}
    for i, placed in enumerate(bets):
        player = placed["player"]
        staked[player] = staked.get(player, 0) + (placed["amount"] or 0)
        if staked[player] > players[player]:
            raise ScenarioError(
                f"bets[{i}]: {player} has {players[player]} chips and would have "
                f"{staked[player]} on the table"
            )
    outcome = settle_hand(bank, cards, bank_heap, bets, players)
    final = dict(players)
    for line in outcome["settled"]:
        final[line["player"]] += line["net"]
    return {
        "bank_card": outcome["bank_card"],
        "bank": outcome["bank"],
        "players": final,
        "settled": [
            {"bet": line["bet"], "result": line["result"], "net": line["net"]}
            for line in outcome["settled"]
        ],
    }


def _montones_bet(
    i: int, raw: object, players: dict, bank: int, bank_heap: int, heaps: int
) -> dict[str, Any]:
    where = f"bets[{i}]"
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where} must be an object")
    player = _field(raw, "player", where)
    if not isinstance(player, str) or player not in players:
        raise ScenarioError(f"{where}: {_shown(player)} is not one of the players")
    whole_bank = raw.get("whole_bank", False)
    if not isinstance(whole_bank, bool):
        raise ScenarioError(f"{where}: whole_bank is true or false")
    if "heap" in raw and "against" in raw:
        raise ScenarioError(f"{where} names both a heap and a heap to bet against: choose one")
    if whole_bank:
        kind, key = "whole_bank", "heap"
        if "amount" in raw:
            raise ScenarioError(f"{where}: a bet for the whole bank has no amount")
        if "against" in raw:
            raise ScenarioError(
                f"{where}: pagando y cobrando is declared on a heap, not against one"
            )
    elif "against" in raw:
        kind, key = "against", "against"
    elif "heap" in raw:
        kind, key = "heap", "heap"
    else:
        raise ScenarioError(f'{where} needs "heap" or "against"')
    heap = _count(raw[key], f"{where}: the heap", 1)
    if heap > heaps:
        raise ScenarioError(f"{where}: there is no heap {heap}: the heaps are 1 to {heaps}")
    if heap == bank_heap:
        raise ScenarioError(
            f"{where}: heap {heap} is the banker's heap: no bet of any kind can be tied to it"
        )
    amount = None
    if kind != "whole_bank":
        amount = _count(_field(raw, "amount", where), f"{where}: the amount", 1)
        if amount > bank:
            raise ScenarioError(f"{where}: the bank holds {bank}: a bet of {amount} is over it")
    return {"player": player, "kind": kind, "heap": heap, "amount": amount}


# --- Monte -------------------------------------------------------------------------------


def replay_monte(data: dict) -> dict[str, Any]:
    options = _field(data, "options") if "options" in data else {}
    if not isinstance(options, dict):
        raise ScenarioError('"options" must be an object')
    try:
        monte.check_options(options)
    except RulesError as error:
        raise ScenarioError(str(error)) from None
    bank = _count(_field(data, "bank"), "the bank", 1)
    limits = _field(data, "limits")
    if not isinstance(limits, dict):
        raise ScenarioError('"limits" must be an object with "min" and "max"')
    low = _count(_field(limits, "min", '"limits"'), "the smallest bet", 1)
    high = _count(_field(limits, "max", '"limits"'), "the largest bet", 1)
    if high < low:
        raise ScenarioError(f"the largest bet ({high}) is below the smallest ({low})")
    players = _players(data)
    codes = _field(data, "deck")
    try:
        deck = FRENCH.parse_order(codes)
    except RulesError as error:
        raise ScenarioError(str(error)) from None
    coups = _list(data, "coups")
    allowed = monte.max_coups(options)
    if len(coups) > allowed:
        raise ScenarioError(f"{len(coups)} coups, but one bank deals at most {allowed}")
    chips = dict(players)
    results = []
    for number, coup in enumerate(coups, start=1):
        if bank == 0:
            raise ScenarioError(f"coup {number}: the bank broke in coup {number - 1} and passed")
        where = f"coup {number}"
        if not isinstance(coup, dict):
            raise ScenarioError(f"{where} must be an object with its bets")
        bets = [_monte_bet(where, i, raw) for i, raw in enumerate(_list(coup, "bets", where))]
        on_table = 0
        left = dict(chips)
        for i, placed in enumerate(bets):
            if not isinstance(placed["player"], str) or placed["player"] not in chips:
                raise ScenarioError(
                    f"{where}, bets[{i}]: {_shown(placed['player'])} is not a player"
                )
            try:
                monte.check_bet(
                    left[placed["player"]],
                    bank,
                    on_table,
                    placed["layout"],
                    placed["amount"],
                    {"min_bet": low, "max_bet": high},
                )
            except RulesError as error:
                raise ScenarioError(f"{where}, bets[{i}] ({placed['player']}): {error}") from None
            on_table += placed["amount"]
            left[placed["player"]] -= placed["amount"]
        bottom, top, deck = monte.deal_layouts(deck, options.get("two_card", False))
        gate = deck.pop()
        outcome = monte.settle_coup(bank, bottom, top, gate, bets, options)
        bank = outcome["bank"]
        for line in outcome["settled"]:
            chips[line["player"]] += line["net"]
        results.append(
            {
                "bottom": bottom,
                "top": top,
                "gate": gate,
                "winning": outcome["winning"],
                "settled": [
                    {"bet": line["bet"], "result": line["result"], "net": line["net"]}
                    for line in outcome["settled"]
                ],
            }
        )
    return {"bank": bank, "players": chips, "coups": results}


def _monte_bet(where: str, i: int, raw: object) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}, bets[{i}] must be an object")
    return {
        "player": _field(raw, "player", f"{where}, bets[{i}]"),
        "layout": _field(raw, "layout", f"{where}, bets[{i}]"),
        "amount": _field(raw, "amount", f"{where}, bets[{i}]"),
    }


# --- Casino Monte Bank ---------------------------------------------------------------------


def replay_monte_bank(data: dict) -> dict[str, Any]:
    bank = _count(_field(data, "bank"), "the bank", 1)
    limits = _field(data, "limits") if "limits" in data else {"min": 1}
    if not isinstance(limits, dict):
        raise ScenarioError('"limits" must be an object with "min"')
    if set(limits) - {"min"}:
        raise ScenarioError('"limits" has only "min": the bank is the most a bet may be')
    low = _count(_field(limits, "min", '"limits"'), "the smallest bet", 1)
    levy = data.get("levy", True)
    if not isinstance(levy, bool):
        raise ScenarioError('"levy" is true or false')
    players = _players(data)
    try:
        deck = FRENCH.parse_order(_field(data, "deck"))
    except RulesError as error:
        raise ScenarioError(str(error)) from None
    raw_bets = _list(data, "bets")
    left = dict(players)
    bets = []
    for i, raw in enumerate(raw_bets):
        where = f"bets[{i}]"
        if not isinstance(raw, dict):
            raise ScenarioError(f"{where} must be an object")
        player = _field(raw, "player", where)
        if not isinstance(player, str) or player not in players:
            raise ScenarioError(f"{where}: {_shown(player)} is not one of the players")
        unknown = set(raw) - {"player", "kind", "on", "against", "side", "amount"}
        if unknown:
            raise ScenarioError(f"{where}: unknown field {_shown(sorted(unknown)[0])}")
        placed = {key: raw[key] for key in ("kind", "on", "against", "side") if key in raw}
        try:
            casino.check_bet(placed)
        except RulesError as error:
            raise ScenarioError(f"{where}: {error}") from None
        needed = {"round": {"on"}, "cross": {"on", "against"}, "double": {"side"}}.get(
            placed["kind"], {"on", "against", "side"}
        )
        extra = set(placed) - {"kind"} - needed
        if extra:
            raise ScenarioError(f"{where}: a {placed['kind']} bet has no {sorted(extra)[0]}")
        amount = _count(_field(raw, "amount", where), f"{where}: the amount", 1)
        if amount < low:
            raise ScenarioError(
                f"{where}: the table minimum is {low}: a bet of {amount} is under it"
            )
        if amount > bank:
            raise ScenarioError(f"{where}: the bank holds {bank}: a bet of {amount} is over it")
        placed = {"player": player, **placed, "amount": amount}
        left[player] -= casino.cost(placed)
        if left[player] < 0:
            raise ScenarioError(
                f"{where}: {player} has {players[player]} chips and would have "
                f"{players[player] - left[player]} on the table"
            )
        bets.append(placed)
    dealt = casino.deal_layout(deck)
    if dealt["void"]:
        if bets:
            raise ScenarioError(
                f"the deal is void ({dealt['void']}): it is dealt again, and carries no bets"
            )
        return {
            "void": dealt["void"],
            "layout": dealt["layout"],
            "bank": bank,
            "players": players,
            "settled": [],
        }
    outcome = casino.play_deal(bank, dealt["layout"], dealt["rest"], bets, levy)
    final = dict(players)
    for line in outcome["settled"]:
        final[line["player"]] += line["net"]
    return {
        "layout": dealt["layout"],
        "turned": outcome["turned"],
        "bank": outcome["bank"],
        "levy": outcome["levy"],
        "players": final,
        "settled": [casino.scenario_line(line) for line in outcome["settled"]],
    }
