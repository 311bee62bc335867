"""Change notification for the live channel (Server-Sent Events).

Every accepted action publishes its table's new version; each open stream waits here for a
version newer than the one its screen shows. Within one process (``montones serve``: one
gunicorn worker, many threads) that is a condition variable. With PostgreSQL and several
workers, the action's transaction also sends ``NOTIFY montones`` and a listener thread in every
worker process republishes what it hears, so a stream in any worker learns of an action taken in
any other.

Versions are released to the streams at a pace, the same moment for every stream of a table: a
version published when the table has been quiet for ``MIN_GAP`` goes out at once; one that comes
sooner waits for the next release, which takes the newest version then. So every screen of a
table shows the same version, whose shared HTML is rendered once, and a burst of taps costs each
screen one update per release rather than one per tap. While versions keep coming faster than
the releases (a release that takes several versions at once), the gap doubles up to
``MAX_GAP``; another release halves it, and a table quiet for ``QUIET`` is back to ``MIN_GAP``.
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
from types import SimpleNamespace

CHANNEL = "montones"
# A change that comes within this time of the last release waits for the next one. Short: in
# tests/bench/live.py a bet is placed as soon as the last one shows everywhere, so it often
# lands within the gap, and a gap of 20 ms pinned the time a bet took to reach every screen at
# 20 ms (17 ms at its median with 5 ms).
MIN_GAP = 0.005
# The widest gap a steady burst of changes makes. Thirty players tapping as fast as they can
# (tests/bench/load.py, two runs each) wait for their tap to show on the felt before the next,
# so at most thirty actions go in per gap: 80 ms gave 323-356 actions a second with the worker
# at 84-91% CPU, waiting with the players; 60 ms 445-451, 50 ms 440-456, 40 ms 451-481 and
# 30 ms 430-456, the worker busy throughout, each gap shorter than 50 ms more renders for every
# screen for no more actions. Every screen gets at most twenty updates a second, not hundreds.
MAX_GAP = 0.05
# A table that has had no release for this long is not busy: its next change goes out at once,
# and the gap is back to MIN_GAP. A busy table's gap only halves, at a release of one version.
# Thirty players tapping as fast as they can (tests/bench/load.py) otherwise fell, in some runs, into releasing every few milliseconds:
# a server slower than one action per MIN_GAP made every release one of a single version, and
# each release is one more render for every screen (40 to 55 releases a second, 86 to 210
# actions a second instead of 300).
QUIET = 4 * MAX_GAP

_lock = threading.Lock()
_changed = threading.Condition(_lock)  # the streams wait on it
_pacer_wakes = threading.Condition(_lock)  # the pacer thread waits on it
_versions: dict[str, int] = {}  # table code -> newest version published
_latest: dict[str, object] = {}  # table code -> the newest committed table, as its writer left it
_released: dict[str, int] = {}  # table code -> newest version released to the streams
_frozen: dict[str, object] = {}  # table code -> the table as released, if its writer was here
_last_release: dict[str, float] = {}  # table code -> when (monotonic)
_gap: dict[str, float] = {}  # table code -> the gap before its next release
_due: list[tuple[float, str]] = []  # (when, code): releases the pacer thread will make
_pending: set[str] = set()  # codes with a release due
_pokes = 0
_pacer: threading.Thread | None = None
_listener: threading.Thread | None = None
_listener_lock = threading.Lock()
log = logging.getLogger(__name__)


def publish(code: str, version: int, table: object = None) -> None:
    """A new version of table ``code``: release it to the streams now, or at the next release.

    ``table`` is the committed table itself (see :func:`snapshot`), when the writer is in this
    process: the streams then show it without reading it back from the database.
    """
    with _changed:
        if version > _versions.get(code, -1):
            _versions[code] = version
        if table is not None and version >= getattr(_latest.get(code), "version", -1):
            _latest[code] = table
        if _versions[code] <= _released.get(code, -1) or code in _pending:
            return
        now = time.monotonic()
        last = _last_release.get(code, -1e9)
        due = last + _gap.get(code, MIN_GAP)
        if now >= due:
            _gap[code] = MIN_GAP if now - last >= QUIET else _narrower(code)
            _release(code, now)
        else:
            _pending.add(code)
            heapq.heappush(_due, (due, code))
            _start_pacer()
            _pacer_wakes.notify()


def _release(code: str, now: float) -> None:
    """Hand the newest version to every stream of ``code`` (under ``_changed``)."""
    version = _versions[code]
    _released[code] = version
    latest = _latest.get(code)
    if getattr(latest, "version", None) == version:
        _frozen[code] = latest
    else:
        _frozen.pop(code, None)
    _last_release[code] = now
    _changed.notify_all()


def _pace() -> None:
    """The pacer thread: makes each release that is due, and widens a busy table's gap."""
    with _changed:
        while True:
            if not _due:
                _pacer_wakes.wait()
                continue
            due, code = _due[0]
            now = time.monotonic()
            if now < due:
                _pacer_wakes.wait(due - now)
                continue
            heapq.heappop(_due)
            _pending.discard(code)
            # Several versions waited for this release: the table is busy, wait longer next
            # time. One only: someone's tap came a little early, the burst may be over.
            burst = _versions[code] - _released.get(code, -1) > 1
            _gap[code] = _wider(code) if burst else _narrower(code)
            _release(code, now)


def _wider(code: str) -> float:
    return min(MAX_GAP, 2 * _gap.get(code, MIN_GAP))


def _narrower(code: str) -> float:
    return max(MIN_GAP, _gap.get(code, MIN_GAP) / 2)


def _start_pacer() -> None:
    global _pacer
    if _pacer is None or not _pacer.is_alive():
        _pacer = threading.Thread(target=_pace, name="montones-pacer", daemon=True)
        _pacer.start()


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
    """Block until a version of the table past ``seen`` is released, or ``timeout`` passes;
    return the newest version released."""
    with _changed:
        _changed.wait_for(lambda: _released.get(code, -1) > seen, timeout)
        return _released.get(code, seen)


def released_version(code: str) -> int:
    return _released.get(code, -1)


def pokes() -> int:
    """How many times :func:`poke` was called: pass it to :func:`wait_any`."""
    return _pokes


def poke() -> None:
    """Wake :func:`wait_any` (a new screen to serve)."""
    global _pokes
    with _changed:
        _pokes += 1
        _changed.notify_all()


def wait_any(versions: dict[str, int], timeout: float, pokes: int) -> None:
    """Block until a table of ``versions`` is released past the version given for it, or
    :func:`poke` has been called since :func:`pokes` gave ``pokes``, or ``timeout`` passes."""
    with _changed:
        _changed.wait_for(
            lambda: (
                _pokes != pokes
                or any(_released.get(code, -1) > seen for code, seen in versions.items())
            ),
            timeout,
        )


def released(code: str) -> object | None:
    """The table as it was released to the streams, if its writer was in this process (a
    writer in another process tells only the version)."""
    return _frozen.get(code)


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
