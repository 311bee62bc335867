"""The live fan-out thread (montones/fanout.py) on real sockets: what it writes, and that a
screen that stops reading holds up no other screen."""

from __future__ import annotations

import contextlib
import resource
import secrets
import socket
import time

import pytest

from montones import broker, fanout


class Table:
    """A table for the fan-out: updates name the version, the clock is what the test sets."""

    def __init__(self):
        self.code = "F" + secrets.token_hex(6)
        self.due: float | None = None
        self.ticks = 0

    def update(self, screen, code, released):
        return f"event: felt\ndata: v{released} {screen.about['name']}\n\n".encode(), released

    def deadline(self, code):
        return self.due

    def tick(self, code):
        self.ticks += 1
        self.due = None


@pytest.fixture
def hubs():
    """Every fan-out a test starts, stopped after it: a thread left running would take the
    rest of this test process's time."""
    started: list[fanout.Fanout] = []
    yield started
    for hub in started:
        hub.close()
        assert not hub._thread.is_alive()


@pytest.fixture
def hub_for(hubs):
    def start(table: Table, update=None) -> fanout.Fanout:
        hub = fanout.Fanout(
            contextlib.nullcontext, update or table.update, table.deadline, table.tick
        )
        hubs.append(hub)
        return hub

    return start


@pytest.fixture(autouse=True)
def quick_release(monkeypatch):
    monkeypatch.setattr(broker, "MIN_GAP", 0.0)


def screen(table: Table, name: str, chunked: bool = True):
    server_side, client_side = socket.socketpair()
    client_side.settimeout(5)
    return fanout.Screen(server_side, chunked, table.code, -1, name=name), client_side


def read_until(sock: socket.socket, needle: bytes, limit: float = 5.0) -> bytes:
    got, end = b"", time.monotonic() + limit
    while needle not in got:
        assert time.monotonic() < end, got[-200:]
        got += sock.recv(65536)
    return got


def test_each_update_is_one_chunk_of_the_response_with_the_newest_version(hub_for):
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    tv, tv_reader = screen(table, "tv")
    hub.add(tv)
    expected = b"event: felt\ndata: v1 tv\n\n"
    assert read_until(tv_reader, b"v1 tv") == b"%X\r\n%s\r\n" % (len(expected), expected)
    broker.publish(table.code, 2)
    assert b"v2 tv" in read_until(tv_reader, b"v2 tv")
    assert hub.remove(tv)  # nothing half written: the response can end cleanly


def test_without_chunked_framing_the_update_goes_as_it_is(hub_for):
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    old, reader = screen(table, "old", chunked=False)
    hub.add(old)
    assert read_until(reader, b"v1 old") == b"event: felt\ndata: v1 old\n\n"
    hub.remove(old)


def test_a_screen_that_stops_reading_holds_up_no_other_and_then_gets_the_newest(hub_for):
    table = Table()
    big = b"x" * 200_000  # more than a socket takes unread

    def update(screen, code, released):
        return b"event: felt\ndata: v%d %s\n\n" % (released, big), released

    broker.publish(table.code, 1)
    hub = hub_for(table, update)
    asleep, asleep_reader = screen(table, "asleep")
    awake, reader = screen(table, "awake")
    hub.add(asleep)
    hub.add(awake)
    for version in range(2, 12):
        broker.publish(table.code, version)
        started = time.monotonic()
        read_until(reader, b"data: v%d " % version)
        assert time.monotonic() - started < 1.0
    assert len(asleep.outbox) < len(big) + 100  # one update waiting, not ten
    # Awake again, it reads what it had been sent, then the newest only.
    got = read_until(asleep_reader, b"data: v11 ")
    assert not any(b"data: v%d " % v in got for v in range(4, 11)), got.count(b"event: felt")
    hub.remove(asleep)
    hub.remove(awake)


def test_the_clock_is_applied_once_when_it_falls_due(hub_for):
    table = Table()
    table.due = time.time() + 0.3
    broker.publish(table.code, 1)
    hub = hub_for(table)
    screens = [screen(table, f"s{i}") for i in range(3)]
    for s, _reader in screens:
        hub.add(s)
    end = time.monotonic() + 5
    while table.ticks == 0 and time.monotonic() < end:
        time.sleep(0.05)
    time.sleep(0.3)
    assert table.ticks == 1


def one_screen(monkeypatch, hub_for, name: str):
    """A table with one screen on a fan-out whose heartbeats come every 0.2 s."""
    monkeypatch.setattr(fanout, "HEARTBEAT", 0.2)
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    one, reader = screen(table, name)
    hub.add(one)
    return hub, one, reader


def test_an_idle_screen_gets_heartbeats(monkeypatch, hub_for):
    hub, idle, reader = one_screen(monkeypatch, hub_for, "idle")
    assert b": heartbeat" in read_until(reader, b": heartbeat")
    hub.remove(idle)


def test_a_screen_that_has_gone_is_dropped_and_costs_nothing_after(monkeypatch, hub_for):
    _hub, gone, reader = one_screen(monkeypatch, hub_for, "gone")
    read_until(reader, b"v1 gone")
    reader.close()
    assert gone.ended.wait(5)  # found gone at its next heartbeat
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    time.sleep(1.0)
    after = resource.getrusage(resource.RUSAGE_SELF)
    used = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
    assert used < 0.3, f"the fan-out kept the processor busy: {used:.2f} s in 1 s"
