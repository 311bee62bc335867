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

from sqlalchemy import text

CHANNEL = "montones"

_changed = threading.Condition()
_versions: dict[str, int] = {}  # table code -> newest version
_listener: threading.Thread | None = None
_listener_lock = threading.Lock()
log = logging.getLogger(__name__)


def publish(code: str, version: int) -> None:
    with _changed:
        if version > _versions.get(code, -1):
            _versions[code] = version
        _changed.notify_all()


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
