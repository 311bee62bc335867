"""One thread that writes every live stream's updates, straight to the streams' sockets.

Under gunicorn a stream's request thread sends the first bytes through the WSGI response (so the
headers go out as usual), then hands its socket to the fan-out and sleeps until the stream ends.
When a table's version is released (see :mod:`montones.broker`) the fan-out thread alone works out
each screen's update and writes it: forty screens cost forty socket writes in one thread, not
forty threads woken to contend for the interpreter, which took longer than the writes.

Writes never block: what a socket does not take at once (a phone asleep, a slow network) waits
in that screen's own outbox, and the screen gets no newer update until its outbox is empty, then
only the newest; so a screen that stops reading holds up no other and keeps at most one update
waiting. The fan-out also sends the heartbeats and applies a table's clock when it falls due.
Where there is no raw socket (the Flask test client, another server) the streams keep their own
loop (:mod:`montones.views.stream`).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable

from montones import broker

HEARTBEAT = 15.0
RETRY = 0.05  # how soon to try an outbox again that a socket did not take
log = logging.getLogger(__name__)


class Screen:
    """One open stream, as the fan-out sees it."""

    def __init__(
        self, sock: socket.socket, chunked: bool, code: str, version: int, group=None, **about
    ):
        self.sock = sock
        self.group = group  # screens of one group get the same update (say, every phone)
        self.chunked = chunked  # HTTP/1.1: each write is one chunk of the response
        self.code = code
        self.version = version  # the newest version this screen was sent
        self.about = about  # what the update depends on: its kind, seat, language...
        self.outbox = bytearray()
        self.last_write = time.monotonic()
        self.ended = threading.Event()  # set when the fan-out stops writing to it
        self.writing = threading.Lock()  # held while bytes go to the socket

    def write(self, data: bytes) -> None:
        with self.writing:
            self.outbox += b"%X\r\n%s\r\n" % (len(data), data) if self.chunked else data
        self.flush()

    def flush(self) -> None:
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
            self.last_write = time.monotonic()


class Fanout:
    """The fan-out thread of this process.

    ``update(screen, code, version)`` gives the bytes that bring ``screen`` to the table's
    released ``version`` (and the version they show), ``deadline(code)`` when the table's clock
    next decides something, ``tick(code)`` applies it; all three run in this thread, inside
    ``context()`` (the app's).
    """

    def __init__(
        self,
        context: Callable,
        update: Callable[[Screen, str, int], tuple[bytes, int]],
        deadline: Callable[[str], float | None],
        tick: Callable[[str], None],
    ):
        self._context = context
        self._update = update
        self._deadline = deadline
        self._tick = tick
        self._screens: dict[str, list[Screen]] = {}
        self._deadlines: dict[str, float | None] = {}
        self._released: dict[str, int] = {}  # the version each table's clock was read at
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="montones-fanout", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop the thread (the process ending does too)."""
        self._closed = True
        broker.poke()
        self._thread.join(5)

    def add(self, screen: Screen) -> None:
        screen.sock.setblocking(False)
        with self._lock:
            self._screens.setdefault(screen.code, []).append(screen)
        broker.poke()

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
        return clean

    def _run(self) -> None:
        with self._context():
            while not self._closed:
                try:
                    self._round()
                except Exception:  # one bad round must not end every screen's updates
                    log.exception("live fan-out: a round failed")
                    time.sleep(0.1)

    def _round(self) -> None:
        pokes = broker.pokes()
        with self._lock:
            for screens in self._screens.values():  # gone (their threads will remove them too)
                screens[:] = [screen for screen in screens if not screen.ended.is_set()]
            tables = {code: list(s) for code, s in self._screens.items() if s}
        waiting = {}
        for code, screens in tables.items():
            waiting[code] = released = broker.released_version(code)
            # The biggest group first: the phones' update is ready while the TV's is rendered.
            sizes = Counter(screen.group for screen in screens)
            screens.sort(key=lambda screen: -sizes[screen.group])
            for screen in screens:
                if screen.version < released and not screen.outbox:
                    data, screen.version = self._update(screen, code, released)
                    if data:
                        screen.write(data)
            if self._released.get(code) != released:  # the table moved: its clock may have
                self._released[code] = released
                self._deadlines[code] = self._deadline(code)
        now, clock, timeout = time.monotonic(), time.time(), HEARTBEAT
        for code, screens in tables.items():
            due = self._deadlines.get(code)
            if due is not None and clock >= due:
                self._tick(code)  # a new version, sent next round
                self._deadlines[code] = due = self._deadline(code)
            if due is not None:
                timeout = min(timeout, max(0.2, due - clock + 0.1))
            for screen in screens:
                if screen.outbox:
                    screen.flush()
                    timeout = min(timeout, RETRY)
                elif now - screen.last_write >= HEARTBEAT:
                    screen.write(b": heartbeat\n\n")
                timeout = min(timeout, max(0.0, screen.last_write + HEARTBEAT - now))
        broker.wait_any(waiting, timeout, pokes)
