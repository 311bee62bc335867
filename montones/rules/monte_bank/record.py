"""A settled deal as a record (docs/scenarios.md), a scenario replayed, an opened deck checked
against its deals, and what a record says of the bank and the levy."""

from __future__ import annotations

from typing import Any

from montones.rules import hand_records, rotation, settlement
from montones.rules.cards import FRENCH
from montones.rules.errors import RulesError
from montones.rules.monte_bank.bank import NAME, side_cards
from montones.rules.monte_bank.settle import SET_ASIDE, check_bet, cost, deal_layout, play_deal
from montones.rules.scenario_input import (
    ScenarioError,
    deck_order,
    field,
    listed,
    net_chips,
    quoted,
    seated_chips,
    whole_number,
)
from montones.rules.settlement import WON
from montones.rules.table import State


def live_commitment(state: State) -> str | None:
    """The commitment of the deck a deal is dealing from, whose order must stay secret: each
    deal is its own shuffle."""
    return rotation.live_commitment(state)


def hand_record(before: State, after: State) -> dict[str, Any]:
    """A deal (or a void deal) in the scenario format of docs/scenarios.md, with its result as
    recorded. Its deck is the order as cut, the one the layout was dealt from; ``shuffle`` opens
    the seal. Each deal is its own shuffle, done once it is recorded."""
    deal = after["last_deal"]
    banker = before["banker"]
    costs = [{"player": b["player"], "amount": cost(b)} for b in deal["bets"]]
    chips_before, chips_after = hand_records.punters_chips(before, after, banker, costs)
    settings = before["settings"]
    entry = {
        "game": NAME,
        "bank": deal["bank"],
        "limits": {"min": settings["min_bet"]},
        "levy": settings["levy"],
        "players": chips_before,
        "deck": deal["deck"] if deal["shuffle"] else _entered_deck(deal),
        "bets": [scenario_bet(b) for b in deal["bets"]],
        "meta": {
            "deal": deal["number"],
            "banker": banker,
            "names": hand_records.names(after),
            "passed": after["passed"]
            if after["passed"] and after["passed"]["version"] == after["version"]
            else None,
        },
        "shuffle": hand_records.sealed(deal["shuffle"], deal["shuffle"] and deal["shuffle"]["cut"]),
    }
    if side_cards(settings):
        entry["side_cards"] = side_cards(settings)
    if deal["void"]:
        entry["result"] = {
            "void": deal["void"],
            "layout": deal["layout"],
            "bank": deal["bank"],
            "players": chips_after,
            "settled": [],
        }
        return entry
    result = deal["result"]
    entry["result"] = {
        **laid_out(deal["layout"]),
        "turned": result["turned"],
        "bank": result["bank"],
        "levy": result["levy"],
        "players": chips_after,
        "settled": [_settled_line(line) for line in result["settled"]],
    }
    return entry


def laid_out(layout: dict) -> dict[str, Any]:
    """A layout as a result gives it: its positions under ``layout``, and the cards set aside
    while its side cards were dealt under ``set_aside`` (with side cards only)."""
    positions = {p: cards for p, cards in layout.items() if p != SET_ASIDE}
    if SET_ASIDE not in layout:
        return {"layout": positions}
    return {"layout": positions, SET_ASIDE: layout[SET_ASIDE]}


def _entered_deck(deal: dict) -> list[str]:
    """The deck of an own-deck deal: the cards entered where they lay (``ll`` and ``lr`` on
    top, then the side cards and the cards set aside as they were dealt, the turned ones from
    the bottom, then ``ur`` and ``ul``'s stack), the cards nobody saw between them in deck
    order (the deal never reached them)."""
    layout, turned = deal["layout"], (deal.get("result") or {}).get("turned", [])
    bottom_up = layout["ul"] + layout["ur"]
    top = layout["ll"] + layout["lr"]
    # What was entered after the four, in the order it came off the top of the deck.
    dealt_sides = deal.get("entered", [])[len(bottom_up) + len(top) :]
    middle = hand_records.unseen(FRENCH.codes, bottom_up + top + dealt_sides + turned)
    return top + dealt_sides + middle + turned[::-1] + bottom_up[::-1]


def scenario_bet(placed: dict) -> dict[str, Any]:
    keys = ("player", "kind", "on", "against", "side", "amount")
    return {key: placed[key] for key in keys if key in placed}


def _settled_line(line: dict) -> dict[str, Any]:
    return {key: line[key] for key in ("bet", "part", "result", "net", "levy")}


def emptied_by(entry: dict[str, Any]) -> str | None:
    """Who broke the bank in a recorded hand (``Game.emptied_by``): its settled lines as the
    bank paid them, each part of a bet on its own."""
    return settlement.emptied_by(entry["bank"], entry["bets"], entry["result"]["settled"])


def shares(hands: list[dict[str, Any]]) -> dict[str, int]:
    """The levy pots of a night's banks as they were split (``Game.shares``): each bank's pot is
    the levy of its deals, split when it passes (its next deal is a new bank's first, or the
    night is over), half rounded down to its banker and the rest to the house."""
    split: dict[str, int] = {"house": 0}
    pot = 0
    for i, hand in enumerate(hands):
        pot += hand["result"].get("levy", 0)
        following = hands[i + 1] if i + 1 < len(hands) else None
        if following is None or following["meta"].get("deal") == 1:
            banker = hand["meta"]["banker"]
            split[banker] = split.get(banker, 0) + pot // 2
            split["house"] += pot - pot // 2
            pot = 0
    return split


def record_lines(entry: dict[str, Any]) -> tuple[list[dict], list[dict]]:
    """A recorded deal's bets and one settled line per bet (a Monte Carlo's parts summed)."""
    merged: dict[int, dict] = {}
    for line in entry["result"]["settled"]:
        if line["bet"] in merged:
            total = merged[line["bet"]]
            total["net"] += line["net"]
            total["levy"] += line["levy"]
            if total["result"] != line["result"]:
                # Parts that went different ways: the bet as a whole, "even" when they cancel.
                total["result"] = (
                    "won" if total["net"] > 0 else "lost" if total["net"] < 0 else "even"
                )
        else:
            merged[line["bet"]] = dict(line)
    return entry["bets"], [merged[i] for i in sorted(merged)]


def replay(data: dict) -> dict[str, Any]:
    """One deal of a scenario file (docs/scenarios.md), settled as the table settles it."""
    bank = whole_number(field(data, "bank"), "the bank", 1)
    limits = field(data, "limits") if "limits" in data else {"min": 1}
    if not isinstance(limits, dict):
        raise ScenarioError('"limits" must be an object with "min"')
    if set(limits) - {"min"}:
        raise ScenarioError('"limits" has only "min": the bank is the most a bet may be')
    low = whole_number(field(limits, "min", '"limits"'), "the smallest bet", 1)
    levy = data.get("levy", True)
    if not isinstance(levy, bool):
        raise ScenarioError('"levy" is true or false')
    sides = data.get("side_cards", 0)
    if sides not in (0, 1, 2) or isinstance(sides, bool):
        raise ScenarioError('"side_cards" is 0, 1 or 2')
    players = seated_chips(data)
    deck = deck_order(FRENCH, field(data, "deck"))
    left = dict(players)
    bets = []
    for i, raw in enumerate(listed(data, "bets")):
        placed = _scenario_bet(f"bets[{i}]", raw, players, bank, low, sides)
        left[placed["player"]] -= cost(placed)
        if left[placed["player"]] < 0:
            player = placed["player"]
            raise ScenarioError(
                f"bets[{i}]: {player} has {players[player]} chips and would have "
                f"{players[player] - left[player]} on the table"
            )
        bets.append(placed)
    dealt = deal_layout(deck, sides)
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
    outcome = play_deal(bank, dealt["layout"], dealt["rest"], bets, levy)
    return {
        **laid_out(dealt["layout"]),
        "turned": outcome["turned"],
        "bank": outcome["bank"],
        "levy": outcome["levy"],
        "players": net_chips(players, outcome["settled"]),
        "settled": [_settled_line(line) for line in outcome["settled"]],
    }


def _scenario_bet(
    where: str, raw: object, players: dict, bank: int, low: int, sides: int
) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where} must be an object")
    player = field(raw, "player", where)
    if not isinstance(player, str) or player not in players:
        raise ScenarioError(f"{where}: {quoted(player)} is not one of the players")
    unknown = set(raw) - {"player", "kind", "on", "against", "side", "amount"}
    if unknown:
        raise ScenarioError(f"{where}: unknown field {quoted(sorted(unknown)[0])}")
    placed = {key: raw[key] for key in ("kind", "on", "against", "side") if key in raw}
    try:
        check_bet(placed, sides)
    except RulesError as error:
        raise ScenarioError(f"{where}: {error}") from None
    needed = {"round": {"on"}, "cross": {"on", "against"}, "double": {"side"}}.get(
        placed["kind"], {"on", "against", "side"}
    )
    extra = set(placed) - {"kind"} - needed
    if extra:
        raise ScenarioError(f"{where}: a {placed['kind']} bet has no {sorted(extra)[0]}")
    amount = whole_number(field(raw, "amount", where), f"{where}: the amount", 1)
    if amount < low:
        raise ScenarioError(f"{where}: the table minimum is {low}: a bet of {amount} is under it")
    if amount > bank:
        raise ScenarioError(f"{where}: the bank holds {bank}: a bet of {amount} is over it")
    return {"player": player, **placed, "amount": amount}


def check_dealt(hands: list[tuple[str, dict]], dealt: list[str]) -> list[str]:
    """Each deal is its own shuffle, and its scenario's deck is the cut order the layout was
    dealt from (a void deal too)."""
    problems = []
    for where, hand in hands:
        if hand.get("deck") != dealt:
            problems.append(f"{where}: its deck is not the committed deck as cut")
        elif (
            hand["result"].get("layout")
            != laid_out(deal_layout(dealt, hand.get("side_cards", 0))["layout"])["layout"]
        ):
            problems.append(f"{where}: its layout is not the one dealt from the committed deck")
    return problems


def feat(entry: dict[str, Any]) -> tuple[str, str, int] | None:
    """A Monte Carlo that landed, its three parts all won (``Game.feat``): the first."""
    parts = entry["result"].get("settled", [])
    for number, bet in enumerate(entry["bets"]):
        mine = [part for part in parts if part.get("bet") == number]
        if bet.get("kind") == "monte_carlo" and mine and all(p["result"] == WON for p in mine):
            return "monte_carlo", bet["player"], sum(p["net"] for p in mine)
    return None
