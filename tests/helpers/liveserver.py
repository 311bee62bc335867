"""Start the real server (``montones serve``) on loopback for a test.

``server`` picks ``--server``: ``gunicorn`` (its gevent worker) or ``portable`` (gevent's pywsgi,
as on Windows). By default it is ``MONTONES_TEST_SERVER``, or gunicorn.
"""

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from montones import create_app

# Seconds a computer banker of the test servers waits for the scripts' bets (COMPUTER_PATIENCE),
# and the least a computer player waits before it acts (COMPUTER_PACE; a person's is 1 s).
PATIENCE = 2.0
PACE = 0.2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SERVERS = ("gunicorn", "portable")


def start_server(
    folder: Path,
    port: int,
    workers: int = 1,
    server: str | None = None,
    host: str = "127.0.0.1",
    open_files: int | None = None,
    **env_extra,
) -> subprocess.Popen:
    """``montones serve`` on ``host:port``; ``open_files``: its open-file limit, soft and hard
    (so that it cannot raise it)."""
    env = {
        # The tests' players are scripts, faster than a person (the bench keeps a person's).
        "MONTONES_ACTIONS_LIMIT": "1000 per second",
        # ... and bet at once: a computer banker waits PATIENCE seconds for them, not a person's
        # 12 (tests/service/test_computers.py checks a person's).
        "MONTONES_COMPUTER_PATIENCE": str(PATIENCE),
        "MONTONES_COMPUTER_PACE": str(PACE),
        **os.environ,
        "DATABASE_URL": f"sqlite:///{folder / 'montones.sqlite'}",
        "SECRET_KEY": "live-tests",
        **env_extra,
    }
    log = open(folder / "server.log", "ab")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "montones",
            "serve",
            "--host",
            host,
            "--port",
            str(port),
            "--public-url",
            f"http://127.0.0.1:{port}/",
            "--workers",
            str(workers),
            "--server",
            # Several workers are gunicorn's alone.
            server
            or ("gunicorn" if workers > 1 else os.environ.get("MONTONES_TEST_SERVER", "gunicorn")),
        ],
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,  # its own process group: stopping it stops its workers too
        preexec_fn=None if open_files is None else lambda: _limit_open_files(open_files),
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        # Up means answering, not only listening: gunicorn's master accepts connections
        # while its worker is still importing the app.
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
                conn.sendall(b"GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                if b" 200 " in conn.recv(16):
                    process.port = port
                    return process
        except OSError:
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"the server did not start: {(folder / 'server.log').read_text()[-2000:]}")


def _limit_open_files(limit: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


def serving_pid(process: subprocess.Popen, wait: float = 10.0) -> int:
    """The process that serves the connections: gunicorn's one worker, or the portable server
    itself."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            found = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        except OSError:
            found = []
        if found:
            return int(found[0])
        if "portable" in " ".join(process.args):
            return process.pid
        time.sleep(0.05)
    return process.pid


def threads_of(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


def stop_server(process: subprocess.Popen) -> None:
    """Stop the server and its workers (the whole process group), killing them if they linger."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # workers still closing their streams
    except ProcessLookupError:
        pass
    if process.poll() is None:
        process.wait(5)
    _wait_port_closed(process.port)


def kill_server(process: subprocess.Popen) -> None:
    """Pull the plug: SIGKILL to gunicorn and every worker at once."""
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(10)
    _wait_port_closed(process.port)


def _wait_port_closed(port: int) -> None:
    """A worker still dying can accept a connection for a moment: wait until none can."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                time.sleep(0.05)
        except OSError:
            return


class Phone:
    """One device: its own cookie jar and CSRF token, talking to the real server."""

    def __init__(self, base: str):
        import httpx

        self.http = httpx.Client(base_url=base, timeout=30)
        self.token = None

    def page(self, path: str) -> str:
        html = self.http.get(path).text
        self.token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
        return html

    def post(self, path: str, **data):
        headers = {"HX-Request": "true", "X-CSRF-Token": self.token}
        return self.http.post(path, data={k: str(v) for k, v in data.items()}, headers=headers)

    def close(self) -> None:
        self.http.close()


MONTONES_FORM = {
    "game": "montones",
    "chips": "100",
    "min_bet": "1",
    "heaps_min": "3",
    "heaps_max": "5",
    "tenure": "60",
    "cut_timeout": "30",
}


def create_table(base: str, **form) -> tuple[str, Phone]:
    """A Montones table made through the lobby form; returns its code and the host's device."""
    host = Phone(base)
    host.page("/")
    fields = {**MONTONES_FORM, **{k: str(v) for k, v in form.items()}, "csrf_token": host.token}
    created = host.http.post("/tables", data=fields)
    return created.headers["location"].split("/")[2], host


def seat(base: str, code: str, name: str) -> Phone:
    phone = Phone(base)
    phone.page(f"/t/{code}/join")
    phone.http.post(f"/t/{code}/join", data={"csrf_token": phone.token, "name": name})
    phone.page(f"/t/{code}")
    return phone


def betting_table(base: str):
    """A table in its betting phase, and a punter who can tap."""
    code, _host = create_table(base, chips=1000)
    banker = seat(base, code, "Bank")
    punter = seat(base, code, "Ana")
    assert banker.post(f"/t/{code}/a/offer", amount=1000).status_code == 200
    assert punter.post(f"/t/{code}/a/pass").status_code == 200
    assert punter.post(f"/t/{code}/a/cut", position=11).status_code == 200
    assert banker.post(f"/t/{code}/a/heaps", count=3).status_code == 200
    return code, punter


def database_app(folder):
    """An app on the server's database (``folder``/montones.sqlite), to make and read its tables from the test."""
    return create_app(
        {
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder / 'montones.sqlite'}",
            "SECRET_KEY": "random-night-reader",
            "TESTING": True,
            # the server's, to read its computers' turns
            "COMPUTER_PATIENCE": PATIENCE,
            "COMPUTER_PACE": PACE,
        }
    )


# --- what the live tests measure and check ---------------------------------------------------

P95_LIMIT = 0.2  # seconds: the slowest a tap's, a page's or /healthz's p95 may be under attack


def p95(values: list[float]) -> float:
    values = sorted(values)
    return values[max(0, int(len(values) * 0.95 + 0.5) - 1)]


def chips_balance(db: Path) -> None:
    """Every ledger version sums to zero, and every table holds (players, bank and the stakes
    on the felt) what the house issued it."""
    with sqlite3.connect(db) as conn:
        unbalanced = conn.execute(
            "SELECT COUNT(*) FROM (SELECT 1 FROM ledger GROUP BY table_id, version "
            "HAVING SUM(amount) != 0)"
        ).fetchone()[0]
        assert unbalanced == 0
        for table_id, text in conn.execute("SELECT id, state FROM game_tables"):
            state = json.loads(text)
            held = sum(p["chips"] for p in state["players"].values())
            held += state["bank"]["amount"] if state.get("bank") else 0
            if state.get("hand") and state["phase"] == "betting":
                held += sum(bet["amount"] or 0 for bet in state["hand"]["bets"])
            issued = -conn.execute(
                "SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE table_id = ? "
                "AND account = 'house'",
                (table_id,),
            ).fetchone()[0]
            assert held == issued, (table_id, held, issued)


def timed_taps(base: str, code: str, punter, rounds: int = 30) -> dict[str, list[float]]:
    """How long /healthz, the home page and a tap of ``punter`` took, ``rounds`` times each."""
    import httpx

    times: dict[str, list[float]] = {"healthz": [], "home": [], "tap": []}
    with httpx.Client(base_url=base, timeout=5) as guest:
        for _ in range(rounds):
            for name, ask in (
                ("healthz", lambda: guest.get("/healthz")),
                ("home", lambda: guest.get("/")),
                # A bet, then takes it back: every one moves the table.
                ("tap", lambda: punter.post(f"/t/{code}/a/bet", heap=1, amount=1)),
            ):
                started = time.monotonic()
                assert ask().status_code == 200
                times[name].append(time.monotonic() - started)
    return times
