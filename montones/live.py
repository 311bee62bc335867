"""Change notification for the live channel (Server-Sent Events).

Every accepted action publishes its table's new version; each open stream waits here for a
version newer than the one its screen shows. This is the one-process fan-out that
``montones serve`` (one gunicorn worker, many threads) needs.
"""

from __future__ import annotations

import threading

_changed = threading.Condition()
_versions: dict[int, int] = {}


def publish(table_id: int, version: int) -> None:
    with _changed:
        if version > _versions.get(table_id, -1):
            _versions[table_id] = version
        _changed.notify_all()


def wait(table_id: int, seen: int, timeout: float) -> int:
    """Block until the table is past version ``seen`` or ``timeout`` passes; return its version."""
    with _changed:
        _changed.wait_for(lambda: _versions.get(table_id, -1) > seen, timeout)
        return _versions.get(table_id, seen)
