"""The write path: one transaction on one table under its row lock, and what an action stores.

Every write of the app goes through here: the table's new state, its action-log row, its ledger
entries and the hand it settled, if any.
"""

from __future__ import annotations

import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

import orjson

from montones import broker, history
from montones.extensions import db
from montones.models import utcnow
from montones.service.refusals import NotFound
from montones.snapshot import Snapshot


def balances(state: dict) -> dict[str, int]:
    """Where every chip of a table is: players, the bank, stakes on the table."""
    accounts = {f"player:{pid}": p["chips"] for pid, p in state["players"].items()}
    if state["game"] == "montones":
        accounts["bank"] = state["bank"]["amount"] if state["bank"] else 0
        bets = state["hand"]["bets"] if state["hand"] and state["phase"] == "betting" else []
    else:
        accounts["bank"] = state["bank"]
        bets = state["coup"]["bets"] if state["coup"] and state["phase"] == "betting" else []
    accounts["stakes"] = sum(b["amount"] or 0 for b in bets)
    return accounts


# On SQLite the threads of this process take turns at writing here, rather than in SQLite's busy
# handler, which polls with sleeps of up to 100 ms: under a burst of taps those sleeps, not the
# work, made the wait. (SQLite runs one worker process; another process, if any, still waits in
# the busy handler.)
_sqlite_writer = threading.Lock()


@dataclass
class LockedTable:
    """A table's row as its write transaction holds it (``state`` is shared with whoever holds
    it, never changed in place)."""

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


class Sql:
    """The statements of one write transaction, run on the database driver's own connection.

    An action is the hottest path there is. Through the ORM session and SQLAlchemy's statement
    machinery its transaction cost 0.64 ms of CPU, of which the statements' own work was 0.2 ms
    (a bet at a table of 31, in-process). So the transaction under a table's lock is plain SQL
    on the DBAPI connection, sqlite3's or psycopg's, each value in the form the ORM reads back:
    JSON as text, and on SQLite a time as SQLAlchemy writes it.
    """

    # statement -> in psycopg's parameter style (the statements here hold no "::" cast and no
    # literal "%", which the conversion would break). A driver's errors come out as its own
    # (sqlite3's, psycopg's), not wrapped by SQLAlchemy; nothing here catches them.
    _PG: dict[str, str] = {}

    def __init__(self, connection, postgres: bool) -> None:
        self.connection = connection
        self.postgres = postgres
        self.cursor = connection.cursor()

    def _sql(self, statement: str) -> str:
        if not self.postgres:
            return statement
        found = self._PG.get(statement)
        if found is None:
            found = self._PG[statement] = re.sub(r":(\w+)", r"%(\1)s", statement)
        return found

    def one(self, statement: str, **params) -> tuple | None:
        self.cursor.execute(self._sql(statement), params)
        return self.cursor.fetchone()

    def all(self, statement: str, **params) -> list[tuple]:
        self.cursor.execute(self._sql(statement), params)
        return self.cursor.fetchall()

    def run(self, statement: str, **params) -> None:
        self.cursor.execute(self._sql(statement), params)

    def many(self, statement: str, rows: list[dict]) -> None:
        self.cursor.executemany(self._sql(statement), rows)

    def time(self, value: datetime | None):
        if value is None or self.postgres:
            return value
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")

    def read_time(self, value) -> datetime | None:
        return datetime.fromisoformat(value) if isinstance(value, str) else value

    @staticmethod
    def read_json(value):
        """psycopg gives a JSON column parsed; sqlite3 gives its text."""
        return orjson.loads(value) if isinstance(value, str) else value


@contextmanager
def transaction():
    """One write transaction on a connection of the pool: on SQLite BEGIN IMMEDIATE, one writer
    of this process at a time. The caller commits; whatever it leaves uncommitted is rolled
    back. Every write of the app is one of these (the ORM session only reads)."""
    if db.session.registry.has():
        # The write goes around the session: end the read transaction it has open and forget
        # the rows it read, which would otherwise still show as they were.
        session = db.session()
        session.rollback()
        session.expire_all()
    engine = db.engine
    if engine.dialect.name not in ("sqlite", "postgresql"):
        raise RuntimeError(f"Montones runs on SQLite or PostgreSQL, not {engine.dialect.name}")
    postgres = engine.dialect.name == "postgresql"
    if not postgres:
        _sqlite_writer.acquire()
    try:
        connection = engine.raw_connection()
        sql = Sql(connection, postgres)
        try:
            if not postgres:
                sql.run("BEGIN IMMEDIATE")
            yield sql
        except BaseException:
            connection.rollback()
            raise
        finally:
            sql.cursor.close()
            connection.close()  # back to the pool
    finally:
        if not postgres:
            _sqlite_writer.release()


_LOCK = (
    "SELECT id, code, game, name, host_hash, starting_chips, version, paused, ended_at, "
    "created_at "
    "FROM game_tables WHERE code = :code"
)
_STATE = "SELECT state FROM game_tables WHERE id = :id"


@contextmanager
def locked(code: str):
    """One write transaction on one table: BEGIN IMMEDIATE on SQLite, FOR UPDATE elsewhere.
    Yields the table (a :class:`LockedTable`) and the transaction's statements.
    """
    code = (code or "").upper()
    with transaction() as sql:
        found = sql.one(_LOCK + (" FOR UPDATE" if sql.postgres else ""), code=code)
        if found is None:
            raise NotFound("There is no table with that code.")
        table = LockedTable(*found)
        table.paused = bool(table.paused)
        table.ended_at, table.created_at = map(sql.read_time, (table.ended_at, table.created_at))
        # The state is read only if this process does not hold it already: the newest table
        # it committed, at the version the locked row has (a state is never changed in place,
        # and every change of one takes a new version, so the one held is the one stored).
        held = broker.latest(table.code)
        if held is not None and held.id == table.id and held.version == table.version:
            table.state = held.state
        else:
            table.state = sql.read_json(sql.one(_STATE, id=table.id)[0])
        yield table, sql
        if sql.postgres:  # every worker process hears of it when the transaction commits
            sql.run(
                "SELECT pg_notify(:channel, :payload)",
                channel=broker.CHANNEL,
                payload=f"{table.code}:{table.version}",
            )
        committed = Snapshot.of(table)
        sql.connection.commit()
    broker.publish(committed.code, committed.version, committed)


def record(
    sql: Sql,
    table: LockedTable,
    new_state: dict,
    events: list,
    actor: str,
    kind: str,
    params: dict,
    nonce: str | None = None,
) -> None:
    """Store a new state with its action row, the ledger entries of what moved and the hand it
    settled, if any; and the host's switches (``paused``, ``ended_at``) as the table has them."""
    before, after = balances(table.state), balances(new_state)
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
    version = new_state["version"]
    now = sql.time(utcnow())
    if moves:
        sql.many(
            _INSERT_LEDGER,
            [
                {
                    "table_id": table.id,
                    "version": version,
                    "account": account,
                    "amount": amount,
                    "created_at": now,
                }
                for account, amount in sorted(moves.items())
            ],
        )
    sql.run(
        _INSERT_ACTION,
        table_id=table.id,
        version=version,
        actor=actor,
        kind=kind,
        params=json_text(params),
        events=json_text(events),
        nonce=nonce,
        created_at=now,
    )
    hand = history.record(
        table, table.state, new_state, events, lambda: sql.one(_LAST_HAND, table_id=table.id)[0]
    )
    if hand is not None:
        sql.run(
            _INSERT_HAND,
            **hand
            | {
                "table_id": table.id,
                "record": json_text(hand["record"]),
                "created_at": sql.time(hand["created_at"]),
            },
        )
    sql.run(
        _UPDATE_TABLE,
        id=table.id,
        state=json_text(new_state),
        version=version,
        paused=table.paused,
        ended_at=sql.time(table.ended_at),
    )
    table.state, table.version = new_state, version


def json_text(value) -> str:
    """A JSON column's text. orjson, not the json module: a table's state is written with every
    action, and at a table of 31 the json module took 43 µs to write one, orjson 3.7."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


_INSERT_LEDGER = (
    "INSERT INTO ledger (table_id, version, account, amount, created_at) "
    "VALUES (:table_id, :version, :account, :amount, :created_at)"
)
_INSERT_ACTION = (
    "INSERT INTO actions (table_id, version, actor, kind, params, events, nonce, created_at) "
    "VALUES (:table_id, :version, :actor, :kind, :params, :events, :nonce, :created_at)"
)
_LAST_HAND = "SELECT COALESCE(MAX(number), 0) FROM hands WHERE table_id = :table_id"
_INSERT_HAND = (
    "INSERT INTO hands (table_id, number, version, commitment, record, created_at) "
    "VALUES (:table_id, :number, :version, :commitment, :record, :created_at)"
)
_UPDATE_TABLE = (
    "UPDATE game_tables SET state = :state, version = :version, paused = :paused, "
    "ended_at = :ended_at WHERE id = :id"
)
NONCE_SEEN = "SELECT id FROM actions WHERE table_id = :table_id AND nonce = :nonce"


def bump(state: dict) -> dict:
    return {**state, "version": state["version"] + 1}
