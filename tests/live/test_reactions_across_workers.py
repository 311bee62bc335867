"""A phone's reaction reaches every TV of its table, whichever worker holds it (issue 40): sent
on PostgreSQL's NOTIFY as the tables' versions are, heard by every worker's listener, and
bounded (a seat's reactions showing at once, whatever number of workers its taps reach)."""

import json
import threading
import time

import httpx

from montones.live import channel
from montones.live.channel import SEAT_SHOWN
from tests.helpers.liveserver import create_table, free_port, seat, start_server, stop_server


def test_a_reaction_reaches_the_tvs_of_every_worker(tmp_path, postgres_url):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port, workers=3, DATABASE_URL=postgres_url)
    try:
        code, _host = create_table(base)
        ana = seat(base, code, "Ana")
        streams, pids, seen = [], set(), {}
        stop = threading.Event()

        def listen(response):
            try:
                for line in response.iter_lines():
                    if stop.is_set():
                        return
                    seen.setdefault(id(response), []).append(line)
            except httpx.HTTPError:  # the stream closes when the test ends
                return

        client = httpx.Client(base_url=base, timeout=httpx.Timeout(30, read=None))
        deadline = time.monotonic() + 20
        while (len(pids) < 2 or len(streams) < 6) and time.monotonic() < deadline:
            response = client.send(
                client.build_request("GET", f"/t/{code}/stream?v=0&screen=tv"), stream=True
            )
            pids.add(response.headers["X-Montones-Worker"])
            streams.append(response)
            threading.Thread(target=listen, args=(response,), daemon=True).start()
        assert len(pids) >= 2, "every TV's stream landed on one worker"
        # Each worker's listener is listening once a new version of the table, NOTIFYed as a
        # reaction is, has reached every TV: Ben sits down once each has had its first update.
        wait_for(lambda: all(updates(seen, r) >= 1 for r in streams), "a TV's first update")
        seat(base, code, "Ben")
        wait_for(lambda: all(updates(seen, r) >= 2 for r in streams), "Ben's seat on every TV")

        assert ana.post(f"/t/{code}/react/clap").status_code == 204
        reached = set()
        wait_until = time.monotonic() + 10
        while time.monotonic() < wait_until and len(reached) < len(streams):
            reached = {
                key for key, lines in seen.items() if any('class="reaction"' in x for x in lines)
            }
            time.sleep(0.05)
        assert reached == {id(r) for r in streams}
        # Once on each TV: the worker that took the tap does not show it again when it hears it.
        for response in streams:
            shown = [x for x in seen[id(response)] if 'class="reaction"' in x]
            assert all(x.count('class="reaction"') == 1 for x in shown), shown
        stop.set()
        for response in streams:
            response.close()
        client.close()
    finally:
        stop_server(server)


def updates(seen, response) -> int:
    """How many updates a stream's listener has read."""
    return sum(1 for line in seen.get(id(response), ()) if line == "event: update")


def wait_for(done, what: str, wait: float = 20.0) -> None:
    deadline = time.monotonic() + wait
    while not done():
        assert time.monotonic() < deadline, f"no {what} in {wait} s"
        time.sleep(0.05)


def heard(live, code, seat, reaction="laugh", origin="elsewhere"):
    live.heard(json.dumps({"t": code, "s": seat, "r": reaction, "o": origin}))


def test_a_reaction_heard_from_another_worker_is_kept_for_this_workers_tvs(app):
    live = channel.of(app)
    mark = live.broker.mark("ABCD")
    heard(live, "ABCD", "p2", "gasp")
    assert [(seat, reaction) for _n, seat, reaction, _at in live.reactions("ABCD")] == [
        ("p2", "gasp")
    ]
    assert live.broker.mark("ABCD") != mark  # its TVs are woken to show it


def test_what_is_not_a_reaction_of_a_seat_or_is_this_workers_own_is_not_kept(app):
    live = channel.of(app)
    for payload in (
        "not json",
        json.dumps(["EFGH", "p1", "laugh"]),
        json.dumps({"t": "EFGH", "s": "p1", "r": "laugh"}),  # no origin
        json.dumps({"t": "EFGH", "s": "p1", "r": "<script>", "o": "x"}),
        json.dumps({"t": "EFGH", "s": "<b>p1</b>", "r": "laugh", "o": "x"}),
        json.dumps({"t": 7, "s": "p1", "r": "laugh", "o": "x"}),
        json.dumps({"t": "EFGH", "s": "p1", "r": "laugh", "o": live.origin}),  # its own echo
    ):
        live.heard(payload)
    assert live.reactions("EFGH") == ()


def test_a_seats_reactions_showing_at_once_are_bounded_whatever_the_workers(app):
    """Each worker limits a seat's taps to a person's pace; with several, a seat could send that
    pace once per worker: the TVs show at most SEAT_SHOWN of a seat's at once, and the others'
    still find room."""
    live = channel.of(app)
    with app.app_context():
        live.react("IJKL", "p1", "laugh")
    for origin in ("one", "two", "three"):
        for _ in range(3):
            heard(live, "IJKL", "p1", "taunt", origin)
    heard(live, "IJKL", "p2", "clap")
    seats = [seat for _n, seat, _r, _at in live.reactions("IJKL")]
    assert seats.count("p1") == SEAT_SHOWN and seats.count("p2") == 1
