"""Reading a table: by its code, who holds a seat, the ledger's totals and the chips over the night."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import bindparam, func, select

from montones.data.models import BUY_IN, Action, DeviceKey, GameTable, LedgerEntry, Player
from montones.data.refusals import NotFound
from montones.data.snapshot import Snapshot
from montones.extensions import db
from montones.rules.games import game
from montones.rules.table import places


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


# Read at every request that names a table: the table's columns (a Core select), not the
# model's attributes, whose ORM compiling and row loading were most of the read (py-spy, the night).
_KEYS = DeviceKey.__table__.c
_KEPT = select(_KEYS.kind, _KEYS.secret).where(
    _KEYS.device_hash == bindparam("device_hash"), _KEYS.code == bindparam("code")
)


def kept(device: str | None, code: str) -> dict[str, str]:
    """The secrets browser ``device`` keeps for table ``code``, by kind ("seats", "hosts")."""
    if not device:
        return {}
    found = db.session.execute(_KEPT, {"device_hash": hash_secret(device), "code": code})
    return dict(found.all())


# --- reading --------------------------------------------------------------------------------


_TABLE = select(GameTable.__table__).where(GameTable.__table__.c.code == bindparam("code"))


def get_table(code: str) -> Snapshot:
    """The table as it is now (the session's read transaction sees it)."""
    found = db.session.execute(_TABLE, {"code": (code or "").upper()}).first()
    if found is None:
        raise NotFound("There is no table with that code.")
    return Snapshot.of(found)


def game_of(code: str) -> str:
    """The game table ``code`` plays, as its row says."""
    code = (code or "").upper()
    found = db.session.execute(_GAME, {"code": code}).scalar_one_or_none()
    if found is None:
        raise NotFound("There is no table with that code.")
    return found


_GAME = select(GameTable.__table__.c.game).where(GameTable.__table__.c.code == bindparam("code"))


@dataclass(frozen=True)
class Seat:
    """A seated player as the views need them: kept as read, whatever the session does next
    (an action's write transaction begins with a rollback, which would make a row read again)."""

    seat: str
    name: str
    rejoin_code: str
    # The stake and mode the seat chose on its phone's bar, as stored (``Player.choices``).
    choices: dict | None = field(default=None, compare=False)


def player_by_token(table: Snapshot, token: str | None) -> Seat | None:
    """The seat this token holds at the table, if its player is still at it."""
    found = seat_by_token(db.session, table.id, token)
    if found is None or table.state["players"].get(found.seat, {}).get("left"):
        return None
    return found


def departure(table: Snapshot, token: str | None, seat: str | None) -> str | None:
    """Why a browser that took seat ``seat`` with ``token`` has no seat at the table now:
    ``"sent_away"`` (the host sent its player away), ``"moved"`` (the seat went to another
    device by its rejoin code, which gave the seat a new token); None while it holds its seat,
    or when it never had one here."""
    if not token:
        return None
    found = seat_by_token(db.session, table.id, token)
    if found is None:
        return "moved" if seat in table.state["players"] else None
    return "sent_away" if table.state["players"].get(found.seat, {}).get("left") else None


_PLAYERS = Player.__table__
# Built once: a phone's seat is read on its every fetch.
_SEAT = select(_PLAYERS.c.seat, _PLAYERS.c.name, _PLAYERS.c.rejoin_code, _PLAYERS.c.choices).where(
    _PLAYERS.c.table_id == bindparam("table_id"),
    _PLAYERS.c.token_hash == bindparam("token_hash"),
)


def seat_by_token(reader, table_id: int, token: str | None) -> Seat | None:
    """The seat a token holds at a table, read by the session or by a write transaction's
    connection (whoever holds it, gone from the table or not)."""
    if not token:
        return None
    found = reader.execute(_SEAT, {"table_id": table_id, "token_hash": hash_secret(token)}).first()
    return None if found is None else Seat(*found)


_CHOICES = select(_PLAYERS.c.seat, _PLAYERS.c.choices).where(
    _PLAYERS.c.table_id == bindparam("table_id"), _PLAYERS.c.choices.is_not(None)
)


def choices(table_id: int) -> dict[str, dict]:
    """The stake and mode each seat of a table chose on its phone's bar, as stored (seats
    that chose nothing yet are left out)."""
    return dict(db.session.execute(_CHOICES, {"table_id": table_id}).all())


def versions(codes: list[str]) -> dict[str, int]:
    """The stored version of each of these tables."""
    if not codes:
        return {}
    rows = db.session.execute(
        select(GameTable.code, GameTable.version).where(GameTable.code.in_(codes))
    ).all()
    return {code: version for code, version in rows}


def open_tables(most: int) -> dict[str, int]:
    """The version of each table whose clock may still decide something (not ended, not
    paused), the newest ``most`` of them: what any worker's scheduler ticks, whichever worker
    the table's players reach."""
    rows = db.session.execute(
        select(GameTable.code, GameTable.version)
        .where(GameTable.ended_at.is_(None), GameTable.paused.is_(False))
        .order_by(GameTable.id.desc())
        .limit(most)
    ).all()
    return {code: version for code, version in rows}


_VERSION_TIME = select(Action.__table__.c.created_at).where(
    Action.__table__.c.table_id == bindparam("table_id"),
    Action.__table__.c.version == bindparam("version"),
)


def version_time(reader, table_id: int, version: int) -> datetime | None:
    """When a table's ``version`` was made (its action's time), read by the session or by a
    write transaction's connection; None for a table's first version, which no action made."""
    return reader.execute(_VERSION_TIME, {"table_id": table_id, "version": version}).scalar()


def seat_by_rejoin_code(reader, table_id: int, rejoin_code: str) -> Seat | None:
    """The seat a rejoin code names at a table, read by the session or by a write
    transaction's connection."""
    found = reader.execute(
        select(_PLAYERS.c.seat, _PLAYERS.c.name, _PLAYERS.c.rejoin_code).where(
            _PLAYERS.c.table_id == table_id, _PLAYERS.c.rejoin_code == rejoin_code
        )
    ).first()
    return None if found is None else Seat(*found)


def is_host(table: Snapshot, secret: str | None) -> bool:
    return bool(secret) and secrets.compare_digest(hash_secret(secret), table.host_hash)


def ledger_totals(table: Snapshot) -> dict[str, int]:
    rows = db.session.execute(
        select(LedgerEntry.account, func.sum(LedgerEntry.amount))
        .where(LedgerEntry.table_id == table.id)
        .group_by(LedgerEntry.account)
    ).all()
    return {account: int(total) for account, total in rows}


def chips_over_night(table: Snapshot) -> dict[str, list[int | None]]:
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


def buy_ins(table: Snapshot) -> dict[str, int]:
    """The chips the house issued each seat (its starting chips and every top-up): the sum of
    its buy-in entries. Only those: the house's account also takes the levy it keeps, so a
    version where it moved may be a settlement."""
    bought: dict[str, int] = {}
    for entry in buy_in_entries(table):
        bought[entry["player"]] = bought.get(entry["player"], 0) + entry["amount"]
    return bought


def buy_in_entries(table: Snapshot) -> list[dict]:
    """Each chip the house issued a player, as an export lists them: the seat, the amount and
    the table version that issued it, oldest first."""
    ledger = LedgerEntry.__table__
    rows = db.session.execute(
        select(ledger.c.account, ledger.c.amount, ledger.c.version)
        .where(
            ledger.c.table_id == table.id,
            ledger.c.kind == BUY_IN,
            ledger.c.account.like("player:%"),
        )
        .order_by(ledger.c.version, ledger.c.id)
    ).all()
    return [
        {"player": account[7:], "amount": amount, "version": version}
        for account, amount, version in rows
    ]


def standings(table: Snapshot) -> list[dict]:
    """The players as the night leaves them, best first: each with their chips (as the game
    counts them: an open bank is its banker's), what the house gave them (``bought``: starting
    chips and top-ups) and ``net``, the one from the other; ranked by ``net``, so that chips
    bought are no win. Equal nets share a place."""
    bought = buy_ins(table)
    rows = [
        {**row, "bought": bought.get(row["player"], 0)}
        for row in game(table.game).standings(table.state)
    ]
    for row in rows:
        row["net"] = row["chips"] - row["bought"]
    rows.sort(key=lambda row: -row["net"])
    for row, place in zip(rows, places([row["net"] for row in rows]), strict=True):
        row["place"] = place
    return rows
