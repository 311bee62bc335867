"""The HTTP server: one thread reads and writes every connection, a few threads run the app.

Pure Python and standard library only (``selectors``, ``socket``, ``threading``), so it runs on
any laptop, Windows included. It is used two ways: run directly (:func:`serve`, ``montones serve
--server portable``, the default where gunicorn cannot be imported), and as gunicorn's worker
class (:mod:`montones.worker`), where gunicorn keeps its arbiter, settings and signals.

- The I/O thread (:meth:`Server.run`) accepts connections and reads each request's head and body
  without a thread of the app's, within limits: the head at most ``HEAD_MAX`` bytes, the body
  ``BODY_MAX``, and the whole request within ``REQUEST_TIMEOUT`` of its first byte (of the
  connection, for a new one), or the connection is dropped. A guest who sends half a request and
  stops holds a socket and a few bytes for a few seconds, never a thread.
- Only a complete request goes to the app, on one of ``threads`` threads. The answer is written
  without waiting on the reader: what its socket does not take at once waits in the
  connection's buffer for the I/O thread to write when it can (a thread producing a long body
  waits only while more than ``OUT_MAX`` bytes are unsent).
- An idle kept-alive connection costs a socket in the selector, no thread, for ``keepalive``
  seconds.
- A live stream costs no thread at all: the stream view calls ``environ["montones.detach"]``
  with a function; once the response's head and first bytes are on the wire the server stops
  serving the connection and calls that function with the socket, which the live channel's
  fan-out thread (:mod:`montones.fanout`) then owns until the stream ends.
"""

from __future__ import annotations

import collections
import contextlib
import email.utils
import gc
import io
import logging
import queue
import selectors
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from urllib.parse import unquote_to_bytes

# Threads that run the app. A stream holds none, so these only bound the requests the app works
# on at once; the rest wait, complete, in a queue. On SQLite the writes take turns (service/
# store.py), and a fast table's punters each keep a tap waiting for that turn: 32 threads could
# all be waiting there while the reads queued behind them (docs/performance.md, "Serving").
THREADS = 64
# How long an idle kept-alive connection stays open. A phone fetches now and then (after its own
# taps); with gunicorn's 2 s, its next fetch often met the server closing the connection
# ("Server disconnected"). An idle connection waits in the selector, not in a thread.
KEEPALIVE = 75
# A request must be whole (head and body) this long after its first byte, or after the
# connection opened: a guest who sends half a request and stops is dropped, not waited for.
REQUEST_TIMEOUT = 8.0
# An answer's bytes must keep moving: a reader that takes none of them for this long is dropped.
WRITE_TIMEOUT = 30.0
HEAD_MAX = 64 * 1024  # request line and headers
BODY_MAX = 1024 * 1024  # the app's forms are a few hundred bytes
OUT_MAX = 256 * 1024  # unsent answer bytes a thread may leave before it waits for the reader
# Open connections (streams handed over are no longer counted). Past it the longest-idle
# kept-alive connection is closed, or if none is idle the new one. Windows' select() watches at
# most 512 sockets.
MAX_CONNECTIONS = 500 if sys.platform == "win32" else 4000
SWEEP = 0.25  # seconds between two checks of the deadlines and of whether to stop

log = logging.getLogger(__name__)

_REASONS = {
    400: "Bad Request",
    408: "Request Timeout",
    413: "Content Too Large",
    414: "URI Too Long",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    501: "Not Implemented",
    503: "Service Unavailable",
}
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "upgrade"}


class BadRequest(Exception):
    def __init__(self, status: int):
        self.status = status


class Conn:
    """One client connection, as long as the server serves it."""

    __slots__ = (
        "sock",
        "peer",
        "inbuf",
        "out",
        "lock",
        "drained",
        "events",
        "busy",
        "deadline",
        "idle",
        "keep",
        "finished",
        "broken",
        "closed",
        "detach",
        "last_write",
    )

    def __init__(self, sock: socket.socket, peer, now: float):
        self.sock = sock
        self.peer = peer
        self.inbuf = bytearray()
        self.out = bytearray()  # answer bytes the socket has not taken yet (under lock)
        self.lock = threading.Lock()
        self.drained = threading.Condition(self.lock)  # notified as ``out`` empties
        self.events = 0  # what the selector watches it for
        self.busy = False  # a request of it is with the app (or its answer is being written)
        self.deadline = now + REQUEST_TIMEOUT  # when it is dropped if nothing else happens
        self.idle = True  # between two requests (no byte of the next one yet)
        self.keep = True  # kept alive after this answer
        self.finished = False  # the app is done with its request: write the rest, then go on
        self.broken = False  # a write failed: the reader has gone
        self.closed = False
        self.detach: Callable | None = None  # who takes the socket once the answer is out
        self.last_write = now

    def send(self) -> None:
        """Send what the socket takes of ``out`` now (under ``lock``)."""
        if self.broken or self.closed or not self.out:
            return
        try:
            sent = self.sock.send(self.out)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self.broken = True
            self.drained.notify_all()
            return
        del self.out[:sent]
        self.last_write = time.monotonic()
        if len(self.out) < OUT_MAX // 2:
            self.drained.notify_all()


class Server:
    """Serves ``app`` (WSGI) on ``listeners`` (bound, listening sockets) until :meth:`stop`.

    ``on_stop`` is called once when it stops (the live streams end there); ``tick`` at every
    sweep of the I/O thread (gunicorn's heartbeat)."""

    def __init__(
        self,
        app,
        listeners: list[socket.socket],
        threads: int = THREADS,
        keepalive: float = KEEPALIVE,
        multiprocess: bool = False,
        on_stop: Callable[[], None] | None = None,
        tick: Callable[[], None] | None = None,
    ):
        self.app = app
        self.listeners = listeners
        self.keepalive = keepalive
        self.multiprocess = multiprocess
        self.on_stop = on_stop
        self.tick = tick
        self.threads = threads
        self.selector = selectors.DefaultSelector()
        self.conns: set[Conn] = set()
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.posted: collections.deque = collections.deque()  # (conn, what) from app threads
        self._waker, self._wakee = socket.socketpair()
        self._waker.setblocking(False)
        self._wakee.setblocking(False)
        self._stopping = False
        self._workers: list[threading.Thread] = []
        self._date = (0, "")

    # --- from any thread --------------------------------------------------------------------

    def stop(self) -> None:
        """Stop serving: safe from a signal handler and from any thread."""
        self._stopping = True
        self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # full already: it wakes anyway
            self._waker.send(b"\0")

    def _post(self, conn: Conn, what: str) -> None:
        self.posted.append((conn, what))
        self._wake()

    # --- the I/O thread ---------------------------------------------------------------------

    def run(self) -> None:
        # What the app made as it loaded lives as long as the process: the collector leaves it
        # out of every later collection, once what is garbage already has been collected.
        gc.collect()
        gc.freeze()
        for listener in self.listeners:
            listener.setblocking(False)
            self.selector.register(listener, selectors.EVENT_READ, None)
        self.selector.register(self._wakee, selectors.EVENT_READ, None)
        for n in range(self.threads):
            worker = threading.Thread(target=self._work, name=f"montones-app-{n}", daemon=True)
            worker.start()
            self._workers.append(worker)
        next_sweep = 0.0
        try:
            while not self._stopping:
                for key, mask in self.selector.select(SWEEP):
                    if key.data is not None:
                        self._ready(key.data, mask)
                    elif key.fileobj is self._wakee:
                        with contextlib.suppress(OSError):
                            self._wakee.recv(4096)
                    else:
                        self._accept(key.fileobj)
                self._take_posted()
                now = time.monotonic()
                if now >= next_sweep:
                    next_sweep = now + SWEEP
                    self._sweep(now)
                    if self.tick is not None:
                        self.tick()
        finally:
            self._shut_down()

    def _accept(self, listener: socket.socket) -> None:
        for _ in range(64):  # a few at a time: the connections already open come first too
            try:
                sock, peer = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:  # out of file descriptors, a connection reset in the queue
                log.warning("accept failed: %s", e)
                return
            if len(self.conns) >= MAX_CONNECTIONS and not self._evict_idle():
                sock.close()
                continue
            sock.setblocking(False)
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = Conn(sock, peer, time.monotonic())
            self.conns.add(conn)
            self._watch(conn, selectors.EVENT_READ)

    def _evict_idle(self) -> bool:
        idle = [c for c in self.conns if c.idle and not c.busy]
        if not idle:
            return False
        self._close(min(idle, key=lambda c: c.deadline))
        return True

    def _watch(self, conn: Conn, events: int) -> None:
        if conn.closed or events == conn.events:
            return
        if not conn.events:
            self.selector.register(conn.sock, events, conn)
        elif not events:
            self.selector.unregister(conn.sock)
        else:
            self.selector.modify(conn.sock, events, conn)
        conn.events = events

    def _ready(self, conn: Conn, mask: int) -> None:
        if mask & selectors.EVENT_WRITE:
            with conn.lock:
                conn.send()
            self._after_write(conn)
        if mask & selectors.EVENT_READ and not conn.busy and not conn.closed:
            try:
                data = conn.sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if not data:
                self._close(conn)
                return
            if conn.idle:
                conn.idle = False
                conn.deadline = time.monotonic() + REQUEST_TIMEOUT
            conn.inbuf += data
            self._parse(conn)

    def _parse(self, conn: Conn) -> None:
        """Start the request in ``conn.inbuf`` if it is whole; refuse it if it breaks a limit."""
        try:
            request = _request(conn.inbuf)
        except BadRequest as e:
            self._refuse(conn, e.status)
            return
        if request is None:
            return
        conn.busy, conn.finished = True, False
        self._watch(conn, 0)
        self.jobs.put((conn, request))

    def _refuse(self, conn: Conn, status: int) -> None:
        """Answer ``status`` and close: nothing more is read on this connection."""
        conn.busy, conn.keep, conn.finished = True, False, True
        conn.inbuf.clear()
        with conn.lock:
            conn.out += _simple(status)
            conn.send()
        self._after_write(conn)

    def _take_posted(self) -> None:
        while self.posted:
            conn, what = self.posted.popleft()
            if what == "done":
                conn.finished = True
            self._after_write(conn)

    def _after_write(self, conn: Conn) -> None:
        """Watch for the socket to take more, or go on once the answer is all out."""
        if conn.closed:
            return
        with conn.lock:
            pending, broken = bool(conn.out), conn.broken
        if broken:
            self._close(conn)
        elif pending:
            self._watch(conn, selectors.EVENT_WRITE)
        elif not conn.finished:
            self._watch(conn, 0)  # the app is still at it: it posts again
        elif conn.detach is not None:
            self._hand_over(conn)
        elif not conn.keep or self._stopping:
            self._close(conn)
        else:
            conn.busy, conn.idle = False, True
            conn.deadline = time.monotonic() + self.keepalive
            self._watch(conn, selectors.EVENT_READ)
            if conn.inbuf:  # a request sent before the answer to the last one
                conn.idle = False
                conn.deadline = time.monotonic() + REQUEST_TIMEOUT
                self._parse(conn)

    def _hand_over(self, conn: Conn) -> None:
        self._watch(conn, 0)
        self.conns.discard(conn)
        conn.closed = True  # the server's part in it: its socket is the taker's now
        take, conn.detach = conn.detach, None
        try:
            take(conn.sock)
        except Exception:
            log.exception("a connection could not be handed over")
            with contextlib.suppress(OSError):
                conn.sock.close()

    def _sweep(self, now: float) -> None:
        for conn in list(self.conns):
            if conn.busy:
                with conn.lock:
                    stuck = conn.out and now - conn.last_write > WRITE_TIMEOUT
                    if stuck:
                        conn.broken = True
                        conn.drained.notify_all()
                if stuck:
                    self._close(conn)
            elif now >= conn.deadline:
                if not conn.idle:  # half a request: say so, as far as the socket takes it
                    with contextlib.suppress(OSError):
                        conn.sock.send(_simple(408))
                self._close(conn)

    def _close(self, conn: Conn) -> None:
        if conn.closed:
            return
        self._watch(conn, 0)
        with conn.lock:
            conn.closed = True
            conn.drained.notify_all()
        self.conns.discard(conn)
        with contextlib.suppress(OSError):
            conn.sock.close()

    def _shut_down(self) -> None:
        """Stop accepting, end the streams, let the requests under way finish (a few seconds
        at most), then close every connection."""
        for listener in self.listeners:
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(listener)
            with contextlib.suppress(OSError):
                listener.close()
        if self.on_stop is not None:
            try:
                self.on_stop()
            except Exception:
                log.exception("stopping failed")
        for conn in list(self.conns):
            if not conn.busy:
                self._close(conn)
        ends = time.monotonic() + 2.0
        while any(c.busy for c in self.conns) and time.monotonic() < ends:
            for key, mask in self.selector.select(0.05):
                if key.data is not None:
                    self._ready(key.data, mask)
                elif key.fileobj is self._wakee:
                    with contextlib.suppress(OSError):
                        self._wakee.recv(4096)
            self._take_posted()
        for conn in list(self.conns):
            self._close(conn)
        for _ in self._workers:
            self.jobs.put(None)
        self.selector.close()

    # --- the app's threads ------------------------------------------------------------------

    def _work(self) -> None:
        while (job := self.jobs.get()) is not None:
            conn, request = job
            try:
                self._answer(conn, request)
            except Exception:
                log.exception("serving %s %s failed", request.method, request.target)
                with conn.lock:
                    conn.broken = True
            self._post(conn, "done")

    def _answer(self, conn: Conn, request: Request) -> None:
        head: list = []  # [status, headers] as start_response got them
        sent = [False]

        def start_response(status, headers, exc_info=None):
            if exc_info is not None and sent[0]:
                raise exc_info[1].with_traceback(exc_info[2])
            head[:] = [status, headers]
            return write

        def write(data: bytes) -> None:  # WSGI's legacy write(): sends at once, framed
            emit(data, more=True)

        framing = {"chunked": False, "length": None}

        def emit(data: bytes, more: bool) -> None:
            """Queue ``data`` (framed); ``more``: the body goes on after it."""
            if not sent[0]:
                sent[0] = True
                status, headers = head
                head_bytes, framing["chunked"] = self._head(
                    conn, request, status, headers, data, more
                )
                self._out(conn, head_bytes)
            if not data or request.method == "HEAD":
                return
            self._out(conn, b"%X\r\n%s\r\n" % (len(data), data) if framing["chunked"] else data)

        environ = self._environ(conn, request)
        try:
            body = self.app(environ, start_response)
        except Exception:
            log.exception("%s %s failed", request.method, request.target)
            conn.keep = False
            self._out(conn, _simple(500))
            return
        try:
            # A body of unknown length is sent as it comes (chunked): a Flask response that is
            # data has its Content-Length already.
            for chunk in body:
                if chunk:
                    emit(chunk, more=True)
                if conn.broken or conn.closed:
                    return
            if not head:
                raise RuntimeError("the app never called start_response")
            if not sent[0]:
                emit(b"", more=False)
            if framing["chunked"] and conn.detach is None:
                self._out(conn, b"0\r\n\r\n")
        except Exception:
            log.exception("%s %s failed", request.method, request.target)
            if not sent[0]:
                conn.keep = False
                conn.detach = None
                self._out(conn, _simple(500))
            else:  # half an answer: the reader must see it cut, not ended
                with conn.lock:
                    conn.broken = True
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()

    def _head(self, conn, request, status, headers, first: bytes, more: bool):
        """The answer's head, and whether its body goes chunked."""
        code = int(status[:3])
        out = [f"HTTP/1.1 {status}\r\n"]
        length = None
        for name, value in headers:
            lower = name.lower()
            if lower in _HOP_BY_HOP:
                if lower == "connection" and "close" in value.lower():
                    conn.keep = False
                continue
            if lower == "content-length":
                length = value
            out.append(f"{name}: {value}\r\n")
        now = int(time.time())
        if self._date[0] != now:
            self._date = (now, email.utils.formatdate(now, usegmt=True))
        out.append(f"Date: {self._date[1]}\r\n")
        chunked = False
        if code // 100 == 2 and conn.detach is not None:
            # A stream: it goes on after the server has handed its connection over.
            chunked = request.http11
            if length is not None:
                out = [line for line in out if not line.lower().startswith("content-length:")]
            take, conn.keep = conn.detach, False
            conn.detach = lambda sock: take(sock, chunked)
            out.append("Transfer-Encoding: chunked\r\n" if chunked else "")
            out.append("Connection: close\r\n\r\n")
            return "".join(out).encode("latin-1"), chunked
        conn.detach = None
        bodiless = code in (204, 304) or code < 200
        if length is None and not bodiless:
            if not more:
                out.append(f"Content-Length: {len(first)}\r\n")
            elif request.http11:
                chunked = True
                out.append("Transfer-Encoding: chunked\r\n")
            else:
                conn.keep = False  # HTTP/1.0: the body ends at the close
        if self._stopping:
            conn.keep = False
        if not conn.keep:
            out.append("Connection: close\r\n")
        elif not request.http11:
            out.append("Connection: keep-alive\r\n")
        out.append("\r\n")
        return "".join(out).encode("latin-1"), chunked

    def _out(self, conn: Conn, data: bytes) -> None:
        """Queue ``data`` for ``conn``, sending what the socket takes now. While more than
        ``OUT_MAX`` bytes of what came before are unsent, wait for the reader first: a long body
        made piece by piece is held back by its reader, while an answer made whole (any
        Flask answer with data) leaves its thread at once."""
        with conn.lock:
            ends = time.monotonic() + WRITE_TIMEOUT
            while len(conn.out) > OUT_MAX and not (conn.closed or conn.broken):
                if not conn.drained.wait(ends - time.monotonic()):
                    conn.broken = True
            if conn.closed or conn.broken:
                return
            conn.out += data
            conn.send()
            if conn.out:
                self._post(conn, "flush")

    def _environ(self, conn: Conn, request: Request) -> dict:
        host, port = self._address(conn)
        path, _, query = request.target.partition("?")
        if path.startswith(("http://", "https://")):  # absolute form
            path = "/" + path.split("://", 1)[1].partition("/")[2]
        environ = {
            "REQUEST_METHOD": request.method,
            "SCRIPT_NAME": "",
            "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
            "QUERY_STRING": query,
            "RAW_URI": request.target,
            "REQUEST_URI": request.target,
            "SERVER_NAME": host,
            "SERVER_PORT": str(port),
            "SERVER_PROTOCOL": request.version,
            "REMOTE_ADDR": conn.peer[0] if isinstance(conn.peer, tuple) else "",
            "REMOTE_PORT": str(conn.peer[1]) if isinstance(conn.peer, tuple) else "",
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(request.body),
            "wsgi.input_terminated": True,
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": self.multiprocess,
            "wsgi.run_once": False,
            "montones.detach": lambda take: setattr(conn, "detach", take),
        }
        for name, value in request.headers:
            if "_" in name:  # would pass for another header once its "-" become "_"
                continue
            key = name.upper().replace("-", "_")
            if key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
                environ[key] = value
                continue
            key = "HTTP_" + key
            if key in environ:
                environ[key] += ("; " if key == "HTTP_COOKIE" else ", ") + value
            else:
                environ[key] = value
        if request.body:
            environ["CONTENT_LENGTH"] = str(len(request.body))
        conn.keep = request.keep
        return environ

    def _address(self, conn: Conn) -> tuple[str, int]:
        try:
            name = conn.sock.getsockname()
            return str(name[0]), int(name[1])
        except (OSError, IndexError, TypeError):
            return "localhost", 80


class Request:
    __slots__ = ("method", "target", "version", "headers", "body", "keep", "http11")

    def __init__(self, method, target, version, headers, body, keep):
        self.method, self.target, self.version = method, target, version
        self.headers, self.body, self.keep = headers, body, keep
        self.http11 = version == "HTTP/1.1"


def _request(buf: bytearray) -> Request | None:
    """The first request in ``buf`` if it is all there (and taken out of it), else None."""
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        if len(buf) > HEAD_MAX:
            raise BadRequest(431)
        if buf.find(b"\r\n") < 0 and len(buf) > 8192:
            raise BadRequest(414)
        return None
    if end > HEAD_MAX:
        raise BadRequest(431)
    lines = bytes(buf[:end]).decode("latin-1").split("\r\n")
    while lines and not lines[0]:  # blank lines before a request are allowed
        lines.pop(0)
    if not lines:
        del buf[: end + 4]
        return None
    parts = lines[0].split(" ")
    if len(parts) != 3 or parts[2] not in ("HTTP/1.1", "HTTP/1.0") or not parts[1]:
        raise BadRequest(400)
    method, target, version = parts
    if len(target) > 8192:
        raise BadRequest(414)
    headers = []
    length = None
    keep = version == "HTTP/1.1"
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip() or " " in name or "\t" in name:
            raise BadRequest(400)  # folded lines and malformed names alike
        value = value.strip(" \t")
        lower = name.lower()
        if lower == "content-length":
            if not value.isdigit() or (length is not None and int(value) != length):
                raise BadRequest(400)
            length = int(value)
        elif lower == "transfer-encoding":
            raise BadRequest(501)  # no client of this app sends a chunked body
        elif lower == "connection":
            tokens = {t.strip().lower() for t in value.split(",")}
            keep = "keep-alive" in tokens if version == "HTTP/1.0" else "close" not in tokens
        headers.append((name, value))
    length = length or 0
    if length > BODY_MAX:
        raise BadRequest(413)
    if len(buf) < end + 4 + length:
        return None
    body = bytes(buf[end + 4 : end + 4 + length])
    del buf[: end + 4 + length]
    return Request(method, target, version, headers, body, keep)


def _simple(status: int) -> bytes:
    reason = _REASONS.get(status, "Error")
    text = f"{status} {reason}\n".encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(text)}\r\nConnection: close\r\n\r\n"
    ).encode() + text


def serve(
    app, host: str, port: int, threads: int = THREADS, on_stop: Callable | None = None
) -> None:
    """Run ``app`` on ``host:port`` in this thread until Ctrl-C or SIGTERM (the portable
    server: the same on Windows, macOS and Linux)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.create_server((host, port), family=family, backlog=1024)
    server = Server(app, [listener], threads=threads, on_stop=on_stop)

    def stopping(signum, frame):
        server.stop()

    # SIGINT is Ctrl-C everywhere; SIGTERM is how POSIX stops a service; SIGBREAK is Windows'
    # Ctrl-Break. select() on Windows is not interrupted by a signal: the loop's sweep sees it.
    for name in ("SIGINT", "SIGTERM", "SIGBREAK"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), stopping)
    server.run()
