"""How ``montones serve`` serves the app: gunicorn's gevent worker where gunicorn runs, gevent's
``pywsgi`` where it cannot (Windows, or ``--server portable``), and the little the two lack.

Both are gevent's: every connection is a greenlet, so a live stream blocked between two updates
(a generator, :mod:`montones.web.stream`) or a guest's half-sent request holds no OS thread.
The servers parse HTTP, keep connections alive and write every answer; what is here is glue:

- :func:`patch` makes the standard library cooperative. It must come before anything else of
  the serving process is imported: a ``threading`` lock made before it stays a real lock, which
  a greenlet that waits on it holds for the whole process (a deadlock), and psycopg picks a
  blocking wait when it is first imported. :func:`app_to_serve` refuses to run unpatched.
- The head of a request has ``KEEPALIVE`` seconds to come whole, on both servers (gunicorn's
  gevent worker gives its keep-alive wait and the head one deadline; :class:`Handler` does the
  same), and the body is read whole before the app runs, within ``BODY_SECONDS`` and at most
  ``BODY_MAX`` bytes (:func:`whole_body`): a guest who sends half a request is dropped.
- ``pywsgi``'s own parser takes what gunicorn's refuses (a bare CR or a NUL in a header, space
  before a colon, a folded line, a Content-Length of "+5", a lower-case method); :class:`Handler`
  first has the head read by h11, a strict parser, and refuses what h11 or gunicorn refuses.
- ``TCP_NODELAY`` on every connection: without it a small answer written in two sends waits
  for the client's delayed ACK (Nagle's algorithm; docs/performance.md, "Serving"). gunicorn
  sets it on its listener, whose connections inherit it; :class:`Handler` on each connection.
- SIGTERM (and Ctrl-C) end every live stream cleanly at once (the live channel's ``close``);
  the server then stops within ``GRACE`` seconds.

SQLite calls and template renders never yield to other greenlets: each is short, and the writes
of this process take turns on a gevent-aware lock before SQLite's own (montones/data/store.py),
so no greenlet ever waits in SQLite's busy handler, which would stall every other.
"""

from __future__ import annotations

import io
import ipaddress
import re
import signal
import socket
import sys
import warnings
from http import HTTPStatus

KEEPALIVE = 8  # seconds: the head's deadline, and how long an idle connection is kept
BODY_SECONDS = 8  # the body's deadline, from when the app asks for it
BODY_MAX = 64 * 1024  # bytes: the app's forms are a few hundred
# Connections a process serves at once (gunicorn's worker_connections, pywsgi's pool): a
# thousand open screens and the requests beside them, if the open-file limit allows. Past it a
# new connection waits in the listener's backlog: accept() is never called to fail.
CONNECTIONS = 4000
RESERVE = 64  # open files kept for the rest: the database, the listener, logs, the hub
SCREEN_CONNECTIONS = 2  # a screen's stream, and a kept-alive connection for its taps
# Connections from one client address at once: a phone's browser opens six at most besides its
# stream, a laptop with a TV and a host page a few more. Past it, a new one is closed at once;
# the host's own machine (a loopback address) is not counted.
PER_ADDRESS = 48
HEAD_MAX = 64 * 1024  # bytes of request line and headers (pywsgi; gunicorn has its own limits)
GRACE = 2  # seconds a stopping server gives the requests under way
# Requests refused before the app (a head no server takes: random bytes, TLS, a bad header)
# each write a line to the host's console: ``REFUSALS_SHOWN`` of them in any
# ``REFUSALS_WINDOW`` seconds are written as they come, the rest told in one line at its end.
REFUSALS_SHOWN = 5
REFUSALS_WINDOW = 60.0


def raise_descriptor_limit() -> tuple[int, int | None]:
    """Raise this process's open-file limit to what the system allows (a common default is
    1,024, macOS's 256: a few hundred screens); return the connections a process then serves
    at once, and the limit (None where there is none to read: Windows)."""
    try:
        import resource
    except ImportError:
        return CONNECTIONS, None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # macOS reports no hard limit but refuses more than its kernel's OPEN_MAX (10,240).
    for wanted in (hard, 10240):
        if wanted == resource.RLIM_INFINITY or wanted <= soft:
            continue
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            break
        except (ValueError, OSError):
            continue
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return max(SCREEN_CONNECTIONS, min(CONNECTIONS, limit - RESERVE)), limit


class Addresses:
    """The connections open from each client address, up to ``PER_ADDRESS`` each."""

    def __init__(self, most: int = PER_ADDRESS):
        self.most = most
        self.open: dict[str, int] = {}

    def admit(self, address) -> str | None:
        """The address to give back when the connection ends (see :meth:`release`); None if
        it is refused."""
        host = address[0] if isinstance(address, tuple) else ""
        if _loopback(host):
            return ""
        if self.open.get(host, 0) >= self.most:
            return None
        self.open[host] = self.open.get(host, 0) + 1
        return host

    def release(self, host: str) -> None:
        if host:
            self.open[host] -= 1
            if not self.open[host]:
                del self.open[host]


class Refusals:
    """The lines of refused requests a server writes, bounded: a flood of them is told in one
    line a window, not one line each."""

    def __init__(self, write, shown: int = REFUSALS_SHOWN, window: float = REFUSALS_WINDOW):
        self.write, self.shown, self.window = write, shown, window
        self.started = -window
        self.written = 0
        self.held: dict[str, int] = {}  # refusals not written this window, by address

    def admit(self, address: str) -> bool:
        """Whether the line of a refusal of ``address``'s is written now."""
        import time

        import gevent

        now = time.monotonic()
        if now - self.started >= self.window:
            self.started, self.written = now, 0
        if self.written < self.shown:
            self.written += 1
            return True
        if not self.held:
            gevent.spawn_later(self.started + self.window - now, self._summary)
        self.held[address] = self.held.get(address, 0) + 1
        return False

    def _summary(self) -> None:
        held, self.held = self.held, {}
        most = max(held, key=held.get)
        self.write(
            f"{sum(held.values())} more requests refused in {self.window:.0f} s, "
            f"from {len(held)} address(es), most from {most} ({held[most]})"
        )


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _admitted(addresses: Addresses, sock, address, serve) -> None:
    """Serve one connection unless its address has too many open: then close it at once."""
    host = addresses.admit(address)
    if host is None:
        sock.close()
        return
    try:
        serve()
    finally:
        addresses.release(host)


# Modules that make locks or pick their waits as they are imported: each must come after patch.
# (``threading`` itself may come before, as a site's .pth file can import it, so long as no
# thread has started: gevent patches its module.)
EARLY = ("flask", "sqlalchemy", "psycopg", "gunicorn", "montones.factory")


def patch() -> None:
    """Make the standard library cooperative (gevent's monkey-patching): first thing, or not at
    all."""
    early = [name for name in EARLY if sys.modules.get(name) is not None]
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        early.append("a thread")
    if early:
        raise RuntimeError(f"montones serve: imported before gevent could patch: {early}")
    from gevent import monkey

    # Not subprocess: the app starts none, and gevent's needs fcntl, which Windows lacks.
    monkey.patch_all(subprocess=False)


def check_patched() -> None:
    """Refuse to serve from a process that gevent has not patched, or patched too late."""
    from gevent import monkey

    unpatched = [
        m for m in ("socket", "threading", "select", "time") if not monkey.is_module_patched(m)
    ]
    if unpatched:
        raise RuntimeError(f"montones serve: gevent has not patched {', '.join(unpatched)}")
    waiting = sys.modules.get("psycopg.waiting")
    if waiting is not None and waiting.wait is getattr(waiting, "wait_c", None):
        raise RuntimeError("montones serve: psycopg was imported before gevent patched select")


def app_to_serve(connections: int = CONNECTIONS):
    """The app as both servers run it: checked patched, its bodies read whole first, and its
    live streams bounded by the ``connections`` a process serves (montones/web/limits.py)."""
    check_patched()
    from montones import create_app

    app = create_app({"STREAMS_MOST": connections // SCREEN_CONNECTIONS})
    app.wsgi_app = whole_body(app.wsgi_app)
    # The tables' clocks and computer players tick from now on, whether or not a screen is open.
    app.extensions["channel"].scheduler.start()
    return app


def whole_body(wsgi_app):
    """``wsgi_app`` given the request's body read whole: 413 past ``BODY_MAX`` bytes, 408 if it
    does not come within ``BODY_SECONDS``, 400 if its connection closes first. Neither server bounds a body's time or its size: a
    form's view reading a body that never comes would wait forever.

    It also gives the app ``environ["montones.on_reader_gone"]``: a stream, which writes only
    now and then, learns that its reader closed the connection at once, not at its next
    heartbeat; and ``environ["montones.cut"]``, which closes the connection under a stream
    whose reader takes nothing (montones/web/stream.py and montones/live/scheduler.py)."""
    import gevent

    def app(environ, start_response):
        length = environ.get("CONTENT_LENGTH") or "0"
        if length.isascii() and length.isdigit() and int(length) > BODY_MAX:
            return _refuse(start_response, 413)
        try:
            with gevent.Timeout(BODY_SECONDS):
                body = environ["wsgi.input"].read(BODY_MAX + 1)
        except gevent.Timeout:
            return _refuse(start_response, 408)
        except OSError:  # the connection closed before the body's end (pywsgi, gunicorn)
            return _refuse(start_response, 400)
        if len(body) > BODY_MAX:
            return _refuse(start_response, 413)
        if length.isascii() and length.isdigit() and len(body) < int(length):
            # gunicorn gives what came of a body cut short, pywsgi raises: neither is the form.
            return _refuse(start_response, 400)
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        sock = environ.get("gunicorn.socket") or environ.get("montones.socket")
        if sock is not None:
            environ["montones.on_reader_gone"] = lambda callback: _on_close(sock, callback)
            environ["montones.cut"] = lambda: _cut(sock)
        return wsgi_app(environ, start_response)

    return app


def _cut(sock) -> None:
    """Close ``sock`` under whoever writes to it: the write fails, and the server lets go."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _on_close(sock, callback):
    """Call ``callback`` once the client closes its end of ``sock``; return what stops the
    watch. A client that sends more is not gone (the next write finds out if it is)."""
    import gevent
    from gevent.socket import wait_read

    def watch():
        try:
            wait_read(sock.fileno())
            if sock.recv(1, socket.MSG_PEEK):
                return
        except OSError:
            pass
        callback()

    return gevent.spawn(watch).kill


def _refusal_answer(code: int) -> tuple[str, list[tuple[str, str]], bytes]:
    """A refusal's status, headers and body: its status in words, and the connection closed
    (what is left of the request is not wanted)."""
    status = f"{code} {HTTPStatus(code).phrase}"
    text = f"{status}\n".encode()
    headers = [
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Length", str(len(text))),
        ("Connection", "close"),
    ]
    return status, headers, text


def _refuse(start_response, code: int) -> list[bytes]:
    status, headers, text = _refusal_answer(code)
    start_response(status, headers)
    return [text]


def _close_streams(app) -> None:
    app.extensions["channel"].close()


# --- gunicorn --------------------------------------------------------------------------------


def gunicorn_worker():
    """gunicorn's gevent worker, ending the live streams when it is told to stop."""
    import gevent
    from gunicorn.workers.ggevent import GeventWorker

    class Worker(GeventWorker):
        addresses = Addresses()

        def patch(self):
            # The process was patched first (patch()); gunicorn patches again, with subprocess,
            # and gevent warns that the two calls differ.
            from gevent.monkey import MonkeyPatchWarning

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MonkeyPatchWarning)
                super().patch()

        def init_process(self):
            refusals = Refusals(self.log.warning)
            self.log.error_log.addFilter(lambda record: _written(refusals, record.getMessage()))
            super().init_process()

        def handle(self, listener, client, addr):
            _admitted(
                self.addresses,
                client,
                addr,
                lambda: super(Worker, self).handle(listener, client, addr),
            )

        def handle_exit(self, sig, frame):  # SIGTERM
            gevent.spawn(_close_streams, self.wsgi)
            super().handle_exit(sig, frame)

        def handle_quit(self, sig, frame):  # SIGINT, SIGQUIT: Ctrl-C in the arbiter
            gevent.spawn(_close_streams, self.wsgi)
            super().handle_quit(sig, frame)

    return Worker


_GUNICORN_REFUSAL = re.compile(r"Invalid request from ip=(\S+):")


def _written(refusals: Refusals, line: str) -> bool:
    """Whether gunicorn's log writes ``line``: one of a refused request's only if
    ``refusals`` admits it."""
    refused = _GUNICORN_REFUSAL.match(line)
    return refused is None or refusals.admit(refused.group(1))


def run_gunicorn(host: str, port: int, workers: int, connections: int = CONNECTIONS) -> None:
    from gunicorn.app.base import BaseApplication

    class Gunicorn(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("worker_class", "montones.serving.Worker")
            self.cfg.set("workers", workers)
            self.cfg.set("worker_connections", connections)
            self.cfg.set("keepalive", KEEPALIVE)
            self.cfg.set("graceful_timeout", GRACE)
            # gunicorn 27's control socket is one path per user: two nights on one machine (or
            # two test servers) would take it from each other, and nothing here uses it.
            if "control_socket_disable" in self.cfg.settings:
                self.cfg.set("control_socket_disable", True)

        def load(self):
            return app_to_serve(connections)

    Gunicorn().run()


def __getattr__(name: str):
    # gunicorn finds its worker class by name; it is made on demand, since gunicorn does not
    # import on Windows.
    if name == "Worker":
        return gunicorn_worker()
    raise AttributeError(name)


# --- pywsgi ----------------------------------------------------------------------------------


def _handler_class():
    import gevent
    from gevent import pywsgi

    class Handler(pywsgi.WSGIHandler):
        """pywsgi's handler, as strict as gunicorn about a request's head and as quick to drop
        one that does not come."""

        def handle(self):
            try:
                self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
            super().handle()

        def handle_one_request(self):
            self._deadline = gevent.Timeout.start_new(KEEPALIVE, TimeoutError("the head is late"))
            try:
                return super().handle_one_request()
            finally:
                self._deadline.close()

        def read_request(self, raw_requestline):
            while raw_requestline in ("\r\n", "\n"):  # blank lines before a request: skipped
                raw_requestline = self.rfile.readline(pywsgi.MAX_REQUEST_LINE).decode("latin-1")
            if not _REQUEST_LINE.fullmatch(raw_requestline):  # random bytes, TLS: at once
                self._refusal = 400
                raise pywsgi._InvalidClientRequest(f"not a request line: {raw_requestline[:80]!r}")
            head = raw_requestline.encode("latin-1")
            while head.endswith(b"\n") and len(head) <= HEAD_MAX:
                line = self.rfile.readline(HEAD_MAX)
                head += line
                if line in (b"\r\n", b"\n", b""):
                    break
            self._refusal = _refusal(head)
            if self._refusal is not None:
                raise pywsgi._InvalidClientRequest(f"refused as gunicorn refuses it: {head[:80]!r}")
            self._deadline.close()
            self._head = io.BytesIO(head.split(b"\n", 1)[1])
            return super().read_request(raw_requestline)

        def MessageClass(self, fp, *args):  # noqa: N802 (pywsgi's name)
            return super().MessageClass(self._head, *args)

        def get_environ(self):
            if self.path.startswith(("http://", "https://")):  # the absolute form: its path
                self.path = "/" + self.path.split("://", 1)[1].partition("/")[2]
            environ = super().get_environ()
            environ["montones.socket"] = self.socket  # as gunicorn's "gunicorn.socket"
            return environ

        def finalize_headers(self):
            super().finalize_headers()
            if self.command == "HEAD":  # the head alone: not even a chunked body's end
                self.response_use_chunked = False

        def _handle_client_error(self, ex):
            if isinstance(ex, TimeoutError):
                return None  # dropped, as gunicorn drops it
            refusal = getattr(self, "_refusal", None)
            if refusal is not None and refusal != 400:
                return (str(refusal), _simple(refusal))
            if not self.server.refusals.admit(str(self.client_address[0])):
                return ("400", pywsgi._BAD_REQUEST_RESPONSE)
            return super()._handle_client_error(ex)

    return Handler


# What gunicorn takes for a request line: an upper-case method, a target in origin, absolute or
# asterisk form, HTTP/1.x.
_REQUEST_LINE = re.compile(r"[A-Z]+ (?:/|\*|https?://)[!-~]* HTTP/1\.[0-9]\r?\n")


def _refusal(head: bytes) -> int | None:
    """The status that refuses a request's ``head`` (its request line and headers, raw), or
    None if gunicorn would take it: what h11, a strict parser, refuses, and besides what
    gunicorn refuses that h11 takes (a folded line; Transfer-Encoding beside Content-Length; a
    request line, a header or a count of headers past gunicorn's limits)."""
    import h11

    reader = h11.Connection(h11.SERVER, max_incomplete_event_size=HEAD_MAX)
    reader.receive_data(head)
    try:
        request = reader.next_event()
    except h11.RemoteProtocolError as e:
        return e.error_status_hint
    if not isinstance(request, h11.Request):  # cut short, or past HEAD_MAX
        return 431 if len(head) > HEAD_MAX else 400
    names = {name for name, _value in request.headers}
    lines = head.split(b"\n")
    folded = any(line[:1] in (b" ", b"\t") for line in lines[1:])
    if folded or {b"transfer-encoding", b"content-length"} <= names:
        return 400
    # gunicorn's limits, as its defaults set them.
    if len(lines[0]) > 4094:
        return 414
    if len(request.headers) > 100 or any(len(line) > 8190 for line in lines[1:]):
        return 431
    return None


def _simple(code: int) -> bytes:
    """The same refusal as the bytes pywsgi writes for a head it refused."""
    status, headers, text = _refusal_answer(code)
    lines = [f"HTTP/1.1 {status}", *(f"{name}: {value}" for name, value in headers), "", ""]
    return "\r\n".join(lines).encode() + text


def run_pywsgi(host: str, port: int, connections: int = CONNECTIONS) -> None:
    """Serve on ``host:port`` until Ctrl-C or SIGTERM: the same on Windows, macOS and Linux."""
    import gevent
    from gevent import pywsgi
    from gevent.pool import Pool

    app = app_to_serve(connections)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.create_server((host, port), family=family, backlog=1024)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    addresses = Addresses()

    class Server(pywsgi.WSGIServer):
        def handle(self, sock, address):
            _admitted(addresses, sock, address, lambda: super(Server, self).handle(sock, address))

    server = Server(
        listener, app, handler_class=_handler_class(), spawn=Pool(connections), log=None
    )
    server.refusals = Refusals(lambda line: print(line, file=sys.stderr, flush=True))

    def stop():
        _close_streams(app)
        server.stop(timeout=GRACE)

    def stopping(*_args):
        gevent.spawn(stop)

    # SIGINT is Ctrl-C everywhere; SIGTERM is how POSIX stops a service; SIGBREAK is Windows'
    # Ctrl-Break.
    for name in ("SIGINT", "SIGTERM", "SIGBREAK"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), stopping)
    server.serve_forever()
