"""A table at a version: the one value the service, the live channel and the views share."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
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
    next_code: str | None = None  # the next night's table, with the same players
    party: dict | None = None  # faces and the host's party switches (montones.service.party)
    # The seat whose phone asked for this version, when this process wrote it: that phone's
    # answer carries its own regions at this version, so its stream need not tell it. Not part
    # of the table: two snapshots of one version are equal whoever asked.
    asked_by: str | None = field(default=None, compare=False)

    @classmethod
    def of(cls, row: Any, asked_by: str | None = None) -> Snapshot:
        """The snapshot of a row read from the database (a Core row, or a table held under its
        lock): its columns, as the model names them."""
        return cls(**{name: getattr(row, name) for name in COLUMNS}, asked_by=asked_by)


# The columns of a table's row, which a snapshot holds by the model's names (a test holds the
# two equal: tests/service/test_service.py).
COLUMNS = tuple(f.name for f in fields(Snapshot) if f.name != "asked_by")
