"""A settled hand as a record (docs/scenarios.md), a scenario replayed, an opened deck checked
against its hands, and what a record says of the bank."""

from __future__ import annotations

from typing import Any

from montones.rules import hand_records, settlement
from montones.rules.cards import SPANISH
from montones.rules.montones.deal import deal_heaps, split_heaps
from montones.rules.montones.settle import REY, REY_DE_OROS, settle_hand
from montones.rules.montones.state import FINISHED, SETTLED, can_keep_heaps
from montones.rules.scenario_input import (
    ScenarioError,
    distinct_cards,
    field,
    listed,
    net_chips,
    quoted,
    scenario_lines,
    seated_chips,
    whole_number,
)
from montones.rules.settlement import WON
from montones.rules.table import State


def live_commitment(state: State) -> str | None:
    """The commitment of the deck still in play, whose order must stay secret: from the shuffle
    until the cards are gathered (after a Rey the heaps may yet be kept)."""
    hand = state["hand"]
    if not hand or not hand.get("shuffle") or state["phase"] == FINISHED:
        return None
    if state["phase"] == SETTLED and not (
        hand["result"]["bank_card"][0] == REY and can_keep_heaps(hand)
    ):
        return None
    return hand["shuffle"]["commitment"]


def hand_record(before: State, after: State) -> dict[str, Any]:
    """A settled hand in the scenario format of docs/scenarios.md, with its result as recorded.

    ``before`` is the table as bets closed, ``after`` as the hand was settled. Players are
    named by seat (``meta.names`` gives their names). ``shuffle`` holds what opens the
    commitment (the order, the salt, the cut, how the heaps were made): it must not be shown
    while :func:`live_commitment` is still this deck's.
    """
    hand = after["hand"]
    result = hand["result"]
    banker = before["bank"]["banker"]
    chips_before, chips_after = hand_records.punters_chips(before, after, banker, hand["bets"])
    bets = []
    for placed in hand["bets"]:
        if placed["kind"] == "whole_bank":
            bets.append({"player": placed["player"], "heap": placed["heap"], "whole_bank": True})
        else:
            key = "heap" if placed["kind"] == "heap" else "against"
            bets.append(
                {"player": placed["player"], key: placed["heap"], "amount": placed["amount"]}
            )
    shuffle = hand["shuffle"]
    return {
        "game": "montones",
        "bank": result["bank_before"],
        "players": chips_before,
        "heaps": result["cards"],
        "bank_heap": hand["bank_heap"],
        "bets": bets,
        "result": {
            "bank_card": result["bank_card"],
            "bank": result["bank"],
            "players": chips_after,
            "settled": hand_records.settled(result["settled"], hand["bets"]),
        },
        "meta": {
            "hand": hand["number"],
            "banker": banker,
            "names": hand_records.names(after),
            "lifting": result["order"],
            "short": result["short"],
        },
        "shuffle": hand_records.sealed(
            shuffle,
            hand["cut"] and hand["cut"]["position"],
            sizes=hand.get("sizes"),
            kept=hand.get("kept"),
            heaps=hand["heaps"],
        ),
    }


def replay(data: dict) -> dict[str, Any]:
    """One hand of a scenario file (docs/scenarios.md), settled as the table settles it."""
    bank = whole_number(field(data, "bank"), "the bank", 1)
    players = seated_chips(data)
    cards = distinct_cards(SPANISH, field(data, "heaps"), "the heaps")
    if len(cards) < 2:
        raise ScenarioError("a hand needs at least two heaps: the banker's and one to bet on")
    bank_heap = whole_number(field(data, "bank_heap"), "bank_heap", 1)
    if bank_heap > len(cards):
        raise ScenarioError(f"bank_heap {bank_heap} is not a heap: the heaps are 1 to {len(cards)}")
    bets = [
        _scenario_bet(i, raw, players, bank, bank_heap, len(cards))
        for i, raw in enumerate(listed(data, "bets"))
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
    return {
        "bank_card": outcome["bank_card"],
        "bank": outcome["bank"],
        "players": net_chips(players, outcome["settled"]),
        "settled": scenario_lines(outcome["settled"]),
    }


def _scenario_bet(
    i: int, raw: object, players: dict, bank: int, bank_heap: int, heaps: int
) -> dict[str, Any]:
    where = f"bets[{i}]"
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where} must be an object")
    player = field(raw, "player", where)
    if not isinstance(player, str) or player not in players:
        raise ScenarioError(f"{where}: {quoted(player)} is not one of the players")
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
    heap = whole_number(raw[key], f"{where}: the heap", 1)
    if heap > heaps:
        raise ScenarioError(f"{where}: there is no heap {heap}: the heaps are 1 to {heaps}")
    if heap == bank_heap:
        raise ScenarioError(
            f"{where}: heap {heap} is the banker's heap: no bet of any kind can be tied to it"
        )
    amount = None
    if kind != "whole_bank":
        amount = whole_number(field(raw, "amount", where), f"{where}: the amount", 1)
        if amount > bank:
            raise ScenarioError(f"{where}: the bank holds {bank}: a bet of {amount} is over it")
    return {"player": player, "kind": kind, "heap": heap, "amount": amount}


def check_dealt(hands: list[tuple[str, dict]], dealt: list[str]) -> list[str]:
    """The first hand's heaps are the cut deck in the recorded sizes; a hand that kept the heaps
    after a Rey split the previous hand's heaps as recorded."""
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


def emptied_by(entry: dict[str, Any]) -> str | None:
    """Who broke the bank in a recorded hand (``Game.emptied_by``): its settled lines as the
    bank paid them."""
    return settlement.emptied_by(entry["bank"], entry["bets"], entry["result"]["settled"])


def shares(hands: list[dict[str, Any]]) -> dict[str, int]:
    """What of a night's chips went to anyone outside its hands' results (``Game.shares``):
    nothing, in this game."""
    return {}


def record_lines(entry: dict[str, Any]) -> tuple[list[dict], list[dict]]:
    """A recorded hand's bets and its settled lines (``bet`` indexes the bets)."""
    return entry["bets"], entry["result"]["settled"]


def feat(entry: dict[str, Any]) -> tuple[str, str, int] | None:
    """A stake on a heap the Rey de oros won, paid double (``Game.feat``): the first paid."""
    for line in entry["result"]["settled"]:
        bet = entry["bets"][line["bet"]]
        # A record writes a stake on a heap as heap and amount (against and whole_bank apart).
        if "heap" in bet and "amount" in bet and line["result"] == WON:
            if entry["heaps"][bet["heap"] - 1] == REY_DE_OROS:
                return "rey_de_oros", bet["player"], line["net"]
    return None
