"""What the clock decides at a table: a punter who let their time to cut run out is skipped,
bets close when a table's betting time runs out, and a computer player acts when its turn
falls due.

A computer player is a seat like any other (a ``players`` row, its chips in the state, the
ledger and the history), marked ``computer`` in the state; no device holds its token. Its moves
are its game's strategy (``Game.play``) over its seat's view. Nothing runs on its own: the
clock's scheduler asks :func:`clock_deadline` when a table's version is new, and calls
:func:`tick` once that time has come. A computer acts a second or two after the table last
moved (people read the table first: the app's ``COMPUTER_PACE``), a banker waits a while longer
for the punters' bets (the app's ``COMPUTER_PATIENCE``); what it does is worked out again under
the table's lock from the version it finds, so two workers ticking one table make one move, and
a restart loses nothing (the state and the time of its version are in the database).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC
from random import Random
from typing import Any

from flask import current_app

from montones.data import store
from montones.data.clock import clock
from montones.data.queries import Seat, get_table, hash_secret, version_time
from montones.data.refusals import NotAllowed, ServiceError
from montones.data.snapshot import Snapshot
from montones.data.store import locked, write
from montones.extensions import db
from montones.rules import RulesError
from montones.rules.computer import NAMES
from montones.rules.games import game
from montones.rules.table import is_computer, skeleton
from montones.service.actions import (
    Actor,
    _act,
    _follow_up,
    _rejoin_code,
    act,
    create_table,
    join,
)
from montones.service.names import Spellings, shown_as, spelled


@dataclass(frozen=True)
class Turn:
    """A computer seat's move, and when it falls due (the clock's wall time)."""

    due: float
    seat: str
    kind: str
    params: dict[str, Any]


def add_computer(
    code: str,
    actor: Actor,
    nonce: str | None = None,
    names: Sequence[str] = NAMES,
    spellings: Spellings | None = None,
) -> tuple[Snapshot, str | None]:
    """The host seats a computer player with the starting chips; returns the table and its
    seat (None: the form was sent again, ``nonce`` seen, and nobody more was seated). It takes
    the first of ``names`` that no screen could mistake for a name at the table, in any of
    its languages (``spellings``: how each is written in each); the table keeps that name as
    the rules give it, and every screen writes it in its own language."""
    nonce = f"host:{nonce}"[:80] if nonce else None
    with locked(code) as (table, conn):
        if not actor.is_host:
            raise NotAllowed("Only the host can do that.")
        if nonce and store.nonce_seen(conn, table.id, nonce):
            return Snapshot.of(table), None
        if table.ended_at:
            raise ServiceError("This table has ended.")
        players = table.state["players"]
        spellings = spellings or {}
        taken = {skeleton(way) for p in players.values() for way in shown_as(p, spellings)}
        name = next(
            (n for n in names if not any(skeleton(w) in taken for w in spelled(n, spellings))),
            None,
        )
        if name is None:
            name = f"{names[0]} {len(players) + 1}"
        seat = f"p{len(players) + 1}"
        try:
            new_state, events = game(table.game).join(
                table.state, seat, name, table.starting_chips, computer=True
            )
        except RulesError as error:
            raise ServiceError(error.template, **error.params) from None
        # No device holds a computer seat: its token is one nobody was given.
        player = Seat(seat, name, _rejoin_code(store.rejoin_codes(conn, table.id)))
        store.add_player(conn, table.id, player, hash_secret(secrets.token_urlsafe(24)))
        params = {"name": name, "computer": True}
        write(conn, table, new_state, events, seat, "join", params, nonce)
    return table.committed, seat


PRACTICE_CHIPS = 100
PRACTICE_COMPUTERS = 3


def practice(
    game_name: str, title: str, name: str, spellings: Spellings | None = None
) -> tuple[Snapshot, Seat, str, str]:
    """A practice table of ``game_name`` called ``title``: one person (``name``) and three
    computer players (named as :func:`add_computer` names them), under way at once (where
    the game draws for the first bank, drawn).
    Returns the table, the person's seat and seat token, and the host secret, which their
    device keeps (it ends the table when they leave) and nobody is shown."""
    try:
        game(game_name)
    except RulesError:
        raise ServiceError("Choose one of the games.") from None
    table, secret = create_table(game_name, title, PRACTICE_CHIPS, {"practice": True})
    seat, token = join(table.code, name)
    host = Actor(is_host=True)
    for _ in range(PRACTICE_COMPUTERS):
        add_computer(table.code, host, spellings=spellings)
    if "draw" in game(game_name).ACTIONS:
        act(table.code, host, "draw", {})
    return get_table(table.code), seat, token, secret


def remove_computer(code: str, actor: Actor, seat: str) -> Snapshot:
    """The host takes a computer player off the table: it leaves as a player does (its open
    bets go back; a bank it holds passes), its chips kept with its seat."""
    with locked(code) as (table, conn):
        players = table.state["players"]
        if seat not in players or not is_computer(table.state, seat):
            raise ServiceError("That is not a computer player at this table.")
        _act(conn, table, actor, "kick", {"seat": seat}, None, None)
    return table.committed


def tick(code: str) -> bool:
    """Apply what the clock decides now: a punter who did not cut in time is skipped, bets
    close when the table's betting time has run out, or a computer player whose turn is due
    acts (never while the host has the table paused).
    Whether it decided something. The live fan-out calls it when :func:`clock_deadline` has
    come: it is worked out again under the table's lock, at the version found there."""
    with locked(code) as (table, conn):
        if table.paused or table.ended_at:
            return False
        now = clock().time()
        rules = game(table.game)
        deadline = rules.cut_deadline(table.state)
        if deadline is not None and now >= deadline:
            new_state, events = rules.cut_timed_out(table.state, now)
            write(conn, table, new_state, events, "system", "cut_timeout", {})
            return True
        deadline = rules.betting_deadline(table.state)
        if deadline is not None and now >= deadline:
            new_state, events = rules.bets_timed_out(table.state, now)
            write(conn, table, new_state, events, "system", "bets_timeout", {})
            _follow_up(conn, table)  # as after the banker's close: a night over ends
            return True
        turn = next_turn(table, conn)
        if turn is None or now < turn.due:
            return False
        _act(conn, table, Actor(seat=turn.seat), turn.kind, turn.params, None, None)
    return True


def clock_deadline(table) -> float | None:
    """When the clock next decides something at this table: never while it is paused or once
    it has ended."""
    if table.paused or table.ended_at:
        return None
    rules = game(table.game)
    times = [rules.cut_deadline(table.state), rules.betting_deadline(table.state)]
    turn = next_turn(table, db.session)
    times.append(turn and turn.due)
    return min((t for t in times if t is not None), default=None)


def next_turn(table, reader) -> Turn | None:
    """The next move of the table's computer players at its version, if one has one: the first
    of them (in an order drawn for the version) whose strategy acts now, due a second or two
    after the version was made (between the app's ``COMPUTER_PACE`` and twice that); else the
    first that acts once the table has stood still for the app's ``COMPUTER_PATIENCE``
    (:data:`~montones.rules.computer.PATIENCE` by default), due then. The same table at the
    same version gives the same turn, in any worker."""
    state = table.state
    seats = [
        p for p in state["seats"] if is_computer(state, p) and not state["players"][p].get("left")
    ]
    if not seats:
        return None
    made = version_time(reader, table.id, table.version)
    if made is None:
        return None
    since = made.replace(tzinfo=UTC).timestamp()
    rules = game(table.game)
    seed = f"{current_app.config.get('COMPUTER_SEED', '')}:{table.code}:{table.version}"
    order = Random(seed)
    least = current_app.config["COMPUTER_PACE"]
    pace = order.uniform(least, 2 * least)
    seats = order.sample(seats, len(seats))
    now = clock().time()
    views: dict[str, dict] = {}
    patience = current_app.config["COMPUTER_PATIENCE"]
    for idle, due in ((0.0, since + pace), (patience, since + max(pace, patience))):
        for seat in seats:
            if seat not in views:
                views[seat] = rules.view(state, seat, now)
            move = rules.play(views[seat], Random(f"{seed}:{seat}"), idle, patience)
            if move is not None:
                return Turn(due, seat, *move)
    return None
