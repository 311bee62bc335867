"""Several gunicorn workers on PostgreSQL: a change reaches the streams held by every worker."""

import threading
import time

import httpx

from montones.data.clock import Clock
from montones.live import scheduler
from montones.live.broker import LISTENER, Broker
from tests.helpers.liveserver import create_table, free_port, seat, start_server, stop_server


def test_live_updates_cross_workers(tmp_path, postgres_url):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port, workers=3, DATABASE_URL=postgres_url)
    try:
        code, _host = create_table(base)
        ana = seat(base, code, "Ana")
        streams, pids, received = [], set(), []
        stop = threading.Event()

        def listen(response):
            # A TV's stream: one update event each time its table moved (its first: the table
            # as the stream joined it), each noted with when it came.
            try:
                for line in response.iter_lines():
                    if stop.is_set():
                        return
                    if line == "event: update":
                        received.append((id(response), time.monotonic()))
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
        assert len(pids) >= 2, "every stream landed on one worker"

        # Each stream first sends the table as it joined it (and a TV the count of screens
        # watching, which moves while the others open): until a second passes with none.
        while time.monotonic() < deadline + 10 and (
            len({s for s, _at in received}) < len(streams)
            or time.monotonic() - max(at for _s, at in received) < 1.0
        ):
            time.sleep(0.05)
        assert {s for s, _at in received} == {id(r) for r in streams}
        offered = time.monotonic()
        assert ana.post(f"/t/{code}/a/offer", amount=10).status_code == 200
        # Told by the commit's NOTIFY, well before a worker's scheduler would find the new
        # version in the database (every FIND_EVERY seconds).
        wait_until = time.monotonic() + scheduler.FIND_EVERY / 2
        while time.monotonic() < wait_until:
            if len({s for s, at in received if at > offered}) == len(streams):
                break
            time.sleep(0.05)
        assert {s for s, at in received if at > offered} == {id(r) for r in streams}
        stop.set()
        for response in streams:
            response.close()
        client.close()
    finally:
        stop_server(server)


def test_a_listener_back_from_a_lost_connection_publishes_what_it_missed(postgres_url):
    """The listener's connection drops; a change is committed meanwhile (its NOTIFY reaches
    nobody). Back, the listener reads the stored versions of the tables this process streams,
    so no screen waits for the next change to see this one."""
    import psycopg

    broker = Broker(Clock())
    stored = {"ABCD": 3}
    running = threading.Event()
    running.set()
    url = "postgresql+psycopg://" + postgres_url.split("://", 1)[1]
    broker.listen(url, running.is_set, lambda: dict(stored))
    try:
        assert _soon(lambda: broker.published_version("ABCD") == 3)  # caught up at the start
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            ended = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = %s AND datname = current_database()",
                (LISTENER,),
            ).fetchall()
        assert ended == [(True,)]
        stored["ABCD"] = 5  # committed while the listener was away
        assert _soon(lambda: broker.published_version("ABCD") == 5)
    finally:
        running.clear()


def _soon(check, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()
