"""Change notification for the live channel (Server-Sent Events).

Every accepted action publishes its table's new version; each open stream waits here for a
version newer than the one its screen shows. Within one process (``montones serve``: one
gunicorn worker, many threads) that is a condition variable. With PostgreSQL and several
workers, the action's transaction also sends ``NOTIFY montones`` and a listener thread in every
worker process republishes what it hears, so a stream in any worker learns of an action taken in
any other.
"""

from __future__ import annotations

import logging
import threading
import time
from types import SimpleNamespace

from sqlalchemy import text

CHANNEL = "montones"

_changed = threading.Condition()
_versions: dict[str, int] = {}  # table code -> newest version
_latest: dict[str, object] = {}  # table code -> the newest committed table, as its writer left it
_listener: threading.Thread | None = None
_listener_lock = threading.Lock()
log = logging.getLogger(__name__)


def publish(code: str, version: int, table: object = None) -> None:
    """Wake every stream waiting on ``code``.

    ``table`` is the committed table itself (see :func:`snapshot`), when the writer is in this
    process: the streams then show it without reading it back from the database.
    """
    with _changed:
        if version > _versions.get(code, -1):
            _versions[code] = version
        if table is not None and version >= getattr(_latest.get(code), "version", -1):
            _latest[code] = table
        _changed.notify_all()


def latest(code: str) -> object | None:
    """The newest table a writer in this process published, if any (it may be older than the
    newest version: a writer in another process tells only the version)."""
    return _latest.get(code)


def snapshot(row) -> SimpleNamespace:
    """What the screens read of a table row, kept after its database session is gone.

    Its ``state`` is shared, never copied: nothing changes a state in place once it is stored
    (the rules engine works on a copy).
    """
    return SimpleNamespace(
        id=row.id,
        code=row.code,
        game=row.game,
        name=row.name,
        paused=row.paused,
        ended_at=row.ended_at,
        version=row.version,
        state=row.state,
    )


def wait(code: str, seen: int, timeout: float) -> int:
    """Block until the table is past version ``seen`` or ``timeout`` passes; return its version."""
    with _changed:
        _changed.wait_for(lambda: _versions.get(code, -1) > seen, timeout)
        return _versions.get(code, seen)


def notify_in_transaction(session, code: str, version: int) -> None:
    """On PostgreSQL, tell every worker process; the notice leaves when the transaction commits."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(
            text("SELECT pg_notify(:channel, :payload)"),
            {"channel": CHANNEL, "payload": f"{code}:{version}"},
        )


def start_listener(sqlalchemy_url: str) -> None:
    """Start this process's PostgreSQL listener thread (once)."""
    global _listener
    with _listener_lock:
        if _listener is not None and _listener.is_alive():
            return
        dsn = sqlalchemy_url.replace("postgresql+psycopg://", "postgresql://", 1)
        _listener = threading.Thread(
            target=_listen, args=(dsn,), name="montones-listen", daemon=True
        )
        _listener.start()


def _listen(dsn: str) -> None:
    import psycopg

    delay = 0.5
    while True:
        try:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f"LISTEN {CHANNEL}")
                delay = 0.5
                for notice in conn.notifies():
                    code, version = notice.payload.split(":")
                    publish(code, int(version))
        except Exception:  # the database went away: keep trying, streams fall back to heartbeats
            log.warning("live listener lost its connection; retrying in %.1f s", delay)
            time.sleep(delay)
            delay = min(delay * 2, 10)


def init_app(app) -> None:
    uri = app.config["SQLALCHEMY_DATABASE_URI"]
    if uri.startswith("postgresql"):
        start_listener(uri)
