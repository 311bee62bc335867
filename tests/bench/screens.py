"""A thousand open screens on one server: ``python -m tests.bench.screens --screens 1000``.

One Montones table in its betting phase, and ``screens`` TV streams opened on it (raw sockets,
each read as the events come). Then one bet: how long until the first and the last screen show
it, and the serving process's resident memory and threads, with every screen open.

With ``--gzip`` the streams are compressed, as browsers ask (each stream's own compressor): the
times are to each screen's first bytes after the bet, and rss the larger of before and after it.

Last line: ``screens: n=... rss_mb=... threads=... first_ms=... last_ms=...``. Budget: rss <= 400 MB.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import tempfile
import time
from pathlib import Path

from tests.bench import common as c
from tests.bench.night import rss_mb
from tests.helpers.liveserver import betting_table, threads_of


def open_stream(port: int, code: str, gzip: bool = False) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    zipped = "Accept-Encoding: gzip\r\n" if gzip else ""
    head = f"GET /t/{code}/stream?screen=tv&v=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n{zipped}\r\n"
    sock.sendall(head.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    sock.setblocking(False)
    return sock


def main(args) -> None:
    print(c.machine())
    folder = Path(tempfile.mkdtemp(prefix="montones-bench-screens-"))
    server, base = c.start_app(folder)
    socks: list[socket.socket] = []
    try:
        port = int(base.rsplit(":", 1)[1])
        code, punter = betting_table(base)
        socks = [open_stream(port, code, args.gzip) for _ in range(args.screens)]
        time.sleep(1.0)  # every first update taken
        for sock in socks:
            try:
                while sock.recv(1 << 20):
                    pass
            except BlockingIOError:
                pass
        worker = c.worker_pid(server)
        rss, threads = rss_mb(worker), threads_of(worker)
        started = time.monotonic()
        punter.post(f"/t/{code}/a/bet", heap=2, amount=7)
        waiting, seen = set(socks), []
        got = {sock: b"" for sock in socks}
        while waiting and time.monotonic() - started < (3 if args.gzip else 30):
            for sock in list(waiting):
                try:
                    got[sock] += sock.recv(1 << 20)
                except BlockingIOError:
                    continue
                shown = b'data-player="p2"' in got[sock] and b">7</span>" in got[sock]
                if shown or args.gzip and got[sock]:  # compressed: its first bytes after the bet
                    waiting.discard(sock)
                    seen.append(time.monotonic() - started)
            time.sleep(0.005)
        if args.gzip:  # every stream's compressor has now compressed two updates
            rss = max(rss, rss_mb(worker))
        print(
            f"screens: n={len(socks)} shown={len(seen)} rss_mb={rss:.0f} threads={threads} "
            f"first_ms={c.ms(min(seen, default=float('nan')))} "
            f"last_ms={c.ms(max(seen, default=float('nan')))}"
        )
    finally:
        for sock in socks:
            sock.close()
        c.stop(server)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screens", type=int, default=1000)
    parser.add_argument(
        "--gzip", action="store_true", help="the streams compressed, as browsers ask"
    )
    main(parser.parse_args())
