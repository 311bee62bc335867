"""What a seat may see: the table for one seat (the TV is seat None), what a phone's status
and bar are drawn from."""

from __future__ import annotations

from typing import Any

from montones.rules import betting_time, own_deck, rotation, table
from montones.rules.cards import FRENCH
from montones.rules.monte.actions import COUP_OVER
from montones.rules.monte.entry import can_undo, seen, waiting_for
from montones.rules.monte.record import live_commitment, unseen_before_gate
from montones.rules.monte.settle import LAYOUTS, max_coups, winning_unseen
from montones.rules.rotation import BANK, BETTING, CUT, FINISHED
from montones.rules.settlement import WON, explain
from montones.rules.table import State


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
        unseen = unseen_before_gate(state, shown)
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
        # With the table's own cards: the cards of the real deck nobody has seen yet.
        "deck": len(FRENCH.codes) - len(seen(state)) if own_deck.own(state) else len(state["deck"]),
        "discards": list(state["discards"]),
        "commitment": live_commitment(state),
        "cutter": state["cutter"] if cutting else None,
        "cutter_name": names.get(state["cutter"]) if cutting else None,
        "cut_deadline": rotation.cut_deadline(state),
        # When bets close by the clock (a table with a betting time): every screen counts down.
        # A table of its own cards has none: its gate is turned by hand and entered.
        "betting_until": betting_time.until(state, phase == BETTING and not own_deck.own(state)),
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
        "entry": _entry(state),
        "me": my_view(state, seat, now),
    }


def my_view(state: State, seat: str | None, now: float | None = None) -> dict[str, Any] | None:
    """A seat's own part of :func:`view` (``Game.view``'s ``"me"``): its chips, the room left under
    the bank for its bets, and what the rules let it do now."""
    if not table.seated(state, seat):
        return None
    coup, phase = state["coup"], state["phase"]
    on_table = sum(b["amount"] for b in coup["bets"]) if coup and phase == BETTING else 0
    room = state["bank"] - on_table if phase == BETTING else 0
    most = min(state["settings"]["max_bet"], room, state["players"][seat]["chips"])
    bets = coup["bets"] if coup else []
    entry = _entry(state)
    gate = {"gate"} if entry is None else set()  # with the table's own cards, the gate is entered
    me = rotation.seat_view(
        state, seat, bets, most, {BANK: {"decline"}, BETTING: gate, COUP_OVER: {"next"}}
    )
    me["can"] = sorted({*me["can"], *own_deck.seat_can(entry, seat, state["banker"])})
    return me


def _entry(state: State) -> dict[str, Any] | None:
    """The entry of the table's own cards, as every screen shows it (own_deck.shown)."""
    return own_deck.shown(
        state, FRENCH, waiting_for(state), seen(state), state["banker"], can_undo(state)
    )


def status_view(view_: dict[str, Any]) -> dict[str, Any]:
    """What a phone's status is drawn from, and nothing more (its template's ``v``): not the
    layouts' bets, which the felt shows."""
    return {key: view_[key] for key in _STATUS_KEYS}


_STATUS_KEYS = (
    "phase", "me", "bank", "banker", "banker_name", "banker_computer", "passed", "coup", "coups", "result",
    "entry",
    "cut_deadline", "cut_by_clock", "cutter", "cutter_name", "betting_until",
)  # fmt: skip


def bar_view(view_: dict[str, Any]) -> dict[str, Any]:
    """What a phone's action bar is drawn from, and nothing more (its template's ``v``): while
    I bet, the least and the most I may stake (``stakes``: the web's quick stakes,
    ``web/stakes.py``)."""
    me = view_["me"] or {}
    can = me.get("can") or []
    least = view_["settings"]["min_bet"]
    return {
        "phase": view_["phase"],
        "me": {
            **{key: me.get(key) for key in ("can", "chips", "bank_offer", "is_banker", "most")},
            "stakes": (least, me["most"]) if "bet" in can else None,
        },
        **{
            key: view_[key]
            for key in ("bank", "banker_name", "cutter_name", "deck", "on_table", "entry")
        },
        "room": view_["room"],
        "settings": {key: view_["settings"][key] for key in ("min_bet", "max_bet")},
    }
