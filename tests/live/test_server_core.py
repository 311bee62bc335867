"""montones/server.py's HTTP on the wire, with a trivial WSGI app: framing, limits, and a reader
who takes nothing of a long answer holding up no one."""

import socket
import threading
import time

import pytest

from montones.server import Server

pytestmark = pytest.mark.timed


def app(environ, start_response):
    if environ["PATH_INFO"] == "/long":  # 5 MB made piece by piece, length unknown
        start_response("200 OK", [("Content-Type", "text/plain")])
        return (b"x" * 100_000 for _ in range(50))
    if environ["PATH_INFO"] == "/big":  # 5 MB made whole, as a Flask answer is
        start_response("200 OK", [("Content-Length", "5000000")])
        return [b"x" * 5_000_000]
    body = "{} {} {} {} {!r}".format(
        environ["REQUEST_METHOD"],
        environ["PATH_INFO"],
        environ["QUERY_STRING"],
        environ.get("HTTP_X_A"),
        environ["wsgi.input"].read(),
    ).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]


@pytest.fixture
def port():
    listener = socket.create_server(("127.0.0.1", 0))
    server = Server(app, [listener], threads=2)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    server.stop()
    thread.join(5)
    assert not thread.is_alive()


def ask(port: int, data: bytes, wait: float = 2.0) -> bytes:
    """What the server sends back until it closes the connection (or ``wait`` passes)."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(data)
        sock.settimeout(wait)
        got = b""
        try:
            while data := sock.recv(1 << 20):
                got += data
        except TimeoutError:
            pass
    return got


def test_requests_sent_together_are_answered_in_order_on_one_connection(port):
    got = ask(
        port,
        b"GET /a?q=1 HTTP/1.1\r\nHost: x\r\nX-A: 1\r\nX-A: 2\r\n\r\n"
        b"POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
        b"GET /c HTTP/1.0\r\n\r\n",
    )
    bodies = [part.split(b"\r\n\r\n", 1)[1] for part in got.split(b"HTTP/1.1 200 OK")[1:]]
    assert bodies == [b"GET /a q=1 1, 2 b''", b"POST /b  None b'abc'", b"GET /c  None b''"]
    assert got.count(b"Connection: close") == 1  # HTTP/1.0: the last, and then it closes


@pytest.mark.parametrize(
    "request_, status",
    [
        (b"POST / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", b"413"),
        (b"GET / HTTP/1.1\r\nX: " + b"y" * 70_000 + b"\r\n\r\n", b"431"),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", b"501"),
        (b"garbage\r\n\r\n", b"400"),
        (b"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", b"400"),
    ],
)
def test_a_request_past_a_limit_is_refused_and_its_connection_closed(port, request_, status):
    got = ask(port, request_)
    assert got.startswith(b"HTTP/1.1 " + status) and b"Connection: close" in got


def test_an_answer_of_unknown_length_goes_chunked_in_http_1_1_and_to_the_close_in_1_0(port):
    chunked = ask(port, b"GET /long HTTP/1.1\r\nHost: x\r\n\r\n")
    assert b"Transfer-Encoding: chunked" in chunked and chunked.endswith(b"\r\n0\r\n\r\n")
    plain = ask(port, b"GET /long HTTP/1.0\r\n\r\n")
    assert plain.endswith(b"x" * 1000) and len(plain.split(b"\r\n\r\n", 1)[1]) == 5_000_000


def test_readers_who_take_nothing_of_long_answers_hold_up_no_one(port):
    """Two threads run the app: two readers who never read a 5 MB answer leave them free (the
    I/O thread holds what their sockets do not take)."""
    asleep = []
    for _ in range(2):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        asleep.append(sock)
    time.sleep(0.5)
    started = time.monotonic()
    got = ask(port, b"GET /quick HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert got.endswith(b"GET /quick  None b''") and time.monotonic() - started < 1.0
    for sock in asleep:
        sock.close()
