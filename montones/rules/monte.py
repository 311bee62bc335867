"""Monte as Foster's Complete Hoyle gives it (docs/rules.md, "Monte").

Same shape as :mod:`montones.rules.montones`: the state is a plain dict, each action works on
a copy and returns ``(new_state, events)``, a :class:`RulesError` changes nothing. The deck is a
list of codes, top card first: layouts come from both ends, the gate from the bottom.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import combinations
from random import Random
from typing import Any

from montones.rules import chance, computer, hand_records, rotation, settlement, table
from montones.rules.cards import FRENCH, suit
from montones.rules.errors import Phrase, RulesError
from montones.rules.fairness import new_shuffle
from montones.rules.odds import Odds
from montones.rules.rotation import (
    BANK,
    BETTING,
    CUT,
    FINISHED,
    require_banker,
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
from montones.rules.settlement import WON, cover, explain
from montones.rules.table import Action, Events, Field, State, action, is_count, require_phase

LAYOUTS = ("bottom", "top")
FOUR_CARD_COUPS = 8
TWO_CARD_COUPS = 13
PRIVATE_CIRCLE_COUPS = 6

DEFAULT_SETTINGS = {
    "bank_size": 50,
    "min_bet": 1,
    "max_bet": 10,
    "banks_each": 1,
    "two_card": False,
    "generous": False,
    "short_bank": None,
    "private_circle": False,
    "cut_timeout": 30,
}

# Phases: seating -> bank -> cut -> betting -> coup_over -> betting ... -> bank ... -> finished
COUP_OVER = "coup_over"  # the deal is over; the other phases are the rotation's
SEATING = rotation.SEATING  # a table starts in it (rotation.new_state)


# --- coups -------------------------------------------------------------------------------


def check_options(options: dict) -> None:
    for flag in ("two_card", "generous", "private_circle"):
        if not isinstance(options.get(flag, False), bool):
            raise RulesError("the option %(flag)s is true or false", flag=flag)
    if options.get("generous") and not options.get("two_card"):
        raise RulesError("a generous banker pays 3 to 1 only in two-card Monte")
    short = options.get("short_bank")
    if short is not None and (not is_count(short) or short < 1):
        raise RulesError("a short bank is a number of coups, at least 1")


def max_coups(options: dict) -> int:
    """Coups one bank deals: the whole deck, or fewer for a short bank or a private circle."""
    coups = TWO_CARD_COUPS if options.get("two_card") else FOUR_CARD_COUPS
    if options.get("short_bank"):
        coups = min(coups, options["short_bank"])
    if options.get("private_circle"):
        coups = min(coups, PRIVATE_CIRCLE_COUPS)
    return coups


def deal_layouts(deck: list[str], two_card: bool) -> tuple[list[str], list[str], list[str]]:
    """Bottom layout from the bottom up, top layout from the top down; returns the rest too."""
    size = 1 if two_card else 2
    if len(deck) < 2 * size + 1:
        raise RulesError("the deck is used up: the bank passes")
    bottom = deck[::-1][:size]
    top = deck[:size]
    return bottom, top, deck[size:-size]


def layout_wins(layout: list[str], gate: str) -> bool:
    """A layout with a card of the gate's suit wins, once however many cards match."""
    return any(suit(card) == suit(gate) for card in layout)


def generous_triple(bottom: list[str], top: list[str], gate: str, options: dict) -> bool:
    """Generous banker: both layout cards and the gate of one suit pay 3 to 1."""
    return bool(options.get("generous")) and {suit(c) for c in (*bottom, *top, gate)} == {
        suit(gate)
    }


def winning_unseen(layout: list[str], unseen: list[str]) -> int:
    """How many of the unseen cards would win for this layout as the gate ("18 of 36")."""
    suits = {suit(card) for card in layout}
    return sum(1 for card in unseen if suit(card) in suits)


def settle_coup(
    bank: int, bottom: list[str], top: list[str], gate: str, bets: list[dict], options: dict
) -> dict[str, Any]:
    """Settle a coup's bets, smallest stake first (equal stakes in the order placed).

    The order matters only when a generous 3 to 1 leaves the bank short: each bet is then
    covered only by what the bank still holds, as in Montones.
    """
    layouts = {"bottom": bottom, "top": top}
    winning = [name for name in LAYOUTS if layout_wins(layouts[name], gate)]
    odds = 3 if generous_triple(bottom, top, gate, options) else 1
    settled = []
    for i in sorted(range(len(bets)), key=lambda i: (bets[i]["amount"], i)):
        placed = bets[i]
        won = placed["layout"] in winning
        result, net = cover(bank, won, placed["amount"], odds * placed["amount"])
        bank -= net
        settled.append(
            {
                "bet": i,
                "player": placed["player"],
                "layout": placed["layout"],
                "stake": placed["amount"],
                "result": result,
                "net": net,
            }
        )
    return {"gate": gate, "winning": winning, "odds": odds, "bank": bank, "settled": settled}


def check_bet(
    player_chips: int, bank: int, on_table: int, layout: object, amount: object, limits: dict
) -> None:
    """One more bet on a layout, given what the player has and what is already on the table."""
    if layout not in LAYOUTS:
        raise RulesError(
            "there is no layout %(layout)r: bet on the bottom or the top layout", layout=layout
        )
    if not is_count(amount) or amount <= 0:
        raise RulesError(
            "a bet must be a whole number of chips, at least 1, not %(amount)r", amount=amount
        )
    if amount < limits["min_bet"]:
        raise RulesError("the table minimum is %(least)s", least=limits["min_bet"])
    if amount > limits["max_bet"]:
        raise RulesError(
            "the table maximum is %(most)s: a bet of %(amount)s is over it",
            most=limits["max_bet"],
            amount=amount,
        )
    if on_table + amount > bank:
        room = bank - on_table
        raise RulesError(
            "the bank holds %(bank)s and %(on_table)s is already bet: the most you can bet is %(most)s",
            bank=bank,
            on_table=on_table,
            most=room,
        )
    if amount > player_chips:
        raise RulesError(
            "you have %(chips)s chips: a bet of %(amount)s is over them",
            chips=player_chips,
            amount=amount,
        )


# --- the table ---------------------------------------------------------------------------


def new_table(settings: dict | None = None) -> State:
    merged = table.merged_settings(DEFAULT_SETTINGS, settings)
    check_options(merged)
    for key in ("bank_size", "min_bet", "max_bet", "banks_each", "cut_timeout"):
        if not is_count(merged[key]) or merged[key] < 1:
            raise RulesError(
                "%(setting)s must be a whole number, at least 1",
                setting={
                    "bank_size": Phrase("bank size"),
                    "min_bet": Phrase("min bet"),
                    "max_bet": Phrase("max bet"),
                    "banks_each": Phrase("banks each"),
                    "cut_timeout": Phrase("cut timeout"),
                }[key],
            )
    if merged["max_bet"] < merged["min_bet"]:
        raise RulesError("the largest bet cannot be below the smallest")
    return rotation.new_state(
        NAME,
        merged,
        deck=[],
        discards=[],
        coups=0,
        cutter=None,
        cut_started=None,
        coup=None,
        last_coup=None,
        passed=None,
        shuffle=None,
    )


def _require_phase(state: State, *phases: str) -> None:
    require_phase(state, _PHASE_REFUSAL, *phases)


_PHASE_REFUSAL = {
    **rotation.REFUSALS,
    COUP_OVER: Phrase("the coup is still in play"),
}


active = table.active


top_up = table.top_up
# Seating, the host's pause and the night's end are the rotation's, as at every table whose bank
# goes round (montones.rules.rotation).
join = rotation.join
draw_for_bank = rotation.draw_for_bank
after_pause = rotation.after_pause
follow_up = rotation.follow_up
over = rotation.over
between_banks = rotation.between_banks
cut_deadline = rotation.cut_deadline


@action
def leave(state: State, events: Events, pid: str) -> None:
    """A player leaves: open bets go back; a leaving banker's bank passes at once."""
    coup = state["coup"]
    # Only bets still open go back: after the gate they have been settled already.
    open_bets = coup["bets"] if coup and state["phase"] == BETTING else []
    rotation.leave(state, events, pid, open_bets, _return_bet, _pass_bank, _cut)


@action
def put_up_bank(
    state: State,
    events: Events,
    pid: str,
    amount: int,
    now: float,
    deck: list[str] | None = None,
) -> None:
    """The banker puts up a bank and shuffles; the next player to the left cuts."""
    _require_phase(state, BANK)
    rotation.put_up(state, pid, amount)
    state["deck"] = (
        FRENCH.parse_order(deck) if deck is not None else FRENCH.shuffled(chance.source())
    )
    # Committed to before the cut and the first bet; opened once the bank's last coup is done.
    state["shuffle"] = new_shuffle(state["deck"])
    state["discards"] = []
    state["coups"] = 0
    others = [p for p in table.left_of(state, pid) if p != pid]
    state["cutter"] = others[0] if others else None
    state["cut_started"] = now
    state["phase"] = CUT
    events.append(
        {
            "type": "bank_put_up",
            "banker": pid,
            "amount": amount,
            "commitment": state["shuffle"]["commitment"],
        }
    )
    if state["cutter"] is None:
        _cut(state, events, None, "nobody to cut")


def _cut(state: State, events: Events, position: int | None, how: str) -> None:
    rotation.cut_at(state, events, position, how)
    _deal_coup(state, events)


cut_deck, cut_timed_out = rotation.cut_actions(
    _PHASE_REFUSAL,
    cut=lambda state, events, position, how, _now: _cut(state, events, position, how),
)


def _deal_coup(state: State, events: Events) -> None:
    bottom, top, rest = deal_layouts(state["deck"], state["settings"]["two_card"])
    state["deck"] = rest
    state["coups"] += 1
    state["coup"] = {
        "number": state["coups"],
        "bottom": bottom,
        "top": top,
        "gate": None,
        "bets": [],
        "next_bet": 1,
        "result": None,
    }
    state["phase"] = BETTING
    events.append({"type": "coup_dealt", "number": state["coups"], "bottom": bottom, "top": top})


@action
def bet(state: State, events: Events, pid: str, layout: str, amount: int) -> None:
    """Bet on a layout; all bets on the table together may never exceed the bank."""
    player = rotation.punter(state, pid)
    coup = state["coup"]
    on_table = sum(b["amount"] for b in coup["bets"])
    check_bet(player["chips"], state["bank"], on_table, layout, amount, state["settings"])
    placed = {"id": coup["next_bet"], "player": pid, "layout": layout, "amount": amount}
    coup["next_bet"] += 1
    coup["bets"].append(placed)
    player["chips"] -= amount
    events.append({"type": "bet_placed", **placed})


@action
def withdraw(state: State, events: Events, pid: str, bet_id: int) -> None:
    """Take one's own bet back before bets close."""
    _require_phase(state, BETTING)
    table.withdraw(state, events, pid, state["coup"]["bets"], bet_id, _return_bet)


def _return_bet(state: State, placed: dict) -> None:
    state["players"][placed["player"]]["chips"] += placed["amount"]
    state["coup"]["bets"].remove(placed)


@action
def turn_gate(state: State, events: Events, pid: str) -> None:
    """The banker turns the deck: the gate decides each layout. A broken or finished bank passes."""
    _require_phase(state, BETTING)
    require_banker(state, pid)
    coup = state["coup"]
    gate = state["deck"].pop()
    outcome = settle_coup(
        state["bank"], coup["bottom"], coup["top"], gate, coup["bets"], state["settings"]
    )
    outcome["version"] = state["version"] + 1  # the version this action makes
    for line in outcome["settled"]:
        placed = coup["bets"][line["bet"]]
        line["bet"] = placed["id"]
        state["players"][placed["player"]]["chips"] += placed["amount"] + line["net"]
    state["bank"] = outcome["bank"]
    coup["gate"] = gate
    coup["result"] = outcome
    state["discards"] += coup["bottom"] + coup["top"] + [gate]
    state["last_coup"] = coup
    state["phase"] = COUP_OVER
    events.append({"type": "gate_turned", "number": coup["number"], **outcome})
    if state["bank"] == 0:
        _pass_bank(state, events, "broken")
    elif state["coups"] >= max_coups(state["settings"]):
        _pass_bank(state, events, "deck done")


@action
def next_coup(state: State, events: Events, pid: str) -> None:
    """Without shuffling, the banker lays out the next coup."""
    _require_phase(state, COUP_OVER)
    require_banker(state, pid)
    _deal_coup(state, events)


@action
def decline(state: State, events: Events, pid: str) -> None:
    """The bank comes to a player who does not want it: it passes on to the left as if they had
    held it (one of the banks they are owed, with no coup dealt), so the night still ends once
    everyone has had their turns."""
    _require_phase(state, BANK)
    require_banker(state, pid)
    state["coups"] = 0  # the last bank's count, until a bank is put up
    _pass_bank(state, events, "declined")


def _pass_bank(state: State, events: Events, why: str) -> None:
    """The bank goes back to the banker's chips and passes to the left."""
    state["coup"] = None
    rotation.pass_bank(state, events, why, 1, coups=state["coups"])


def standings(state: State) -> list[dict]:
    """The players by chips (``table.standings``), an open bank counted as its banker's."""
    banker = state["banker"]
    return table.standings(state, {banker: state["bank"]} if banker and state["bank"] else None)


@action
def finish(state: State, events: Events) -> None:
    """The night is over: open bets go back, a running bank returns to its banker."""
    coup = state["coup"]
    if coup and state["phase"] == BETTING:
        for placed in list(coup["bets"]):
            _return_bet(state, placed)
    rotation.close_bank(state, events, state["coups"])
    state["coup"] = None
    rotation.night_over(state, events)


# --- what a seat may see ---------------------------------------------------------------------


def view(state: State, seat: str | None = None, now: float | None = None) -> dict[str, Any]:
    """The table as one seat sees it (``seat=None``: the TV and spectators).

    The deck order stays hidden: only how many cards it holds, which cards are discarded, and
    for each layout how many of the unseen cards would win it. Each seat learns which actions
    the rules allow it now, so a screen offers only those.
    """
    phase = state["phase"]
    names = {pid: p["name"] for pid, p in state["players"].items()}
    banker = state["banker"]
    coup = state["coup"]
    passed = state.get("passed")
    # After the gate the coup stays on show, and so does the coup whose gate passed the bank.
    last = state["last_coup"]
    passed_at_gate = passed and last and last["result"].get("version") == passed["version"]
    shown = coup or (last if phase in (BANK, FINISHED) and passed_at_gate else None)
    result = shown["result"] if shown else None
    on_table = sum(b["amount"] for b in coup["bets"]) if coup and phase == BETTING else 0

    layouts = []
    if shown:
        turned = {} if not result else {line["bet"]: line for line in result["settled"]}
        unseen = _unseen_before_gate(state, shown)
        for name in LAYOUTS:
            bets = [
                table.shown_bet(b, names, seat, turned.get(b["id"]))
                for b in shown["bets"]
                if b["layout"] == name
            ]
            layouts.append(
                {
                    "name": name,
                    "cards": shown[name],
                    "winning": winning_unseen(shown[name], unseen),
                    "unseen": len(unseen),
                    "bets": bets,
                    "money": sum(b["amount"] for b in bets),
                    "wins": None if not result else name in result["winning"],
                }
            )

    first_draw = bool(state["draws"]) and not passed and state["coups"] == 0
    cutting = phase == CUT
    return {
        "game": "monte",
        "version": state["version"],
        "phase": phase,
        "players": rotation.seats_view(state, coup["bets"] if coup and phase == BETTING else []),
        "banker": banker,
        "banker_name": names.get(banker),
        "banker_computer": bool(banker) and table.is_computer(state, banker),
        "bank": state["bank"],
        "on_table": on_table,
        "room": state["bank"] - on_table if phase == BETTING else 0,
        "coup": shown["number"] if shown else None,
        "coups": max_coups(state["settings"]),
        "deck": len(state["deck"]),
        "discards": list(state["discards"]),
        "commitment": live_commitment(state),
        "cutter": state["cutter"] if cutting else None,
        "cutter_name": names.get(state["cutter"]) if cutting else None,
        "cut_deadline": cut_deadline(state),
        # Whose cut the clock made (they let their time run out), through the deck's first coup.
        "cut_by_clock": rotation.cut_by_clock(state, names)
        if phase in (BETTING, COUP_OVER) and shown and shown["number"] == 1
        else None,
        "layouts": layouts,
        "gate": result["gate"] if result else None,
        "result": result
        and {
            **result,
            "settled": [
                {**line, "name": names[line["player"]]}
                for line in explain(
                    result["settled"],
                    result["bank"],
                    lambda line: (
                        result["odds"] * line["stake"] if line["result"] == WON else line["stake"]
                    ),
                )
            ],
        },
        **rotation.night_view(state, names, first_draw),
        "me": my_view(state, seat, now),
    }


def my_view(state: State, seat: str | None, now: float | None = None) -> dict[str, Any] | None:
    """A seat's own part of :func:`view` (``Game.my_view``): its chips, the room left under
    the bank for its bets, and what the rules let it do now."""
    if not table.seated(state, seat):
        return None
    coup, phase = state["coup"], state["phase"]
    on_table = sum(b["amount"] for b in coup["bets"]) if coup and phase == BETTING else 0
    room = state["bank"] - on_table if phase == BETTING else 0
    most = min(state["settings"]["max_bet"], room, state["players"][seat]["chips"])
    bets = coup["bets"] if coup else []
    return rotation.seat_view(
        state, seat, bets, most, {BANK: {"decline"}, BETTING: {"gate"}, COUP_OVER: {"next"}}
    )


def live_commitment(state: State) -> str | None:
    """The commitment of the deck a bank is dealing from, whose order must stay secret."""
    shuffle = state.get("shuffle")
    if not shuffle or state["phase"] not in (CUT, BETTING, COUP_OVER):
        return None
    return shuffle["commitment"]


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
    standing = coup["top"] + before["deck"] + coup["bottom"][::-1]
    chips_before, chips_after = hand_records.punters_chips(before, after, banker, coup["bets"])
    settings = before["settings"]
    shuffle = before["shuffle"]
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
        "shuffle": hand_records.sealed(shuffle, shuffle["cut"], coup=coup["number"]),
    }


def _unseen_before_gate(state: State, coup: dict) -> list[str]:
    """The cards nobody had seen while the coup's bets were made: the deck, the gate in it."""
    seen = set(coup["bottom"]) | set(coup["top"])
    if coup["gate"] is None:
        return [card for card in state["deck"] if card not in seen]
    used = len(coup["bottom"]) + len(coup["top"]) + 1
    before = set(state["discards"][:-used])
    return [card for card in FRENCH.codes if card not in before and card not in seen]


# --- a scenario, the odds, an opened deck ----------------------------------------------------


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


def _gate_nets(
    name: str, bottom: list[str], top: list[str], gates: Iterable[str], options: dict
) -> Iterable[int]:
    layout = {"bottom": bottom, "top": top}[name]
    for gate in gates:
        if layout_wins(layout, gate):
            yield 3 if generous_triple(bottom, top, gate, options) else 1
        else:
            yield -1


def coup_bets(bottom: list[str], top: list[str], unseen: list[str], options: dict) -> dict:
    """A bet on each layout of a dealt coup, every unseen card being as likely to be the gate."""
    return {name: Odds.counted(_gate_nets(name, bottom, top, unseen, options)) for name in LAYOUTS}


@cache
def fresh_layout_bet(two_card: bool = False, generous: bool = False) -> Odds:
    """A bet on a layout before any card of the deck is seen.

    Both layouts are dealt alike from a shuffled deck, so a bet on the bottom one stands for
    either. Every bottom layout and every gate among the other cards is enumerated. The top
    layout only matters to the generous 3 to 1, so it is enumerated in two-card Monte (1,560
    pairs × 38 gates); in four-card Monte its cards merely leave the deck, and the gate is
    still equally likely to be any card outside the bottom layout.
    """
    options = {"two_card": two_card, "generous": generous}
    check_options(options)
    size = 1 if two_card else 2
    nets: list[int] = []
    for bottom in combinations(FRENCH.codes, size):
        rest = [card for card in FRENCH.codes if card not in bottom]
        tops = combinations(rest, size) if two_card else [()]
        for top in tops:
            gates = [card for card in rest if card not in top]
            nets.extend(_gate_nets("bottom", list(bottom), list(top), gates, options))
    return Odds.counted(nets)


def table_odds(state: State) -> dict[str, Any]:
    """A layout bet on a fresh deck with this table's options, and while bets are open, a bet
    on each layout of the coup given every card seen so far."""
    settings = state["settings"]
    coup = state["coup"]
    betting = state["phase"] == BETTING and coup is not None
    return {
        "layout": fresh_layout_bet(settings["two_card"], settings["generous"]),
        # In play, the deck is exactly the cards nobody has seen, the gate among them.
        "coup": coup_bets(coup["bottom"], coup["top"], state["deck"], settings) if betting else {},
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


# --- a computer player -------------------------------------------------------------------


def play(view_: dict[str, Any], rng: Random, idle: float) -> computer.Move:
    """A computer player's next action from its seat's view (``Game.play``): as banker it puts
    up the table's bank, turns the gate once the bets are in and lays out the next coup once
    the table has seen how this one came out; as a
    punter it cuts when asked and stakes a little a coup on the layout more of the unseen cards
    win for (either, when they are as good)."""
    me = view_["me"]
    can = set(me["can"]) if me else set()
    if "bank" in can:
        return "bank", {"amount": me["bank_offer"]}
    if "cut" in can:
        return computer.cut(rng, view_["deck"])
    if "gate" in can:
        return (
            ("gate", {})
            if computer.bets_are_in(view_, view_["settings"]["min_bet"], idle)
            else None
        )
    if "next" in can:
        return ("next", {}) if computer.result_seen(idle) else None
    if "bet" in can and not me["bets"]:
        best = max(layout["winning"] for layout in view_["layouts"])
        layouts = [layout["name"] for layout in view_["layouts"] if layout["winning"] == best]
        amount = computer.stake(rng, view_["settings"]["min_bet"], me["most"], me["chips"])
        return "bet", {"layout": rng.choice(layouts), "amount": amount}
    return None


# --- the game's interface (montones.rules.games.Game) -----------------------------------------

NAME = "monte"
TITLE = Phrase("Monte")
ROUND = "coup"  # a coup: the layouts dealt, the bets, the gate
SETTLES = "gate_turned"  # the event of an action that settles a coup, recorded by hand_record
# A coup's record is a scenario whose deck is the order still to be dealt: hidden while it is.
HIDDEN_WHILE_LIVE = ("deck",)
SEALED = hand_records.OPENS
DECK = FRENCH


ACTIONS: dict[str, Action] = {
    **rotation.bank_actions(put_up_bank),
    "cut": Action(
        lambda s, who, p, now: cut_deck(s, who, p["position"], now),
        (Field("position", Phrase("The cut")),),
    ),
    "bet": Action(
        lambda s, who, p, now: bet(s, who, p["layout"], p["amount"]),
        (Field("layout", Phrase("The layout"), str), Field("amount", Phrase("The amount"))),
        tap=True,
    ),
    "withdraw": Action(
        lambda s, who, p, now: withdraw(s, who, p["bet"]), (Field("bet", Phrase("The bet")),)
    ),
    "gate": Action(lambda s, who, p, now: turn_gate(s, who)),
    "next": Action(lambda s, who, p, now: next_coup(s, who)),
    "decline": Action(lambda s, who, p, now: decline(s, who)),
    **table.host_actions(leave),
}

SETTINGS = (
    Field("bank_size", Phrase("The bank")),
    Field("min_bet", Phrase("The minimum bet")),
    Field("max_bet", Phrase("The maximum bet")),
    Field("banks_each", Phrase("Banks for each player")),
    Field("two_card", Phrase("Two-card Monte"), bool),
    Field("generous", Phrase("Generous banker"), bool),
    Field("short_bank", Phrase("A short bank"), optional=True),
    Field("private_circle", Phrase("Private circle"), bool),
    Field("cut_timeout", Phrase("The time to cut"), optional=True),
)


def settings_from(values: dict[str, Any]) -> dict[str, Any]:
    """A table's settings from the lobby's fields (:data:`SETTINGS`), for :func:`new_table`."""
    settings = {**values, "short_bank": values.get("short_bank")}
    return {key: value for key, value in settings.items() if key in DEFAULT_SETTINGS}


def stage(state: State) -> str:
    """What a screen was showing: the bank's coups count its deals."""
    return rotation.stage(state, state["coups"])


def balances(state: State) -> dict[str, int]:
    """Where every chip of the table is: the players', the bank, stakes on the table."""
    coup = state["coup"]
    return rotation.balances(
        state, table.stakes(coup["bets"]) if coup and state["phase"] == BETTING else 0
    )


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


# What each step of the TV's demonstration shows (``Game.caption``): an action's kind to the
# code of its caption (templates/games/monte/_demo.html words it).
CAPTIONS = {"seated": "seated", "draw": "draw", "bank": "bank", "cut": "cut", "bet": "bet"}


def caption(kind: str, view_: dict[str, Any]) -> str:
    """The caption of a demonstration's step: what ``kind`` means, and once the gate is turned,
    which layouts its suit won (both, one, or neither)."""
    result = view_["result"]
    if kind != "gate" or result is None:
        return CAPTIONS[kind]
    return {0: "gate_none", 1: "gate_one"}.get(len(result["winning"]), "gate_both")


def status_view(view_: dict[str, Any]) -> dict[str, Any]:
    """What a phone's status is drawn from, and nothing more (its template's ``v``): not the
    layouts' bets, which the felt shows."""
    return {key: view_[key] for key in _STATUS_KEYS}


_STATUS_KEYS = (
    "phase", "me", "bank", "banker", "banker_name", "banker_computer", "passed", "coup", "coups", "result",
    "cut_deadline", "cut_by_clock", "cutter", "cutter_name",
)  # fmt: skip


def bar_view(view_: dict[str, Any]) -> dict[str, Any]:
    """What a phone's action bar is drawn from, and nothing more (its template's ``v``)."""
    me = view_["me"] or {}
    return {
        "phase": view_["phase"],
        "me": {key: me.get(key) for key in ("can", "chips", "bank_offer", "is_banker", "most")},
        **{key: view_[key] for key in ("bank", "banker_name", "cutter_name", "deck", "on_table")},
        "room": view_["room"],
        "settings": {key: view_["settings"][key] for key in ("min_bet", "max_bet")},
    }
