"""The write path: one transaction on one table under its row lock, and what an action stores.

Every write of the app goes through here, as SQLAlchemy Core statements on the models' tables:
a new table, a new seat, a new token; an action's new state with its action-log row, its ledger
entries and the hand it settled, if any.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from flask import current_app
from flask.signals import Namespace
from sqlalchemy import Connection, bindparam, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from montones.data import history
from montones.data.clock import clock
from montones.data.models import BUY_IN, Action, DeviceKey, GameTable, Hand, LedgerEntry, Player
from montones.data.queries import Seat, hash_secret
from montones.data.refusals import NotFound
from montones.data.snapshot import COLUMNS, Snapshot
from montones.extensions import db
from montones.rules.games import game

# Each committed change of a table, sent with the table at its new version (``table=``): the
# live channel (montones.live) listens, so that the layer below never calls the one above.
committed = Namespace().signal("committed")
# The PostgreSQL notification channel every worker's live channel listens on: "CODE:VERSION".
NOTIFY_CHANNEL = "table_versions"

# The models' tables, which Core statements are built on.
GAME_TABLES = GameTable.__table__
PLAYERS = Player.__table__
LEDGER = LedgerEntry.__table__
ACTION_LOG = Action.__table__
HANDS = Hand.__table__
DEVICE_KEYS = DeviceKey.__table__

# On SQLite the threads of this process take turns at writing here, rather than in SQLite's busy
# handler, which polls with sleeps of up to 100 ms: under a burst of taps those sleeps, not the
# work, made the wait. (SQLite runs one worker process; another process, if any, still waits in
# the busy handler.)
_sqlite_writer = threading.Lock()

# A table's writers of this process take turns at their table before they queue for the
# database: the writes of one table are one after another anyway (its row lock), and so the
# queue for the database holds at most one writer per table, and a table whose thirty players
# tap as fast as they can keeps the others waiting behind one of its taps, not thirty. Tables
# share a turn by their code's hash, a fixed number of locks whatever codes are asked for.
_TURNS = [threading.Lock() for _ in range(64)]


def turn(code: str) -> threading.Lock:
    """The turn the writers of table ``code`` take in this process (:func:`locked` holds it)."""
    return _TURNS[hash(code) % len(_TURNS)]


@dataclass
class LockedTable:
    """A table's row as its write transaction holds it (``state`` is shared with whoever holds
    it, never changed in place). Once the transaction has committed, ``committed`` is the
    table at the version it left, as the live channel was told of it."""

    id: int
    code: str
    game: str
    name: str
    host_hash: str
    starting_chips: int
    version: int
    paused: bool
    ended_at: datetime | None
    created_at: datetime
    state: dict = field(default_factory=dict)
    tv_language: str | None = None
    next_code: str | None = None
    party: dict | None = None
    asked_by: str | None = None  # the seat whose phone asked (see Snapshot.asked_by)
    committed: Snapshot | None = None


@contextmanager
def transaction():
    """One write transaction on one connection of the pool: on SQLite it begins IMMEDIATE (it
    holds the database's write lock from its first statement), one writer of this process at a
    time. It commits when the block ends, and rolls back if the block raises. Every write of the
    app is one of these (the ORM session only reads)."""
    if db.session.registry.has():
        # The write goes around the session: end the read transaction it has open and forget
        # the rows it read, which would otherwise still show as they were.
        session = db.session()
        session.rollback()
        session.expire_all()
    engine = db.engine
    sqlite = engine.dialect.name == "sqlite"
    if sqlite:
        _sqlite_writer.acquire()
    try:
        with engine.connect() as conn:
            # models._on_begin reads it: BEGIN IMMEDIATE, not BEGIN. Set on the connection,
            # not by engine.execution_options(), which makes a new engine object every call.
            conn.execution_options(sqlite_immediate=True)
            with conn.begin():
                yield conn
    finally:
        if sqlite:
            _sqlite_writer.release()


# The whole row, state and all, under its lock (FOR UPDATE; SQLite has no such clause and
# holds its write lock from BEGIN IMMEDIATE).
_LOCK = select(GAME_TABLES).where(GAME_TABLES.c.code == bindparam("code")).with_for_update()


@contextmanager
def locked(code: str):
    """One write transaction on one table, which it reads under its row lock: BEGIN IMMEDIATE
    on SQLite, FOR UPDATE on PostgreSQL. Yields the table (a :class:`LockedTable`) and the
    transaction's connection; once committed, the table at its new version is the table's
    ``committed`` snapshot, and is sent to the live channel (``committed``).
    """
    code = (code or "").upper()
    with turn(code), transaction() as conn:
        found = conn.execute(_LOCK, {"code": code}).first()
        if found is None:
            raise NotFound("There is no table with that code.")
        table = LockedTable(**found._mapping)
        yield table, conn
        if conn.dialect.name == "postgresql":  # every worker process hears of it at the commit
            conn.execute(_NOTIFY, {"payload": f"{table.code}:{table.version}"})
        snapshot = Snapshot.of(table, table.asked_by)
    table.committed = snapshot
    committed.send(current_app._get_current_object(), table=snapshot)


_NOTIFY = select(func.pg_notify(NOTIFY_CHANNEL, bindparam("payload")))

# A reaction sent on one worker's phone, for every worker's TVs (PostgreSQL only): no change of
# the table, so not one of its versions, and nothing stored.
REACTIONS_CHANNEL = "table_reactions"
_NOTIFY_REACTION = select(func.pg_notify(REACTIONS_CHANNEL, bindparam("payload")))


def announce_reaction(payload: str) -> None:
    """Tell every worker's listener of a reaction (``payload``: what the live channel reads
    back); nothing on SQLite, which runs one worker."""
    engine = db.engine
    if engine.dialect.name != "postgresql":
        return
    with engine.begin() as conn:
        conn.execute(_NOTIFY_REACTION, {"payload": payload})


def write(
    conn: Connection,
    table: LockedTable,
    new_state: dict,
    events: list,
    actor: str,
    kind: str,
    params: dict,
    nonce: str | None = None,
) -> None:
    """Store a new state with its action row, the ledger entries of what moved and the hand it
    settled, if any; and the host's switches (``paused``, ``ended_at``, ``tv_language``,
    ``next_code``) and the party (faces, its switches) as the table has them. Chips a join or a top-up brings to the table are
    issued by the house: those entries are the buy-ins (``kind``)."""
    rules = game(table.game)
    before, after = rules.balances(table.state), rules.balances(new_state)
    moves = {
        account: after.get(account, 0) - before.get(account, 0)
        for account in set(before) | set(after)
    }
    moves = {account: amount for account, amount in moves.items() if amount}
    issued = sum(moves.values())
    if issued and kind not in ("join", "top_up"):
        raise RuntimeError(f"{kind} would create or destroy {issued} chips")
    if issued:
        moves["house"] = -issued
    entry_kind = BUY_IN if issued else None
    version = new_state["version"]
    now = clock().utcnow()
    if moves:
        conn.execute(
            _INSERT_LEDGER,
            [
                {
                    "table_id": table.id,
                    "version": version,
                    "account": account,
                    "amount": amount,
                    "kind": entry_kind,
                    "created_at": now,
                }
                for account, amount in sorted(moves.items())
            ],
        )
    conn.execute(
        _INSERT_ACTION,
        {
            "table_id": table.id,
            "version": version,
            "actor": actor,
            "kind": kind,
            "params": params,
            "events": events,
            "nonce": nonce,
            "created_at": now,
        },
    )
    hand = history.hand_row(
        table, table.state, new_state, events, lambda: last_hand_number(conn, table.id)
    )
    if hand is not None:
        conn.execute(_INSERT_HAND, {**hand, "table_id": table.id})
    conn.execute(
        _UPDATE_TABLE,
        {
            "table_id": table.id,
            "state": new_state,
            "version": version,
            "paused": table.paused,
            "ended_at": table.ended_at,
            "tv_language": table.tv_language,
            "next_code": table.next_code,
            "party": table.party,
        },
    )
    table.state, table.version = new_state, version


# An action's statements, built once; the keys of their parameters name the columns written.
_INSERT_LEDGER = insert(LEDGER)
_INSERT_ACTION = insert(ACTION_LOG)
_INSERT_HAND = insert(HANDS)
_UPDATE_TABLE = update(GAME_TABLES).where(GAME_TABLES.c.id == bindparam("table_id"))


def last_hand_number(conn: Connection, table_id: int) -> int:
    """The number of the table's newest hand, 0 before the first."""
    return conn.execute(_LAST_HAND, {"table_id": table_id}).scalar_one()


_LAST_HAND = select(func.coalesce(func.max(HANDS.c.number), 0)).where(
    HANDS.c.table_id == bindparam("table_id")
)


def bump(state: dict) -> dict:
    return {**state, "version": state["version"] + 1}


# --- the rest of the writes, and what they read under the lock ------------------------------


# A table nobody ever sat at or acted on gives its room code back this long after it was made:
# the codes are few (24**4), and tables made and left empty must not use them up.
EMPTY_TABLE_KEEPS_CODE = timedelta(hours=12)


def take_code(conn: Connection, code: str) -> bool:
    """Whether a new table may have ``code``: no table has it, or only one that nobody ever sat
    at or acted on and is older than ``EMPTY_TABLE_KEEPS_CODE``, whose row keeps a code that
    cannot be typed instead ("-" and its id)."""
    found = conn.execute(
        select(GAME_TABLES.c.id, GAME_TABLES.c.created_at).where(GAME_TABLES.c.code == code)
    ).first()
    if found is None:
        return True
    if found.created_at > clock().utcnow() - EMPTY_TABLE_KEEPS_CODE:
        return False
    for rows in (PLAYERS, ACTION_LOG):
        if conn.execute(select(rows.c.id).where(rows.c.table_id == found.id).limit(1)).first():
            return False
    conn.execute(
        update(GAME_TABLES).where(GAME_TABLES.c.id == found.id).values(code=f"-{found.id:x}")
    )
    return True


def insert_table(conn: Connection, table: LockedTable) -> int:
    """Store a new table's row; returns its id."""
    return conn.execute(
        insert(GAME_TABLES)
        .values({name: getattr(table, name) for name in COLUMNS if name != "id"})
        .returning(GAME_TABLES.c.id)
    ).scalar_one()


def rejoin_codes(conn: Connection, table_id: int) -> set[str]:
    """The rejoin codes the table's seats hold."""
    return set(
        conn.execute(select(PLAYERS.c.rejoin_code).where(PLAYERS.c.table_id == table_id))
        .scalars()
        .all()
    )


def keep(device: str, code: str, kind: str, secret: str) -> None:
    """Browser ``device`` keeps ``secret`` (a seat's token, a host's secret) for table
    ``code``, in place of the one of that kind it kept there, if any."""
    key = {"device_hash": hash_secret(device), "code": code, "kind": kind}
    with transaction() as conn:
        # One statement, so that two requests of one browser at once (two tabs) both succeed.
        upsert = {"postgresql": postgresql_insert, "sqlite": sqlite_insert}[conn.dialect.name]
        row = upsert(DEVICE_KEYS).values(**key, secret=secret, created_at=clock().utcnow())
        conn.execute(
            row.on_conflict_do_update(
                index_elements=list(key),
                set_={"secret": secret, "created_at": row.excluded.created_at},
            )
        )


def add_player(conn: Connection, table_id: int, seat: Seat, token_hash: str) -> None:
    conn.execute(
        insert(PLAYERS).values(
            table_id=table_id,
            seat=seat.seat,
            name=seat.name,
            token_hash=token_hash,
            rejoin_code=seat.rejoin_code,
            joined_at=clock().utcnow(),
        )
    )


def new_secrets(conn: Connection, table_id: int, seat: str, token_hash: str, rejoin_code: str):
    """A seat's new cookie secret (its hash) and rejoin code: the ones it had stop working."""
    conn.execute(
        update(PLAYERS)
        .where(PLAYERS.c.table_id == table_id, PLAYERS.c.seat == seat)
        .values(token_hash=token_hash, rejoin_code=rejoin_code)
    )


def choose(conn: Connection, table_id: int, seat: str, choices: dict) -> None:
    """Store the stake and mode a seat chose on its phone's bar (``Player.choices``), in the
    transaction of ``conn`` (a tap's own, when a tap says them)."""
    conn.execute(_CHOOSE, {"b_table": table_id, "b_seat": seat, "b_choices": choices})


_CHOOSE = (
    update(PLAYERS)
    .where(PLAYERS.c.table_id == bindparam("b_table"), PLAYERS.c.seat == bindparam("b_seat"))
    .values(choices=bindparam("b_choices"))
)


def player_row(conn: Connection, table_id: int, seat: str):
    """A seat's row (its token's hash and its rejoin code among them), read under the lock."""
    return conn.execute(
        select(PLAYERS).where(PLAYERS.c.table_id == table_id, PLAYERS.c.seat == seat)
    ).one()


def nonce_seen(conn: Connection, table_id: int, nonce: str) -> bool:
    """Whether an action of the table was stored with this nonce already."""
    return conn.execute(_NONCE_SEEN, {"table_id": table_id, "nonce": nonce}).first() is not None


_NONCE_SEEN = select(ACTION_LOG.c.id).where(
    ACTION_LOG.c.table_id == bindparam("table_id"), ACTION_LOG.c.nonce == bindparam("nonce")
)


def end_table(conn: Connection, table: LockedTable) -> None:
    """Store the table's ``ended_at`` as it has it."""
    conn.execute(
        update(GAME_TABLES).where(GAME_TABLES.c.id == table.id).values(ended_at=table.ended_at)
    )


def last_pause(conn: Connection, table_id: int) -> datetime | None:
    """When the host last paused the table, if ever (that action's time)."""
    return conn.execute(
        select(func.max(ACTION_LOG.c.created_at)).where(
            ACTION_LOG.c.table_id == table_id, ACTION_LOG.c.kind == "pause"
        )
    ).scalar_one()
