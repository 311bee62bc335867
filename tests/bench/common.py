"""What the benchmark scripts share: servers, a table set up through HTTP, screens, figures.

Not a test module: pytest does not collect tests/bench/. Every script starts the real server
exactly as ``montones serve`` does (tests/helpers/liveserver.py: gunicorn, 1 gevent worker;
``MONTONES_TEST_SERVER=portable`` for gevent's pywsgi) on loopback, in a
temporary folder, and talks to it only through HTTP, as browsers would.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import zlib
from pathlib import Path
from urllib.parse import urlencode

import httpx

from montones.config import Config
from montones.serving import CONNECTIONS, KEEPALIVE  # the settings `montones serve` uses
from tests.helpers.liveserver import free_port, serving_pid, start_server

BENCH_DIR = Path(__file__).resolve().parent

HX = {"HX-Request": "true"}
TOKEN_RE = re.compile(r'name="csrf_token" value="([^"]+)"')
SSE_URL_RE = re.compile(r'sse-connect="([^"]+)"')
FELT_RE = re.compile(r'<section id="felt".*?</section>', re.S)
TAP_DIV_RE = re.compile(r'<div id="tap".*?</div>', re.S)
# A pile of chips on the felt: whose, and the stake it shows (a whole-bank bet shows words).
PILE_RE = re.compile(
    r'<li (?:id="[^"]*" )?class="chip [^"]*" data-player="([^"]+)"[^>]*>\s*'
    r'<span class="chip__name"[^>]*>[^<]*</span>\s*<span class="chip__amount">(\d+)</span>'
)
# The phone's tap form on a heap, and the withdraw form on one of its own chips (_felt.html);
# what every tap on the felt sends with them (#tap: the stage and version the felt shows).
TAP_RE = re.compile(
    r'name="heap" value="(\d+)">\s*<input type="hidden" name="key" value="([^"]*)">'
)
WITHDRAW_RE = re.compile(r'data-player="([^"]+)" data-bet="(\d+)">.*?"key": "([^"]*)"', re.S)
SEEN_RE = re.compile(
    r'id="tap"[^>]*><input type="hidden" name="stage" value="([^"]*)">'
    r'<input type="hidden" name="seen" value="([^"]*)">'
)

# One pool per client, big enough for a stream plus the fetches it triggers (an aborted fetch
# closes its connection, as a browser's does), with timeouts on everything but a stream's reads
# (a stream sends a heartbeat every 15 s).
LIMITS = httpx.Limits(max_connections=16, max_keepalive_connections=8, keepalive_expiry=30)
TIMEOUT = httpx.Timeout(10.0)
STREAM_TIMEOUT = httpx.Timeout(10.0, read=60.0)


def client(base: str, **kwargs) -> httpx.AsyncClient:
    # verify=False: plain HTTP on loopback, and it spares loading CA certificates per client.
    return httpx.AsyncClient(base_url=base, limits=LIMITS, timeout=TIMEOUT, verify=False, **kwargs)


# --- servers ---------------------------------------------------------------------------------


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def worker_pid(arbiter: subprocess.Popen, wait: float = 10.0) -> int | None:
    """The process that serves: the one gunicorn worker under an arbiter we started, or the
    portable server itself."""
    return serving_pid(arbiter, wait)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (from /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


SCRIPTED = "1000 per second"  # a seat's allowance for a script measuring the server's capacity


def start_app(folder: Path, per_seat: str = Config.ACTIONS_LIMIT) -> tuple[subprocess.Popen, str]:
    """The real server, as ``montones serve`` runs it, with its SQLite file in ``folder``;
    ``per_seat``: a seat's allowance of actions (a person's, by default: a table tapping flat
    out backs off at 429; the capacity benches lift it, their seats being scripts)."""
    port = free_port()
    process = start_server(folder, port, MONTONES_ACTIONS_LIMIT=per_seat)
    return process, f"http://127.0.0.1:{port}"


def start_gunicorn(app: str, folder: Path, chdir: Path = BENCH_DIR) -> tuple[subprocess.Popen, str]:
    """Another WSGI app under the same server as ``montones serve``: gunicorn's gevent worker,
    with its settings."""
    port = free_port()
    gunicorn = Path(sys.executable).parent / "gunicorn"
    log = open(folder / f"{app.split(':')[0]}.log", "ab")  # noqa: SIM115 (kept by the process)
    process = subprocess.Popen(
        [str(gunicorn), "-w", "1", "-k", "gevent", "--worker-connections", str(CONNECTIONS),
         "--keep-alive", str(KEEPALIVE), "--no-control-socket", "-b", f"127.0.0.1:{port}", "--chdir", str(chdir), app],
        stdout=log, stderr=log,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    stop(process)
    raise RuntimeError(f"gunicorn {app} did not start; see {folder}")


def start_profile(pid: int | None, path: str, seconds: float) -> subprocess.Popen | None:
    spy = Path(sys.executable).parent / "py-spy"
    if pid is None or not spy.exists():
        print(f"profile: py-spy not available (looked for {spy})")
        return None
    fmt = "raw" if not path.endswith(".svg") else "flamegraph"
    return subprocess.Popen(
        [str(spy), "record", "-d", str(int(seconds)), "-r", "250", "--nonblocking", "--gil",
         "-f", fmt, "-o", path, "--pid", str(pid)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def stop(process: subprocess.Popen, grace: float = 5.0) -> None:
    """Terminate a server we started, then kill it (and its workers, by pid) if it lingers."""
    if process.poll() is not None:
        return
    workers = children(process.pid)
    process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)
    for pid in workers:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# --- figures ---------------------------------------------------------------------------------


def machine() -> str:
    """CPUs and load: other work on the machine shares the cores with the server and the bench."""
    one, five, _ = os.getloadavg()
    return f"machine: {os.cpu_count()} CPUs, load average {one:.1f} (1 min) {five:.1f} (5 min)"


def percentile(values, p: float) -> float:
    """Nearest-rank percentile; ``inf`` (a timeout) sorts last. ``nan`` when there are none."""
    data = sorted(values)
    if not data:
        return float("nan")
    rank = max(1, math.ceil(p / 100 * len(data)))
    return data[rank - 1]


def ms(seconds: float) -> str:
    if math.isnan(seconds):
        return "nan"
    if math.isinf(seconds):
        return "inf"
    return f"{seconds * 1000:.1f}"


def ratio(a: float, b: float) -> str:
    if math.isnan(a) or math.isnan(b) or b == 0 or (math.isinf(a) and math.isinf(b)):
        return "nan"
    return f"{a / b:.2f}"


def spread(name: str, seconds: list[float]) -> str:
    finite = [s for s in seconds if math.isfinite(s)]
    return (
        f"{name}: n={len(seconds)} ok={len(finite)} p50_ms={ms(percentile(seconds, 50))} "
        f"p95_ms={ms(percentile(seconds, 95))} max_ms={ms(max(seconds, default=float('nan')))}"
    )


# --- requests off a plain socket ---------------------------------------------------------------


class WireError(httpx.TransportError):
    """A request over a :class:`Wire` that failed: refused, reset, cut short or timed out."""


class Answer:
    """What a :class:`Wire` request got back: the parts of an httpx response the bench reads."""

    def __init__(self, status_code: int, headers: dict[str, str], text: str):
        self.status_code, self.headers, self.text = status_code, headers, text


class Wire:
    """One browser's keep-alive connection, spoken over a plain socket (HTTP/1.1).

    The bench is one process for thirty players and their streams. Through httpx a request
    cost it about 1 ms of its own CPU: at a trivial route's pace the bench, not the server, was
    the limit (the server's worker sat at half a core). Every timed request, the trivial route's
    and the actions' alike, goes this way; httpx still sets the table up.
    """

    def __init__(self, base: str, cookies: dict[str, str] | None = None, timeout: float = 10.0):
        url = httpx.URL(base)
        self.host, self.port = url.host, url.port
        self.cookies = dict(cookies or {})
        self.timeout = timeout
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str, headers: dict | None = None) -> Answer:
        return await self.request("GET", path, headers)

    async def post(self, path: str, data: dict, headers: dict | None = None) -> Answer:
        body = urlencode(data).encode()
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        return await self.request("POST", path, {**form, **(headers or {})}, body)

    async def request(self, method, path, headers=None, body=b"") -> Answer:
        try:
            return await asyncio.wait_for(self._exchange(method, path, headers, body), self.timeout)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError,
                ValueError) as e:  # fmt: skip
            self.close()
            raise WireError(f"{method} {path}: {type(e).__name__} {e}") from e

    async def _exchange(self, method, path, headers, body) -> Answer:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(
                self.host, self.port, limit=1 << 22
            )
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split(" ", 2)[1])
        got: dict[str, str] = {}
        for line in head[1:]:
            if line:
                name, _, value = line.partition(":")
                name, value = name.strip().lower(), value.strip()
                if name == "set-cookie":
                    cookie, _, _ = value.partition(";")
                    key, _, val = cookie.partition("=")
                    self.cookies[key.strip()] = val.strip()
                got[name] = value
        if got.get("transfer-encoding", "").lower() == "chunked":
            raw = b""
            while size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16):
                raw += (await self.reader.readexactly(size + 2))[:-2]
            await self.reader.readuntil(b"\r\n")
        else:
            raw = await self.reader.readexactly(int(got.get("content-length", "0")))
        if got.get("connection", "").lower() == "close":
            self.close()
        return Answer(status, got, raw.decode())

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


# --- a table through HTTP ----------------------------------------------------------------------


def read_state(db_path: Path, code: str) -> dict:
    with sqlite3.connect(db_path) as conn:
        (raw,) = conn.execute("SELECT state FROM game_tables WHERE code = ?", (code,)).fetchone()
    return json.loads(raw)


class Player:
    """One person's browser: its own cookie jar, CSRF token and seat."""

    def __init__(self, base: str, name: str = ""):
        self.base = base
        self.name = name
        self.http = client(base)
        self.token: str | None = None
        self.seat: str | None = None
        self.html = ""  # the last page or action answer this browser holds
        self._wire: Wire | None = None

    @property
    def wire(self) -> Wire:
        """Its timed requests' connection, with the cookies its browser holds by then."""
        if self._wire is None:
            self._wire = Wire(self.base, dict(self.http.cookies.items()))
        return self._wire

    async def page(self, path: str) -> str:
        r = await self.http.get(path)
        r.raise_for_status()
        self.html = r.text
        found = TOKEN_RE.search(self.html)
        if found:
            self.token = found.group(1)
        return self.html

    async def post(self, path: str, data: dict) -> Answer:
        headers = {**HX, "X-CSRF-Token": self.token or ""}
        form = {"csrf_token": self.token or "", **{k: str(v) for k, v in data.items()}}
        return await self.wire.post(path, form, headers)

    async def act(self, code: str, kind: str, **data) -> Answer:
        r = await self.post(f"/t/{code}/a/{kind}", data)
        self.html = r.text
        return r

    async def join(self, code: str) -> None:
        await self.page(f"/t/{code}/join")
        r = await self.http.post(
            f"/t/{code}/join", data={"csrf_token": self.token, "name": self.name}
        )
        if r.status_code != 303:
            raise RuntimeError(f"{self.name} could not join: {r.status_code} {r.text[:300]}")
        await self.page(f"/t/{code}")

    async def aclose(self) -> None:
        if self._wire is not None:
            self._wire.close()
        await self.http.aclose()


async def create_table(base: str, chips: int, tenure: int = 600, cut_timeout: int = 600):
    """A Montones table made from the lobby form; returns (host browser, room code)."""
    host = Player(base, "host")
    await host.page("/")
    r = await host.http.post(
        "/tables",
        data={
            "csrf_token": host.token,
            "game": "montones",
            "name": "Bench",
            "chips": str(chips),
            "min_bet": "1",
            "heaps_min": "3",
            "heaps_max": "5",
            "tenure": str(tenure),
            "cut_timeout": str(cut_timeout),
        },
    )
    if r.status_code != 303:
        raise RuntimeError(f"could not create a table: {r.status_code} {r.text[:300]}")
    return host, r.headers["location"].split("/")[2]


async def seat_players(base: str, code: str, count: int, db_path: Path) -> list[Player]:
    players = [Player(base, f"P{i:03d}") for i in range(1, count + 1)]
    for p in players:  # one at a time: seats are numbered in joining order
        await p.join(code)
    seats = {v["name"]: pid for pid, v in read_state(db_path, code)["players"].items()}
    for p in players:
        p.seat = seats[p.name]
    return players


async def open_hand(code: str, players: list[Player], bank: int, db_path: Path, heaps: int = 3):
    """First player offers ``bank``, the others pass, the due punter cuts, the banker makes heaps.

    Returns (banker, punters in seat order).
    """
    banker, others = players[0], players[1:]
    r = await banker.act(code, "offer", amount=bank)
    if r.status_code != 200:
        raise RuntimeError(f"offer refused: {r.status_code} {r.text[:300]}")
    for p in others:
        r = await p.act(code, "pass")
        if r.status_code != 200:
            raise RuntimeError(f"pass refused: {r.status_code} {r.text[:300]}")
    state = read_state(db_path, code)
    if state["phase"] != "cut" or state["bank"]["banker"] != banker.seat:
        raise RuntimeError(f"the auction did not close as expected: phase {state['phase']}")
    cutter = next(p for p in others if p.seat == state["hand"]["cutter"])
    r = await cutter.act(code, "cut", position=17)
    if r.status_code != 200:
        raise RuntimeError(f"cut refused: {r.status_code} {r.text[:300]}")
    r = await banker.act(code, "heaps", count=heaps)
    if r.status_code != 200:
        raise RuntimeError(f"heaps refused: {r.status_code} {r.text[:300]}")
    if read_state(db_path, code)["phase"] != "betting":
        raise RuntimeError("the hand is not in betting")
    for p in players:  # each phone shows the felt with the heaps, as after an `all` refresh
        await p.page(f"/t/{code}")
    return banker, others


def _seen(html: str) -> dict:
    found = SEEN_RE.search(html)
    return {"stage": found.group(1), "seen": found.group(2)} if found else {}


def tap_form(html: str, heap: int) -> dict | None:
    """The fields the phone's tap on ``heap`` posts, from HTML the phone holds."""
    for found in TAP_RE.finditer(html):
        if int(found.group(1)) == heap:
            return {"heap": heap, "key": found.group(2), **_seen(html)}
    return None


def own_bets(html: str, seat: str | None) -> list[tuple[int, dict]]:
    """(bet id, what its withdraw button posts) for each of ``seat``'s chips on the felt."""
    felt = FELT_RE.search(html)
    found = WITHDRAW_RE.findall(felt.group(0) if felt else "")
    seen = _seen(html) if found else {}
    return [(int(b), {"bet": b, "key": k, **seen}) for player, b, k in found if player == seat]


# --- what htmx does with an "update" event: its out-of-band elements, swapped by id --------------

TAG_RE = re.compile(r"<(/?)([a-zA-Z][\w:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
OOB_RE = re.compile(r'<([a-zA-Z][\w:-]*) hx-swap-oob="([^"]*)"')


def element_end(html: str, start: int) -> int:
    """Where the element that starts at ``start`` ends."""
    depth = 0
    for tag in TAG_RE.finditer(html, start):
        closing, name, attrs = tag.groups()
        if closing:
            depth -= 1
        elif name.lower() in VOID or attrs.rstrip().endswith("/"):
            if depth == 0:
                return tag.end()
            continue
        else:
            depth += 1
        if depth == 0:
            return tag.end()
    raise ValueError("an element never closed")


def swap_oob(held: str, data: str) -> str:
    """``held`` once htmx has swapped the out-of-band elements of ``data`` into it."""
    key = (held, data)
    if key in _swapped:
        return _swapped[key]
    out, at = held, 0
    if not held:  # nothing yet: the elements as they are (a stream's first update)
        return OOB_RE.sub(r"<\1", data)
    while (start := data.find("<", at)) >= 0:
        at = element_end(data, start)
        piece = data[start:at]
        tag, how = OOB_RE.match(piece).groups()
        piece = piece.replace(f' hx-swap-oob="{how}"', "", 1)
        style, _, target = how.partition(":#")
        if not target:
            target = re.search(r' id="([^"]+)"', piece).group(1)
        found = out.find(f' id="{target}"')
        if found < 0:  # a region this screen does not keep (see Screen.open)
            continue
        begin = out.rfind("<", 0, found)
        end = element_end(out, begin)
        inner = piece[TAG_RE.match(piece).end() : -len(f"</{tag}>")]
        if style in ("true", "outerHTML", "morph"):  # idiomorph's merge ends the same
            out = out[:begin] + piece + out[end:]
        elif style == "delete":
            out = out[:begin] + out[end:]
        elif style == "afterend":
            out = out[:end] + inner + out[end:]
        elif style == "afterbegin":
            opened = TAG_RE.match(out, begin).end()
            out = out[:opened] + inner + out[opened:]
        else:
            raise ValueError(f"no swap {how!r} here")
    _swapped[key] = out
    if len(_swapped) > 64:
        del _swapped[next(iter(_swapped))]
    return out


_swapped: dict[tuple[str, str], str] = {}


def felt_stakes(html: str, region: str | None = None) -> int | None:
    """The chips staked on the felt in a piece of HTML (the sum of the amounts its chips show);
    None when it holds no felt.

    The felt shows one pile per player and kind of bet, with the sum of its bets: a bet of 1
    placed on top of others shows as the total growing by 1, not as one more chip. The count of
    a piece of HTML is remembered: every phone gets the same felt, and the bench, one process
    for every screen, would otherwise read the same HTML forty times where forty phones each
    read it once, at the same time.
    """
    key = (html, region)
    if key in _counted:
        return _counted[key]
    count = None if (piles := felt_piles(html, region)) is None else sum(piles.values())
    _counted[key] = count
    if len(_counted) > 64:
        del _counted[next(iter(_counted))]
    return count


_counted: dict[tuple[str, str | None], int | None] = {}


def felt_piles(html: str, region: str | None = None) -> dict[str, int] | None:
    """Player -> chips shown on the felt for them, summed over their piles; None if no felt."""
    if region != "felt":  # a pushed felt event is the felt itself: no need to look for it
        felt = FELT_RE.search(html)
        if not felt:
            return None
        html = felt.group(0)
    piles: dict[str, int] = {}
    for player, amount in PILE_RE.findall(html):
        piles[player] = piles.get(player, 0) + int(amount)
    return piles


# --- screens -----------------------------------------------------------------------------------


class Tracker:
    """One round: which screens already hold HTML showing count >= target, and when."""

    def __init__(self, screens: list[Screen]):
        self.screens = screens
        self.target = 0
        self.pending: set[Screen] = set()
        self.hits: dict[Screen, float] = {}
        self.events: dict[Screen, float] = {}
        self.done = asyncio.Event()

    def start(self, target: int) -> None:
        self.target = target
        self.hits, self.events = {}, {}
        self.done = asyncio.Event()
        self.pending = set(self.screens)
        now = time.perf_counter()
        for s in self.screens:
            s.tracker = self
            self.update(s, now)

    def update(self, screen: Screen, t: float) -> None:
        if screen in self.pending and screen.count is not None and screen.count >= self.target:
            self.pending.discard(screen)
            self.hits[screen] = t
            if not self.pending:
                self.done.set()

    def event(self, screen: Screen, t: float) -> None:
        self.events.setdefault(screen, t)


class Screen:
    """A live screen: an EventSource on the stream, and what the page does on each event.

    On ``event: changed`` the page's #live element GETs its ``all`` partial (hx-sync
    "this:replace": a newer event aborts a fetch still in flight). An ``update`` event's
    out-of-band elements are swapped into what the screen holds, as htmx swaps them.
    """

    def __init__(
        self,
        name: str,
        http: httpx.AsyncClient,
        *,
        page: str | None = None,
        stream: str | None = None,
        partial: str | None = None,
        params: dict | None = None,
        token: str | None = None,
        counter=felt_stakes,
    ):
        self.name = name
        self.http = http
        self.page_path = page
        self.stream_path = stream
        self.partial = partial
        self.params = params
        # What the page's #intent form holds, sent with its taps and its fetches of its own
        # regions (hx-include).
        self.intent = dict(params or {})
        self.token = token
        self.counter = counter
        self.count: int | None = None
        self.held = ""  # the HTML of the region we count, as last swapped
        self.swapped = asyncio.Event()  # set on every swap of that region
        self.tracker: Tracker | None = None
        self.connected = asyncio.Event()
        self.fetch_task: asyncio.Task | None = None
        self.task: asyncio.Task | None = None
        self.stats = {
            "events": 0,
            "fetches": 0,
            "aborted": 0,
            "fetch_errors": 0,
            "swapped": 0,
            "pushed": 0,
            "bytes": 0,  # of the stream, on the wire: its chunks as they came, framing and all
        }
        self.errors: list[str] = []

    async def open(self) -> None:
        """Load the page as a browser would, then listen on the stream it names."""
        if self.page_path:
            r = await self.http.get(self.page_path)
            r.raise_for_status()
            if self.token is None:
                found = TOKEN_RE.search(r.text)
                self.token = found.group(1) if found else None
            found = SSE_URL_RE.search(r.text)
            if found:
                self.stream_path = found.group(1).replace("&amp;", "&")
            # Kept: the regions the stream updates that the bench reads (the felt, and the
            # version and stage a tap sends), the same on every phone of a table, so that the
            # swaps and counts of one update are made once for all of them, not once per
            # screen of a process that serves them all.
            kept = (TAP_DIV_RE.search(r.text), FELT_RE.search(r.text))
            self.swap("".join(found.group(0) for found in kept if found), time.perf_counter())
        self.task = asyncio.create_task(self.listen())

    def swap(self, html: str, t: float, region: str | None = None) -> None:
        count = self.counter(html, region)
        if count is None:
            return
        self.count = count
        self.held = html
        self.swapped.set()
        if self.tracker:
            self.tracker.update(self, t)

    async def listen(self) -> None:
        """Hold the stream as an EventSource does: one GET, then events as they come.

        Read off a plain socket (HTTP/1.1, chunked) rather than through httpx: the bench is one
        process for every screen, and httpx's layers cost it more per chunk than the servers
        take to send one, which the app's larger updates paid more often than the baseline's.
        """
        url = self.http.base_url.join(self.stream_path)
        cookies = "; ".join(f"{name}={value}" for name, value in self.http.cookies.items())
        head = (
            f"GET {url.raw_path.decode()} HTTP/1.1\r\nHost: {url.host}:{url.port}\r\n"
            "Accept: text/event-stream\r\nCache-Control: no-cache\r\n"
            "Accept-Encoding: gzip, deflate\r\n"
            + (f"Cookie: {cookies}\r\n" if cookies else "")
            + "\r\n"
        )
        writer = None
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(url.host, url.port, limit=1 << 22), 10
            )
            writer.write(head.encode())
            status = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            first_line = status.split(b"\r\n", 1)[0].decode()
            if " 200 " not in first_line:
                self.errors.append(f"stream {first_line}")
                return
            self.connected.set()
            gzipped = b"\r\ncontent-encoding: gzip\r\n" in status.lower()
            unzip = zlib.decompressobj(16 + zlib.MAX_WBITS) if gzipped else None
            # Both servers end their lines with "\n" only, and send each update as one chunk.
            buffer = b""
            while True:
                line = await reader.readuntil(b"\r\n")
                size = int(line, 16)
                self.stats["bytes"] += len(line) + size + 2
                if size == 0:
                    return
                data = (await reader.readexactly(size + 2))[:-2]
                buffer += unzip.decompress(data) if unzip else data
                *events, buffer = buffer.split(b"\n\n")
                for block in events:
                    self.parse(block.decode())
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 (reported, not fatal)
            self.errors.append(f"stream {type(e).__name__}: {e}")
        finally:
            if writer is not None:
                writer.close()

    def parse(self, block: str) -> None:
        """One event's lines, as an EventSource reads them."""
        event, data = "message", []
        for line in block.split("\n"):
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)
        if data:
            self.dispatch(event, "\n".join(data))

    def dispatch(self, event: str, data: str) -> None:
        t = time.perf_counter()
        self.stats["events"] += 1
        if self.tracker:
            self.tracker.event(self, t)
        if event == "update":
            self.stats["pushed"] += 1
            self.swap(swap_oob(self.held, data), t)
        elif data.lstrip().startswith("<"):
            self.stats["pushed"] += 1
            self.swap(data, t, region=event)
        elif event == "changed" and self.partial:
            if self.fetch_task and not self.fetch_task.done():
                self.fetch_task.cancel()
                self.stats["aborted"] += 1
            self.fetch_task = asyncio.create_task(self.fetch())

    async def action(self, request) -> Answer:
        """A tap on this phone: ``request`` (the POST) is awaited and its answer (the phone's
        own regions) swapped in."""
        r = await request
        self.swap(r.text, time.perf_counter())
        return r

    async def until(self, shown, live: bool = True, timeout: float = 5.0) -> bool:
        """Wait until the region this screen holds passes ``shown()``: pushed by its stream, or,
        with no stream open (``live`` false), fetched. False if it does not within ``timeout``."""
        end = time.perf_counter() + timeout
        while not shown():
            left = end - time.perf_counter()
            if left <= 0:
                return False
            if not live:
                await self.fetch(self.partial.replace("/p/all", "/p/felt"))
                continue
            self.swapped.clear()
            try:
                await asyncio.wait_for(self.swapped.wait(), left)
            except TimeoutError:
                return False
        return True

    async def reload(self) -> None:
        """Load the whole page again, as a player would."""
        r = await self.http.get(self.page_path)
        self.swap(r.text, time.perf_counter())

    async def fetch(self, path: str | None = None) -> None:
        headers = {**HX, "HX-Trigger": "live", "HX-Target": "live"}
        if self.token:
            headers["X-CSRF-Token"] = self.token
        self.stats["fetches"] += 1  # started ("aborted" also counts some never started)
        try:
            r = await self.http.get(path or self.partial, params=self.intent, headers=headers)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001
            self.stats["fetch_errors"] += 1
            self.errors.append(f"fetch {type(e).__name__}: {e}")
            return
        t = time.perf_counter()
        if r.status_code >= 500 or "database is locked" in r.text:
            self.stats["fetch_errors"] += 1
            self.errors.append(f"fetch {r.status_code}")
        if r.status_code == 200:
            self.stats["swapped"] += 1
            self.swap(r.text, t)

    async def idle(self, timeout: float = 1.0) -> None:
        """Wait (a little) for a fetch still in flight."""
        if self.fetch_task and not self.fetch_task.done():
            await asyncio.wait({self.fetch_task}, timeout=timeout)

    async def close(self) -> None:
        for task in (self.fetch_task, self.task):
            if task and not task.done():
                task.cancel()
        for task in (self.fetch_task, self.task):
            if task:
                try:
                    await task
                except (asyncio.CancelledError, Exception):  # noqa: BLE001
                    pass


async def connect_all(screens: list[Screen], timeout: float) -> int:
    """Open every screen; return how many streams answered within ``timeout``."""

    async def one(s: Screen):
        try:
            await asyncio.wait_for(s.open(), timeout)
        except Exception as e:  # noqa: BLE001
            s.errors.append(f"open {type(e).__name__}: {e}")

    await asyncio.gather(*(one(s) for s in screens))
    waits = [asyncio.create_task(s.connected.wait()) for s in screens]
    _, pending = await asyncio.wait(waits, timeout=timeout) if waits else (set(), set())
    for w in pending:
        w.cancel()
    return sum(s.connected.is_set() for s in screens)


def screen_totals(screens: list[Screen]) -> dict:
    totals: dict[str, int] = {}
    for s in screens:
        for k, v in s.stats.items():
            totals[k] = totals.get(k, 0) + v
    return totals


def first_errors(screens: list[Screen], n: int = 5) -> list[str]:
    return [f"{s.name}: {e}" for s in screens for e in s.errors][:n]
