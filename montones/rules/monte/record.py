"""A settled coup as a record (docs/scenarios.md), a scenario replayed, an opened deck checked
against its coups, and what a record says of the bank."""

from __future__ import annotations

from typing import Any

from montones.rules import hand_records, rotation, settlement
from montones.rules.cards import FRENCH
from montones.rules.errors import RulesError
from montones.rules.monte.actions import COUP_OVER
from montones.rules.monte.settle import (
    check_bet,
    check_options,
    deal_layouts,
    max_coups,
    settle_coup,
)
from montones.rules.scenario_input import (
    ScenarioError,
    deck_order,
    field,
    listed,
    net_chips,
    quoted,
    scenario_lines,
    seated_chips,
    whole_number,
)
from montones.rules.table import State


def live_commitment(state: State) -> str | None:
    """The commitment of the deck a bank is dealing from, whose order must stay secret: one
    deck deals all of a bank's coups."""
    return rotation.live_commitment(state, COUP_OVER)


def hand_record(before: State, after: State) -> dict[str, Any]:
    """A coup in the scenario format of docs/scenarios.md, with its result as recorded.

    ``before`` is the table as the gate was turned, ``after`` just after. The scenario's deck
    deals this coup's layouts and gate: the deck as it stood at the deal, with the cards of
    earlier coups tucked in its middle, where one coup never reaches. ``shuffle`` holds what opens
    the commitment: it must not be shown while :func:`live_commitment` is still this deck's.
    """
    coup = after["last_coup"]
    result = coup["result"]
    banker = before["banker"]
    size = len(coup["top"])
    shuffle = before["shuffle"]
    rest = before["deck"]
    if shuffle is None:  # the table's own cards: the gate last, the unseen ones in deck order
        seen = before["discards"] + coup["bottom"] + coup["top"] + [coup["gate"]]
        rest = [*hand_records.unseen(FRENCH.codes, seen), coup["gate"]]
    standing = coup["top"] + rest + coup["bottom"][::-1]
    chips_before, chips_after = hand_records.punters_chips(before, after, banker, coup["bets"])
    settings = before["settings"]
    return {
        "game": "monte",
        "options": {"two_card": settings["two_card"], "generous": settings["generous"]},
        "bank": before["bank"],
        "limits": {"min": settings["min_bet"], "max": settings["max_bet"]},
        "players": chips_before,
        "deck": standing[:size] + before["discards"] + standing[size:],
        "coups": [
            {
                "bets": [
                    {"player": b["player"], "layout": b["layout"], "amount": b["amount"]}
                    for b in coup["bets"]
                ]
            }
        ],
        "result": {
            "bank": result["bank"],
            "players": chips_after,
            "coups": [
                {
                    "bottom": coup["bottom"],
                    "top": coup["top"],
                    "gate": coup["gate"],
                    "winning": result["winning"],
                    "settled": hand_records.settled(result["settled"], coup["bets"]),
                }
            ],
        },
        "meta": {
            "coup": coup["number"],
            "banker": banker,
            "names": hand_records.names(after),
            "odds": result["odds"],
        },
        "shuffle": hand_records.sealed(
            shuffle, shuffle and shuffle["cut"], **({"coup": coup["number"]} if shuffle else {})
        ),
    }


def unseen_before_gate(state: State, coup: dict) -> list[str]:
    """The cards nobody had seen while the coup's bets were made: the deck, the gate in it."""
    seen = set(coup["bottom"]) | set(coup["top"])
    if coup["gate"] is None and state["shuffle"] is None:  # the table's own cards
        return [card for card in FRENCH.codes if card not in seen and card not in state["discards"]]
    if coup["gate"] is None:
        return [card for card in state["deck"] if card not in seen]
    used = len(coup["bottom"]) + len(coup["top"]) + 1
    before = set(state["discards"][:-used])
    return [card for card in FRENCH.codes if card not in before and card not in seen]


def replay(data: dict) -> dict[str, Any]:
    """A run of coups of one bank from a scenario file (docs/scenarios.md), settled as the table
    settles them."""
    options = field(data, "options") if "options" in data else {}
    if not isinstance(options, dict):
        raise ScenarioError('"options" must be an object')
    try:
        check_options(options)
    except RulesError as error:
        raise ScenarioError(str(error)) from None
    bank = whole_number(field(data, "bank"), "the bank", 1)
    limits = field(data, "limits")
    if not isinstance(limits, dict):
        raise ScenarioError('"limits" must be an object with "min" and "max"')
    low = whole_number(field(limits, "min", '"limits"'), "the smallest bet", 1)
    high = whole_number(field(limits, "max", '"limits"'), "the largest bet", 1)
    if high < low:
        raise ScenarioError(f"the largest bet ({high}) is below the smallest ({low})")
    chips = seated_chips(data)
    deck = deck_order(FRENCH, field(data, "deck"))
    coups = listed(data, "coups")
    allowed = max_coups(options)
    if len(coups) > allowed:
        raise ScenarioError(f"{len(coups)} coups, but one bank deals at most {allowed}")
    results = []
    for number, coup in enumerate(coups, start=1):
        if bank == 0:
            raise ScenarioError(f"coup {number}: the bank broke in coup {number - 1} and passed")
        where = f"coup {number}"
        if not isinstance(coup, dict):
            raise ScenarioError(f"{where} must be an object with its bets")
        bets = [_scenario_bet(where, i, raw) for i, raw in enumerate(listed(coup, "bets", where))]
        on_table = 0
        left = dict(chips)
        for i, placed in enumerate(bets):
            if not isinstance(placed["player"], str) or placed["player"] not in chips:
                raise ScenarioError(
                    f"{where}, bets[{i}]: {quoted(placed['player'])} is not a player"
                )
            try:
                check_bet(
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
        bottom, top, deck = deal_layouts(deck, options.get("two_card", False))
        gate = deck.pop()
        outcome = settle_coup(bank, bottom, top, gate, bets, options)
        bank = outcome["bank"]
        chips = net_chips(chips, outcome["settled"])
        results.append(
            {
                "bottom": bottom,
                "top": top,
                "gate": gate,
                "winning": outcome["winning"],
                "settled": scenario_lines(outcome["settled"]),
            }
        )
    return {"bank": bank, "players": chips, "coups": results}


def _scenario_bet(where: str, i: int, raw: object) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}, bets[{i}] must be an object")
    return {
        "player": field(raw, "player", f"{where}, bets[{i}]"),
        "layout": field(raw, "layout", f"{where}, bets[{i}]"),
        "amount": field(raw, "amount", f"{where}, bets[{i}]"),
    }


def check_dealt(hands: list[tuple[str, dict]], dealt: list[str]) -> list[str]:
    """Dealing coup after coup from the cut deck gives each coup's recorded cards."""
    problems = []
    coups = {}
    deck = dealt
    two_card = hands[0][1].get("options", {}).get("two_card", False)
    for number in range(1, max_coups({"two_card": two_card}) + 1):
        bottom, top, deck = deal_layouts(deck, two_card)
        coups[number] = {"bottom": bottom, "top": top, "gate": deck.pop()}
    for where, hand in hands:
        number = hand["shuffle"].get("coup")
        recorded = hand["result"]["coups"][0]
        if {k: recorded.get(k) for k in ("bottom", "top", "gate")} != coups.get(number):
            problems.append(f"{where}: its cards are not coup {number} of the committed deck")
    return problems


def emptied_by(entry: dict[str, Any]) -> str | None:
    """Who broke the bank in a recorded hand (``Game.emptied_by``): its settled lines as the
    bank paid them."""
    return settlement.emptied_by(
        entry["bank"], entry["coups"][0]["bets"], entry["result"]["coups"][0]["settled"]
    )


def shares(hands: list[dict[str, Any]]) -> dict[str, int]:
    """What of a night's chips went to anyone outside its hands' results (``Game.shares``):
    nothing, in this game."""
    return {}


def record_lines(entry: dict[str, Any]) -> tuple[list[dict], list[dict]]:
    """A recorded coup's bets and its settled lines (``bet`` indexes the bets)."""
    return entry["coups"][0]["bets"], entry["result"]["coups"][0]["settled"]


def feat(entry: dict[str, Any]) -> tuple[str, str, int] | None:
    """Monte has no feat of its own beside a broken bank (``Game.feat``)."""
    return None
