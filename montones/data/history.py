"""The night remembered: every settled hand kept as a scenario, read back for screens and exports.

The service layer calls :func:`hand_row` inside the transaction of the action that settled a
hand (the game's ``SETTLES``). A hand's record holds what opens its deck; what of it the game's
``while_live`` takes out is left out of everything shown (:func:`shown`) until that deck is done,
so neither a history page nor an export can tell anyone the cards still to come.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC

from sqlalchemy import func, select

from montones.data import queries
from montones.data.clock import clock
from montones.data.models import GameTable, Hand
from montones.extensions import db
from montones.rules.audit import FORMAT
from montones.rules.games import game

# The largest hand number a table can have: the hands table keeps it in a 32-bit integer.
MOST_HANDS = 2**31 - 1


def hand_row(
    table, before: dict, after: dict, events: list, last_number: Callable[[], int]
) -> dict | None:
    """The ``hands`` row of the hand or coup this change settled, if it settled one; the
    service writes it in the change's own transaction. ``last_number()`` is the number of the
    table's newest hand (0 before the first), read in that transaction."""
    rules = game(table.game)
    if not any(event["type"] == rules.SETTLES for event in events):
        return None
    entry = rules.hand_record(before, after)
    number = last_number() + 1
    at = clock().utcnow()
    entry["meta"] |= {
        "table": table.code,
        "number": number,
        "at": at.replace(tzinfo=UTC).isoformat(timespec="seconds"),
        "version": after["version"],
    }
    return {
        "number": number,
        "version": after["version"],
        "commitment": entry["shuffle"]["commitment"] or "",  # "": the table's own cards
        "record": entry,
        "created_at": at,
    }


def live_commitment(table: GameTable) -> str | None:
    """The commitment of the deck still being dealt, if any: its secrets stay hidden."""
    if table.ended_at:
        return None
    return game(table.game).live_commitment(table.state)


def shown(entry: dict, live: str | None) -> dict:
    """A record as a screen or an export may show it: a live deck's secrets taken out."""
    if not entry["shuffle"]["commitment"] or entry["shuffle"]["commitment"] != live:
        return {**entry, "opened": True}
    return {**game(entry["game"]).while_live(entry), "opened": False}


def hands(table: GameTable, limit: int | None = None) -> list[dict]:
    """The table's hands, newest first, as they may be shown now."""
    query = select(Hand.record).where(Hand.table_id == table.id).order_by(Hand.number.desc())
    if limit:
        query = query.limit(limit)
    live = live_commitment(table)
    return [shown(entry, live) for entry in db.session.scalars(query)]


def count(table: GameTable) -> int:
    """How many hands the table has settled."""
    return db.session.scalar(select(func.count(Hand.id)).where(Hand.table_id == table.id))


def hand(table: GameTable, number: int) -> dict | None:
    entry = db.session.scalar(
        select(Hand.record).where(Hand.table_id == table.id, Hand.number == number)
    )
    return None if entry is None else shown(entry, live_commitment(table))


def for_seat(entry: dict, seat: str) -> dict:
    """What one player did and got in a hand: their bets with what each paid, chips before and
    after; for the banker, the bank before and after."""
    result = entry["result"]
    bets, settled = game(entry["game"]).record_lines(entry)
    lines = {line["bet"]: line for line in settled}
    mine = [{**bet, **lines.get(i, {})} for i, bet in enumerate(bets) if bet["player"] == seat]
    return {
        "bets": mine,
        "before": entry["players"].get(seat),
        "after": result["players"].get(seat),
        "is_banker": entry["meta"]["banker"] == seat,
    }


def export(table: GameTable) -> dict:
    """The whole table as one JSON document: every hand whose deck is done, as a scenario of
    docs/scenarios.md with its recorded result, for ``montones replay`` and ``montones verify``."""
    everything = list(reversed(hands(table)))
    done = [entry for entry in everything if entry.pop("opened")]
    state = table.state
    return {
        "format": FORMAT,
        "table": {
            "code": table.code,
            "name": table.name,
            "game": table.game,
            "created_at": table.created_at.replace(tzinfo=UTC).isoformat(timespec="seconds"),
            "ended_at": table.ended_at
            and table.ended_at.replace(tzinfo=UTC).isoformat(timespec="seconds"),
            "version": table.version,
            "settings": state["settings"],
        },
        "players": {pid: p["name"] for pid, p in state["players"].items()},
        # As the table stands, best first: each player's chips (an open bank counted as its
        # banker's), what the house gave them (starting chips and top-ups), the net and place.
        "standings": queries.standings(table),
        # Every chip the house issued a player (starting chips, top-ups), oldest first: the
        # standings' ``bought`` is their sum.
        "buy_ins": queries.buy_in_entries(table),
        "computers": [pid for pid, p in state["players"].items() if p.get("computer")],
        "exported_at": clock().utcnow().replace(tzinfo=UTC).isoformat(timespec="seconds"),
        # Hands of the deck still being dealt wait until it is done: their cards are to come.
        "held_back": len(everything) - len(done),
        "hands": done,
    }


def story(table: GameTable) -> dict:
    """The night told in a few lines, from its settled hands (oldest first), the same way for
    every game (each engine's records share ``players``, ``bank``, ``meta.banker`` and
    ``result``; its ``record_lines`` give a hand's bets and what each came to):

    ``biggest_win``: the most a player won in one hand (a banker: what their bank gained);
    ``boldest_bet``: the largest stake of one bet; ``longest_bank``: the most hands one player
    held the bank in a row; ``broke_bank``: whose winning bet took the last chip of the largest
    bank emptied (the game's ``emptied_by``), not whoever won the most in that hand. Each is ``{"player", "name", "amount" or "hands", "hand"}``, None when the
    night had nothing of the kind; ``game``: the table's game, whose templates say what the
    numbers count (its ``round``: a hand, a coup, a deal).
    """
    entries = list(reversed(hands(table)))
    names = {pid: p["name"] for pid, p in table.state["players"].items()}
    told = {"biggest_win": None, "boldest_bet": None, "longest_bank": None, "broke_bank": None}
    told["game"] = table.game

    def line(pid: str, entry: dict, **what) -> dict:
        return {"player": pid, "name": names.get(pid, pid), "hand": entry["meta"]["number"], **what}

    run_banker, run = None, 0
    for entry in entries:
        result, banker = entry["result"], entry["meta"]["banker"]
        gains = {
            pid: result["players"][pid] - before
            for pid, before in entry["players"].items()
            if pid in result["players"]
        }
        gains[banker] = result["bank"] - entry["bank"]
        for pid, gain in gains.items():
            if gain > 0 and (told["biggest_win"] is None or gain > told["biggest_win"]["amount"]):
                told["biggest_win"] = line(pid, entry, amount=gain)
        bets, settled = game(entry["game"]).record_lines(entry)
        nets = {line_["bet"]: line_["net"] for line_ in settled}
        for i, bet in enumerate(bets):
            # A bet played for the whole bank records no amount: it staked what it came to.
            stake = bet.get("amount") or abs(nets.get(i, 0))
            if stake and (told["boldest_bet"] is None or stake > told["boldest_bet"]["amount"]):
                told["boldest_bet"] = line(bet["player"], entry, amount=stake)
        run = run + 1 if banker == run_banker else 1
        run_banker = banker
        if run > 1 and (told["longest_bank"] is None or run > told["longest_bank"]["hands"]):
            told["longest_bank"] = line(banker, entry, hands=run)
        broken = told["broke_bank"]
        if result["bank"] == 0 < entry["bank"] and (
            broken is None or entry["bank"] > broken["amount"]
        ):
            breaker = game(entry["game"]).emptied_by(entry)
            if breaker is not None:
                told["broke_bank"] = line(
                    breaker,
                    entry,
                    amount=entry["bank"],
                    banker=banker,
                    banker_name=names.get(banker, banker),
                )
    return told
