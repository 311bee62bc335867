"""How long until every live screen shows a bet: ``python -m tests.bench.live --clients 40``.

One Montones table with ``clients - 1`` players seated and a hand in betting; ``clients`` live
screens: the TV and every player's phone, each with its own cookie jar, each doing what its page
does on an event (merge the regions the event carries, as htmx does: see ``common.Screen``). The
punters,
in turn, place 200 bets of 1 chip on heap 1 one at a time, through the phone's tap form (a
separate client with the punter's cookies; that phone also swaps the POST's answer, as the page
does). A bet's latency is from just before its POST until the last screen holds HTML whose felt
has the new chip: the felt shows one pile per player (the sum of their bets), so a screen shows
bet k when the stakes its felt shows add up to k. At the end, every screen's felt must show each
player's pile as the stored state has it. Baseline, in the same run: bare_sse.py (a bare SSE
broadcast) under the same gunicorn settings, the same number of clients, 200 publishes.

Last line: ``live: clients=N p50_ms=... p95_ms=... baseline_p95_ms=... ratio_p95=...``
(a bet that timed out counts as infinitely slow). Goal: p95 <= 50 ms and ratio_p95 <= 3.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tests.bench import common as c

BET_TIMEOUT = 5.0  # per bet: a bet not on every screen by then is a failure
GIVE_UP_AFTER = 3  # consecutive failures: the rest of the run would only time out too
SEQ_RE = re.compile(r'data-n="(\d+)"')
INTENT = {"mode": "bet", "amount": "1", "custom": ""}  # the #intent form, as the phone sends it


def seq_counter(html: str, region: str | None = None) -> int | None:
    found = SEQ_RE.search(html)
    return int(found.group(1)) if found else None


class Run:
    """The figures of one side (the app or the baseline)."""

    def __init__(self, name: str):
        self.name = name
        self.latencies: list[float] = []
        self.posts: list[float] = []
        self.first_events: list[float] = []
        self.last_events: list[float] = []
        self.failures: list[str] = []
        self.connected = 0
        self.clients = 0
        self.server_cpu = float("nan")
        self.client_cpu = float("nan")
        self.wall = float("nan")
        self.screen_totals: dict = {}
        self.screen_errors: list[str] = []

    def report(self) -> None:
        print(f"[{self.name}] streams connected: {self.connected}/{self.clients}")
        if self.connected < self.clients:
            print(
                f"[{self.name}]   {self.clients - self.connected} streams had no answer within 20 s"
            )
        print(f"[{self.name}] " + c.spread("bet on every screen", self.latencies))
        n = len(self.latencies)
        if n >= 8:  # does it slow down as the felt fills up?
            quarters = [self.latencies[i * n // 4 : (i + 1) * n // 4] for i in range(4)]
            print(
                f"[{self.name}] p50_ms by quarter of the run: "
                + " ".join(c.ms(c.percentile(q, 50)) for q in quarters)
            )
        print(f"[{self.name}] " + c.spread("POST answered", self.posts))
        print(f"[{self.name}] " + c.spread("first screen got the event", self.first_events))
        print(f"[{self.name}] " + c.spread("last screen got the event", self.last_events))
        if self.wall == self.wall:
            print(
                f"[{self.name}] during the bets: wall {self.wall:.2f} s, server worker CPU "
                f"{self.server_cpu:.2f} s ({100 * self.server_cpu / self.wall:.0f}%), bench client "
                f"CPU {self.client_cpu:.2f} s ({100 * self.client_cpu / self.wall:.0f}%)"
            )
        if self.screen_totals:
            print(f"[{self.name}] screens: {self.screen_totals}")
        print(f"[{self.name}] failures: {len(self.failures)}")
        for f in self.failures[:5]:
            print(f"[{self.name}]   {f}")
        for e in self.screen_errors:
            print(f"[{self.name}]   screen error: {e}")


async def rounds(run, screens, tracker, place, bets, deadline, base=0):
    """Place ``bets`` one at a time; each waits until every screen shows it."""
    consecutive = 0
    for k in range(1, bets + 1):
        if consecutive >= GIVE_UP_AFTER or time.perf_counter() > deadline:
            missing = bets - k + 1
            run.failures.append(f"{missing} bets not placed (gave up: {consecutive} timeouts)")
            run.latencies.extend([math.inf] * missing)
            break
        await asyncio.gather(*(s.idle() for s in screens))  # one at a time: let the last settle
        tracker.start(base + k)
        t0 = time.perf_counter()
        try:
            async with asyncio.timeout(BET_TIMEOUT):
                status = await place(k)
                t_post = time.perf_counter()
                if status not in (200, 204):
                    raise RuntimeError(f"the POST answered {status}")
                await tracker.done.wait()
        except (TimeoutError, RuntimeError, c.httpx.HTTPError) as e:
            consecutive += 1
            why = str(e) or type(e).__name__
            run.failures.append(
                f"bet {k}: {why}; {len(tracker.pending)} of {len(screens)} screens did not show it"
            )
            run.latencies.append(math.inf)
            continue
        consecutive = 0
        run.latencies.append(max(tracker.hits.values()) - t0)
        run.posts.append(t_post - t0)
        if tracker.events:
            run.first_events.append(min(tracker.events.values()) - t0)
            run.last_events.append(max(tracker.events.values()) - t0)


async def bench_app(run: Run, clients: int, bets: int, deadline: float, profile: str | None):
    folder = Path(tempfile.mkdtemp(prefix="montones-bench-live-"))
    server, base = c.start_app(folder, per_seat=c.SCRIPTED)
    db = folder / "montones.sqlite"
    players, screens, host, spy = [], [], None, None
    try:
        punters_needed = clients - 2
        chips = max(1000, bets // max(punters_needed, 1) + 10)
        host, code = await c.create_table(base, chips=chips)
        players = await c.seat_players(base, code, clients - 1, db)
        banker, punters = await c.open_hand(code, players, bank=chips, db_path=db)
        tv = c.Screen("tv", c.client(base), page=f"/t/{code}/tv", partial=f"/t/{code}/tv/p/all")
        phones = {
            p: c.Screen(
                p.name,
                c.client(base, cookies=p.http.cookies),  # the phone's own jar: same seat
                page=f"/t/{code}",
                partial=f"/t/{code}/p/all",
                params=None if p is banker else INTENT,  # the banker's bar has no #intent
            )
            for p in players
        }
        screens = [tv, *phones.values()]
        run.clients = len(screens)
        run.connected = await c.connect_all(screens, timeout=20)
        tracker = c.Tracker(screens)
        base_count = min((s.count or 0) for s in screens)

        async def place(k: int) -> int:
            punter = punters[(k - 1) % len(punters)]
            phone = phones[punter]
            form = c.tap_form(phone.held, 1)
            if form is None:  # no tap form in what the phone holds: the plain bet action
                r = await phone.action(punter.act(code, "bet", heap=1, amount=1))
            else:
                r = await phone.action(punter.act(code, "tap", **form, **phone.intent))
            return r.status_code  # the tap's answer swapped in, out of band

        worker = c.worker_pid(server)
        cpu0, own0, wall0 = c.cpu_seconds(worker or 0), c.own_cpu_seconds(), time.perf_counter()
        if profile:
            spy = c.start_profile(worker, profile, min(20, max(1, deadline - time.perf_counter())))
        await rounds(run, screens, tracker, place, bets, deadline, base_count)
        run.wall = time.perf_counter() - wall0
        run.server_cpu = c.cpu_seconds(worker or 0) - cpu0
        run.client_cpu = c.own_cpu_seconds() - own0
        run.screen_totals = c.screen_totals(screens)
        run.screen_errors = c.first_errors(screens)
        state = c.read_state(db, code)
        print(f"[app] table {code}: {len(state['players'])} players, version {state['version']}")
        stored: dict[str, int] = {}
        for b in state["hand"]["bets"]:
            stored[b["player"]] = stored.get(b["player"], 0) + (b["amount"] or 0)
        wrong = [s.name for s in screens if c.felt_piles(s.held) != stored]
        print(
            f"[app] at the end, {len(screens) - len(wrong)} of {len(screens)} screens show every "
            f"player's stake as stored ({sum(stored.values())} chips in {len(stored)} piles)"
        )
        if wrong:
            run.failures.append(f"{len(wrong)} screens do not show the stored stakes: {wrong[:5]}")
    finally:
        if spy is not None:
            try:
                spy.wait(30)
            except subprocess.TimeoutExpired:
                spy.terminate()
            print(f"profile: written to {profile}")
        await asyncio.gather(*(s.close() for s in screens))
        await asyncio.gather(*(s.http.aclose() for s in screens))
        await asyncio.gather(*(p.aclose() for p in players))
        if host:
            await host.aclose()
        c.stop(server)
        shutil.rmtree(folder, ignore_errors=True)


async def bench_bare(run: Run, clients: int, bets: int, deadline: float):
    folder = Path(tempfile.mkdtemp(prefix="montones-bench-bare-"))
    server, base = c.start_gunicorn("bare_sse:app", folder)
    screens, publisher = [], c.Wire(base)
    try:
        screens = [
            c.Screen(f"s{i}", c.client(base), stream="/stream", counter=seq_counter)
            for i in range(clients)
        ]
        run.clients = len(screens)
        run.connected = await c.connect_all(screens, timeout=20)
        for s in screens:
            s.count = 0
        tracker = c.Tracker(screens)

        async def place(k: int) -> int:
            return (await publisher.post("/publish", {})).status_code

        worker = c.worker_pid(server)
        cpu0, own0, wall0 = c.cpu_seconds(worker or 0), c.own_cpu_seconds(), time.perf_counter()
        await rounds(run, screens, tracker, place, bets, deadline)
        run.wall = time.perf_counter() - wall0
        run.server_cpu = c.cpu_seconds(worker or 0) - cpu0
        run.client_cpu = c.own_cpu_seconds() - own0
        run.screen_totals = c.screen_totals(screens)
        run.screen_errors = c.first_errors(screens)
    finally:
        await asyncio.gather(*(s.close() for s in screens))
        await asyncio.gather(*(s.http.aclose() for s in screens))
        publisher.close()
        c.stop(server)
        shutil.rmtree(folder, ignore_errors=True)


async def main(args) -> tuple[Run, Run]:
    app, bare = Run("app"), Run("baseline")
    start = time.perf_counter()
    try:
        async with asyncio.timeout(args.timeout):
            # The app gets most of the time budget; the baseline is quick when it works at all.
            await bench_app(app, args.clients, args.bets, start + 0.65 * args.timeout, args.profile)
            await bench_bare(bare, args.clients, args.bets, start + args.timeout - 5)
    except TimeoutError:
        print(f"the run hit its {args.timeout:.0f} s bound")
    for run in (app, bare):
        if len(run.latencies) < args.bets:
            run.latencies.extend([math.inf] * (args.bets - len(run.latencies)))
    return app, bare


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=40, help="live screens: the TV + phones")
    parser.add_argument("--bets", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=180, help="bound on the whole run (s)")
    parser.add_argument("--profile", metavar="FILE", help="py-spy the app's worker during the bets")
    args = parser.parse_args()
    if args.clients < 3:
        parser.error("--clients must be at least 3 (a TV, a banker and a punter)")
    print(c.machine())
    app, bare = asyncio.run(main(args))
    print(c.machine())
    for run in (app, bare):
        run.report()
    p50, p95 = c.percentile(app.latencies, 50), c.percentile(app.latencies, 95)
    base95 = c.percentile(bare.latencies, 95)
    print(
        f"live: clients={args.clients} p50_ms={c.ms(p50)} p95_ms={c.ms(p95)} "
        f"baseline_p95_ms={c.ms(base95)} ratio_p95={c.ratio(p95, base95)}"
    )
