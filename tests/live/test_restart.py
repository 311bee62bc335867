"""Kill the server in the middle of a hand, start it again: the hand goes on as it was."""

import json
import sqlite3

from tests.helpers.liveserver import (
    create_table,
    free_port,
    kill_server,
    seat,
    start_server,
    stop_server,
)


def read_state(db_path, code):
    with sqlite3.connect(db_path) as conn:
        (raw,) = conn.execute("SELECT state FROM game_tables WHERE code = ?", (code,)).fetchone()
    return json.loads(raw)


def test_a_hand_survives_a_killed_server(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    db_path = tmp_path / "montones.sqlite"
    server = start_server(tmp_path, port)
    try:
        code, _host = create_table(base)
        phones = {name: seat(base, code, name) for name in ("Ana", "Ben", "Eva")}
        ana, ben, eva = phones["Ana"], phones["Ben"], phones["Eva"]
        assert ana.post(f"/t/{code}/a/offer", amount=40).status_code == 200
        ben.post(f"/t/{code}/a/pass")
        eva.post(f"/t/{code}/a/pass")
        assert ben.post(f"/t/{code}/a/cut", position=17).status_code == 200
        assert ana.post(f"/t/{code}/a/heaps", count=4).status_code == 200
        assert ben.post(f"/t/{code}/a/bet", heap=1, amount=10).status_code == 200
        assert eva.post(f"/t/{code}/a/against", heap=2, amount=7).status_code == 200
        assert eva.post(f"/t/{code}/a/choose", heap=4).status_code == 200
        before = read_state(db_path, code)
        assert before["phase"] == "betting"

        kill_server(server)
        server = start_server(tmp_path, port)

        with sqlite3.connect(db_path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        after = read_state(db_path, code)
        assert after == before  # same deck, heaps, bets, chips: nothing reshuffled or lost

        # The same phones (same cookies) carry on: Ben still sees his bet, Ana closes.
        page = ben.page(f"/t/{code}")
        assert "Ben" in page and "Hagan sus apuestas" in page
        assert ana.post(f"/t/{code}/a/close").status_code == 200
        settled = read_state(db_path, code)
        assert settled["hand"]["result"]["cards"] == [h[-1] for h in before["hand"]["heaps"]]
        assert [b["amount"] for b in settled["hand"]["bets"]] == [10, 7]
        chips = sum(p["chips"] for p in settled["players"].values())
        assert chips + settled["bank"]["amount"] == 300
        with sqlite3.connect(db_path) as conn:
            unbalanced = conn.execute(
                "SELECT version, SUM(amount) FROM ledger GROUP BY version HAVING SUM(amount) != 0"
            ).fetchall()
            versions = [v for (v,) in conn.execute("SELECT version FROM actions ORDER BY version")]
        assert unbalanced == []
        assert versions == list(range(1, settled["version"] + 1))
        assert ana.post(f"/t/{code}/a/close").status_code == 422  # paid once, never twice
    finally:
        stop_server(server)
