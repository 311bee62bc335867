"""What a seat may see: the table for one seat (the TV is seat None), what a phone's status
and bar are drawn from."""

from __future__ import annotations

from typing import Any

from montones.rules import betting_time, own_deck, rotation, table
from montones.rules.cards import FRENCH
from montones.rules.monte_bank.bank import DEAL_OVER, NAME, side_cards
from montones.rules.monte_bank.entry import can_undo, seen, waiting_for
from montones.rules.monte_bank.record import live_commitment
from montones.rules.monte_bank.settle import (
    POSITIONS,
    SET_ASIDE,
    SIDE_CARDS,
    SIDES,
    cost,
    live_words,
    parts,
    pays,
    positions,
    void_cards,
)
from montones.rules.rotation import BANK, BETTING, CUT, FINISHED, cut_deadline
from montones.rules.settlement import WON, explain
from montones.rules.table import State


def view(state: State, seat: str | None = None, now: float | None = None) -> dict[str, Any]:
    """The table as one seat sees it (``seat=None``: the TV). The deck's order stays hidden:
    after a deal, only the cards turned."""
    phase = state["phase"]
    names = {pid: p["name"] for pid, p in state["players"].items()}
    banker = state["banker"]
    deal = state["deal"]
    last = state["last_deal"]
    passed = state["passed"]
    shown = None
    if phase in (BETTING, own_deck.ENTERING) and deal is not None:
        # With the table's own cards, the layout shows as its cards are entered, one by one.
        shown = deal
    elif phase == DEAL_OVER:
        shown = last
    elif phase in (BANK, FINISHED) and passed and last and last["result"]:
        # The deal whose end passed the bank stays on show while the next banker puts one up.
        shown = last if last["result"]["version"] == passed["version"] else None
    result = shown["result"] if shown else None
    cutting = phase == CUT
    bets = []
    if shown:
        lines: dict[int, list[dict]] = {}
        for line in result["settled"] if result else []:
            lines.setdefault(line["id"], []).append({**line, "name": names[line["player"]]})
        for placed in shown["bets"]:
            bets.append(
                {
                    **placed,
                    "name": names[placed["player"]],
                    "mine": placed["player"] == seat,
                    "cost": cost(placed),
                    "lines": lines.get(placed["id"], []),
                }
            )
    spots: dict[str, list[dict]] = {key: [] for key in (*POSITIONS, *SIDE_CARDS, *SIDES, "cross")}
    for placed in bets:
        by_part = {line["part"]: line for line in placed["lines"]}
        for part in parts(placed):
            chip = {
                **part,
                "id": placed["id"],
                "player": placed["player"],
                "name": placed["name"],
                "amount": placed["amount"],
                "kind": placed["kind"],
                "line": by_part.get(part["part"]),
            }
            where = {"round": part.get("on"), "double": part.get("side")}.get(part["part"], "cross")
            spots[where].append(chip)
    layout = _layout(state, shown)
    void = state["void"]
    first_draw = bool(state["draws"]) and not passed and state["deals"] == 0 and not shown
    open_bets = deal["bets"] if deal and phase == BETTING else []
    return {
        "game": NAME,
        "version": state["version"],
        "phase": phase,
        "players": rotation.seats_view(state, open_bets, cost),
        "banker": banker,
        "banker_name": names.get(banker),
        "banker_computer": bool(banker) and table.is_computer(state, banker),
        "bank": state["bank"],
        "on_table": sum(cost(b) for b in open_bets),
        "deal": shown["number"] if shown else None,
        "deals": state["deals"],
        "layout": layout,
        # The side cards on the layout, each with what a round on it pays; the cards set aside.
        "sides": _sides(layout) if shown else [],
        "set_aside": layout.get(SET_ASIDE, []) if shown else [],
        # Which cards match each position, once the four (and the side cards) are down.
        "live": live_words(layout) if shown and all(layout[p] for p in positions(layout)) else [],
        "bets": bets,
        "spots": spots,
        "turned": result["turned"] if result else (shown or {}).get("turned") or [],
        "result": result and {**result, "settled": _lines(shown, result, names)},
        "void": void
        and {
            **void,
            "fresh": void["version"] == state["version"],
            "cards": void_cards(void["layout"], void["why"]),
        },
        "pot": state["pot"],
        "house": state["house"],
        "commitment": live_commitment(state),
        "cutter": state["cutter"] if cutting else None,
        "cutter_name": names.get(state["cutter"]) if cutting else None,
        "cut_deadline": cut_deadline(state),
        # When bets close by the clock (a table with a betting time): every screen counts down.
        "betting_until": betting_time.until(state, phase == BETTING),
        # Whose cut the clock made, while the deal it laid out shows.
        "cut_by_clock": rotation.cut_by_clock(state, names)
        if phase in (BETTING, DEAL_OVER)
        else None,
        # With the table's own cards: the cards of the real deck nobody has seen yet.
        "deck": len(FRENCH.codes) - len(seen(state)) if own_deck.own(state) else len(state["deck"]),
        **rotation.night_view(state, names, first_draw),
        "entry": _entry(state),
        "me": my_view(state, seat, now),
    }


def _layout(state: State, shown: dict | None) -> dict | None:
    """The layout every screen shows: with the table's own cards, while the side cards are
    entered, the places of those still to come are there, empty."""
    if shown is None:
        return None
    layout = shown["layout"]
    if waiting_for(state) not in SIDE_CARDS:
        return layout
    count = side_cards(state["settings"])
    return {**layout, **{s: [] for s in SIDE_CARDS[:count] if s not in layout}}


def _sides(layout: dict) -> list[dict]:
    return [
        {"position": s, "pays": pays(layout, {"part": "round", "on": s})}
        for s in positions(layout)
        if s in SIDE_CARDS
    ]


def _lines(deal: dict, result: dict, names: dict[str, str]) -> list[dict]:
    """A deal's settled lines with each player's name and where each part lay."""
    placed = {b["id"]: b for b in deal["bets"]}

    def part_of(line: dict) -> dict:
        return next(p for p in parts(placed[line["id"]]) if p["part"] == line["part"])

    def owed(line: dict) -> int:
        if line["result"] != WON:
            return line["stake"]
        return pays(deal["layout"], part_of(line)) * line["stake"]

    return [
        {**part_of(line), **line, "name": names[line["player"]]}
        for line in explain(result["settled"], result["bank"], owed)
    ]


def my_view(state: State, seat: str | None, now: float | None = None) -> dict[str, Any] | None:
    """A seat's own part of :func:`view`: its chips, its bets, what the rules let it do now."""
    if not table.seated(state, seat):
        return None
    deal = state["deal"]
    most = min(state["bank"], state["players"][seat]["chips"])
    bets = deal["bets"] if deal else []
    me = rotation.seat_view(
        state, seat, bets, most, {BETTING: {"close"}, DEAL_OVER: {"next", "aces"}}
    )
    me["can"] = sorted({*me["can"], *own_deck.seat_can(_entry(state), seat, state["banker"])})
    return me


def _entry(state: State) -> dict[str, Any] | None:
    """The entry of the table's own cards, as every screen shows it (own_deck.shown)."""
    return own_deck.shown(
        state, FRENCH, waiting_for(state), seen(state), state["banker"], can_undo(state)
    )


def status_view(view_: dict[str, Any]) -> dict[str, Any]:
    """What a phone's status is drawn from, and nothing more (its template's ``v``): not the
    layout's bets, which the felt shows."""
    return {
        **{key: view_[key] for key in _STATUS_KEYS},
        "settings": {key: view_["settings"][key] for key in ("levy", "deals_per_bank")},
    }


_STATUS_KEYS = (
    "phase", "me", "bank", "banker", "banker_name", "banker_computer", "passed", "deal", "result", "pot",
    "turned", "void", "cut_deadline", "cut_by_clock", "cutter", "cutter_name", "betting_until", "entry",
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
            **{
                key: me.get(key)
                for key in ("can", "chips", "bank_offer", "is_banker", "most", "bets")
            },
            "stakes": (least, me["most"]) if "bet" in can else None,
        },
        **{
            key: view_[key]
            for key in ("bank", "banker_name", "cutter_name", "deck", "on_table", "pot", "entry")
        },
        "settings": {key: view_["settings"][key] for key in ("min_bet", "levy")},
        "sides": view_["sides"],
    }
