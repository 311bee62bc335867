"""A guest who opens watcher's stream after watcher's stream, all at once, from one device of
the room's network, against each server ``montones serve`` runs: the TV's count of watchers
says no more than the few one device may hold (montones/live/stream.py), and the rest are
turned away."""

import socket
import subprocess
import time

import pytest

from tests.helpers.liveserver import SERVERS, betting_table, free_port, start_server, stop_server
from tests.helpers.netns import room

pytestmark = pytest.mark.timed

# A guest's flood: ``n`` watcher's streams of table ``code`` opened at once, each from a thread
# of its own, held until stdin closes. It prints the status line each got.
FLOOD = """
import socket, sys, threading
host, port, code, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
go, held, lines = threading.Event(), [], []
def watch():
    sock = socket.create_connection((host, port), timeout=10)
    go.wait()
    sock.sendall(f"GET /t/{code}/stream?screen=watch&v=0 HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n".encode())
    lines.append(sock.makefile("rb").readline().decode().strip())
    held.append(sock)
threads = [threading.Thread(target=watch) for _ in range(n)]
for t in threads: t.start()
go.set()
for t in threads: t.join()
print("\\n".join(lines), flush=True)
sys.stdin.read()
"""


def tv_count(port: int, code: str, host: str) -> str:
    """What a TV's stream, opened now, is first told of the watchers."""
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(f"GET /t/{code}/stream?screen=tv&v=0 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        got = b""
        while b'id="watching"' not in got or b"</p>" not in got.split(b'id="watching"')[1]:
            chunk = sock.recv(65536)
            assert chunk, got[-300:]
            got += chunk
        said = got.split(b'id="watching"')[1].split(b"</p>")[0].split(b">", 1)[1]
        return said.decode()


@pytest.mark.parametrize("server", SERVERS)
def test_streams_opened_at_once_from_one_device_count_for_a_few_watchers(tmp_path, server):
    with room() as guests:
        port = free_port()
        process = start_server(tmp_path, port, server=server, host="0.0.0.0")
        flood = None
        try:
            base = f"http://{guests.here}:{port}"
            code, _punter = betting_table(base)
            flood = guests.run(
                FLOOD,
                guests.here,
                str(port),
                code,
                "30",
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
            lines = [flood.stdout.readline().decode().strip() for _ in range(30)]
            assert all(line.startswith("HTTP/1.1 ") for line in lines), lines
            # The TV, on the host's machine, counts the few the device may hold: once each
            # stream admitted has opened (its status line comes before it counts itself).
            deadline = time.monotonic() + 10
            said = tv_count(port, code, "127.0.0.1")
            while said != "3 watching" and time.monotonic() < deadline:
                time.sleep(0.2)
                said = tv_count(port, code, "127.0.0.1")
            assert said == "3 watching", said
        finally:
            if flood is not None:
                flood.kill()
                flood.wait()
            stop_server(process)
