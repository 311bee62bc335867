"""One thread that writes every live screen's updates, straight to the screens' sockets.

A stream's request only opens it: its response's head and first bytes go out through the
server as usual, then a socket is handed to the fan-out, which owns it from then on. Under
``montones serve`` (:mod:`montones.server`, alone or as gunicorn's worker) that is the
connection's own socket, and the request's thread is free at once; under any other server (the
Flask test client, Werkzeug's) it is one end of a socket pair whose other end the request relays
(see :mod:`montones.views.stream`): the same thread, the same writes, whatever the server. When
a table's version is released (see :mod:`montones.broker`) the fan-out thread alone works out
each screen's update and writes it: forty screens cost forty socket writes in one thread, not
forty threads woken to contend for the interpreter, and no thread waits on a screen.

Writes never block: what a socket does not take at once (a phone asleep, a slow network) waits
in that screen's own outbox, and the screen gets no newer update until its outbox is empty, then
only the newest; so a screen that stops reading holds up no other and keeps at most one update
waiting. The fan-out also makes the releases that fall due, sends the heartbeats, applies a
table's clock when it falls due and ends a stream when its time is up (the browser connects
again). It runs while it has screens to serve, and stops when the last one goes. A stream ends
with its response's last chunk and the socket closed; a screen that has gone, or one left with
half an update, is cut.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable
from typing import Protocol

from montones.broker import Broker
from montones.clock import Clock

HEARTBEAT = 15.0  # seconds of the clock between writes to a screen, at most
# Real seconds before trying again an outbox that a socket did not take; doubled, up to
# RETRY_MOST, each time it takes nothing: screens that never read, each tried at a fixed pace,
# kept the fan-out thread busy with failed sends and slowed every tap (tests/live/
# test_hostile.py; docs/performance.md has the figures).
RETRY = 0.05
RETRY_MOST = 0.8
log = logging.getLogger(__name__)


class Screen:
    """One open stream, as the fan-out sees it."""

    def __init__(
        self,
        sock: socket.socket,
        chunked: bool,
        code: str,
        version: int,
        ends: float | None = None,
        **about,
    ):
        self.sock = sock
        self.chunked = chunked  # HTTP/1.1 on the connection itself: each write is one chunk
        self.code = code
        self.version = version  # the newest version this screen was sent
        self.told = version  # the newest version it was told of (see Broker.told_version)
        self.about = about  # what the update depends on: its kind, seat, language...
        self.ends = ends  # when the stream ends (real time.monotonic()), if it does
        self.outbox = bytearray()
        self.last_write = 0.0  # the clock's monotonic time (set when the fan-out takes it)
        self.ended = threading.Event()  # set when the fan-out stops writing to it
        self.writing = threading.Lock()  # held while bytes go to the socket
        self.retry = 0.0  # real seconds until the outbox is tried again (see RETRY)
        self.retry_at = 0.0  # when (real time.monotonic())

    def write(self, data: bytes, now: float) -> None:
        if not data:  # an empty chunk would end the response
            return
        with self.writing:
            self.outbox += b"%X\r\n%s\r\n" % (len(data), data) if self.chunked else data
        self.flush(now)

    def flush(self, now: float) -> None:
        with self.writing:
            if self.ended.is_set():
                return
            try:
                sent = self.sock.send(self.outbox)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:  # the screen has gone
                self.ended.set()
                return
            del self.outbox[:sent]
            self.last_write = now
            if self.outbox:
                self.retry = RETRY if sent else min(RETRY_MOST, max(RETRY, 2 * self.retry))
                self.retry_at = time.monotonic() + self.retry
            else:
                self.retry = 0.0

    def end(self) -> None:
        """Stop writing to this screen and close its socket, ending the response with its last
        chunk when nothing of it is left half-written (else the reader sees it cut)."""
        with self.writing:
            if self.sock.fileno() < 0:
                return
            self.ended.set()
            if self.chunked and not self.outbox:
                with contextlib.suppress(OSError):
                    self.sock.send(b"0\r\n\r\n")
            with contextlib.suppress(OSError):
                self.sock.close()


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
        screen.sock.setblocking(False)
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
        """Stop the thread now, whatever screens it has, and end their streams (cleanly,
        unless an update was left half written)."""
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
            try:
                with self._context():
                    timeout, real_limit = self._round(tables)
            except Exception:  # one bad round must not end every screen's updates
                log.exception("live fan-out: a round failed")
                timeout, real_limit = HEARTBEAT, 1.0
            ends = [s.ends for screens in tables.values() for s in screens if s.ends is not None]
            if ends:
                soonest = max(0.0, min(ends) - time.monotonic())
                real_limit = soonest if real_limit is None else min(real_limit, soonest)
            self.broker.wait(news, timeout, real_limit)

    def _round(self, tables: dict[str, list[Screen]]) -> tuple[float, float | None]:
        """Bring every screen to its table's released version; return how long to wait for
        the next round (the clock's seconds, and real seconds when an outbox waits)."""
        next_release = self.broker.release_due()
        now = self.clock.monotonic()
        for code, screens in tables.items():
            released = self.broker.released_version(code)
            # A screen whose socket has not taken all of its last update yet gets the newest
            # once it has.
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
            if self._read_at.get(code) != released:  # the table moved: its clock may have
                self._read_at[code] = released
                table = table or self._glue.snapshot(code, released)
                self._deadlines[code] = self._glue.deadline(table)
        wall, now = self.clock.time(), self.clock.monotonic()
        timeout, real_limit = HEARTBEAT, None
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
                if screen.outbox:
                    if time.monotonic() >= screen.retry_at:
                        screen.flush(now)
                    # Emptied, it is due the newest version: another round at once.
                    wait = max(0.0, screen.retry_at - time.monotonic()) if screen.outbox else 0.0
                    real_limit = wait if real_limit is None else min(real_limit, wait)
                elif now - screen.last_write >= HEARTBEAT:
                    screen.write(b": heartbeat\n\n", now)
                timeout = min(timeout, max(0.0, screen.last_write + HEARTBEAT - now))
        return timeout, real_limit
