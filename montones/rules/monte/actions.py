"""A Monte table and its actions: settings and phases, the bank put up and passed on, the
cut, the bets and the gate, the night's end."""

from __future__ import annotations

from montones.rules import own_deck, rotation, table
from montones.rules.errors import Phrase, RulesError
from montones.rules.monte.settle import (
    check_bet,
    check_options,
    deal_layouts,
    max_coups,
    settle_coup,
)
from montones.rules.rotation import BANK, BETTING, CUT, require_banker
from montones.rules.table import Events, State, action, is_count, require_phase

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
    state["discards"] = []
    state["coups"] = 0
    if own_deck.own(state):
        # The banker shuffles a real deck and a punter cuts it by hand: nothing to seal.
        state["deck"], state["shuffle"], state["cutter"] = [], None, None
        events.append({"type": "bank_put_up", "banker": pid, "amount": amount, "own_deck": True})
        _deal_coup(state, events)
        return
    # One sealed deck deals all of this bank's coups: opened once the last is done.
    rotation.shuffle(state, deck)
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
    state["coups"] += 1
    if own_deck.own(state):
        # The layouts are entered as they are laid out (montones.rules.monte.entry).
        state["coup"] = {**_coup(state, [], []), "entered": []}
        state["phase"] = own_deck.ENTERING
        return
    bottom, top, rest = deal_layouts(state["deck"], state["settings"]["two_card"])
    state["deck"] = rest
    state["coup"] = _coup(state, bottom, top)
    state["phase"] = BETTING
    events.append({"type": "coup_dealt", "number": state["coups"], "bottom": bottom, "top": top})


def _coup(state: State, bottom: list[str], top: list[str]) -> dict:
    return {
        "number": state["coups"],
        "bottom": bottom,
        "top": top,
        "gate": None,
        "bets": [],
        "next_bet": 1,
        "result": None,
    }


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
    if own_deck.own(state):
        raise RulesError("with your own cards, enter the gate as it is turned")
    turned_gate(state, events, state["deck"].pop())


def turned_gate(state: State, events: Events, gate: str) -> None:
    """The gate decides each layout; a broken or finished bank passes."""
    coup = state["coup"]
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


NAME = "monte"
