"""Players betting as fast as they can: ``python -m tests.bench.load --players 30 --seconds 20``.

One Montones table with ``players`` punters and a banker seated and a hand in betting. The TV and
every player's phone hold a live stream and do what their page does on each event (merge the
regions an event carries: see ``common.Screen``). Each
punter then loops as fast as it can on the felt its phone shows: with no bet of its own on it,
it taps heap 1 with 1 chip (the tap form's stage and nonce, the #intent values), else it
withdraws its bet (the withdraw button's bet id, nonce and stage, and the #intent values, which
the felt includes). Its phone swaps the answer in (its own regions); the tap is done when the
phone's felt, pushed by its stream like every screen's, shows it. An action's latency is its
answer's; a tap that the felt has not shown 5 s later is not counted as completed.

Baseline, in the same run, same server, same streams open, same concurrency, same time: GET
/healthz (a trivial route). Errors: any 5xx, any connection error or timeout, any answer with
"database is locked" (on actions and on the screens' fetches). A 422 refusal is counted apart.
At the end the SQLite file must account for every chip: players + bank + stakes on the table ==
starting chips x players, and every version's ledger entries sum to zero.

Last line: ``load: actions_per_s=... baseline_per_s=... ratio=... p95_ms=... errors=...
chips_conserved=yes|no``. Goal: ratio >= 0.3, p95 <= 100 ms, errors=0, chips conserved.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sqlite3
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.bench import common as c

CHIPS = 1000
INTENT = {"mode": "bet", "amount": "1", "custom": ""}


class Phase:
    def __init__(self, name: str):
        self.name = name
        self.latencies: list[float] = []
        self.status: Counter = Counter()
        self.kinds: Counter = Counter()
        self.errors: Counter = Counter()
        self.completed = 0
        self.noops = 0  # 200, but the phone's felt never showed a change
        self.elapsed = float("nan")
        self.server_cpu = float("nan")
        self.client_cpu = float("nan")

    @property
    def per_s(self) -> float:
        return self.completed / self.elapsed if self.elapsed > 0 else float("nan")

    def report(self) -> None:
        print(
            f"[{self.name}] {self.completed} completed in {self.elapsed:.1f} s = "
            f"{self.per_s:.1f}/s; " + c.spread("latency", self.latencies)
        )
        print(f"[{self.name}] answers by status: {dict(sorted(self.status.items()))}")
        if self.kinds:
            print(f"[{self.name}] requests by kind: {dict(self.kinds)}")
        print(f"[{self.name}] errors: {sum(self.errors.values())} {dict(self.errors)}")
        if self.noops:
            print(
                f"[{self.name}] {self.noops} answers were 200 but the phone's felt did not show "
                "the change within 5 s (or the server took the form's nonce for a repeated "
                "tap), not counted as completed"
            )
        print(
            f"[{self.name}] server worker CPU {self.server_cpu:.1f} s "
            f"({100 * self.server_cpu / self.elapsed:.0f}%), bench client CPU "
            f"{self.client_cpu:.1f} s ({100 * self.client_cpu / self.elapsed:.0f}%)"
        )


async def hammer(phase: Phase, actors, step, seconds: float, worker: int | None) -> None:
    """Every actor runs ``step`` back to back for ``seconds``."""
    end = time.perf_counter() + seconds

    async def loop(actor):
        while time.perf_counter() < end:
            t0 = time.perf_counter()
            try:
                kind, r, answered, took = await step(actor)
            except c.httpx.HTTPError as e:
                phase.latencies.append(time.perf_counter() - t0)
                phase.errors[type(e).__name__] += 1
                await asyncio.sleep(0.01)
                continue
            phase.latencies.append(answered)
            phase.status[r.status_code] += 1
            phase.kinds[kind] += 1
            if r.status_code >= 500:
                phase.errors[f"HTTP {r.status_code}"] += 1
            elif "database is locked" in r.text:
                phase.errors["database is locked"] += 1
            elif r.status_code == 200 and took:
                phase.completed += 1
            elif r.status_code == 200:
                phase.noops += 1

    cpu0, own0, start = c.cpu_seconds(worker or 0), c.own_cpu_seconds(), time.perf_counter()
    await asyncio.gather(*(loop(a) for a in actors))
    phase.elapsed = time.perf_counter() - start
    phase.server_cpu = c.cpu_seconds(worker or 0) - cpu0
    phase.client_cpu = c.own_cpu_seconds() - own0


def check_chips(db: Path, code: str, starting: int) -> tuple[bool, str]:
    state = c.read_state(db, code)
    players = sum(p["chips"] for p in state["players"].values())
    bank = state["bank"]["amount"] if state["bank"] else 0
    bets = state["hand"]["bets"] if state["hand"] and state["phase"] == "betting" else []
    stakes = sum(b["amount"] or 0 for b in bets)
    expected = starting * len(state["players"])
    with sqlite3.connect(db) as conn:
        unbalanced = conn.execute(
            "SELECT COUNT(*) FROM (SELECT version FROM ledger GROUP BY table_id, version "
            "HAVING SUM(amount) != 0)"
        ).fetchone()[0]
        actions = conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
    ok = players + bank + stakes == expected and unbalanced == 0
    return ok, (
        f"players {players} + bank {bank} + stakes {stakes} ({len(bets)} bets open) = "
        f"{players + bank + stakes}; expected {starting} x {len(state['players'])} = {expected}; "
        f"unbalanced ledger versions: {unbalanced}; version {state['version']}, "
        f"{actions} actions logged"
    )


async def main(args) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="montones-bench-load-"))
    server, base = c.start_app(folder, per_seat=c.SCRIPTED)
    db = folder / "montones.sqlite"
    players, screens, opened, host = [], [], [], None
    out: dict = {"baseline": Phase("baseline GET /healthz"), "actions": Phase("actions")}
    try:
        host, code = await c.create_table(base, chips=CHIPS)
        r = await host.http.get("/healthz")
        route = "/healthz" if r.status_code == 200 else "/"
        out["baseline"].name = f"baseline GET {route}"
        players = await c.seat_players(base, code, args.players + 1, db)
        banker, punters = await c.open_hand(code, players, bank=CHIPS, db_path=db)
        tv = c.Screen("tv", c.client(base), page=f"/t/{code}/tv", partial=f"/t/{code}/tv/p/all")
        phones = {
            p: c.Screen(
                p.name,
                c.client(base, cookies=p.http.cookies),
                page=f"/t/{code}",
                partial=f"/t/{code}/p/all",
                params=None if p is banker else INTENT,
            )
            for p in players
        }
        opened = [tv, *phones.values()]
        screens = [] if args.no_screens else opened
        connected = await c.connect_all(screens, timeout=20)
        print(f"table {code}: {len(players)} seated; streams connected: {connected}/{len(screens)}")
        worker = c.worker_pid(server)

        async def trivial(p):
            t0 = time.perf_counter()
            r = await p.wire.get(route)
            return "healthz", r, time.perf_counter() - t0, True

        async def step(p):
            """One tap on what the player's phone shows; done when the phone's felt shows it."""
            phone = phones[p]
            mine = c.own_bets(phone.held, p.seat)
            if mine:
                bet, fields = mine[-1]
                kind, request = "withdraw", p.act(code, "withdraw", **fields, **phone.intent)
                shown = lambda: bet not in dict(c.own_bets(phone.held, p.seat))  # noqa: E731
            else:
                form = c.tap_form(phone.held, 1)
                if form is None:  # what it holds has no tap form (an error page): reload
                    await phone.reload()
                    form = c.tap_form(phone.held, 1) or {"heap": 1}
                kind, request = "bet", p.act(code, "tap", **form, **phone.intent)
                shown = lambda: bool(c.own_bets(phone.held, p.seat))  # noqa: E731
            t0 = time.perf_counter()
            r = await phone.action(request)
            answered = time.perf_counter() - t0
            took = r.status_code == 200 and await phone.until(shown, live=not args.no_screens)
            return kind, r, answered, took

        await hammer(out["baseline"], punters, trivial, args.seconds, worker)
        before = c.screen_totals(screens)
        spy = c.start_profile(worker, args.profile, args.seconds) if args.profile else None
        await hammer(out["actions"], punters, step, args.seconds, worker)
        if spy is not None:
            spy.wait(timeout=30)
            print(f"profile: written to {args.profile}")
        after = c.screen_totals(screens)
        out["screens"] = {k: after[k] - before.get(k, 0) for k in after}
        out["screen_errors"] = c.first_errors(screens)
        out["stream_errors"] = sum(e.startswith("stream") for s in screens for e in s.errors)
        await asyncio.gather(*(s.close() for s in screens))
        out["chips"] = check_chips(db, code, CHIPS)
    finally:
        await asyncio.gather(*(s.close() for s in screens))
        await asyncio.gather(*(s.http.aclose() for s in opened))
        await asyncio.gather(*(p.aclose() for p in players))
        if host:
            await host.aclose()
        c.stop(server)
        shutil.rmtree(folder, ignore_errors=True)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=30, help="punters (a banker is added)")
    parser.add_argument("--seconds", type=float, default=20, help="length of each phase")
    parser.add_argument("--timeout", type=float, help="bound on the whole run (s)")
    parser.add_argument(
        "--no-screens",
        action="store_true",
        help="diagnostic: no TV and no phone holds a live stream; each player fetches its felt "
        "after each tap instead",
    )
    parser.add_argument(
        "--profile", metavar="FILE", help="py-spy the app's worker during the actions"
    )
    args = parser.parse_args()

    async def bounded():
        async with asyncio.timeout(args.timeout or 2 * args.seconds + 120):
            return await main(args)

    print(c.machine())
    try:
        out = asyncio.run(bounded())
    except TimeoutError:
        out = {}
        print("the run hit its time bound")
    base, acts = out.get("baseline", Phase("baseline")), out.get("actions", Phase("actions"))
    for phase in (base, acts):
        if phase.elapsed == phase.elapsed:
            phase.report()
    print(c.machine())
    screens = out.get("screens", {})
    print(f"[screens during actions] {screens}")
    for e in out.get("screen_errors", []):
        print(f"[screens]   error: {e}")
    screen_errors = screens.get("fetch_errors", 0) + out.get("stream_errors", 0)
    ok, detail = out.get("chips", (False, "not checked"))
    print(f"chips: {detail}")
    errors = sum(acts.errors.values()) + screen_errors
    refused = acts.status.get(422, 0)
    print(f"refusals (422): {refused}; other 4xx: "
          f"{sum(n for s, n in acts.status.items() if 400 <= s < 500 and s != 422)}")  # fmt: skip
    print(
        f"load: actions_per_s={acts.per_s:.1f} baseline_per_s={base.per_s:.1f} "
        f"ratio={c.ratio(acts.per_s, base.per_s)} p95_ms={c.ms(c.percentile(acts.latencies, 95))} "
        f"errors={errors} chips_conserved={'yes' if ok else 'no'}"
    )
