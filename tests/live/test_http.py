"""HTTP as a fuzzer or a hostile guest speaks it (RFC 9112), to each server ``montones serve``
runs. Every probe gets a correct answer or a 4xx (501 for a transfer coding the server does not
take): never a 5xx, a traceback, a dead worker or a hang, and the server answers the next request.

The probes are raw bytes on a socket: no client library would send most of them."""

import random
import socket
import subprocess
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.liveserver import (
    MONTONES_FORM,
    SERVERS,
    Phone,
    create_table,
    free_port,
    serving_pid,
    start_server,
    stop_server,
)

pytestmark = pytest.mark.timed

WAIT = 5.0  # seconds for a whole answer; each of these takes the server milliseconds

OK = {200}
REFUSED = set(range(400, 500))
NOT_TAKEN = REFUSED | {501}  # RFC 9112 §6.1: 501 for a transfer coding it does not understand
EITHER = OK | REFUSED  # the RFC lets the server take it or refuse it


@dataclass
class Live:
    port: int
    code: str
    process: subprocess.Popen
    pid: int  # the process that serves: gunicorn replaces a dead worker under a new pid
    log: Path
    logged: int = 0  # how much of the log has been checked for tracebacks


@pytest.fixture(scope="module", params=SERVERS)
def live(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    port = free_port()
    process = start_server(folder, port, server=request.param)
    try:
        code, host = create_table(f"http://127.0.0.1:{port}")
        host.close()
        yield Live(port, code, process, serving_pid(process), folder / "server.log")
    finally:
        stop_server(process)


@pytest.fixture(scope="module")
def guest(live):
    """A device's session cookie and a lobby form with its CSRF token: what it posts is read,
    not refused before its body is."""
    phone = Phone(f"http://127.0.0.1:{live.port}")
    phone.page("/")
    cookie = "; ".join(f"{name}={value}" for name, value in phone.http.cookies.items())
    form = urllib.parse.urlencode({**MONTONES_FORM, "csrf_token": phone.token}).encode()
    yield b"Cookie: " + cookie.encode(), form
    phone.close()


@pytest.fixture(autouse=True)
def still_serving(live):
    """After each probe the server answers a new connection, from the same process, and has
    logged no traceback."""
    yield
    Conn.close_all()
    conn = Conn(live.port)
    conn.send(request(b"GET /healthz HTTP/1.1"))
    assert conn.answer()[::2] == (200, b"ok")
    Conn.close_all()
    assert live.process.poll() is None
    assert serving_pid(live.process) == live.pid, "the worker died"
    log = live.log.read_bytes()
    new, live.logged = log[live.logged :], len(log)
    assert b"Traceback" not in new, new.decode(errors="replace")[-3000:]


class Conn:
    """One raw connection, reading whole answers framed as RFC 9112 §6.3 says."""

    opened: list[socket.socket] = []

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        self.opened.append(self.sock)
        self.data = b""
        self.ends = 0.0

    @classmethod
    def close_all(cls) -> None:
        for sock in cls.opened:
            sock.close()
        cls.opened.clear()

    def send(self, raw: bytes) -> None:
        try:
            self.sock.sendall(raw)
        except OSError:
            pass  # a server may answer (414, 431) and close before it has read it all

    def answer(self, head: bool = False) -> tuple[int, dict[str, str], bytes]:
        """The next answer's status, fields and body (none for an answer to HEAD)."""
        self.ends = time.monotonic() + WAIT
        try:
            return self._answer(head)
        except TimeoutError:
            pytest.fail(f"no whole answer within {WAIT} s; so far {self.data[:300]!r}")

    def closes(self) -> bool:
        """Whether the server closes the connection, sending nothing more, within WAIT."""
        self.ends = time.monotonic() + WAIT
        try:
            return not self._more() and not self.data
        except TimeoutError:
            return False

    def _answer(self, head):
        start = self._line()
        assert start.startswith(b"HTTP/1."), f"not an HTTP/1.x answer: {start[:100]!r}"
        status = int(start.split()[1])
        fields = {}
        while line := self._line():
            name, _, value = line.partition(b":")
            fields[name.decode("latin-1").lower()] = value.strip().decode("latin-1")
        if head or status < 200 or status in (204, 304):
            return status, fields, b""
        if "chunked" in fields.get("transfer-encoding", ""):
            body = b""
            while size := int(self._line().split(b";")[0], 16):
                body += self._take(size + 2)[:-2]
            while self._line():  # trailer fields
                pass
            return status, fields, body
        if "content-length" in fields:
            return status, fields, self._take(int(fields["content-length"]))
        while self._more():
            pass
        body, self.data = self.data, b""
        return status, fields, body

    def _more(self) -> bool:
        self.sock.settimeout(max(self.ends - time.monotonic(), 0.001))
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            data = b""
        self.data += data
        return bool(data)

    def _line(self) -> bytes:
        while b"\r\n" not in self.data:
            assert self._more(), f"closed mid-answer: {self.data[:300]!r}"
        line, self.data = self.data.split(b"\r\n", 1)
        return line

    def _take(self, n: int) -> bytes:
        while len(self.data) < n:
            assert self._more(), f"closed mid-body: {self.data[:300]!r}"
        taken, self.data = self.data[:n], self.data[n:]
        return taken


def request(line: bytes, *fields: bytes, body: bytes = b"") -> bytes:
    return b"\r\n".join([line, b"Host: 127.0.0.1", *fields]) + b"\r\n\r\n" + body


def get(*fields: bytes) -> bytes:
    return request(b"GET /healthz HTTP/1.1", *fields)


FORM = b"Content-Type: application/x-www-form-urlencoded"
CHUNKED = b"Transfer-Encoding: chunked"


def post(*fields: bytes) -> bytes:
    return request(b"POST /tables HTTP/1.1", FORM, *fields, body=b"name=x")


def one_chunk(size: bytes, data: bytes) -> bytes:
    """A chunked body: ``data`` in one chunk said to be ``size`` long, then the last chunk."""
    return size + b"\r\n" + data + b"\r\n0\r\n\r\n"


CHUNK = one_chunk(b"6", b"name=x")


# The start of a TLS ClientHello, as a browser sends to an https:// address. Its client random
# (bytes 0 to 31 here) holds an LF: a first "line" that is no request line.
TLS_CLIENT_HELLO = bytes.fromhex("16030100a5010000a10303") + bytes(range(32)) + bytes(130)

PROBES = [
    # Content-Length is 1*DIGIT; otherwise the body's end is unknown (§6.3): 400.
    ("content-length-letters", post(b"Content-Length: abc"), REFUSED),
    ("content-length-superscript-two-utf8", post("Content-Length: ²".encode()), REFUSED),
    ("content-length-superscript-two-byte", post(b"Content-Length: \xb2"), REFUSED),
    ("content-length-negative", post(b"Content-Length: -6"), REFUSED),
    ("content-length-plus-sign", post(b"Content-Length: +6"), REFUSED),
    ("content-length-huge", post(b"Content-Length: " + b"9" * 30), REFUSED),
    ("content-length-beyond-any-form", post(b"Content-Length: 1000000000"), REFUSED),
    ("content-length-conflicting", post(b"Content-Length: 6", b"Content-Length: 7"), REFUSED),
    ("content-length-conflicting-list", post(b"Content-Length: 6, 7"), REFUSED),
    # A request whose last transfer coding is not chunked has no known end (§6.3: 400), and
    # one the server does not take may get a 501 (§6.1).
    ("transfer-coding-gzip-alone", post(b"Transfer-Encoding: gzip"), NOT_TAKEN),
    ("transfer-coding-unknown", post(b"Transfer-Encoding: xchunked"), NOT_TAKEN),
    # HTTP/1.0 has no chunked coding: the framing is faulty (§6.1).
    ("chunked-in-http-1.0", request(b"POST /tables HTTP/1.0", FORM, CHUNKED, body=CHUNK), REFUSED),
    # A field value holds no CR, LF or NUL (§5.5); a field name is a token (§5.1).
    ("cr-in-field-value", get(b"X-Probe: a\rb"), REFUSED),
    ("lf-in-field-value", get(b"X-Probe: a\nb"), REFUSED),
    ("nul-in-field-value", get(b"X-Probe: a\x00b"), REFUSED),
    ("nul-in-field-name", get(b"X-Pro\x00be: a"), REFUSED),
    ("space-before-colon", get(b"X-Probe : a"), REFUSED),  # §5.1: MUST be refused
    ("field-line-without-colon", get(b"X-Probe"), REFUSED),
    ("non-ascii-field-name", get("X-Prøbe: a".encode()), REFUSED),
    ("non-ascii-field-value", get("X-Probe: ñ".encode()), OK),  # obs-text is allowed
    ("obs-fold", get(b"X-Probe: a", b" b"), EITHER),  # §5.2: refused, or unfolded to a space
    ("two-host-fields", get(b"Host: example.com"), REFUSED),  # §3.2: MUST be refused
    ("request-line-100-kB", request(b"GET /" + b"a" * 100_000 + b" HTTP/1.1"), REFUSED),
    ("field-200-kB", get(b"X-Probe: " + b"a" * 200_000), REFUSED),
    # The target: a non-ASCII byte is no URI (400, or a 404 for a path no route has).
    ("path-utf8", request("GET /rules/montoñes HTTP/1.1".encode()), REFUSED),
    ("path-byte-0xff", request(b"GET /rules/\xff HTTP/1.1"), REFUSED),
    ("path-percent-encoded-utf8", request(b"GET /rules/monto%C3%B1es HTTP/1.1"), {404}),
    ("absolute-form", request(b"GET http://127.0.0.1/healthz HTTP/1.1"), OK),  # §3.2.2: MUST
    ("target-without-slash", request(b"GET healthz HTTP/1.1"), REFUSED),
    ("no-http-version", b"GET /healthz\r\n\r\n", REFUSED),  # HTTP/0.9 is not spoken
    # A method is case-sensitive: "get" is none the server has.
    ("lowercase-method", request(b"get /healthz HTTP/1.1"), NOT_TAKEN),
    ("blank-line-before-request", b"\r\n" + get(), OK),  # §2.2: SHOULD be ignored
    ("http-1.0-without-host", b"GET /healthz HTTP/1.0\r\n\r\n", OK),
    ("tls-client-hello", TLS_CLIENT_HELLO, REFUSED),
    ("http2-preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", REFUSED),
    ("random-bytes", random.Random(26).randbytes(600), REFUSED),
]


@pytest.mark.parametrize(("raw", "expected"), [p[1:] for p in PROBES], ids=[p[0] for p in PROBES])
def test_probe(live, raw, expected):
    conn = Conn(live.port)
    conn.send(raw)
    assert conn.answer()[0] in expected


ROUTES = [
    ("home", "/"),
    ("healthz", "/healthz"),
    ("rules", "/rules/montones"),
    ("table", "/t/{code}"),
    ("join", "/t/{code}/join"),
    ("tv", "/t/{code}/tv"),
    ("host-forbidden", "/t/{code}/host"),
    ("qr", "/t/{code}/qr.svg"),
    ("standings-chart", "/t/{code}/standings.svg"),
    ("static", "/static/css/app.css"),
    ("favicon", "/favicon.ico"),
    ("not-found", "/no-such-page"),
    ("stream", "/t/{code}/stream?screen=tv&v=0"),
]


@pytest.mark.parametrize("path", [r[1] for r in ROUTES], ids=[r[0] for r in ROUTES])
def test_head_answers_as_get_would_without_a_body(live, path):
    path = path.format(code=live.code).encode()
    if b"/stream" in path:
        expected = 200  # a GET of the stream never ends
    else:
        conn = Conn(live.port)
        conn.send(request(b"GET " + path + b" HTTP/1.1"))
        expected = conn.answer()[0]
    conn = Conn(live.port)
    conn.send(request(b"HEAD " + path + b" HTTP/1.1"))
    assert conn.answer(head=True)[0] == expected
    # The next bytes are the next answer's, and come at once: the head was the whole answer.
    conn.send(request(b"GET /healthz HTTP/1.1"))
    if not conn.closes():
        assert conn.answer()[::2] == (200, b"ok")


def test_pipelined_requests_are_answered_in_order(live):
    conn = Conn(live.port)
    conn.send(
        get()
        + request(b"GET /rules/montones HTTP/1.1")
        + request(b"HEAD / HTTP/1.1")
        + get(b"Content-Length: 6")
        + b"name=x"  # a body, then the next request
        + request(b"GET /no-such-page HTTP/1.1")
        + get()
    )
    assert conn.answer()[::2] == (200, b"ok")
    assert b"</html>" in conn.answer()[2]
    assert conn.answer(head=True)[0] == 200
    assert conn.answer()[::2] == (200, b"ok")
    assert conn.answer()[0] == 404
    assert conn.answer()[::2] == (200, b"ok")


def test_expect_100_continue_is_answered_before_the_body_is_sent(live, guest):
    cookie, form = guest
    conn = Conn(live.port)
    length = b"Content-Length: %d" % len(form)
    conn.send(request(b"POST /tables HTTP/1.1", cookie, FORM, length, b"Expect: 100-continue"))
    status, _, _ = conn.answer()
    if status == 100:
        conn.send(form)
        status, fields, _ = conn.answer()
        assert status == 303 and fields["location"].startswith("/t/")  # the table was made
    else:
        assert status in REFUSED  # the answer at once, without the body


def test_a_chunked_body_is_read_as_the_body(live, guest):
    cookie, form = guest
    first, rest = form[:16], form[16:]  # two chunks, the second with an extension, and a trailer
    body = b"10\r\n%s\r\n%x;ext=1\r\n%s\r\n0\r\nX-Trailer: 1\r\n\r\n" % (first, len(rest), rest)
    conn = Conn(live.port)
    conn.send(request(b"POST /tables HTTP/1.1", cookie, FORM, CHUNKED, body=body))
    status, fields, _ = conn.answer()
    assert status == 303 and fields["location"].startswith("/t/")


MALFORMED_CHUNKS = [
    ("size-not-hex", lambda form: one_chunk(b"zz", form)),
    ("size-negative", lambda form: one_chunk(b"-%x" % len(form), form)),
    ("size-with-0x", lambda form: one_chunk(b"0x%x" % len(form), form)),
    ("data-longer-than-size", lambda form: one_chunk(b"%x" % (len(form) - 5), form)),
]


@pytest.mark.parametrize(
    "body", [m[1] for m in MALFORMED_CHUNKS], ids=[m[0] for m in MALFORMED_CHUNKS]
)
def test_a_malformed_chunked_body_is_refused(live, guest, body):
    cookie, form = guest
    conn = Conn(live.port)
    conn.send(request(b"POST /tables HTTP/1.1", cookie, FORM, CHUNKED, body=body(form)))
    assert conn.answer()[0] in REFUSED


def test_transfer_encoding_with_content_length_is_refused_or_chunked_then_closed(live, guest):
    """RFC 9112 §6.1: a server may refuse it or read the body as chunked, and closes the
    connection after either way (the two framings are how requests are smuggled)."""
    cookie, form = guest
    conn = Conn(live.port)
    fields = (cookie, FORM, CHUNKED, b"Content-Length: 5")
    conn.send(request(b"POST /tables HTTP/1.1", *fields, body=one_chunk(b"%x" % len(form), form)))
    assert conn.answer()[0] in REFUSED | {303}
    assert conn.closes()
