"""A table at a version: the one value the service, the live channel and the views share."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A table's row as one committed version left it.

    Nothing changes a snapshot or its ``state`` once it is made: the rules engine works on a
    copy, and every change of a table is a new version, so two snapshots of one table at one
    version are equal and either may be shown.
    """

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
    state: dict[str, Any]
    tv_language: str | None = None

    @classmethod
    def of(cls, row: Any) -> Snapshot:
        """The snapshot of a row read from the database (an ORM row or a Core row)."""
        return cls(
            id=row.id,
            code=row.code,
            game=row.game,
            name=row.name,
            host_hash=row.host_hash,
            starting_chips=row.starting_chips,
            version=row.version,
            paused=bool(row.paused),
            ended_at=row.ended_at,
            created_at=row.created_at,
            state=row.state,
            tv_language=row.tv_language,
        )
