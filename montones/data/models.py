"""What the database keeps: tables, players, the chip ledger, the action log and the hands (the
schema is made and upgraded by the migrations, montones/migrations/).

A table's whole game state is one JSON document on its row (the rules engine's state, plain
data); the ledger and the action log are append-only and written in the same transaction as
the state they belong to.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import flask_migrate
from sqlalchemy import JSON, BigInteger, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from montones.extensions import db, migrate

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


class GameTable(db.Model):
    __tablename__ = "game_tables"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(8), unique=True)  # the room code on the TV
    game: Mapped[str] = mapped_column(String(16))  # a name of montones.rules.games.GAMES
    name: Mapped[str] = mapped_column(String(60))
    host_hash: Mapped[str] = mapped_column(String(64))  # sha256 of the host secret
    starting_chips: Mapped[int]
    state: Mapped[dict] = mapped_column(JSON)
    version: Mapped[int] = mapped_column(default=0)
    paused: Mapped[bool] = mapped_column(default=False)
    ended_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    # The TV's language, a host's setting (None: the TV's browser decides).
    tv_language: Mapped[str | None] = mapped_column(String(8), default=None)
    # The table of the next night with the same players, once the host has started it.
    next_code: Mapped[str | None] = mapped_column(String(8), default=None)
    # The party: each seat's face ("faces": seat -> [face, colour]) and the host's party
    # switches ("started", "quiet": reactions off, "music"); None: nothing chosen yet.
    party: Mapped[dict | None] = mapped_column(JSON, default=None)


class Player(db.Model):
    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("table_id", "seat"),
        UniqueConstraint("table_id", "rejoin_code"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    seat: Mapped[str] = mapped_column(String(12))  # the player's id in the game state
    name: Mapped[str] = mapped_column(String(24))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 of the cookie secret
    rejoin_code: Mapped[str] = mapped_column(String(8))
    joined_at: Mapped[datetime]
    # The stake and mode the seat chose on its phone's bar (``CHOICES``, see :func:`chosen`):
    # kept here, so that a redraw of its bar by any worker, or after a restart, keeps them.
    # None: nothing chosen yet.
    choices: Mapped[dict | None] = mapped_column(JSON, default=None)


# What a seat's phone may keep of its bar (``Player.choices``), and how long each value may be:
# any other name is ignored, and a longer value changes nothing.
CHOICES = ("mode", "amount", "custom", "bet_kind", "against", "side")
CHOICE_MOST = 40


def chosen(kept: dict | None, values) -> dict[str, str]:
    """The choices ``kept`` with what ``values`` (a request's form) says over them: only the
    names of ``CHOICES``, each a string of at most ``CHOICE_MOST`` characters; what ``values``
    does not say, or says out of bounds, stays as kept."""
    found = dict(kept or {})
    for name in CHOICES:
        value = values.get(name)
        if isinstance(value, str) and len(value) <= CHOICE_MOST:
            found[name] = value
    return found


class LedgerEntry(db.Model):
    """One chip movement. The entries of one ``version`` of a table sum to zero."""

    __tablename__ = "ledger"
    __table_args__ = (Index("ix_ledger_table_version", "table_id", "version"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    version: Mapped[int]
    account: Mapped[str] = mapped_column(String(32))  # "player:p1", "bank", "stakes", "house"
    amount: Mapped[int] = mapped_column(BigInteger)  # one movement can pass 2**31 chips
    # BUY_IN on both sides of chips the house issues (starting chips, a top-up, a new night's
    # chips); None on a move of play. The house's account also takes the levy it keeps, so
    # what a player bought is read from this, never from which accounts moved.
    kind: Mapped[str | None] = mapped_column(String(8), default=None)
    created_at: Mapped[datetime]


BUY_IN = "buy_in"


class Action(db.Model):
    """Every accepted action, with the version of the table it produced."""

    __tablename__ = "actions"
    __table_args__ = (
        UniqueConstraint("table_id", "version"),
        UniqueConstraint("table_id", "nonce"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    version: Mapped[int]
    actor: Mapped[str] = mapped_column(String(12))  # a seat, "host" or "system"
    kind: Mapped[str] = mapped_column(String(24))
    params: Mapped[dict] = mapped_column(JSON)
    events: Mapped[list] = mapped_column(JSON)
    nonce: Mapped[str | None] = mapped_column(String(80))  # "<seat>:<the form's nonce>"
    created_at: Mapped[datetime]


class Hand(db.Model):
    """A settled hand (a coup, in some games), as a scenario with its recorded result.

    Written in the same transaction as the action that settled it; ``record`` holds the deck
    order and salt that open ``commitment``, which are shown only once that deck is done.
    """

    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("table_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    number: Mapped[int]  # 1, 2, ... per table, in the order settled
    version: Mapped[int]  # the table version that settled it
    commitment: Mapped[str] = mapped_column(String(64))
    record: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime]


class DeviceKey(db.Model):
    """A secret a browser holds for a table (its seat's token, the host's secret), kept here
    rather than in its cookie, which a guest on the room's Wi-Fi can read (plain HTTP): the
    cookie holds an opaque random id of the browser's, whose hash is ``device_hash``."""

    __tablename__ = "device_keys"
    __table_args__ = (UniqueConstraint("device_hash", "code", "kind"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    device_hash: Mapped[str] = mapped_column(String(64))  # sha256 of the cookie's id
    code: Mapped[str] = mapped_column(String(8))  # the table's room code
    kind: Mapped[str] = mapped_column(String(8))  # "seats" or "hosts"
    secret: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime]


# The night's record: rows are only ever added. The database itself refuses to change or
# remove one, whoever asks (the app, a script, a hand-typed query): triggers the migrations
# create (montones/migrations/versions/, each with its own copy of their statements).
APPEND_ONLY = ("ledger", "actions", "hands")


def init_app(app) -> None:
    """Bring the database's schema up to date (its migrations, ``montones/migrations/``); on
    SQLite, create the file for its owner alone and turn on WAL and a busy timeout."""
    migrate.init_app(app, db, directory=str(MIGRATIONS))
    with app.app_context():
        engine = db.engine
        if engine.dialect.name == "sqlite":
            _owner_only(engine.url.database)
            _tune_sqlite(engine)
        with _one_process_at_a_time(engine):
            flask_migrate.upgrade()


@contextmanager
def _one_process_at_a_time(engine):
    """On PostgreSQL, several gunicorn workers start at once and would all upgrade the same
    schema: each waits its turn on an advisory lock. (SQLite runs one worker.)"""
    if engine.dialect.name != "postgresql":
        yield
        return
    with engine.connect() as conn:
        conn.exec_driver_sql("SELECT pg_advisory_lock(727357)")
        conn.commit()
        try:
            yield
        finally:
            conn.exec_driver_sql("SELECT pg_advisory_unlock(727357)")
            conn.commit()


def _owner_only(path: str | None) -> None:
    """A new SQLite file readable and writable by its owner only: it holds the seats' and the
    host's secrets (hashed) and the night's record. SQLite gives its -wal and -shm files the
    same permissions. A file that exists is left as its owner set it."""
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


def _tune_sqlite(engine) -> None:
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        # Let SQLAlchemy, not the sqlite3 module, decide when a transaction begins.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection):
        # A write transaction (data.store.transaction) takes the write lock before it
        # reads, so two writers never deadlock on an upgrade from a read lock (which SQLite
        # reports as "database is locked" at once); the session only reads.
        immediate = connection.get_execution_options().get("sqlite_immediate")
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
