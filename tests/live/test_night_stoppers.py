"""Hostile guests, fourth round (issue 38), against each server ``montones serve`` runs: the
largest table a guest can make, asked for every page of it in a loop, holds up no other table;
a body cut short is refused as gunicorn refuses it, without a word in the log. Every table's
chips balance after each attack."""

import ast
import multiprocessing
import os
import subprocess
import threading
import time

import pytest

from montones import create_app
from montones.config import TestConfig
from montones.rules.table import MOST_PLAYERS, MOST_SEATS
from montones.serving import Refusals
from tests.helpers.liveserver import (
    P95_LIMIT,
    SERVERS,
    Phone,
    betting_table,
    chips_balance,
    create_table,
    free_port,
    p95,
    start_server,
    stop_server,
    timed_taps,
)
from tests.helpers.netns import room

pytestmark = pytest.mark.timed

ASKERS = 4  # the guest's browser tabs asking at once
STREAM_READ = 0.5  # seconds a stream is read before the guest drops it


@pytest.fixture(params=SERVERS)
def live(request, tmp_path):
    """The server, its computers at a person's pace: the largest table's eighty computers
    play on, and each version of theirs is drawn again for the guest's pages, as often as a
    night's computers make them (the test servers' quicker pace makes more)."""
    port = free_port()
    process = start_server(tmp_path, port, server=request.param, MONTONES_COMPUTER_PACE="1.0")
    yield f"http://127.0.0.1:{port}", tmp_path
    stop_server(process)


def largest_table(base: str) -> tuple[str, Phone]:
    """A table as large as a guest can make one: its most players, all computers, then sent
    away and as many more seated, until it has given every seat it gives in a night (each
    keeps a line in the standings chart, and each join is a point of it)."""
    code, host = create_table(base, most_players=MOST_PLAYERS)
    host.page(f"/t/{code}/host")

    def add(n: int) -> None:
        for _ in range(n):
            assert host.post(f"/t/{code}/host/add_computer").status_code < 400

    add(MOST_PLAYERS)
    for seat in range(1, MOST_PLAYERS + 1):
        assert host.post(f"/t/{code}/host/remove_computer", seat=f"p{seat}").status_code < 400
    add(MOST_SEATS - MOST_PLAYERS)
    assert f"p{MOST_SEATS}" in host.http.get(f"/t/{code}/host/export.json").text
    # One more is refused: the table has given every seat it gives.
    host.post(f"/t/{code}/host/add_computer")
    assert f"p{MOST_SEATS + 1}" not in host.http.get(f"/t/{code}/host/export.json").text
    return code, host


def routes(code: str) -> list[str]:
    """Every page under the table's address that a GET asks for, as the app lists them, and
    the one elsewhere that names it."""
    args = {"code": code, "region": "all", "number": 1, "secret": "x" * 32}
    app = create_app(TestConfig)
    found = []
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            if "code" in rule.arguments and "GET" in rule.methods:
                path = rule.build({name: args[name] for name in rule.arguments})[1]
                found.append(path)
    found += [
        f"/t/{code}/standings.svg?screen=tv",
        f"/t/{code}/stream?screen=tv&v=0",
        f"/rules/montones?t={code}",
    ]
    return found


def ask_all(
    host: Phone, paths: list[str], asking, stop, busy, begun, asked: dict[str, int]
) -> None:
    """The host of the large table asks for each of its pages in turn while ``asking`` is set,
    until ``stop``; ``busy`` counts its requests under way, ``begun`` those it has begun."""
    while not stop.is_set():
        for path in paths:
            while not asking.wait(0.1):
                if stop.is_set():
                    return
            with busy.get_lock():
                busy.value += 1
            with begun.get_lock():
                begun.value += 1
            try:
                if "/stream" in path:  # a stream: opened, read a moment, dropped
                    with host.http.stream("GET", path, timeout=5) as stream:
                        started = time.monotonic()
                        for _chunk in stream.iter_bytes():
                            if time.monotonic() - started > STREAM_READ:
                                break
                    status = stream.status_code
                else:  # in the language with the longest words
                    status = host.http.get(path, headers={"Accept-Language": "ru"}).status_code
            finally:
                with busy.get_lock():
                    busy.value -= 1
            assert status < 500, (path, status)
            asked[path] = asked.get(path, 0) + 1


def askers(base: str, cookies: dict, paths: list[str], asking, stop, busy, begun, results) -> None:
    """``ASKERS`` tabs of the large table's host, in a process of their own: in the test's
    process their threads would hold its interpreter while it times the other table's taps,
    and the test would time itself."""
    host = Phone(base)
    host.http.cookies.update(cookies)
    asked: dict[str, int] = {}
    failed: list[str] = []

    def asker():
        try:
            ask_all(host, paths, asking, stop, busy, begun, asked)
        except BaseException as error:  # said by the test
            failed.append(repr(error))

    threads = [threading.Thread(target=asker, daemon=True) for _ in range(ASKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    results.put((asked, failed))


# The other table's taps are timed in runs of ROUNDS, one with the askers asking, one without,
# in turn: the runs without say what the machine gives the server at that moment. On a machine
# at rest the askers' pages hold a tap up at most P95_LIMIT at p95; a machine others share
# cannot hold a wall-clock bound alone (this test's taps took 188 ms at p95 with nothing else
# asked at a load of 24 on 2 cores), and there they may take at most SLOWDOWN times what the
# same requests take without the askers. The askers' pages cost the server up to 20 ms of CPU
# each (the chart, the TV, the standings of 80 seats), and a tap may come behind the four
# asked at once: at rest that is well under P95_LIMIT, and under load it grows as the tap's
# own time does. Before the chart was drawn once per version, healthz took 7.9 s.
# The pages' cost grows as the server's share of the machine shrinks, which the quiet taps, each
# a few milliseconds, barely show: in a whole-suite run at a load of 6.5 on 2 cores, the taps
# took 332 ms at p95 with the askers and 24.7 ms without (58 to 84 ms and 10 ms at rest). So the
# wall-clock bound is P95_LIMIT times the machine's load per core, where that is over 1 (the
# load average over the runs: what share of a core the server had).
RUNS = 16
ROUNDS = 5
SLOWDOWN = 4


def test_no_page_of_the_largest_table_a_guest_makes_holds_up_another_table(live):
    base, folder = live
    code, punter = betting_table(base)
    large, host = largest_table(base)
    paths = routes(large)
    spawn = multiprocessing.get_context("spawn")
    asking, stop, results = spawn.Event(), spawn.Event(), spawn.Queue()
    busy, begun = spawn.Value("i", 0), spawn.Value("i", 0)
    cookies = dict(host.http.cookies.items())
    process = spawn.Process(
        target=askers,
        args=(base, cookies, paths, asking, stop, busy, begun, results),
        daemon=True,
    )
    process.start()
    attacked: dict[str, list[float]] = {"healthz": [], "home": [], "tap": []}
    quiet: dict[str, list[float]] = {"healthz": [], "home": [], "tap": []}
    loads = []
    try:
        for run in range(RUNS):
            loads.append(os.getloadavg()[0])
            if run % 2:
                # The askers under way: as many requests begun since as there are askers.
                before = begun.value
                asking.set()
                ends = time.monotonic() + 10
                while begun.value < before + ASKERS and time.monotonic() < ends:
                    time.sleep(0.01)
                assert begun.value >= before + ASKERS, "the askers did not start"
            else:
                asking.clear()
                ends = time.monotonic() + 10
                while busy.value and time.monotonic() < ends:
                    time.sleep(0.01)
            times = timed_taps(base, code, punter, rounds=ROUNDS)
            for name, seconds in times.items():
                (attacked if run % 2 else quiet)[name] += seconds
    finally:
        stop.set()
        asking.set()
        asked, failed = results.get(timeout=60)
        process.join(10)
    assert not failed, failed[0]
    assert set(asked) == set(paths), set(paths) - set(asked)
    figures = {
        name: f"p95 {p95(attacked[name]) * 1000:.1f} ms ({p95(quiet[name]) * 1000:.1f} without)"
        for name in attacked
    }
    per_core = max(1.0, sorted(loads)[len(loads) // 2] / (os.cpu_count() or 1))
    print(figures, f"pages asked: {sum(asked.values())}", f"load per core {per_core:.1f}")
    for name in attacked:
        limit = max(P95_LIMIT * per_core, SLOWDOWN * p95(quiet[name]))
        assert p95(attacked[name]) <= limit, figures[name]
    chips_balance(folder / "montones.sqlite")


# A guest's flood of bodies cut short: ``n`` connections to ``host:port``, each a form whose
# connection closes before its end (one says its length, one is sent in chunks). It prints
# how many answers began with each status line.
CUT_SHORT = """
import collections, socket, sys
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
heads = (
    b"POST /tables HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 900\\r\\n\\r\\nname=a",
    b"POST /tables HTTP/1.1\\r\\nHost: x\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n5\\r\\nna",
)
seen = collections.Counter()
for i in range(n):
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(heads[i % 2])
        sock.shutdown(socket.SHUT_WR)
        seen[sock.recv(4096).split(b"\\r\\n", 1)[0].decode()] += 1
print(dict(seen), flush=True)
"""
CUT = 1000


@pytest.mark.parametrize("server", SERVERS)
def test_a_body_cut_short_is_refused_with_400_and_no_word_in_the_log(tmp_path, server):
    with room() as guests:
        port = free_port()
        process = start_server(tmp_path, port, server=server, host="0.0.0.0")
        try:
            log = tmp_path / "server.log"
            base = f"http://{guests.here}:{port}"
            code, punter = betting_table(base)
            logged = log.stat().st_size
            started = time.monotonic()
            flood = guests.run(
                CUT_SHORT, guests.here, str(port), str(CUT), stdout=subprocess.PIPE, text=True
            )
            out, _err = flood.communicate(timeout=60)
            took = time.monotonic() - started
            assert ast.literal_eval(out) == {"HTTP/1.1 400 Bad Request": CUT}
            assert log.stat().st_size - logged < 2_000, log.read_text()[-2000:]
            # The night goes on (timed_taps asserts each answer); how fast under a flood is
            # test_hostile.py's to say.
            timed_taps(base, code, punter, rounds=10)
            print(f"{CUT} bodies cut short in {took:.1f} s, {log.stat().st_size - logged} B logged")
        finally:
            stop_server(process)
    chips_balance(tmp_path / "montones.sqlite")


# A guest guessing room codes through the refusal of a form without its CSRF token (htmx's
# POST), ``n`` codes, the running table's among them. It prints the answers' statuses.
GUESSING = """
import collections, itertools, sys, time
import httpx
base, code, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
letters = itertools.product("ABCDEFGHJKLMNPQRSTUVWXYZ", repeat=4)
codes = ["".join(next(letters)) for _ in range(n - 1)] + [code]
seen = collections.Counter()
started = time.monotonic()
with httpx.Client(base_url=base, timeout=5) as guesser:
    for guess in codes:
        answer = guesser.post(f"/t/{guess}/a/bet", headers={"HX-Request": "true"})
        seen[answer.status_code] += 1
print(dict(seen), round(n / (time.monotonic() - started)), flush=True)
"""
GUESSED = 300


@pytest.mark.parametrize("server", SERVERS)
def test_a_guesser_refused_for_its_csrf_token_runs_out_of_guesses(tmp_path, server):
    with room() as guests:
        port = free_port()
        process = start_server(tmp_path, port, server=server, host="0.0.0.0")
        try:
            code, _punter = betting_table(f"http://{guests.here}:{port}")
            flood = guests.run(
                GUESSING,
                f"http://{guests.here}:{port}",
                code,
                str(GUESSED),
                stdout=subprocess.PIPE,
                text=True,
            )
            out, _err = flood.communicate(timeout=120)
        finally:
            stop_server(process)
    statuses, rate = out.strip().rsplit(" ", 1)
    statuses = ast.literal_eval(statuses)
    print(f"{statuses} at {rate} guesses a second")
    # Ten answers for codes nobody holds, then nothing but "wait": the running table's too.
    assert statuses == {400: 10, 429: GUESSED - 10}, statuses
    chips_balance(tmp_path / "montones.sqlite")


# A guest's flood of requests no server takes (a TLS hello where a request line goes, a header
# name with a space): ``n`` of them, one a connection. It prints how many were answered 400.
REFUSED = """
import socket, sys
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
heads = (b"\\x16\\x03\\x01hello\\r\\n\\r\\n", b"GET / HTTP/1.1\\r\\nHost: x\\r\\nBad Header: y\\r\\n\\r\\n")
answered = 0
for i in range(n):
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(heads[i % 2])
        answered += sock.recv(12) == b"HTTP/1.1 400"
print(answered, flush=True)
"""
FLOODED = 5000


@pytest.mark.parametrize("server", SERVERS)
def test_a_flood_of_refused_requests_writes_a_few_lines_to_the_hosts_console(tmp_path, server):
    with room() as guests:
        port = free_port()
        process = start_server(tmp_path, port, server=server, host="0.0.0.0")
        try:
            log = tmp_path / "server.log"
            logged = log.stat().st_size
            flood = guests.run(
                REFUSED, guests.here, str(port), str(FLOODED), stdout=subprocess.PIPE, text=True
            )
            out, _err = flood.communicate(timeout=120)
            # Every line a refusal writes is written before its answer is sent (pywsgi's
            # handler and gunicorn's handle_error log it first), and the flood read every
            # answer: nothing more of it is to come before the window's one line.
            written = log.stat().st_size - logged
        finally:
            stop_server(process)
    print(f"{FLOODED} refused requests wrote {written} B to the log")
    assert int(out) == FLOODED
    # The first few are written as they come; the rest are told in one line a minute.
    assert written < 2_000, log.read_text()[-2000:]


def test_refusals_past_the_first_few_are_told_in_one_line_at_the_windows_end():
    import gevent

    lines: list[str] = []
    refusals = Refusals(lines.append, shown=2, window=1.0)
    started = time.monotonic()
    admitted = [refusals.admit("10.0.0.9" if n % 4 else "10.0.0.8") for n in range(12)]
    assert admitted == [True, True] + [False] * 10
    assert lines == []
    while not lines and time.monotonic() - started < 10:
        gevent.sleep(0.01)
    told = time.monotonic() - started
    assert lines == ["10 more requests refused in 1 s, from 2 address(es), most from 10.0.0.9 (8)"]
    assert told >= 0.95, f"told {told:.2f} s into a 1 s window"  # at its end, not before
    assert refusals.admit("10.0.0.9")  # a new window: written again
