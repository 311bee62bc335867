"""SIGKILL the server at random moments during hands, twenty times over.

After every restart: the database is intact, every action the server acknowledged is in the
log, chips are conserved, every ledger transaction balances, the hand in play has the same
cards, and no hand is paid twice.
"""

import json
import random
import sqlite3
import threading
import time

from tests.helpers.liveserver import (
    create_table,
    free_port,
    kill_server,
    seat,
    start_server,
    stop_server,
)

KILLS = 20


def read(db_path, code):
    with sqlite3.connect(db_path) as conn:
        (raw,) = conn.execute("SELECT state FROM game_tables WHERE code=?", (code,)).fetchone()
        nonces = {  # stored as "<seat>:<nonce>"
            n.split(":", 1)[1]
            for (n,) in conn.execute("SELECT nonce FROM actions WHERE nonce IS NOT NULL")
        }
        unbalanced = conn.execute(
            "SELECT version FROM ledger GROUP BY version HAVING SUM(amount) != 0"
        ).fetchall()
        settled = [
            json.loads(events)
            for (events,) in conn.execute("SELECT events FROM actions WHERE kind = 'close'")
        ]
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    return json.loads(raw), nonces, unbalanced, settled, integrity


class Driver:
    """Plays hands as fast as it can, remembering every acknowledged request's nonce."""

    def __init__(self, code, phones):
        self.code, self.phones = code, phones
        self.acked: set[str] = set()
        self.stop = threading.Event()
        self.counter = 0

    def post(self, name, kind, **fields):
        self.counter += 1
        nonce = f"crash-{self.counter}-{random.random()}"
        try:
            response = self.phones[name].post(f"/t/{self.code}/a/{kind}", nonce=nonce, **fields)
        except Exception:  # the server died under us: not acknowledged
            return None
        if response.status_code == 200:
            self.acked.add(nonce)
        return response

    def run(self, read_state):
        while not self.stop.is_set():
            try:
                state = read_state()
            except Exception:
                return
            phase = state["phase"]
            if phase == "cut":
                cutter = state["players"][state["hand"]["cutter"]]["name"]
                self.post(cutter, "cut", position=random.randint(1, 39))
            elif phase == "heaps":
                self.post("Ana", "heaps", count=random.randint(3, 5))
            elif phase == "betting":
                hand = state["hand"]
                if hand["bank_heap"] is None:
                    self.post("Eva", "choose", heap=len(hand["heaps"]))
                elif len(hand["bets"]) < 3:
                    self.post(random.choice(["Ben", "Eva"]), "bet", heap=1, amount=1)
                else:
                    self.post("Ana", "close")
            elif phase == "settled":
                if state["bank"]["amount"] == 0:
                    self.post("Ana", "abona", amount=5)
                else:
                    self.post("Ana", "next")
            else:
                return


def test_twenty_kills_lose_nothing(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    db_path = tmp_path / "montones.sqlite"
    server = start_server(tmp_path, port)
    rng = random.Random(20261130)
    try:
        code, _host = create_table(base, chips=1000)
        phones = {name: seat(base, code, name) for name in ("Ana", "Ben", "Eva")}
        phones["Ana"].post(f"/t/{code}/a/offer", amount=100)
        phones["Ben"].post(f"/t/{code}/a/pass")
        phones["Eva"].post(f"/t/{code}/a/pass")
        driver = Driver(code, phones)
        hands_seen = set()
        for _kill in range(KILLS):
            driver.stop.clear()
            thread = threading.Thread(target=driver.run, args=(lambda: read(db_path, code)[0],))
            thread.start()
            time.sleep(rng.uniform(0.05, 0.6))
            before = read(db_path, code)[0]
            kill_server(server)
            driver.stop.set()
            thread.join(30)

            state, nonces, unbalanced, settled, integrity = read(db_path, code)
            assert integrity == "ok"
            assert driver.acked <= nonces  # every acknowledged action survived
            assert unbalanced == []
            players = sum(p["chips"] for p in state["players"].values())
            bank = state["bank"]["amount"] if state["bank"] else 0
            stakes = (
                sum(b["amount"] or 0 for b in state["hand"]["bets"])
                if state["phase"] == "betting"
                else 0
            )
            assert players + bank + stakes == 3000
            hands = [e["hand"] for events in settled for e in events if e["type"] == "settled"]
            assert len(hands) == len(set(hands))  # no hand paid twice
            if state["hand"]["number"] == before["hand"]["number"] and before["hand"]["heaps"]:
                assert state["hand"]["heaps"] == before["hand"]["heaps"]  # never reshuffled
            hands_seen.add(state["hand"]["number"])

            server = start_server(tmp_path, port)
        assert len(hands_seen) > 3  # the kills fell across many hands
        print(f"crashes: kills={KILLS} acknowledged={len(driver.acked)} hands={len(hands_seen)}")
    finally:
        stop_server(server)
