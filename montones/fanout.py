"""One thread that writes every live screen's updates, straight to the screens' sockets.

A stream's request only opens it: it sends the first bytes through the server as usual (so the
headers go out), then hands a socket to the fan-out. Under gunicorn that is the connection's own
socket; under any other server (the Flask test client, Werkzeug's) it is one end of a socket
pair whose other end the request relays (see :mod:`montones.views.stream`): the same thread,
the same writes, whatever the server. When a table's version is released (see
:mod:`montones.broker`) the fan-out thread alone works out each screen's update and writes it:
forty screens cost forty socket writes in one thread, not forty threads woken to contend for the
interpreter, and no thread waits on a screen.

Writes never block: what a socket does not take at once (a phone asleep, a slow network) waits
in that screen's own outbox, and the screen gets no newer update until its outbox is empty, then
only the newest; so a screen that stops reading holds up no other and keeps at most one update
waiting. The fan-out also makes the releases that fall due, sends the heartbeats and applies a
table's clock when it falls due. It runs while it has screens to serve, and stops when the last
one goes.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Callable
from typing import Protocol

from montones.broker import Broker
from montones.clock import Clock

HEARTBEAT = 15.0  # seconds of the clock between writes to a screen, at most
RETRY = 0.05  # real seconds before trying again an outbox that a socket did not take
log = logging.getLogger(__name__)


class Screen:
    """One open stream, as the fan-out sees it."""

    def __init__(self, sock: socket.socket, chunked: bool, code: str, version: int, **about):
        self.sock = sock
        self.chunked = chunked  # HTTP/1.1 on the connection itself: each write is one chunk
        self.code = code
        self.version = version  # the newest version this screen was sent
        self.told = version  # the newest version it was told of (see Broker.told_version)
        self.about = about  # what the update depends on: its kind, seat, language...
        self.outbox = bytearray()
        self.last_write = 0.0  # the clock's monotonic time (set when the fan-out takes it)
        self.ended = threading.Event()  # set when the fan-out stops writing to it
        self.writing = threading.Lock()  # held while bytes go to the socket

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


class Glue(Protocol):
    """What the fan-out asks of the app, in its thread and inside the fan-out's context."""

    def snapshot(self, code: str, released: int):
        """The table ``code`` at its ``released`` version (or newer)."""

    def update(self, screen: Screen, table) -> bytes:
        """The bytes that bring ``screen`` to ``table``'s version."""

    def tell(self, screen: Screen, table) -> bytes:
        """The bytes that tell ``screen`` of ``table``'s version (nothing, for a screen that
        fetches nothing of its own, or has nothing new to fetch)."""

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

    def remove(self, screen: Screen) -> bool:
        """Stop writing to ``screen``; True if its response can be ended cleanly (nothing of
        it is left half-written)."""
        with self._lock:
            screens = self._screens.get(screen.code, [])
            if screen in screens:
                screens.remove(screen)
        with screen.writing:  # not while the fan-out is writing to it
            screen.ended.set()
            clean = not screen.outbox
        with contextlib.suppress(OSError):  # gone already
            screen.sock.setblocking(True)
        self.broker.poke()
        return clean

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
        """Stop the thread now, whatever screens it has, and end their streams: each
        stream's request then ends its response (cleanly, unless an update was left half
        written)."""
        with self._lock:
            self._stopped = True
        self.broker.poke()
        if self.thread is not None:
            self.thread.join(5)
        with self._lock:
            screens = [screen for listed in self._screens.values() for screen in listed]
        for screen in screens:
            with screen.writing:
                screen.ended.set()
                # Nothing more will be read on this connection: the server closes it once the
                # response has ended, rather than keeping it alive for another request.
                with contextlib.suppress(OSError):
                    screen.sock.shutdown(socket.SHUT_RD)

    def _run(self) -> None:
        while True:
            news = self.broker.news()
            with self._lock:
                for screens in self._screens.values():  # gone (their requests remove them too)
                    screens[:] = [screen for screen in screens if not screen.ended.is_set()]
                tables = {code: list(s) for code, s in self._screens.items() if s}
                if self._stopped or not tables:
                    self._stopped = True
                    return
            try:
                with self._context():
                    timeout, real_limit = self._round(tables)
            except Exception:  # one bad round must not end every screen's updates
                log.exception("live fan-out: a round failed")
                timeout, real_limit = HEARTBEAT, 1.0
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
                # Every update is worked out (every kind of screen rendered) before the first
                # is written: a screen that is told of a change fetches its own part at once,
                # and those requests would hold up the renders still to do.
                updates = [self._glue.update(screen, table) for screen in ready]
                for screen, update in zip(ready, updates, strict=True):
                    screen.write(update, now)
                    screen.version = table.version
            told = self.broker.told_version(code)
            for screen in screens:
                if screen.told < told <= screen.version:
                    table = table or self._glue.snapshot(code, released)
                    screen.write(self._glue.tell(screen, table), now)
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
                    screen.flush(now)
                    real_limit = RETRY
                elif now - screen.last_write >= HEARTBEAT:
                    screen.write(b": heartbeat\n\n", now)
                timeout = min(timeout, max(0.0, screen.last_write + HEARTBEAT - now))
        return timeout, real_limit
