"""Change notification and release pacing for the live channel (Server-Sent Events).

Every accepted action publishes its table's new version, with the committed table itself (a
:class:`~montones.snapshot.Snapshot`) when its writer is in this process. With PostgreSQL and
several worker processes, the action's transaction also sends ``NOTIFY montones`` and a listener
thread in every worker republishes what it hears (the version only), so the screens held by any
worker learn of an action taken in any other.

Versions are released to the screens at a pace, the same moment for every screen of a table: a
version published when the table has been quiet for ``MIN_GAP`` goes out at once; one that comes
sooner waits for the next release, which takes the newest version then. So every screen of a
table shows the same version, whose shared HTML is rendered once, and a burst of taps costs each
screen one update per release rather than one per tap. While versions keep coming faster than
the releases (a release that takes several versions at once), the gap doubles up to
``MAX_GAP``; a release of one version halves it, and a table quiet for ``QUIET`` is back to
``MIN_GAP``.

A :class:`Broker` keeps no thread of its own: the fan-out thread (:mod:`montones.fanout`), which
writes every screen's updates, makes the releases that fall due (:meth:`Broker.release_due`) and
waits for the next change with :meth:`Broker.wait`. Time is the app's clock
(:mod:`montones.clock`), so a test moves it on by hand.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from flask import current_app

from montones.clock import Clock

CHANNEL = "montones"  # the PostgreSQL notification channel
# A change that comes within this time of the last release waits for the next one. Short: in
# tests/bench/live.py a bet is placed as soon as the last one shows everywhere, so it often lands
# within the gap (docs/performance.md, "The live path").
MIN_GAP = 0.005
# The widest gap a steady burst of changes makes: every screen gets at most twenty updates a
# second, not hundreds (docs/performance.md, "The live path").
MAX_GAP = 0.05
# A table that has had no release for this long is not busy: its next change goes out at once,
# and the gap is back to MIN_GAP.
QUIET = 4 * MAX_GAP
log = logging.getLogger(__name__)


class Broker:
    """The versions of this process's tables: published, released, and the pace between."""

    def __init__(
        self, clock: Clock, min_gap: float = MIN_GAP, max_gap: float = MAX_GAP, quiet: float = QUIET
    ):
        self.clock = clock
        self.min_gap, self.max_gap, self.quiet = min_gap, max_gap, quiet
        self._changed = threading.Condition()  # notified at every publish, release and poke
        self._news = 0  # counts them: what a waiter compares (see wait)
        self._versions: dict[str, int] = {}  # code -> newest version published
        self._latest: dict[str, object] = {}  # code -> newest table published with its version
        self._released: dict[str, int] = {}  # code -> newest version released
        self._frozen: dict[str, object] = {}  # code -> the table as released, when it is known
        self._last_release: dict[str, float] = {}  # code -> when (the clock's monotonic time)
        self._gap: dict[str, float] = {}  # code -> the gap before its next release
        self._due: dict[str, float] = {}  # code -> when its waiting release falls due
        self._listener: threading.Thread | None = None
        self._listening = threading.Lock()  # held to start or end the listener

    def publish(self, code: str, version: int, table: object = None) -> None:
        """A version of table ``code``: release it now, or at the next release.

        ``table`` is the table at that version, when the caller holds it (a writer in this
        process, or a stream that read it): the screens then show it without reading it back.
        A table at a version never changes, so whichever copy is held is the one stored.
        """
        with self._changed:
            if version > self._versions.get(code, -1):
                self._versions[code] = version
            if table is not None and version >= getattr(self._latest.get(code), "version", -1):
                self._latest[code] = table
                if version == self._released.get(code):
                    self._frozen[code] = table
            if self._versions[code] > self._released.get(code, -1) and code not in self._due:
                now = self.clock.monotonic()
                last = self._last_release.get(code)
                gap = self._gap.get(code, self.min_gap)
                if last is None or now >= last + gap:
                    quiet = last is None or now - last >= self.quiet
                    self._gap[code] = self.min_gap if quiet else self._narrower(code)
                    self._release(code, now)
                else:
                    self._due[code] = last + gap
            self._tell()

    def release_due(self) -> float | None:
        """Make every release that has fallen due; return when the next one does (the clock's
        monotonic time), or None if none waits."""
        with self._changed:
            now = self.clock.monotonic()
            for code, due in list(self._due.items()):
                if now >= due:
                    del self._due[code]
                    # Several versions waited for this release: the table is busy, wait longer
                    # next time. One only: someone's tap came a little early, the burst may be
                    # over.
                    burst = self._versions[code] - self._released.get(code, -1) > 1
                    self._gap[code] = self._wider(code) if burst else self._narrower(code)
                    self._release(code, now)
            return min(self._due.values(), default=None)

    def _release(self, code: str, now: float) -> None:
        """Hand the newest version of ``code`` to its screens (under ``_changed``)."""
        version = self._versions[code]
        self._released[code] = version
        latest = self._latest.get(code)
        if getattr(latest, "version", None) == version:
            self._frozen[code] = latest
        else:
            self._frozen.pop(code, None)
        self._last_release[code] = now
        self._tell()

    def _wider(self, code: str) -> float:
        return min(self.max_gap, 2 * self._gap.get(code, self.min_gap))

    def _narrower(self, code: str) -> float:
        return max(self.min_gap, self._gap.get(code, self.min_gap) / 2)

    def _tell(self) -> None:
        self._news += 1
        self._changed.notify_all()

    def poke(self) -> None:
        """Wake whoever waits (a new screen to serve, the fan-out to stop)."""
        with self._changed:
            self._tell()

    def news(self) -> int:
        """A count of the changes so far: pass it to :meth:`wait`."""
        return self._news

    def wait(self, news: int, seconds: float, real_limit: float | None = None) -> None:
        """Block until there is news since :meth:`news` gave ``news`` (a publish, a release, a
        poke), or ``seconds`` of the clock pass, or ``real_limit`` seconds of real time."""
        with self._changed:
            if self._news == news:
                self.clock.wait(self._changed, seconds, real_limit)

    def published_version(self, code: str) -> int:
        return self._versions.get(code, -1)

    def released_version(self, code: str) -> int:
        return self._released.get(code, -1)

    def released(self, code: str) -> object | None:
        """The table as released to the screens, if this process holds it (a writer in
        another process tells only the version)."""
        return self._frozen.get(code)

    def latest(self, code: str) -> object | None:
        """The newest table this process holds for ``code``, if any: the table at its version
        (it may be older than the newest version, which a writer elsewhere tells alone)."""
        return self._latest.get(code)

    def listen(self, sqlalchemy_url: str, wanted: Callable[[], bool]) -> None:
        """Run the PostgreSQL listener thread while ``wanted()`` (while this process serves
        screens): what any worker commits is published here too."""
        with self._listening:
            if self._listener is not None:
                return
            dsn = sqlalchemy_url.replace("postgresql+psycopg://", "postgresql://", 1)
            self._listener = threading.Thread(
                target=self._listen, args=(dsn, wanted), name="montones-listen", daemon=True
            )
            self._listener.start()

    def _listen(self, dsn: str, wanted: Callable[[], bool]) -> None:
        import psycopg

        delay = 0.5
        while True:
            with self._listening:
                if not wanted():
                    self._listener = None
                    return
            try:
                with psycopg.connect(dsn, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    delay = 0.5
                    while wanted():
                        for notice in conn.notifies(timeout=1.0):
                            code, version = notice.payload.split(":")
                            self.publish(code, int(version))
            except Exception:  # the database went away: keep trying, screens get heartbeats
                log.warning("live listener lost its connection; retrying in %.1f s", delay)
                time.sleep(delay)
                delay = min(delay * 2, 10)


def _broker() -> Broker:
    return current_app.extensions["live"].broker


def publish(code: str, version: int, table: object = None) -> None:
    """:meth:`Broker.publish` on the current app's live channel (what the service calls)."""
    _broker().publish(code, version, table)


def latest(code: str) -> object | None:
    """:meth:`Broker.latest` on the current app's live channel."""
    return _broker().latest(code)
