"""One thread that works out every live screen's updates, for the streams to send.

A stream (:mod:`montones.live.stream`) is a generator the server writes: it hands its screen to
the fan-out and then yields whatever lands in the screen's outbox, blocking in between. Under
``montones serve`` the server is gevent's (gunicorn's gevent worker, or ``pywsgi``), so a stream
blocked there is a greenlet, not an OS thread (:mod:`montones.serving`). When a table's version
is released (see :mod:`montones.live.broker`) the fan-out alone works out each screen's update and
puts it in its outbox: forty screens cost one thread's work, not forty woken to contend for the
interpreter, and the one render every screen of a kind shares is made once.

A screen gets no newer update while its outbox still holds one its stream has not taken (a
phone asleep, a slow network: the server is still writing the last one), and then only the
newest; so a screen that stops reading holds up no other and keeps at most one update waiting
(and one word of the screens themselves, the count of watchers: see ``Glue.aside``).
The fan-out also makes the releases that fall due, sends the heartbeats, applies a table's clock
when it falls due and ends a stream when its time is up (the browser connects again). It runs
while it has screens to serve, and stops when the last one goes.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

from montones.data.clock import Clock
from montones.live.broker import Broker

HEARTBEAT = 15.0  # seconds of the clock between writes to a screen, at most
# Real seconds a stream may spend writing one update before its connection is cut: a phone that
# stops reading (asleep, gone without a word) holds one connection and one update until then.
STUCK = 30.0
log = logging.getLogger(__name__)


class Screen:
    """One open stream, as the fan-out sees it."""

    def __init__(
        self,
        code: str,
        version: int,
        ends: float | None = None,
        cut: Callable[[], None] | None = None,
        **about,
    ):
        self.code = code
        self.version = version  # the newest version this screen was sent
        self.told = version  # the newest version it was told of (see Broker.told_version)
        self.about = about  # what the update depends on: its kind, seat, language...
        self.ends = ends  # when the stream ends (real time.monotonic()), if it does
        self.outbox = bytearray()  # written by the fan-out, taken by the stream
        self.held = b""  # what goes aside into the outbox once it is taken (see hold)
        self.filled_at = 0.0  # when the outbox last filled (real time.monotonic())
        self.cut = cut  # what closes the stream's connection under the server, if it can be
        self.last_write = 0.0  # the clock's monotonic time (set when the fan-out takes it)
        self.ended = threading.Event()  # set when the stream is to end
        self._filled = threading.Condition()  # notified when the outbox fills or it ends

    def write(self, data: bytes, now: float) -> None:
        with self._filled:
            if not self.outbox:
                self.filled_at = time.monotonic()
            self.outbox += data
            self.last_write = now
            self._filled.notify()

    def hold(self, data: bytes, now: float) -> None:
        """Write ``data``, sent aside from any version (see ``Glue.aside``), now if the outbox
        is empty, else once the stream has taken what it holds: in place of anything held
        before, so that a stream that takes nothing keeps one update and one aside at most."""
        with self._filled:
            if self.outbox:
                self.held = data
            else:
                self.write(data, now)

    def take(self) -> bytes | None:
        """What the outbox holds, once it holds something (waiting until then); None once the
        stream is to end."""
        with self._filled:
            while not self.outbox and not self.ended.is_set():
                self._filled.wait()
            if self.ended.is_set():
                return None
            data = bytes(self.outbox)
            self.outbox.clear()
            if self.held:  # taken at the stream's next turn
                self.outbox += self.held
                self.filled_at = time.monotonic()
                self.held = b""
            return data

    def end(self) -> None:
        """End the stream: its generator returns, and the server ends the response."""
        with self._filled:
            self.ended.set()
            self._filled.notify()


class Glue(Protocol):
    """What the fan-out asks of the app, in its thread and inside the fan-out's context."""

    def snapshot(self, code: str, released: int):
        """The table ``code`` at its ``released`` version (or newer)."""

    def update(self, screen: Screen, table) -> bytes:
        """The bytes that bring ``screen`` to ``table``'s version."""

    def order(self, screen: Screen) -> int:
        """Where ``screen`` comes in a round's writing of updates (lowest first)."""

    def tell(self, screens: list[Screen], table) -> list[bytes]:
        """For each of ``screens``, the bytes that tell it of ``table``'s version (nothing,
        for a screen that fetches nothing of its own, or has nothing new to fetch)."""

    def aside(self, screens: list[Screen]) -> list[bytes]:
        """For each of a table's ``screens``, what it is sent of the screens themselves,
        apart from any version (how many watch): nothing, unless that has changed."""

    def deadline(self, table) -> float | None:
        """When the table's clock next decides something (the clock's wall time)."""

    def tick(self, code: str) -> None:
        """Apply what the table's clock decides now."""


class Fanout:
    """A fan-out thread: started by its first screen, ended when its last goes (or by
    :meth:`close`). Each round runs inside ``context()`` (the app's, fresh each round: nothing
    read in one round is held into the next)."""

    def __init__(self, broker: Broker, clock: Clock, context: Callable, glue: Glue):
        self.broker = broker
        self.clock = clock
        self._context = context
        self._glue = glue
        self._screens: dict[str, list[Screen]] = {}
        self._deadlines: dict[str, float | None] = {}
        self._read_at: dict[str, int] = {}  # the version each table's deadline was read at
        self._lock = threading.Lock()
        self._stopped = False
        self.thread: threading.Thread | None = None

    def add(self, screen: Screen) -> bool:
        """Serve ``screen``; False if this fan-out has stopped (start another)."""
        screen.last_write = self.clock.monotonic()  # the stream's first bytes went just now
        with self._lock:
            if self._stopped:
                return False
            self._screens.setdefault(screen.code, []).append(screen)
            if self.thread is None:
                self.thread = threading.Thread(
                    target=self._run, name="montones-fanout", daemon=True
                )
                self.thread.start()
        self.broker.poke()
        return True

    def remove(self, screen: Screen) -> None:
        """Stop serving ``screen`` and end its stream (see :meth:`Screen.end`)."""
        with self._lock:
            screens = self._screens.get(screen.code, [])
            if screen in screens:
                screens.remove(screen)
        screen.end()
        self.broker.poke()

    def taken(self, screen: Screen) -> None:
        """``screen``'s stream took its outbox: if a newer version waits for it, a round now."""
        if screen.version < self.broker.released_version(screen.code):
            self.broker.poke()

    def screens(self, code: str) -> list[Screen]:
        """The screens of table ``code`` this fan-out serves."""
        with self._lock:
            return list(self._screens.get(code, []))

    def codes(self) -> list[str]:
        """The tables whose screens this fan-out serves."""
        with self._lock:
            return [code for code, screens in self._screens.items() if screens]

    @property
    def running(self) -> bool:
        return not self._stopped

    def close(self) -> None:
        """Stop the thread now, whatever screens it has, and end their streams."""
        with self._lock:
            self._stopped = True
        self.broker.poke()
        if self.thread is not None:
            self.thread.join(5)
        with self._lock:
            screens = [screen for listed in self._screens.values() for screen in listed]
            self._screens.clear()
        for screen in screens:
            screen.end()

    def _run(self) -> None:
        try:
            self._serve()
        finally:  # stopped, or failed where no round's guard is: no stream waits on it for ever
            with self._lock:
                self._stopped = True
                screens = [screen for listed in self._screens.values() for screen in listed]
            for screen in screens:
                screen.end()

    def _serve(self) -> None:
        while True:
            news = self.broker.news()
            now, done = time.monotonic(), []
            with self._lock:
                for screens in self._screens.values():  # gone, or their time is up
                    done += [
                        s
                        for s in screens
                        if s.ended.is_set() or s.ends is not None and s.ends <= now
                    ]
                    screens[:] = [s for s in screens if s not in done]
                tables = {code: list(s) for code, s in self._screens.items() if s}
                if self._stopped or not tables:
                    self._stopped = True
            for screen in done:
                screen.end()
            if self._stopped:
                return
            real_limit = None  # real seconds, which no clock of the app's sets
            try:
                with self._context():
                    timeout = self._round(tables)
            except Exception:  # one bad round must not end every screen's updates
                log.exception("live fan-out: a round failed")
                timeout, real_limit = HEARTBEAT, 1.0
            ends = [s.ends for screens in tables.values() for s in screens if s.ends is not None]
            if ends:
                soonest = max(0.0, min(ends) - time.monotonic())
                real_limit = soonest if real_limit is None else min(real_limit, soonest)
            self.broker.wait(news, timeout, real_limit)

    def _round(self, tables: dict[str, list[Screen]]) -> float:
        """Bring every screen to its table's released version; return how long to wait for
        the next round (the clock's seconds)."""
        next_release = self.broker.release_due()
        now = self.clock.monotonic()
        for code, screens in tables.items():
            released = self.broker.released_version(code)
            # A screen whose stream has not taken its last update yet gets the newest once it
            # has (see taken()).
            ready = [s for s in screens if s.version < released and not s.outbox]
            table = None
            if ready:
                table = self._glue.snapshot(code, released)
                # Each update is written as soon as it is worked out, in the glue's order
                # (the kind most screens share first, so that the many are not held up by the
                # render of one); the tells come after every update of the round.
                ready.sort(key=self._glue.order)
                for screen in ready:
                    screen.write(self._glue.update(screen, table), now)
                    screen.version = table.version
            told = self.broker.told_version(code)
            telling = [s for s in screens if s.told < told <= s.version]
            if telling:
                table = table or self._glue.snapshot(code, released)
                for screen, tell in zip(telling, self._glue.tell(telling, table), strict=True):
                    screen.write(tell, now)
                    screen.told = told
            for screen, aside in zip(screens, self._glue.aside(screens), strict=True):
                if aside:
                    screen.hold(aside, now)
            if self._read_at.get(code) != released:  # the table moved: its clock may have
                self._read_at[code] = released
                table = table or self._glue.snapshot(code, released)
                self._deadlines[code] = self._glue.deadline(table)
        wall, now = self.clock.time(), self.clock.monotonic()
        timeout = HEARTBEAT
        if next_release is not None:
            timeout = max(0.0, next_release - now)
        for code, screens in tables.items():
            due = self._deadlines.get(code)
            if due is not None and wall >= due:
                self._glue.tick(code)  # a new version, sent next round
                released = self.broker.released_version(code)
                self._read_at[code] = released
                self._deadlines[code] = due = self._glue.deadline(
                    self._glue.snapshot(code, released)
                )
            if due is not None:  # at most five ticks a second, if one decides nothing
                timeout = min(timeout, max(0.2, due - wall + 0.1))
            for screen in screens:
                if screen.outbox:  # its stream is still writing its last update
                    if time.monotonic() - screen.filled_at > STUCK and screen.cut is not None:
                        screen.cut()  # a reader that takes nothing for so long has gone
                    continue
                if now - screen.last_write >= HEARTBEAT:
                    screen.write(b": heartbeat\n\n", now)
                timeout = min(timeout, max(0.0, screen.last_write + HEARTBEAT - now))
        return timeout
