"""Where a request becomes a rules action, inside one database transaction.

Views parse the request and call a function here; this module loads the table under a write
lock, checks who may act, runs the rules engine, and stores the new state together with its
action-log row and its ledger entries, then tells the live channel. Nothing else writes a
table's state.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import func, select, text

from montones import broker, history
from montones.extensions import db
from montones.models import GameTable, LedgerEntry, utcnow
from montones.rules import RulesError, heaps, monte
from montones.rules.errors import Phrase

GAMES = {"montones": heaps, "monte": monte}
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: read off a TV, typed on a phone
REJOIN_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
# A Montones stake of "all I can": worked out when the tap arrives (heaps.most_stake), so a
# phone's all-in chip stays right however its chips have moved since the bar was drawn.
ALL_IN = "max"


class ServiceError(ValueError):
    """A refusal, worded for the person who asked. Nothing was changed.

    Like a :class:`RulesError` it keeps an English ``template`` with %-style ``params``, so that
    it is put into the asker's language only where it is shown (:meth:`sentence`); ``str()`` is
    the English sentence.
    """

    status = 422

    def __init__(self, template: str, **params: Any) -> None:
        self.template = template
        self.params = params
        super().__init__(self.sentence())

    def sentence(self, gettext: Callable[..., str] | None = None) -> str:
        """The refusal as a sentence, in the language of ``gettext`` (English without one).

        ``gettext(template, **params)`` is Flask-Babel's; a param that is a :class:`Phrase`
        (words of the rules, "a top-up") is translated too.
        """
        if gettext is None:
            text = self.template % self.params if self.params else self.template
        else:
            params = {
                name: gettext(value) if isinstance(value, Phrase) else value
                for name, value in self.params.items()
            }
            text = gettext(self.template, **params)
        return _sentence(text)


class NotAllowed(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Stale(ServiceError):
    """The screen that sent the request showed an older stage of the table."""

    status = 409


@dataclass(frozen=True)
class Actor:
    """Who is asking: a seated player (``seat``), the host, or both on one phone."""

    seat: str | None = None
    is_host: bool = False


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


# --- reading --------------------------------------------------------------------------------


def get_table(code: str) -> GameTable:
    table = db.session.execute(
        select(GameTable).where(GameTable.code == (code or "").upper())
    ).scalar_one_or_none()
    if table is None:
        raise NotFound("There is no table with that code.")
    return table


@dataclass(frozen=True)
class Seat:
    """A seated player as the views need them: kept as read, whatever the session does next
    (an action's write transaction begins with a rollback, which would make a row read again)."""

    seat: str
    name: str
    rejoin_code: str


def player_by_token(table: GameTable, token: str | None) -> Seat | None:
    """The seat this token holds at the table, if its player is still at it."""
    if not token:
        return None
    found = db.session.execute(
        _SEAT_READ, {"table_id": table.id, "token_hash": _hash(token)}
    ).first()
    if found is None or table.state["players"].get(found.seat, {}).get("left"):
        return None
    return Seat(*found)


_SEAT = (
    "SELECT seat, name, rejoin_code FROM players "
    "WHERE table_id = :table_id AND token_hash = :token_hash"
)
_SEAT_READ = text(_SEAT)  # built once: a phone's seat is read on its every fetch


def is_host(table: GameTable, secret: str | None) -> bool:
    return bool(secret) and secrets.compare_digest(_hash(secret), table.host_hash)


def stage(state: dict) -> str:
    """What a screen was showing: a request made for another stage is stale."""
    if state["game"] == "montones":
        return f"{state['hands']}-{state['phase']}"
    banks = state["banks"].get(state["banker"], 0) if state["banker"] else 0
    return f"{state['banker']}-{banks}-{state['coups']}-{state['phase']}"


def ledger_totals(table: GameTable) -> dict[str, int]:
    rows = db.session.execute(
        select(LedgerEntry.account, func.sum(LedgerEntry.amount))
        .where(LedgerEntry.table_id == table.id)
        .group_by(LedgerEntry.account)
    ).all()
    return {account: int(total) for account, total in rows}


def chips_over_night(table: GameTable) -> dict[str, list[int | None]]:
    """Each seat's chips in hand, as its phone showed them, over the night (from the ledger).

    A point is taken after every version that leaves nothing staked on the table and the
    players' chips changed since the last point, so a bet is no dip until it is settled; the
    newest version is always the last point, so the lines end where the standings do. A bank
    is not its banker's chips in hand: it comes back to the line when the bank closes. ``None``
    is before a seat joined.
    """
    rows = db.session.execute(
        select(LedgerEntry.version, LedgerEntry.account, LedgerEntry.amount)
        .where(LedgerEntry.table_id == table.id)
        .order_by(LedgerEntry.version, LedgerEntry.id)
    ).all()
    totals: dict[str, int] = {}
    points: list[dict[str, int]] = []
    for i, (version, account, amount) in enumerate(rows):
        totals[account] = totals.get(account, 0) + amount
        last = i + 1 == len(rows)
        if not last and rows[i + 1][0] == version:
            continue
        players = {a[7:]: n for a, n in totals.items() if a.startswith("player:")}
        if (last or not totals.get("stakes")) and (not points or players != points[-1]):
            points.append(players)
    seats = sorted({seat for point in points for seat in point}, key=_seat_order)
    return {seat: [point.get(seat) for point in points] for seat in seats}


def _seat_order(seat: str) -> int:
    return int(seat[1:])


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


# --- writing --------------------------------------------------------------------------------


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


class _Sql:
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
def _transaction():
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
        sql = _Sql(connection, postgres)
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
def _locked(code: str):
    """One write transaction on one table: BEGIN IMMEDIATE on SQLite, FOR UPDATE elsewhere.
    Yields the table (a :class:`LockedTable`) and the transaction's statements.

    While it runs (and while it waits for the lock) the table counts it as an action on its way
    (:func:`broker.acting`): the streams' release pace widens while more changes are coming.
    """
    code = (code or "").upper()
    with broker.acting(code), _transaction() as sql:
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
        committed = broker.snapshot(table)
        sql.connection.commit()
    broker.publish(committed.code, committed.version, committed)


def _record(
    sql: _Sql,
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
        params=_json(params),
        events=_json(events),
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
                "record": _json(hand["record"]),
                "created_at": sql.time(hand["created_at"]),
            },
        )
    sql.run(
        _UPDATE_TABLE,
        id=table.id,
        state=_json(new_state),
        version=version,
        paused=table.paused,
        ended_at=sql.time(table.ended_at),
    )
    table.state, table.version = new_state, version


def _json(value) -> str:
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
_NONCE_SEEN = "SELECT id FROM actions WHERE table_id = :table_id AND nonce = :nonce"


def _bump(state: dict) -> dict:
    return {**state, "version": state["version"] + 1}


def create_table(
    game: str, name: str, starting_chips: int, settings: dict
) -> tuple[LockedTable, str]:
    """A new table, and the host secret (shown once, kept only as a hash)."""
    if game not in GAMES:
        raise ServiceError("Choose Montones or Monte.")
    name = (name or "").strip()[:60] or ("Montones" if game == "montones" else "Monte")
    if not isinstance(starting_chips, int) or not 1 <= starting_chips <= 1_000_000:
        raise ServiceError("Starting chips must be between 1 and 1,000,000.")
    try:
        state = GAMES[game].new_table(settings)
    except RulesError as error:
        raise ServiceError(error.template, **error.params) from None
    secret = secrets.token_urlsafe(24)
    with _transaction() as sql:
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(4))
            if sql.one(_CODE_TAKEN, code=code) is None:
                break
        else:
            raise ServiceError("Could not find a free room code; try again.")
        table = LockedTable(
            id=0,  # the database's, below
            code=code,
            game=game,
            name=name,
            host_hash=_hash(secret),
            starting_chips=starting_chips,
            version=state["version"],
            paused=False,
            ended_at=None,
            created_at=utcnow(),
            state=state,
        )
        (table.id,) = sql.one(
            _INSERT_TABLE,
            code=table.code,
            game=table.game,
            name=table.name,
            host_hash=table.host_hash,
            starting_chips=table.starting_chips,
            state=_json(state),
            version=table.version,
            paused=table.paused,
            created_at=sql.time(table.created_at),
        )
        sql.connection.commit()
    return table, secret


_CODE_TAKEN = "SELECT id FROM game_tables WHERE code = :code"
_INSERT_TABLE = (
    "INSERT INTO game_tables (code, game, name, host_hash, starting_chips, state, version, "
    "paused, created_at) VALUES (:code, :game, :name, :host_hash, :starting_chips, :state, "
    ":version, :paused, :created_at) RETURNING id"
)


def join(code: str, name: str) -> tuple[Seat, str]:
    """Seat a new player with the starting chips; returns their seat and their cookie secret."""
    token = secrets.token_urlsafe(24)
    with _locked(code) as (table, sql):
        if table.ended_at:
            raise ServiceError("This table has ended.")
        seat = f"p{len(table.state['players']) + 1}"
        engine = GAMES[table.game]
        try:
            new_state, events = engine.join(table.state, seat, name, table.starting_chips)
        except RulesError as error:
            raise ServiceError(error.template, **error.params) from None
        taken = {row[0] for row in sql.all(_REJOIN_CODES, table_id=table.id)}
        player = Seat(seat, new_state["players"][seat]["name"], _rejoin_code(taken))
        sql.run(
            _INSERT_PLAYER,
            table_id=table.id,
            seat=player.seat,
            name=player.name,
            token_hash=_hash(token),
            rejoin_code=player.rejoin_code,
            joined_at=sql.time(utcnow()),
        )
        _record(sql, table, new_state, events, seat, "join", {"name": player.name})
    return player, token


_REJOIN_CODES = "SELECT rejoin_code FROM players WHERE table_id = :table_id"
_INSERT_PLAYER = (
    "INSERT INTO players (table_id, seat, name, token_hash, rejoin_code, joined_at) "
    "VALUES (:table_id, :seat, :name, :token_hash, :rejoin_code, :joined_at)"
)


def _rejoin_code(taken: set[str]) -> str:
    while True:
        code = "".join(secrets.choice(REJOIN_ALPHABET) for _ in range(6))
        if code not in taken:
            return code


def rejoin(code: str, rejoin_code: str) -> tuple[Seat, str]:
    """Take one's seat back on another device: the old device's cookie stops working."""
    with _locked(code) as (table, sql):
        found = sql.one(
            _BY_REJOIN_CODE, table_id=table.id, rejoin_code=(rejoin_code or "").strip().upper()
        )
        if found is None or table.state["players"][found[0]].get("left"):
            raise ServiceError("That rejoin code does not match a seat at this table.")
        token = secrets.token_urlsafe(24)
        player = Seat(*found)
        sql.run(_NEW_TOKEN, table_id=table.id, seat=player.seat, token_hash=_hash(token))
    return player, token


_BY_REJOIN_CODE = (
    "SELECT seat, name, rejoin_code FROM players "
    "WHERE table_id = :table_id AND rejoin_code = :rejoin_code"
)
_NEW_TOKEN = (
    "UPDATE players SET token_hash = :token_hash WHERE table_id = :table_id AND seat = :seat"
)


@dataclass
class _Spec:
    role: str  # "player" (the engine checks banker or cutter) or "host"
    call: Callable[..., tuple[dict, list]]
    params: tuple[str, ...] = field(default=())
    all_in: bool = False  # its "amount" may be ALL_IN


def _montones_actions() -> dict[str, _Spec]:
    m = heaps
    return {
        "offer": _Spec("player", lambda s, a, p, now: m.offer_bank(s, a, p["amount"]), ("amount",)),
        "pass": _Spec("player", lambda s, a, p, now: m.pass_bank(s, a)),
        "cut": _Spec("player", lambda s, a, p, now: m.cut_deck(s, a, p["position"]), ("position",)),
        "heaps": _Spec("player", lambda s, a, p, now: m.make_heaps(s, a, p["count"]), ("count",)),
        "bet": _Spec(
            "player",
            lambda s, a, p, now: m.bet(s, a, p["heap"], p["amount"]),
            ("heap", "amount"),
            all_in=True,
        ),
        "against": _Spec(
            "player",
            lambda s, a, p, now: m.bet_against(s, a, p["heap"], p["amount"]),
            ("heap", "amount"),
            all_in=True,
        ),
        "declare": _Spec("player", lambda s, a, p, now: m.declare(s, a, p["heap"]), ("heap",)),
        "withdraw": _Spec("player", lambda s, a, p, now: m.withdraw(s, a, p["bet"]), ("bet",)),
        "choose": _Spec(
            "player", lambda s, a, p, now: m.choose_bank_heap(s, a, p["heap"]), ("heap",)
        ),
        "close": _Spec("player", lambda s, a, p, now: m.close_bets(s, a)),
        "next": _Spec("player", lambda s, a, p, now: m.next_hand(s, a, now)),
        "keep": _Spec("player", lambda s, a, p, now: m.keep_heaps(s, a, p["heap"], now), ("heap",)),
        "abona": _Spec(
            "player", lambda s, a, p, now: m.se_abona(s, a, p["amount"], now), ("amount",)
        ),
        "close_bank": _Spec("player", lambda s, a, p, now: m.close_bank(s, a)),
        "tres": _Spec("player", lambda s, a, p, now: m.tres_ultimas_manos(s, a)),
        "sit_out": _Spec("player", lambda s, a, p, now: m.sit_out(s, a, True)),
        "sit_in": _Spec("player", lambda s, a, p, now: m.sit_out(s, a, False)),
        "close_auction": _Spec("host", lambda s, a, p, now: m.close_auction(s, now)),
        "kick": _Spec("host", lambda s, a, p, now: m.leave(s, p["seat"]), ("seat",)),
        "top_up": _Spec(
            "host", lambda s, a, p, now: m.top_up(s, p["seat"], p["amount"]), ("seat", "amount")
        ),
    }


def _monte_actions() -> dict[str, _Spec]:
    m = monte
    return {
        "draw": _Spec("host", lambda s, a, p, now: m.draw_for_bank(s)),
        "bank": _Spec(
            "player", lambda s, a, p, now: m.put_up_bank(s, a, p["amount"], now), ("amount",)
        ),
        "cut": _Spec("player", lambda s, a, p, now: m.cut_deck(s, a, p["position"]), ("position",)),
        "bet": _Spec(
            "player",
            lambda s, a, p, now: m.bet(s, a, p["layout"], p["amount"]),
            ("layout", "amount"),
        ),
        "withdraw": _Spec("player", lambda s, a, p, now: m.withdraw(s, a, p["bet"]), ("bet",)),
        "gate": _Spec("player", lambda s, a, p, now: m.turn_gate(s, a)),
        "next": _Spec("player", lambda s, a, p, now: m.next_coup(s, a)),
        "kick": _Spec("host", lambda s, a, p, now: m.leave(s, p["seat"]), ("seat",)),
        "top_up": _Spec(
            "host", lambda s, a, p, now: m.top_up(s, p["seat"], p["amount"]), ("seat", "amount")
        ),
    }


ACTIONS = {"montones": _montones_actions(), "monte": _monte_actions()}


def act(
    code: str,
    actor: Actor,
    kind: str,
    params: dict[str, Any],
    *,
    stage_seen: str | None = None,
    nonce: str | None = None,
) -> LockedTable:
    """Run one action for ``actor`` on table ``code``; raise a :class:`ServiceError` if refused."""
    with _locked(code) as (table, sql):
        _act(sql, table, actor, kind, params, stage_seen, nonce)
    return table


def act_as(
    code: str,
    token: str | None,
    secret: str | None,
    asked: Callable[[str], tuple[str, dict[str, Any]]],
    *,
    stage_seen: str | None = None,
    nonce: str | None = None,
) -> tuple[LockedTable, Seat]:
    """Run the action a browser asked for with its credentials (its seat token, its host
    secret); who is asking is read in the action's own transaction. ``asked(game)`` gives the
    action's kind and params from the request, or refuses with a :class:`ServiceError`.
    Returns the table and the asker's seat."""
    with _locked(code) as (table, sql):
        found = sql.one(_SEAT, table_id=table.id, token_hash=_hash(token)) if token else None
        if found is None:
            raise NotAllowed("Join the table first.")
        seat = Seat(*found)
        kind, params = asked(table.game)
        actor = Actor(seat=seat.seat, is_host=is_host(table, secret))
        _act(sql, table, actor, kind, params, stage_seen, nonce)
    return table, seat


def _act(
    sql: _Sql,
    table: LockedTable,
    actor: Actor,
    kind: str,
    params: dict[str, Any],
    stage_seen: str | None,
    nonce: str | None,
) -> None:
    """One action on a table held under its write lock."""
    specs = ACTIONS.get(table.game, {})
    spec = specs.get(kind)
    if spec is None:
        raise ServiceError("That is not something you can do at this table.")
    if spec.role == "player":
        if actor.seat is None or actor.seat not in table.state["players"]:
            raise NotAllowed("Join the table first.")
        if table.state["players"][actor.seat].get("left"):
            raise NotAllowed("You are no longer at this table.")
    # Nonces are per seat: every phone gets the same felt, with the same nonces in it.
    nonce = f"{actor.seat or 'host'}:{nonce}"[:80] if nonce else None
    if nonce and sql.one(_NONCE_SEEN, table_id=table.id, nonce=nonce) is not None:
        return  # a double click: the first one already did it
    if table.ended_at:
        raise ServiceError("This table has ended.")
    if spec.role == "host":
        if not actor.is_host:
            raise NotAllowed("Only the host can do that.")
        who = "host"
    else:
        if table.paused:
            raise ServiceError("The host has paused the table.")
        who = actor.seat
    if stage_seen is not None and stage_seen != stage(table.state):
        raise Stale("The table moved on before your tap arrived: here it is now.")
    missing = [name for name in spec.params if name not in params]
    if missing:
        raise ServiceError("Missing %(names)s.", names=", ".join(missing))
    if params.get("amount") == ALL_IN:
        if not spec.all_in:
            raise ServiceError("%(label)s must be a whole number.", label=Phrase("The amount"))
        most = heaps.most_stake(table.state, who)
        if most <= 0 and table.state["bank"]:  # with no bank, the rules say why not
            raise ServiceError("You have no chips left to bet.")
        params = {**params, "amount": most}
    try:
        new_state, events = spec.call(table.state, who, params, time.time())
    except RulesError as error:
        raise ServiceError(error.template, **error.params) from None
    _record(sql, table, new_state, events, who, kind, {k: params[k] for k in spec.params}, nonce)
    _follow_up(sql, table)


def _follow_up(sql: _Sql, table: LockedTable) -> None:
    """What happens by itself after an action: an auction everyone answered closes; a Monte
    table whose last bank has passed ends, so every screen can show the standings."""
    state = table.state
    if table.game == "montones" and state["phase"] == heaps.AUCTION:
        if heaps.auction_complete(state):
            new_state, events = heaps.close_auction(state, time.time())
            _record(sql, table, new_state, events, "system", "close_auction", {})
    # Monte ends by itself once everyone has held the bank the agreed number of times.
    if table.game == "monte" and state["phase"] == monte.FINISHED and not table.ended_at:
        table.ended_at = utcnow()
        sql.run(_END_TABLE, id=table.id, ended_at=sql.time(table.ended_at))


_END_TABLE = "UPDATE game_tables SET ended_at = :ended_at WHERE id = :id"


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:] + ("" if message.endswith((".", "!", "?")) else ".")


def tick(code: str) -> None:
    """Apply what the clock decides: a punter who did not cut in time is skipped (not while the
    host has the table paused)."""
    table = get_table(code)
    if table.paused or not _cut_overdue(table.state):
        return
    with _locked(code) as (table, sql):
        if not table.paused and _cut_overdue(table.state):
            engine = GAMES[table.game]
            new_state, events = engine.cut_timed_out(table.state, time.time())
            _record(sql, table, new_state, events, "system", "cut_timeout", {})


def clock_deadline(table) -> float | None:
    """When the clock next decides something at this table: never while it is paused."""
    return None if table.paused else cut_deadline(table.state)


def _paused_for(sql: _Sql, table: LockedTable) -> float:
    """Seconds since the host's last pause of this table (its action's time)."""
    found = sql.one(_LAST_PAUSE, table_id=table.id)[0]
    paused_at = sql.read_time(found)
    return max(0.0, (utcnow() - paused_at).total_seconds()) if paused_at else 0.0


_LAST_PAUSE = "SELECT MAX(created_at) FROM actions WHERE table_id = :table_id AND kind = 'pause'"


def cut_deadline(state: dict) -> float | None:
    if state["phase"] != "cut":
        return None
    started = state["hand"]["cut_started"] if state["game"] == "montones" else state["cut_started"]
    return started + state["settings"]["cut_timeout"]


def _cut_overdue(state: dict) -> bool:
    deadline = cut_deadline(state)
    return deadline is not None and time.time() >= deadline


def host_action(code: str, actor: Actor, kind: str) -> LockedTable:
    """Pause, resume or end a table: the host's own switches, outside the rules."""
    with _locked(code) as (table, sql):
        if not actor.is_host:
            raise NotAllowed("Only the host can do that.")
        if table.ended_at:
            raise ServiceError("This table has ended.")
        if kind == "pause":
            table.paused = True
            new_state, events = _bump(table.state), [{"type": "paused"}]
        elif kind == "resume":
            table.paused = False
            engine = GAMES[table.game]
            new_state = _bump(engine.after_pause(table.state, time.time(), _paused_for(sql, table)))
            events = [{"type": "resumed"}]
        elif kind == "end":
            table.ended_at = utcnow()
            new_state, events = GAMES[table.game].finish(table.state)
        else:
            raise ServiceError("That is not something the host can do.")
        _record(sql, table, new_state, events, "host", kind, {})
    return table
