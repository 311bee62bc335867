"""The newest version of each table, and waiting for a newer one.

Every accepted action publishes its table's new version, with the committed table itself (a
:class:`~montones.data.snapshot.Snapshot`) when its writer is in this process. With PostgreSQL and
several worker processes, the action's transaction also sends ``NOTIFY montones`` and a listener
thread in every worker republishes what it hears (the version only), so the screens held by any
worker learn of an action taken in any other. A phone's reaction, no version of its table, is
sent on a channel of its own and handed to ``heard`` (the live channel's), for the TVs held by
every worker.

Each open screen's stream waits here (:meth:`Broker.wait`) for a version of its table newer than
the one it sent last, and then sends the newest: a stream that was busy skips the versions it
missed. A table's waiters share one condition, so a change wakes its own table's streams alone.
A change in a table's open screens (a watcher comes or goes) wakes them too (:meth:`Broker.nudged`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from flask import current_app

from montones.data.clock import Clock
from montones.data.store import NOTIFY_CHANNEL, REACTIONS_CHANNEL

LISTENER = "montones-listen"  # the listener's application_name in pg_stat_activity
log = logging.getLogger(__name__)


class Broker:
    """The versions of the tables this process knows, and the streams that wait for them."""

    def __init__(self, clock: Clock):
        self.clock = clock
        self._lock = threading.Lock()
        self._any = threading.Condition(self._lock)  # notified at every publish (the scheduler)
        # (code, first) -> the condition its streams wait on (see _wake)
        self._tables: dict[tuple[str, bool], threading.Condition] = {}
        self._versions: dict[str, int] = {}  # code -> newest version published
        self._latest: dict[str, object] = {}  # code -> newest table published with its version
        self._nudges: dict[str, int] = {}  # code -> changes of its open screens
        self._listener: threading.Thread | None = None
        self._listening = threading.Lock()  # held to start or end the listener
        # What hears a reaction another worker's phone sent (``Channel.heard``), if anything.
        self.heard: Callable[[str], None] | None = None

    def publish(self, code: str, version: int, table: object = None) -> None:
        """A version of table ``code``. ``table`` is the table at that version, when the caller
        holds it (a writer in this process, or a stream that read it): the screens then show it
        without reading it back. A table at a version never changes."""
        with self._lock:
            newer = version > self._versions.get(code, -1)
            if newer:
                self._versions[code] = version
            if table is not None and version >= getattr(self._latest.get(code), "version", -1):
                self._latest[code] = table
            if newer:
                self._wake(code)
                self._any.notify_all()

    def _condition(self, code: str, first: bool) -> threading.Condition:
        found = self._tables.get((code, first))
        if found is None:
            found = self._tables[(code, first)] = threading.Condition(self._lock)
        return found

    def _wake(self, code: str) -> None:
        """Wake the table's streams: those that wait ``first`` (the TV) before the rest, so
        that under gevent the TV's update is written before the phones' (the phones hold a
        result back until the reveal, timed from when each had the version: show.js)."""
        self._condition(code, True).notify_all()
        self._condition(code, False).notify_all()

    def nudged(self, code: str, tvs: bool = False) -> None:
        """The open screens of table ``code`` changed: its streams look again (``tvs``: only
        those woken first, the TVs': a reaction is theirs alone to show)."""
        with self._lock:
            self._nudges[code] = self._nudges.get(code, 0) + 1
            if tvs:
                self._condition(code, True).notify_all()
            else:
                self._wake(code)

    def mark(self, code: str) -> tuple[int, int]:
        """Where table ``code`` stands now: its newest version and its screens' changes."""
        with self._lock:
            return self._versions.get(code, -1), self._nudges.get(code, 0)

    def wait(
        self, code: str, since: tuple[int, int], seconds: float, first: bool = False
    ) -> tuple[int, int]:
        """Block until table ``code`` stands elsewhere than ``since`` (a newer version, or its
        screens changed), or ``seconds`` of real time pass; return where it stands then.
        ``first``: woken before the table's other streams."""
        with self._lock:
            now = (self._versions.get(code, -1), self._nudges.get(code, 0))
            if now == since and seconds > 0:
                self._condition(code, first).wait(seconds)
                now = (self._versions.get(code, -1), self._nudges.get(code, 0))
            return now

    def wait_any(self, seconds: float) -> None:
        """Block until any table publishes a version, or ``seconds`` of the app's clock pass
        (the scheduler's wait: a test moves a manual clock on by hand)."""
        with self._lock:
            self.clock.wait(self._any, seconds)

    def wake(self) -> None:
        """Wake whoever waits in :meth:`wait_any` (the scheduler, to stop)."""
        with self._lock:
            self._any.notify_all()

    def codes(self) -> list[str]:
        """The tables this process knows a version of."""
        with self._lock:
            return list(self._versions)

    def published_version(self, code: str) -> int:
        return self._versions.get(code, -1)

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
                    conn.execute(f"LISTEN {REACTIONS_CHANNEL}")
                    for code, version in catch_up().items():
                        self.publish(code, version)
                    delay = 0.5
                    while wanted():
                        for notice in conn.notifies(timeout=1.0):
                            if notice.channel == REACTIONS_CHANNEL:
                                if self.heard is not None:
                                    self.heard(notice.payload)
                                continue
                            code, version = notice.payload.split(":")
                            self.publish(code, int(version))
            except Exception:  # the database went away: keep trying, screens get heartbeats
                log.warning("live listener lost its connection; retrying in %.1f s", delay)
                time.sleep(delay)
                delay = min(delay * 2, 10)


def latest(code: str) -> object | None:
    """:meth:`Broker.latest` on the current app's live channel."""
    return current_app.extensions["channel"].broker.latest(code)
