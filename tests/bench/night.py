"""A charity night on one laptop: ``python -m tests.bench.night --tables 8 --phones 25``.

``tables`` Montones tables, each with ``phones`` players (one banker, the rest punters) and a TV,
every phone and every TV holding its live stream and doing what its page does (``common.Screen``).
On all tables but the last (``--fast``: the last N), each punter acts at a human pace: about every 2 s (1.5 to 2.5 s,
at random) it bets a few chips on heap 1 through the tap form, or takes back the bet it has
there. On the last table the punters act as fast as they can (as in ``load.py``: the next tap
once its own phone shows the last).

An action's latency (human-pace tables) is from just before its POST until every screen of that
table (its TV and every phone) holds a felt showing it: the acting punter's pile at the amount the
action leaves. One not shown everywhere within 5 s counts as an error, as do a 5xx, a connection
error, an answer with "database is locked" and a failed stream or fetch. At the end every table's
chips must be where they started (players + bank + stakes) and every ledger version sum to zero;
rss is the worker's resident memory at the end.

Last line: ``night: tables=8 screens=208 cpu_ms_per_action=... actions_per_s=... p95_ms=...
rss_mb=... errors=... chips_conserved=yes|no bytes_per_screen_action=... mbit_s=...``: the bytes every table's streams
carried while its players played (on the wire, chunk framing and all), per accepted action at that
table and per screen of it; all streams' bytes as a rate; and cpu_ms_per_action, the server
worker's CPU time over the actions it accepted (every table's). Goal: cpu_ms_per_action <= 4
(<= 5 with ``--fast 0``, every table at a human pace), p95 <= 100 ms, rss <= 400 MB, errors=0, chips conserved, bytes_per_screen_action <= 400, mbit_s <= 5.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import shutil
import sqlite3
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.bench import common as c

CHIPS = 1000
INTENT = {"mode": "bet", "amount": "1", "custom": ""}
SHOWN_WITHIN = 5.0
rng = random.Random(7)  # the pace of the players, not the cards


class Watch:
    """A table's actions still to be shown, each on every screen of the table: a tracker for
    the table's screens (``common.Screen`` calls ``update`` on every swap)."""

    def __init__(self, screens: list[c.Screen]):
        self.screens = screens
        self.pending: list[tuple[str, int, float, set, asyncio.Future]] = []
        for screen in screens:
            screen.tracker = self

    def expect(self, seat: str, pile: int, t0: float) -> asyncio.Future:
        done = asyncio.get_running_loop().create_future()
        item = (seat, pile, t0, set(self.screens), done)
        self.pending.append(item)
        for screen in self.screens:
            self._check(item, screen, time.perf_counter())
        return done

    def update(self, screen: c.Screen, t: float) -> None:
        for item in list(self.pending):
            self._check(item, screen, t)

    def event(self, screen: c.Screen, t: float) -> None:
        pass

    def _check(self, item, screen, t: float) -> None:
        seat, pile, t0, waiting, done = item
        if screen not in waiting:
            return
        piles = c.felt_piles(screen.held) if screen.held else None
        if piles is not None and piles.get(seat, 0) == pile:
            waiting.discard(screen)
            if not waiting and not done.done():
                done.set_result(t - t0)
                self.pending.remove(item)


class Tally:
    def __init__(self):
        self.latencies: list[float] = []
        self.answered: list[float] = []  # from just before the POST to its answer
        self.completed = 0
        self.errors: Counter = Counter()
        self.status: Counter = Counter()
        self.actions: Counter = Counter()  # accepted, per table

    def answer(self, r, code: str) -> bool:
        self.status[r.status_code] += 1
        if r.status_code == 200:
            self.actions[code] += 1
        if r.status_code >= 500:
            self.errors[f"HTTP {r.status_code}"] += 1
        elif "database is locked" in r.text:
            self.errors["database is locked"] += 1
        return r.status_code == 200


async def open_table(base: str, db: Path, phones: int, number: int):
    host, code = await c.create_table(base, chips=CHIPS)
    players = [c.Player(base, f"T{number}P{i:02d}") for i in range(1, phones + 1)]
    for p in players:
        await p.join(code)
    seats = {v["name"]: pid for pid, v in c.read_state(db, code)["players"].items()}
    for p in players:
        p.seat = seats[p.name]
    banker, punters = await c.open_hand(code, players, bank=CHIPS, db_path=db)
    tv = c.Screen(f"{code} tv", c.client(base), page=f"/t/{code}/tv", partial=f"/t/{code}/tv/p/all")
    screens = {
        p: c.Screen(
            p.name,
            c.client(base, cookies=p.http.cookies),
            page=f"/t/{code}",
            partial=f"/t/{code}/p/all",
            params=None if p is banker else INTENT,
        )
        for p in players
    }
    return host, code, players, punters, tv, screens


def tap(code: str, p: c.Player, phone: c.Screen, amount: int):
    """What the punter's phone does next: take back its bet on the felt, or tap heap 1."""
    mine = c.own_bets(phone.held, p.seat)
    if mine:
        _bet, fields = mine[-1]
        return "withdraw", p.act(code, "withdraw", **fields, **phone.intent), 0
    form = c.tap_form(phone.held, 1) or {"heap": 1}
    intent = {**phone.intent, "amount": str(amount)}
    return "bet", p.act(code, "tap", **form, **intent), amount


async def human(code, p, phone, watch: Watch, tally: Tally, end: float) -> None:
    n = 0
    await asyncio.sleep(rng.uniform(0, 2))
    while time.perf_counter() < end:
        n += 1
        pace = asyncio.create_task(asyncio.sleep(rng.uniform(1.5, 2.5)))
        t0 = time.perf_counter()
        try:
            _kind, request, pile = tap(code, p, phone, 1 + n % 5)
            shown = watch.expect(p.seat, pile, t0)
            r = await phone.action(request)
            tally.answered.append(time.perf_counter() - t0)
        except c.httpx.HTTPError as e:
            tally.errors[type(e).__name__] += 1
            await pace
            continue
        if tally.answer(r, code):
            try:
                tally.latencies.append(await asyncio.wait_for(shown, SHOWN_WITHIN))
                tally.completed += 1
            except TimeoutError:
                tally.errors["not shown on every screen within 5 s"] += 1
                tally.latencies.append(math.inf)
        watch.pending = [item for item in watch.pending if item[4] is not shown]
        await pace


async def fast(code, p, phone, tally: Tally, end: float) -> None:
    while time.perf_counter() < end:
        try:
            kind, request, _pile = tap(code, p, phone, 1)
            r = await phone.action(request)
        except c.httpx.HTTPError as e:
            tally.errors[type(e).__name__] += 1
            await asyncio.sleep(0.01)
            continue
        if r.status_code == 429:  # faster than a person: the phone says wait, and its player does
            await asyncio.sleep(float(r.headers.get("Retry-After", "1")) / 2)
            continue
        if not tally.answer(r, code):
            continue
        if kind == "withdraw":
            done = await phone.until(lambda: not c.own_bets(phone.held, p.seat))
        else:
            done = await phone.until(lambda: bool(c.own_bets(phone.held, p.seat)))
        tally.completed += done


def check_chips(db: Path, codes: list[str]) -> tuple[bool, str]:
    wrong = []
    for code in codes:
        state = c.read_state(db, code)
        held = sum(p["chips"] for p in state["players"].values())
        held += state["bank"]["amount"] if state["bank"] else 0
        if state["hand"] and state["phase"] == "betting":
            held += sum(b["amount"] or 0 for b in state["hand"]["bets"])
        if held != CHIPS * len(state["players"]):
            wrong.append(f"{code}: {held} chips, not {CHIPS * len(state['players'])}")
    with sqlite3.connect(db) as conn:
        unbalanced = conn.execute(
            "SELECT COUNT(*) FROM (SELECT version FROM ledger GROUP BY table_id, version "
            "HAVING SUM(amount) != 0)"
        ).fetchone()[0]
    detail = f"{len(codes) - len(wrong)} of {len(codes)} tables hold their chips; " + (
        f"{'; '.join(wrong)}; " if wrong else ""
    )
    return not wrong and unbalanced == 0, detail + f"unbalanced ledger versions: {unbalanced}"


def rss_mb(pid: int | None) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (OSError, TypeError):
        return float("nan")
    kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    return kb / 1024


async def main(args) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="montones-bench-night-"))
    server, base = c.start_app(folder)
    db = folder / "montones.sqlite"
    tables, screens, clients = [], [], []
    out: dict = {"human": Tally(), "fast": Tally()}
    try:
        for number in range(1, args.tables + 1):
            tables.append(await open_table(base, db, args.phones, number))
            clients += [tables[-1][0], *tables[-1][2]]
        screens = [s for t in tables for s in (t[4], *t[5].values())]
        connected = await c.connect_all(screens, timeout=60)
        print(f"{len(tables)} tables, {len(screens)} screens, streams connected: {connected}")
        out["screens"] = len(screens)
        worker = c.worker_pid(server)
        sent0 = {s: s.stats["bytes"] for s in screens}
        cpu0, start = c.cpu_seconds(worker or 0), time.perf_counter()
        end = start + args.seconds
        runs = []
        for i, (_host, code, _players, punters, tv, phones) in enumerate(tables):
            if i >= len(tables) - args.fast:
                runs += [fast(code, p, phones[p], out["fast"], end) for p in punters]
            else:
                watch = Watch([tv, *phones.values()])
                runs += [human(code, p, phones[p], watch, out["human"], end) for p in punters]
        await asyncio.gather(*runs)
        out["elapsed"] = time.perf_counter() - start
        out["server_cpu"] = c.cpu_seconds(worker or 0) - cpu0
        # What the streams carried while the players played, per table: (bytes, screens, actions).
        out["sent"] = {
            t[1]: (
                sum(s.stats["bytes"] - sent0[s] for s in (t[4], *t[5].values())),
                1 + len(t[5]),
                out["human"].actions[t[1]] + out["fast"].actions[t[1]],
            )
            for t in tables
        }
        out["rss_mb"] = rss_mb(worker)
        out["screen_totals"] = c.screen_totals(screens)
        out["screen_errors"] = c.first_errors(screens)
        out["stream_errors"] = sum(e.startswith("stream") for s in screens for e in s.errors)
        await asyncio.gather(*(s.close() for s in screens))
        out["chips"] = check_chips(db, [t[1] for t in tables])
    finally:
        await asyncio.gather(*(s.close() for s in screens))
        await asyncio.gather(*(s.http.aclose() for s in screens))
        await asyncio.gather(*(p.aclose() for p in clients))
        c.stop(server)
        shutil.rmtree(folder, ignore_errors=True)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--phones", type=int, default=25, help="players per table, the banker too")
    parser.add_argument("--seconds", type=float, default=30, help="how long the players play")
    parser.add_argument(
        "--fast", type=int, default=1, help="tables (the last ones) whose punters tap at once"
    )
    args = parser.parse_args()
    print(c.machine())
    out = asyncio.run(main(args))
    print(c.machine())
    human_tally, fast_tally, elapsed = out["human"], out["fast"], out["elapsed"]
    print(
        f"[human pace] {human_tally.completed} actions shown everywhere in {elapsed:.1f} s; "
        + c.spread("tap to every screen", human_tally.latencies)
    )
    print("[human pace] " + c.spread("tap answered", human_tally.answered))
    print(f"[as fast as they can] {fast_tally.completed} actions in {elapsed:.1f} s")
    for name, tally in (("human pace", human_tally), ("as fast as they can", fast_tally)):
        print(f"[{name}] answers {dict(sorted(tally.status.items()))}; errors {dict(tally.errors)}")
    totals = out["screen_totals"]
    print(f"[screens] {totals}")
    for e in out["screen_errors"]:
        print(f"[screens]   error: {e}")
    print(f"server worker CPU {out['server_cpu']:.1f} s ({100 * out['server_cpu'] / elapsed:.0f}%)")
    ok, detail = out["chips"]
    print(f"chips: {detail}")
    errors = (
        sum(human_tally.errors.values())
        + sum(fast_tally.errors.values())
        + totals.get("fetch_errors", 0)
        + out["stream_errors"]
    )
    per_s = (human_tally.completed + fast_tally.completed) / elapsed
    sent = out["sent"].values()
    # Each table's bytes per action divided by its screens, over every table's actions.
    per_screen_action = sum(b / n for b, n, _a in sent) / max(1, sum(a for _b, _n, a in sent))
    mbit_s = sum(b for b, _n, _a in sent) * 8 / elapsed / 1e6
    # The worker's CPU over the actions it accepted (every table's, both paces).
    accepted = sum(human_tally.actions.values()) + sum(fast_tally.actions.values())
    cpu_ms_per_action = 1000 * out["server_cpu"] / max(1, accepted)
    print(
        f"night: tables={args.tables} screens={out['screens']} "
        f"cpu_ms_per_action={cpu_ms_per_action:.2f} actions_per_s={per_s:.1f} "
        f"p95_ms={c.ms(c.percentile(human_tally.latencies, 95))} rss_mb={out['rss_mb']:.0f} "
        f"errors={errors} chips_conserved={'yes' if ok else 'no'} "
        f"bytes_per_screen_action={per_screen_action:.0f} mbit_s={mbit_s:.1f}"
    )
