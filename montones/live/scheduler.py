"""The one thread of a process that applies the tables' clocks (a punter who does not cut in
time is skipped) and moves their computer players, whether or not a screen is open; under
``montones serve`` it is a greenlet (:mod:`montones.serving` starts it with the server).

It knows the tables this process has published a version of (an action here, a stream opened
here, the PostgreSQL listener) and, read from the database every ``FIND_EVERY`` seconds, the
open tables (the newest ``FOUND_MOST``): a table whose players reach another worker is ticked
here too. Each time one moves, it reads when that table's clock next decides something
(``service.clock_deadline``) and wakes then to apply it (``service.tick``, which works it out
again under the table's lock: two workers that both tick a table make one move). It also cuts the connections of streams stuck writing one update (``Channel.stuck``).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from montones import service
from montones.data import queries

if TYPE_CHECKING:
    from montones.live.channel import Channel

IDLE = 60.0  # seconds of the app's clock between two rounds when no clock is due
STUCK_EVERY = 5.0  # real seconds between two looks for stuck streams while screens are open
FIND_EVERY = 5.0  # seconds of the app's clock between two reads of the open tables
FOUND_MOST = 500  # open tables read at most, the newest: a bound on one read's cost
log = logging.getLogger(__name__)


class Scheduler:
    def __init__(self, channel: Channel):
        self.channel = channel
        self.broker = channel.broker
        self.clock = channel.clock
        self._deadlines: dict[str, float | None] = {}
        self._read_at: dict[str, int] = {}  # the version each table's deadline was read at
        self._found_at = float("-inf")  # when the open tables were last read
        self._thread: threading.Thread | None = None
        self._stopped = False
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the thread, unless it runs (or the process is stopping)."""
        with self._lock:
            if self._thread is not None or self._stopped:
                return
            self._thread = threading.Thread(target=self._run, name="montones-clock", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
        self.broker.wake()

    def _run(self) -> None:
        while not self._stopped:
            try:
                with self.channel.app.app_context():
                    timeout = self.round()
            except Exception:  # one bad round must not stop every table's clock
                log.exception("live scheduler: a round failed")
                timeout = 1.0
            if self.channel.serving():
                self.channel.stuck()
                timeout = min(timeout, STUCK_EVERY)
            self.broker.wait_any(timeout)

    def round(self) -> float:
        """Apply every clock that has fallen due; return the clock's seconds to the next."""
        if self.clock.time() >= self._found_at + FIND_EVERY:
            self._found_at = self.clock.time()
            for code, version in queries.open_tables(FOUND_MOST).items():
                self.broker.publish(code, version)  # known here from now on, if not yet
        for code in self.broker.codes():
            version = self.broker.published_version(code)
            if self._read_at.get(code) != version:
                self._read_at[code] = version
                try:
                    self._deadlines[code] = service.clock_deadline(self.table(code))
                except service.NotFound:  # a code no table of this database has: no clock
                    self._deadlines.pop(code, None)
        timeout, now = min(IDLE, FIND_EVERY), self.clock.time()
        for code, due in list(self._deadlines.items()):
            if due is None:
                continue
            if now >= due and service.tick(code):  # a new version: its deadline is read again
                return 0.0
            timeout = min(timeout, max(0.2, due - now + 0.1))  # at most five ticks a second
        return timeout

    def table(self, code: str):
        """Table ``code`` at its newest version: as published here, or read."""
        found = self.broker.latest(code)
        if found is None or found.version < self.broker.published_version(code):
            found = service.get_table(code)
            self.broker.publish(found.code, found.version, found)
        return found
