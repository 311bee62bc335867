"""A guest guessing room codes or rejoin codes, or taking seat after seat: each device waits its
turn, the others never notice, and the host's own machine is never held back."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import limits.storage.memory
import pytest

from montones.data.store import locked
from tests.helpers.nights import Night, csrf_of


@pytest.fixture
def clock(clock, monkeypatch):
    """The app's clock, standing still until the test moves it on, and read by Flask-Limiter's
    in-memory storage too (which otherwise reads the machine's time)."""
    monkeypatch.setattr(limits.storage.memory, "time", SimpleNamespace(time=clock.time))
    return clock


def phone(app, address: str):
    """A browser on the room's network, at ``address``."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_a_device_guessing_room_codes_waits_a_minute_after_ten_misses(app, clock):
    night = Night(app, "Ana")
    guesser, friend = phone(app, "10.0.0.66"), phone(app, "10.0.0.7")
    missing = [f"/go?code=Q{c}QQ" for c in "ABCDEFGHJK"]
    assert [guesser.get(url).status_code for url in missing] == [404] * 10
    refused = guesser.get("/go?code=QQQQ")
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "60"
    assert refused.headers["Cache-Control"] == "no-store"
    assert "Too many tries from this device: wait 60 seconds" in refused.get_data(as_text=True)
    # Out of tries, it cannot reach a running table either: guessing right does not help.
    assert guesser.get(f"/t/{night.code}/join").status_code == 429
    assert guesser.get(f"/go?code={night.code}").status_code == 429
    # Another device is not held back, nor is the host's own machine.
    assert friend.get(f"/go?code={night.code}").status_code == 303
    assert friend.get("/go?code=QQQQ").status_code == 404
    host = app.test_client()
    assert [host.get(url).status_code for url in [*missing, "/go?code=QQQQ"]] == [404] * 11
    # Its tries come back a minute after it made them.
    clock.advance(59.5)
    refused = guesser.get("/go?code=QQQQ")
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
    assert "wait 1 second and try again" in refused.get_data(as_text=True)
    clock.advance(1)
    assert guesser.get(f"/go?code={night.code}").status_code == 303


def test_a_device_guessing_steadily_gets_one_code_every_six_seconds(app, clock):
    guesser = phone(app, "10.0.0.70")
    assert guesser.get("/go?code=QAQZ").status_code == 404
    for c in "BCDEFGHJK":  # ten guesses in 54 s
        clock.advance(6)
        assert guesser.get(f"/go?code=Q{c}QZ").status_code == 404
    clock.advance(0.5)
    refused = guesser.get("/go?code=QQQZ")
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "6"
    for c in "ABC":
        clock.advance(6)
        assert guesser.get(f"/go?code=QQ{c}Z").status_code == 404
        refused = guesser.get("/go?code=QQQZ")
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "6"


def test_a_missing_table_in_any_address_counts_as_a_guess(app, clock):
    guesser = phone(app, "10.0.0.67")
    for path in ("/t/QQQA", "/t/QQQB/tv", "/t/QQQC/join", "/t/QQQD/host", "/t/QQQE/p/all"):
        for _ in range(2):
            assert guesser.get(path).status_code == 404, path
    assert guesser.get("/t/QQQF").status_code == 429


def test_a_device_takes_five_seats_then_waits_until_the_first_is_fifty_seconds_old(app, clock):
    night = Night(app, "Ana")
    device = phone(app, "10.0.0.68")
    statuses = []
    for i in range(6):
        browser = phone(app, "10.0.0.68")  # a new private tab each time, the same device
        token = csrf_of(browser.get(f"/t/{night.code}/join"))
        response = browser.post(
            f"/t/{night.code}/join", data={"csrf_token": token, "name": f"Bot {i}"}
        )
        statuses.append(response.status_code)
    assert statuses == [303] * 5 + [429]
    assert response.headers["Retry-After"] == "50"
    assert len(night.state()["players"]) == 6  # Ana and five
    token = csrf_of(device.get(f"/t/{night.code}/join"))
    clock.advance(49.5)
    response = device.post(f"/t/{night.code}/join", data={"csrf_token": token, "name": "Bot 6"})
    assert response.status_code == 429 and response.headers["Retry-After"] == "1"
    clock.advance(1)
    response = device.post(f"/t/{night.code}/join", data={"csrf_token": token, "name": "Bot 6"})
    assert response.status_code == 303


@pytest.mark.timed
def test_rejoin_guesses_are_limited_and_never_wait_for_the_tables_lock(app, clock):
    night = Night(app, "Ana", "Ben")
    guesser = phone(app, "10.0.0.69")
    token = csrf_of(guesser.get(f"/t/{night.code}/rejoin"))
    held, release = threading.Event(), threading.Event()

    def hold_the_table():
        with app.app_context(), locked(night.code):
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_table)
    holder.start()
    try:
        assert held.wait(5)
        statuses, started = [], time.monotonic()
        for guess in ("AAAAAA", "BBBBBB", "CCCCCC", "DDDDDD", "EEEEEE", "FFFFFF"):
            response = guesser.post(
                f"/t/{night.code}/rejoin", data={"csrf_token": token, "rejoin": guess}
            )
            statuses.append(response.status_code)
        took = time.monotonic() - started
    finally:
        release.set()
        holder.join(10)
    assert statuses == [422] * 5 + [429]
    assert took < 1.0  # the write lock was held throughout: no guess waited for it


def test_a_device_makes_ten_tables_in_ten_minutes_and_waits_for_the_eleventh(app, clock):
    from tests.helpers.liveserver import MONTONES_FORM
    from tests.helpers.nights import fresh_token

    maker, host = phone(app, "10.0.0.80"), app.test_client()

    def create(client):
        return client.post("/tables", data={**MONTONES_FORM, "csrf_token": fresh_token(client)})

    assert [create(maker).status_code for _ in range(10)] == [303] * 10
    refused = create(maker)
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "600"
    assert create(phone(app, "10.0.0.81")).status_code == 303  # another device
    assert create(host).status_code == 303  # the host's own machine
    clock.advance(600.5)
    assert create(maker).status_code == 303


def test_a_rules_page_that_names_a_missing_table_counts_as_a_guess(app, clock):
    night = Night(app, "Ana")
    guesser = phone(app, "10.0.0.82")
    for n in range(10):
        answer = guesser.get(f"/rules/montones?t=QQ{'ABCDEFGHJK'[n]}Q")
        assert answer.status_code == 200
    assert guesser.get(f"/rules/montones?t={night.code}").status_code == 429
    assert guesser.get("/rules/montones").status_code == 200  # naming no table: not a guess


def test_practice_tables_count_against_the_same_allowance(app, clock):
    from tests.helpers.liveserver import MONTONES_FORM
    from tests.helpers.nights import fresh_token

    maker = phone(app, "10.0.0.82")

    def practise():
        return maker.post("/practice", data={"game": "monte", "csrf_token": fresh_token(maker)})

    assert [practise().status_code for _ in range(5)] == [303] * 5
    made = [
        maker.post("/tables", data={**MONTONES_FORM, "csrf_token": fresh_token(maker)})
        for _ in range(5)
    ]
    assert [response.status_code for response in made] == [303] * 5
    refused = practise()
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "600"
