"""Actions: who may do what at a table, run through the rules engine under the table's lock."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from flask import current_app
from sqlalchemy import Connection

from montones.data import store
from montones.data.clock import clock
from montones.data.models import chosen
from montones.data.queries import (
    Seat,
    get_table,
    hash_secret,
    is_host,
    seat_by_rejoin_code,
    seat_by_token,
    version_time,
)
from montones.data.refusals import NotAllowed, ServiceError, Stale
from montones.data.snapshot import Snapshot
from montones.data.store import LockedTable, bump, locked, transaction, write
from montones.extensions import db
from montones.rules import RulesError
from montones.rules.games import game
from montones.rules.table import moved, table_name
from montones.rules.table import no_room as rules_no_room
from montones.service import names, party

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: read off a TV, typed on a phone
REJOIN_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"


@dataclass(frozen=True)
class Actor:
    """Who is asking: a seated player (``seat``), the host, or both on one phone."""

    seat: str | None = None
    is_host: bool = False


def stage(state: dict) -> str:
    """What a screen was showing: a request made at another stage is stale."""
    return game(state["game"]).stage(state)


def age(table: Snapshot) -> int:
    """How long ago (ms) the table's version was made: a page drawn during a hand's reveal
    plays it on from there, as the screens that saw the tap do; 0 for a first version."""
    made = version_time(db.session, table.id, table.version)
    if made is None:
        return 0
    return max(0, round((clock().utcnow() - made).total_seconds() * 1000))


def create_table(
    game_name: str, name: str, starting_chips: int, settings: dict
) -> tuple[Snapshot, str]:
    """A new table, and the host secret (shown once, kept only as a hash)."""
    if not isinstance(starting_chips, int) or not 1 <= starting_chips <= 1_000_000:
        raise ServiceError("Starting chips must be between 1 and 1,000,000.")
    try:
        rules = game(game_name)
        state = rules.new_table(settings)
        name = table_name(name) or str(rules.TITLE)
    except RulesError as error:
        raise ServiceError(error.template, **error.params) from None
    secret = secrets.token_urlsafe(24)
    with transaction() as conn:
        code = _free_code(conn)
        table = LockedTable(
            id=0,  # the database's, below
            code=code,
            game=game_name,
            name=name,
            host_hash=hash_secret(secret),
            starting_chips=starting_chips,
            version=state["version"],
            paused=False,
            ended_at=None,
            created_at=clock().utcnow(),
            state=state,
        )
        table.id = store.insert_table(conn, table)
    snapshot = Snapshot.of(table)
    # Told as a change is: a code taken back from an empty table must not still name that one
    # in the live channel.
    store.committed.send(current_app._get_current_object(), table=snapshot)
    return snapshot, secret


def _free_code(conn: Connection) -> str:
    """A room code no table holds, taken for a new one."""
    for _ in range(20):
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(4))
        if store.take_code(conn, code):
            return code
    raise ServiceError("Could not find a free room code; try again.")


def join(
    code: str, name: str, spellings: names.Spellings | None = None, face: list | None = None
) -> tuple[Seat, str]:
    """Seat a new player with the starting chips, and the face they chose (``face``: see
    :func:`party.chosen_face`); returns their seat and their cookie secret. ``spellings``: the
    computer players' names in every language, which a person's may not be mistaken for on any
    screen."""
    token = secrets.token_urlsafe(24)
    with locked(code) as (table, conn):
        if table.ended_at:
            raise ServiceError("This table has ended.")
        seat = f"p{len(table.state['players']) + 1}"
        try:
            new_state, events = game(table.game).join(table.state, seat, name, table.starting_chips)
        except RulesError as error:
            raise ServiceError(error.template, **error.params) from None
        # The engine's own refusals first (no name, too long...), in its words.
        names.check(new_state["players"][seat]["name"], table.state["players"].values(), spellings)
        taken = store.rejoin_codes(conn, table.id)
        player = Seat(seat, new_state["players"][seat]["name"], _rejoin_code(taken))
        store.add_player(conn, table.id, player, hash_secret(token))
        if face is not None:
            table.party = party.with_face(table.party, seat, face)
        write(conn, table, new_state, events, seat, "join", {"name": player.name})
    return player, token


def no_room(table) -> ServiceError | None:
    """Why nobody new can sit down at ``table`` now (its night is over, the host closed it, it
    is full), or None: a watcher sees it before choosing a name; :func:`join` decides."""
    if table.ended_at:
        return ServiceError("This table has ended.")
    refused = rules_no_room(table.state)
    return None if refused is None else ServiceError(refused.template, **refused.params)


def _rejoin_code(taken: set[str]) -> str:
    while True:
        code = "".join(secrets.choice(REJOIN_ALPHABET) for _ in range(6))
        if code not in taken:
            return code


def rejoin(code: str, rejoin_code: str) -> tuple[Seat, str]:
    """Take one's seat back on another device: the old device's cookie stops working, and the
    code works once (the seat gets a new one, which its phone shows)."""
    typed = (rejoin_code or "").strip().upper()
    # Checked first with a read: a wrong guess never waits for, nor holds, the table's lock.
    if not typed or seat_by_rejoin_code(db.session, get_table(code).id, typed) is None:
        raise ServiceError("That rejoin code does not match a seat at this table.")
    with locked(code) as (table, conn):
        player = seat_by_rejoin_code(conn, table.id, typed)
        if player is None:
            raise ServiceError("That rejoin code does not match a seat at this table.")
        if table.state["players"][player.seat].get("left"):  # the right code: they are told why
            raise ServiceError(
                "%(name)s was sent away by the host: only the host can let them back in",
                name=player.name,
            )
        token = secrets.token_urlsafe(24)
        fresh = _rejoin_code(store.rejoin_codes(conn, table.id))
        store.new_secrets(conn, table.id, player.seat, hash_secret(token), fresh)
        # A new version, so the stream of the device the seat left tells it so at once.
        new_state, events = moved(table.state, player.seat)
        write(conn, table, new_state, events, player.seat, "rejoin", {})
    return Seat(player.seat, player.name, fresh), token


def act(
    code: str,
    actor: Actor,
    kind: str,
    params: dict[str, Any],
    *,
    stage_seen: str | None = None,
    nonce: str | None = None,
) -> Snapshot:
    """Run one action for ``actor`` on table ``code``; raise a :class:`ServiceError` if refused."""
    with locked(code) as (table, conn):
        _act(conn, table, actor, kind, params, stage_seen, nonce)
    return table.committed


def act_as(
    code: str,
    token: str | None,
    secret: str | None,
    kind: str,
    params: dict[str, Any],
    *,
    stage_seen: str | None = None,
    nonce: str | None = None,
    choices: Mapping[str, str] | None = None,
) -> tuple[Snapshot, Seat]:
    """Run the action a browser asked for with its credentials (its seat token, its host
    secret); who is asking is read in the action's own transaction. ``params`` are the
    action's fields as the view parsed them with the game's spec; ``choices``, what the tap
    says of the seat's bar (its stake and mode: ``models.chosen``), stored in the same
    transaction when it changes them. Returns the table and the asker's seat, with its
    choices as stored."""
    with locked(code) as (table, conn):
        seat = seat_by_token(conn, table.id, token)
        if seat is None:
            raise NotAllowed("Join the table first.")
        actor = Actor(seat=seat.seat, is_host=is_host(table, secret))
        table.asked_by = seat.seat  # the view answers this phone with its own regions
        _act(conn, table, actor, kind, params, stage_seen, nonce)
        mine = chosen(seat.choices, choices or {})
        if mine != (seat.choices or {}):
            store.choose(conn, table.id, seat.seat, mine)
            seat = replace(seat, choices=mine)
    return table.committed, seat


def choose(table: Snapshot, seat: Seat, values: Mapping[str, str]) -> Seat:
    """Store what a request of ``seat``'s phone says of its bar (its stake and mode:
    ``models.chosen``), if it changes them: a request that is not a tap (a tap stores them in
    its own transaction: :func:`act_as`). Returns the seat with its choices as stored."""
    mine = chosen(seat.choices, values)
    if mine == (seat.choices or {}):
        return seat
    with transaction() as conn:
        store.choose(conn, table.id, seat.seat, mine)
    return replace(seat, choices=mine)


def _act(
    conn: Connection,
    table: LockedTable,
    actor: Actor,
    kind: str,
    params: dict[str, Any],
    stage_seen: str | None,
    nonce: str | None,
) -> None:
    """One action on a table held under its write lock."""
    spec = game(table.game).ACTIONS.get(kind)
    if spec is None:
        raise ServiceError("That is not something you can do at this table.")
    seated = actor.seat is not None and actor.seat in table.state["players"]
    if not spec.host and not seated:
        raise NotAllowed("Join the table first.")
    if seated and table.state["players"][actor.seat].get("left"):
        # A seat sent away acts for nothing, the host's switches tapped on its phone included
        # (the host's own page acts with no seat once the host's is gone).
        raise NotAllowed("You are no longer at this table.")
    # Nonces are per seat: every phone gets the same felt, with the same nonces in it.
    nonce = f"{actor.seat or 'host'}:{nonce}"[:80] if nonce else None
    if nonce and store.nonce_seen(conn, table.id, nonce):
        return  # a double click: the first one already did it
    if spec.host and not actor.is_host:
        raise NotAllowed("Only the host can do that.")
    if table.ended_at:
        if spec.host:
            raise ServiceError(
                "The night is over: nobody can be given chips, sent away or let back in now."
            )
        raise ServiceError("This table has ended.")
    if table.paused and (not spec.host or spec.plays):  # the host's switches work paused
        raise ServiceError("The host has paused the table.")
    who = "host" if spec.host else actor.seat
    if stage_seen is not None and stage_seen != stage(table.state):
        raise Stale("The table moved on before your tap arrived: here it is now.")
    missing = [f.name for f in spec.fields if f.name not in params and not f.optional]
    if missing:
        raise ServiceError("Missing %(names)s.", names=", ".join(missing))
    try:
        params = spec.params(table.state, who, params)
        new_state, events = spec.call(table.state, who, params, clock().time())
    except RulesError as error:
        raise ServiceError(error.template, **error.params) from None
    if who != "host" and not (table.party or {}).get("started"):
        # A player's first action (a bank offered) starts the night, lobby or not.
        table.party = party.started(table.party)
    write(conn, table, new_state, events, who, kind, params, nonce)
    _follow_up(conn, table)


def _follow_up(conn: Connection, table: LockedTable) -> None:
    """What the game does by itself after an action (Montones: an auction everyone answered
    closes); and a game that is over ends its table, so every screen shows the standings."""
    rules = game(table.game)
    follow = rules.follow_up(table.state, clock().time())
    if follow is not None:
        kind, new_state, events = follow
        write(conn, table, new_state, events, "system", kind, {})
    if rules.over(table.state) and not table.ended_at:
        table.ended_at = clock().utcnow()
        store.end_table(conn, table)


def _paused_for(conn: Connection, table: LockedTable) -> float:
    """Seconds since the host's last pause of this table (its action's time)."""
    paused_at = store.last_pause(conn, table.id)
    return max(0.0, (clock().utcnow() - paused_at).total_seconds()) if paused_at else 0.0


def host_action(code: str, actor: Actor, kind: str, language: str | None = None) -> Snapshot:
    """Pause, resume or end a table, or set the TV's language (``language``, one the view
    checked is offered; None: the TV's browser decides): the host's own switches, outside the rules."""
    with locked(code) as (table, conn):
        if not actor.is_host:
            raise NotAllowed("Only the host can do that.")
        if table.ended_at:
            raise ServiceError("This table has ended.")
        if kind == "pause":
            table.paused = True
            new_state, events = bump(table.state), [{"type": "paused"}]
        elif kind == "resume":
            table.paused = False
            rules = game(table.game)
            paused_for = _paused_for(conn, table)
            new_state = bump(rules.after_pause(table.state, clock().time(), paused_for))
            events = [{"type": "resumed"}]
        elif kind == "end":
            table.ended_at = clock().utcnow()
            new_state, events = game(table.game).finish(table.state)
        elif kind == "tv_language":
            # A new version, so the TV is sent its screen again, now in that language.
            table.tv_language = language
            new_state, events = bump(table.state), [{"type": "tv_language"}]
        else:
            raise ServiceError("That is not something the host can do.")
        write(conn, table, new_state, events, "host", kind, {})
    return table.committed


# A seat of the next night nobody has taken yet holds this instead of a token's hash: no token
# hashes to it, and its player's phone from the night before takes it once (``follow``).
UNCLAIMED = "unclaimed-"


def new_night(code: str, actor: Actor) -> Snapshot:
    """The host's "new night, same players": a new table of the same game, settings, name and
    host (the same host secret opens it), where every player still at the ended table is
    seated again, in the same order, with the starting chips; the ended table keeps its
    ledger and now names the new one (``next_code``), so its screens can send each phone to
    its new seat (:func:`follow`). Asked twice, it is the same new night."""
    with locked(code) as (old, conn):
        if not actor.is_host:
            raise NotAllowed("Only the host can do that.")
        if not old.ended_at:
            raise ServiceError("End the night first: then everyone can start a new one.")
        if old.next_code:
            snapshot = None
        else:
            snapshot = _seat_again(conn, old)
    if snapshot is None:
        return get_table(old.next_code)
    store.committed.send(current_app._get_current_object(), table=snapshot)
    return snapshot


def _seat_again(conn: Connection, old: LockedTable) -> Snapshot:
    """The next night of ``old``, held under its lock: its new table, everyone seated."""
    rules = game(old.game)
    new_code = _free_code(conn)
    state = rules.new_table(old.state["settings"])
    new = LockedTable(
        id=0,
        code=new_code,
        game=old.game,
        name=old.name,
        host_hash=old.host_hash,
        starting_chips=old.starting_chips,
        version=state["version"],
        paused=False,
        ended_at=None,
        created_at=clock().utcnow(),
        state=state,
        tv_language=old.tv_language,
        # The faces go with their players to their new seats (below), the switches as they are.
        party={k: v for k, v in (old.party or {}).items() if k in ("quiet", "music")},
    )
    new.id = store.insert_table(conn, new)
    taken: set[str] = set()
    for pid in old.state["seats"]:
        player = old.state["players"][pid]
        if player.get("left"):
            continue
        seat = f"p{len(new.state['players']) + 1}"
        new_state, events = rules.join(new.state, seat, player["name"], new.starting_chips)
        rejoin = _rejoin_code(taken)
        taken.add(rejoin)
        unclaimed = UNCLAIMED + secrets.token_hex(16)
        store.add_player(conn, new.id, Seat(seat, player["name"], rejoin), unclaimed)
        new.party = party.with_face(new.party, seat, list(party.face_of(old.party, pid)))
        write(conn, new, new_state, events, seat, "join", {"name": player["name"]})
    old.next_code = new_code
    write(
        conn,
        old,
        bump(old.state),
        [{"type": "new_night", "code": new_code}],
        "host",
        "new_night",
        {"code": new_code},
    )
    return Snapshot.of(new)


def follow(code: str, token: str | None) -> tuple[Seat, str] | None:
    """A phone that held a seat at ended table ``code`` (``token``) takes the same player's
    seat at its next night, once: its new cookie secret is returned with the seat. None when
    there is no next night, the token holds no seat here, or its player was not seated again
    (sent away). A seat taken already is refused: its player moves it with its rejoin code."""
    old = get_table(code)
    mine = seat_by_token(db.session, old.id, token)
    if old.next_code is None or mine is None:
        return None
    name = old.state["players"][mine.seat]["name"]
    with locked(old.next_code) as (table, conn):
        seat = next((pid for pid, p in table.state["players"].items() if p["name"] == name), None)
        if seat is None:
            return None
        player = store.player_row(conn, table.id, seat)
        if not player.token_hash.startswith(UNCLAIMED):
            raise ServiceError(
                "Your seat at the new night is taken already: type its rejoin code to move it here."
            )
        token = secrets.token_urlsafe(24)
        store.new_secrets(conn, table.id, seat, hash_secret(token), player.rejoin_code)
    return Seat(seat, name, player.rejoin_code), token
