"""What one tap costs in process: ``python -m tests.bench.tap --rounds 20``.

A Montones table of 31 seats in betting (3 heaps) on a SQLite file in a temporary folder, in
this process: each round, its 30 punters tap heap 1 with 1 chip, then each withdraws that bet,
through Flask's test client as their phones would (``HX-Request``, their own cookies); after the
rounds, ``/healthz`` 600 times. No server and no live stream: only the app's own work on a
request, without the fan-out's. Each action's WSGI call is timed alone.

On a machine whose speed moves (a neighbour's load, steal), the times move with it. The
instructions do not: run it under ``valgrind --tool=callgrind`` twice, with ``--rounds 0`` and
``--rounds 2``; the difference of the two totals over 120 is one action's instructions (the
test client's own work included, and a 60th of a read of the table's state, which each round
makes once), the same from one run to the next within about 1%.

Last line: ``tap: action_us=... healthz_us=... ratio=...`` (medians; ratio: healthz over action).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time

from montones.factory import create_app
from tests.helpers.nights import Night

INTENT = {"mode": "bet", "amount": "1", "custom": ""}
HEALTHZ = 600


def main(rounds: int) -> None:
    folder = tempfile.mkdtemp(prefix="montones-bench-tap-")
    app = create_app(
        {"SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/montones.sqlite", "SECRET_KEY": "bench"}
    )
    names = [f"P{i:02d}" for i in range(31)]
    night = Night(app, *names, chips=1000, heaps=(3, 8))
    night.to_betting(banker="P00", bank=1000, heaps=3)
    punters, healthz = names[1:], app.test_client()
    actions, trivial = [], []

    def timed(times: list, call, *args, **fields):
        started = time.perf_counter()
        response = call(*args, **fields)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, response.get_data(as_text=True)[:300]

    def one_round(tag: str) -> None:
        for name in punters:
            timed(actions, night.do, name, "tap", heap=1, nonce=f"{tag}t", **INTENT)
        with app.app_context():
            bets = night.state()["hand"]["bets"]
        for name in punters:
            bet = max(b["id"] for b in bets if b["player"] == night.seats[name])
            timed(actions, night.do, name, "withdraw", bet=bet, nonce=f"{tag}w", **INTENT)

    one_round("warm")  # the first requests fill Jinja's and SQLAlchemy's caches
    actions.clear()
    for n in range(rounds):
        one_round(f"r{n}")
    for _ in range(HEALTHZ):  # as many whatever the rounds: they cancel out under callgrind
        timed(trivial, healthz.get, "/healthz")
    shutil.rmtree(folder, ignore_errors=True)
    if actions:
        action, baseline = statistics.median(actions), statistics.median(trivial)
        print(
            f"tap: action_us={1e6 * action:.0f} healthz_us={1e6 * baseline:.0f} "
            f"ratio={baseline / action:.3f} ({len(actions)} actions)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="rounds of 60 actions")
    main(parser.parse_args().rounds)
