"""Change notification and release pacing for the live channel (Server-Sent Events).

Every accepted action publishes its table's new version, with the committed table itself (a
:class:`~montones.data.snapshot.Snapshot`) when its writer is in this process. With PostgreSQL and
several worker processes, the action's transaction also sends ``NOTIFY montones`` and a listener
thread in every worker republishes what it hears (the version only), so the screens held by any
worker learn of an action taken in any other.

Versions are released to the screens at a pace (:class:`Pace`), the same moment for every screen
of a table: a version published on a quiet table goes out at once; one that comes sooner than
the gap after the last release waits for it, and the next release takes the newest version
then. So every screen of a table shows the same version, whose shared HTML is rendered once, and
a burst of taps costs each screen one update per release rather than one per tap. While versions
keep coming faster than the releases (a release that takes several versions), the gap doubles up
to ``MAX_GAP``; another release halves it, and a table quiet for ``QUIET`` is back to
``MIN_GAP``.

A released version is also *told*, at a pace of its own, to the screens that fetch something of
their own when their table changes (a phone: its status line and action bar). Each tell costs
one request per such screen, so tells are paced wider (``MIN_TELL_GAP`` to ``MAX_TELL_GAP``);
on a quiet table a version is told as it is released.

A :class:`Broker` keeps no thread of its own: the fan-out thread (:mod:`montones.live.fanout`), which
writes every screen's updates, makes the releases and tells that fall due
(:meth:`Broker.release_due`) and waits for the next change with :meth:`Broker.wait`. Time is the
app's clock (:mod:`montones.data.clock`), so a test moves it on by hand.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from flask import current_app

from montones.data.clock import Clock
from montones.data.store import NOTIFY_CHANNEL

LISTENER = "montones-listen"  # the listener's application_name in pg_stat_activity
# A change that comes within this time of the last release waits for the next one. Short: in
# tests/bench/live.py a bet is placed as soon as the last one shows everywhere, so it often lands
# within the gap (docs/performance.md, "The live path").
MIN_GAP = 0.005
# The widest gap a steady burst of changes makes: every screen gets at most twenty updates a
# second, not hundreds (docs/performance.md, "The live path").
MAX_GAP = 0.05
# The gaps between two tells: each costs a request per phone. The least is wider than MAX_GAP,
# so that a burst's releases, paced at MAX_GAP, make the tells wait and widen; at the widest a
# phone fetches its own regions twice a second (docs/performance.md, "The live path").
MIN_TELL_GAP = 0.1
MAX_TELL_GAP = 0.5
# A table that has had no release for this long is not busy: its next change goes out at once,
# and the gap is back to MIN_GAP.
QUIET = 4 * MAX_GAP
log = logging.getLogger(__name__)


class Pace:
    """When the next release may go: at once on a quiet table; one that comes sooner than the
    gap after the last waits for it. The gap doubles (up to ``most``) at a release that waited
    and takes several versions (a burst); it halves at one that takes a single version (a tap
    that came a little early) or need not wait, and is back at ``least`` after ``quiet``."""

    def __init__(self, least: float, most: float, quiet: float):
        self.least, self.most, self.quiet = least, most, quiet
        self.gap = least
        self.last: float | None = None  # when the last release went
        self.due: float | None = None  # when the release waiting for the gap goes

    def now(self, now: float) -> bool:
        """A release is wanted ``now``: True if it goes at once, else it waits for ``due``."""
        if self.due is not None:
            return False
        if self.last is None or now >= self.last + self.gap:
            quiet = self.last is None or now - self.last >= self.quiet
            self.gap = self.least if quiet else max(self.least, self.gap / 2)
            self.last = now
            return True
        self.due = self.last + self.gap
        return False

    def fallen_due(self, now: float) -> bool:
        return self.due is not None and now >= self.due

    def waited(self, now: float, burst: bool) -> None:
        """The release that waited goes ``now``; ``burst``: it takes several versions."""
        self.due = None
        self.gap = min(self.most, 2 * self.gap) if burst else max(self.least, self.gap / 2)
        self.last = now


class Broker:
    """The versions of this process's tables: published, released, told, and the pace
    between."""

    def __init__(
        self,
        clock: Clock,
        min_gap: float = MIN_GAP,
        max_gap: float = MAX_GAP,
        quiet: float = QUIET,
        min_tell_gap: float = MIN_TELL_GAP,
        max_tell_gap: float = MAX_TELL_GAP,
    ):
        self.clock = clock
        self.min_gap, self.max_gap, self.quiet = min_gap, max_gap, quiet
        self.min_tell_gap, self.max_tell_gap = min_tell_gap, max_tell_gap
        self._changed = threading.Condition()  # notified at every publish, release and poke
        self._news = 0  # counts them: what a waiter compares (see wait)
        self._versions: dict[str, int] = {}  # code -> newest version published
        self._latest: dict[str, object] = {}  # code -> newest table published with its version
        self._released: dict[str, int] = {}  # code -> newest version released
        self._told: dict[str, int] = {}  # code -> newest version told
        self._frozen: dict[str, object] = {}  # code -> the table as released, when it is known
        self._paces: dict[str, tuple[Pace, Pace]] = {}  # code -> its releases', its tells'
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
            now = self.clock.monotonic()
            if self._versions[code] > self._released.get(code, -1) and self._pace(code)[0].now(now):
                self._release(code, now)
            self._notify()

    def release_due(self) -> float | None:
        """Make every release and tell that has fallen due; return when the next one does
        (the clock's monotonic time), or None if none waits."""
        with self._changed:
            now = self.clock.monotonic()
            due = []
            for code, (releases, tells) in self._paces.items():
                if releases.fallen_due(now):
                    releases.waited(now, self._versions[code] - self._released[code] > 1)
                    self._release(code, now)
                if tells.fallen_due(now):
                    tells.waited(now, self._released[code] - self._told[code] > 1)
                    self._told[code] = self._released[code]
                    self._notify()
                due += [pace.due for pace in (releases, tells) if pace.due is not None]
            return min(due, default=None)

    def _pace(self, code: str) -> tuple[Pace, Pace]:
        if code not in self._paces:
            self._paces[code] = (
                Pace(self.min_gap, self.max_gap, self.quiet),
                Pace(self.min_tell_gap, self.max_tell_gap, self.quiet),
            )
        return self._paces[code]

    def _release(self, code: str, now: float) -> None:
        """Hand the newest version of ``code`` to its screens, and tell it when the tells'
        pace allows (under ``_changed``)."""
        version = self._versions[code]
        self._released[code] = version
        latest = self._latest.get(code)
        if getattr(latest, "version", None) == version:
            self._frozen[code] = latest
        else:
            self._frozen.pop(code, None)
        if self._pace(code)[1].now(now):
            self._told[code] = version
        self._notify()

    def _notify(self) -> None:
        self._news += 1
        self._changed.notify_all()

    def poke(self) -> None:
        """Wake whoever waits (a new screen to serve, the fan-out to stop)."""
        with self._changed:
            self._notify()

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

    def told_version(self, code: str) -> int:
        return self._told.get(code, -1)

    def released(self, code: str) -> object | None:
        """The table as released to the screens, if this process holds it (a writer in
        another process tells only the version)."""
        return self._frozen.get(code)

    def latest(self, code: str) -> object | None:
        """The newest table this process holds for ``code``, if any: the table at its version
        (it may be older than the newest version, which a writer elsewhere tells alone)."""
        return self._latest.get(code)

    def listen(
        self,
        sqlalchemy_url: str,
        wanted: Callable[[], bool],
        catch_up: Callable[[], dict[str, int]],
    ) -> None:
        """Run the PostgreSQL listener thread while ``wanted()`` (while this process serves
        screens): what any worker commits is published here too. Each time it is listening,
        at first and after a lost connection, it publishes ``catch_up()`` (the versions of
        the tables this process streams, as stored now): what was committed while it was not
        listening reaches the screens too."""
        with self._listening:
            if self._listener is not None:
                return
            dsn = sqlalchemy_url.replace("postgresql+psycopg://", "postgresql://", 1)
            self._listener = threading.Thread(
                target=self._listen,
                args=(dsn, wanted, catch_up),
                name="montones-listen",
                daemon=True,
            )
            self._listener.start()

    def _listen(
        self, dsn: str, wanted: Callable[[], bool], catch_up: Callable[[], dict[str, int]]
    ) -> None:
        import psycopg

        delay = 0.5
        while True:
            with self._listening:
                if not wanted():
                    self._listener = None
                    return
            try:
                with psycopg.connect(dsn, autocommit=True, application_name=LISTENER) as conn:
                    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    for code, version in catch_up().items():
                        self.publish(code, version)
                    delay = 0.5
                    while wanted():
                        for notice in conn.notifies(timeout=1.0):
                            code, version = notice.payload.split(":")
                            self.publish(code, int(version))
            except Exception:  # the database went away: keep trying, screens get heartbeats
                log.warning("live listener lost its connection; retrying in %.1f s", delay)
                time.sleep(delay)
                delay = min(delay * 2, 10)


def latest(code: str) -> object | None:
    """:meth:`Broker.latest` on the current app's live channel."""
    return current_app.extensions["channel"].broker.latest(code)
