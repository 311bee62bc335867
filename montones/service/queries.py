"""Reading a table: by its code, who holds a seat, the ledger's totals and the chips over the night."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from sqlalchemy import func, select, text

from montones.extensions import db
from montones.models import GameTable, LedgerEntry
from montones.service.refusals import NotFound


def hash_secret(secret: str) -> str:
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
        _SEAT_READ, {"table_id": table.id, "token_hash": hash_secret(token)}
    ).first()
    if found is None or table.state["players"].get(found.seat, {}).get("left"):
        return None
    return Seat(*found)


SEAT = (
    "SELECT seat, name, rejoin_code FROM players "
    "WHERE table_id = :table_id AND token_hash = :token_hash"
)
_SEAT_READ = text(SEAT)  # built once: a phone's seat is read on its every fetch


def is_host(table: GameTable, secret: str | None) -> bool:
    return bool(secret) and secrets.compare_digest(hash_secret(secret), table.host_hash)


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
