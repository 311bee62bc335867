"""The live fan-out thread (montones/fanout.py) on real sockets: what it writes, that a screen
that stops reading holds up no other, and that it keeps the table's clock and its pace.

Time is a :class:`ManualClock`: a test moves it on, and the fan-out, woken, does what falls due.
A test waits (a few seconds at most) only for the thread to react.
"""

from __future__ import annotations

import contextlib
import resource
import secrets
import socket
import threading
import time

import pytest

from montones import fanout
from montones.broker import Broker
from montones.clock import ManualClock


class Table:
    """A table for the fan-out (its glue): updates name the version, the clock is what the
    test sets."""

    def __init__(self):
        self.code = "F" + secrets.token_hex(6)
        self.due: float | None = None
        self.ticks = 0
        self.snapshots = 0

    def snapshot(self, code, released):
        self.snapshots += 1
        return type("Snapshot", (), {"code": code, "version": released})()

    def update(self, screen, table):
        return f"event: felt\ndata: v{table.version} {screen.about['name']}\n\n".encode()

    def order(self, screen):
        return 0

    def tell(self, screens, table):
        return [b""] * len(screens)

    def deadline(self, table):
        return self.due

    def tick(self, code):
        self.ticks += 1
        self.due = None


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def broker(clock):
    return Broker(clock, min_gap=0.0, min_tell_gap=0.0)


@pytest.fixture
def hubs():
    """Every fan-out a test starts, stopped after it: a thread left running would take the
    rest of this test process's time."""
    started: list[fanout.Fanout] = []
    yield started
    for hub in started:
        hub.close()
        assert hub.thread is None or not hub.thread.is_alive()


@pytest.fixture
def hub_for(hubs, broker, clock):
    def start(glue) -> fanout.Fanout:
        hub = fanout.Fanout(broker, clock, contextlib.nullcontext, glue)
        hubs.append(hub)
        return hub

    return start


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


def until(done, limit: float = 5.0) -> bool:
    """Wait (a little) for the fan-out thread to do what it was woken for."""
    end = time.monotonic() + limit
    while not done() and time.monotonic() < end:
        time.sleep(0.01)
    return done()


def test_each_update_is_one_chunk_of_the_response_with_the_newest_version(broker, hub_for):
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    tv, tv_reader = screen(table, "tv")
    hub.add(tv)
    expected = b"event: felt\ndata: v1 tv\n\n"
    assert read_until(tv_reader, b"v1 tv") == b"%X\r\n%s\r\n" % (len(expected), expected)
    broker.publish(table.code, 2)
    assert b"v2 tv" in read_until(tv_reader, b"v2 tv")
    hub.remove(tv)  # nothing half written: the response ends with its last chunk
    assert read_to_end(tv_reader) == b"0\r\n\r\n"


def read_to_end(sock: socket.socket) -> bytes:
    got = b""
    while data := sock.recv(65536):
        got += data
    return got


@pytest.mark.timed
def test_a_stream_whose_time_is_up_is_ended_cleanly(broker, hub_for):
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    server_side, reader = socket.socketpair()
    reader.settimeout(5)
    opened = time.monotonic()
    brief = fanout.Screen(server_side, True, table.code, -1, ends=opened + 0.3, name="b")
    hub.add(brief)
    got = read_to_end(reader)  # the browser connects again
    assert 0.3 <= time.monotonic() - opened < 2.0
    assert b"v1 " in got and got.endswith(b"\r\n0\r\n\r\n")
    assert brief.ended.is_set()


def test_a_screen_left_with_half_an_update_is_cut_not_ended(broker, hub_for):
    class Big(Table):
        def update(self, screen, snapshot):
            return b"event: felt\ndata: %s\n\n" % (b"x" * 1_000_000)

    table = Big()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    asleep, reader = screen(table, "asleep")
    hub.add(asleep)
    assert until(lambda: bool(asleep.outbox))
    hub.remove(asleep)
    got = read_to_end(reader)
    assert not got.endswith(b"0\r\n\r\n") and len(got) < 1_000_000


def test_without_chunked_framing_the_update_goes_as_it_is(broker, hub_for):
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    old, reader = screen(table, "old", chunked=False)
    hub.add(old)
    assert read_until(reader, b"v1 old") == b"event: felt\ndata: v1 old\n\n"
    hub.remove(old)


def test_every_screen_of_a_table_is_sent_one_table_read_once(broker, hub_for):
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    screens = [screen(table, f"s{i}") for i in range(5)]
    for s, _reader in screens:
        hub.add(s)
    for _s, reader in screens:
        read_until(reader, b"v1 ")
    before = table.snapshots
    broker.publish(table.code, 2)
    for _s, reader in screens:
        read_until(reader, b"v2 ")
    assert table.snapshots - before == 1


def test_every_screen_is_sent_its_update_before_any_is_told(broker, hub_for):
    """A phone fetches its own regions when it is told ("mine"): the felt reaches every screen
    before those requests begin."""
    written: list[bytes] = []

    class Recorded(fanout.Screen):
        def write(self, data, now):
            written.append(data)
            super().write(data, now)

    class Told(Table):
        def tell(self, screens, table):
            return [b"event: mine\ndata: %d\n\n" % table.version] * len(screens)

    table = Told()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    readers = []
    for name in ("a", "b", "c"):
        server_side, reader = socket.socketpair()
        reader.settimeout(5)
        readers.append(reader)
        hub.add(Recorded(server_side, False, table.code, 0, name=name))
    for reader in readers:
        read_until(reader, b"event: mine")
    written.clear()
    broker.publish(table.code, 2)
    for reader in readers:
        read_until(reader, b"event: mine\ndata: 2")
    kinds = [data.split(b"\n")[0] for data in written]
    assert kinds == [b"event: felt"] * 3 + [b"event: mine"] * 3


def test_a_tell_that_waits_for_its_pace_is_sent_when_the_clock_reaches_it(clock, hubs):
    broker = Broker(clock, min_gap=0.25, min_tell_gap=0.5)
    table = type(
        "Told",
        (Table,),
        {"tell": lambda self, s, t: [b"event: mine\ndata: %d\n\n" % t.version] * len(s)},
    )()
    broker.publish(table.code, 1)
    hub = fanout.Fanout(broker, clock, contextlib.nullcontext, table)
    hubs.append(hub)
    one, reader = screen(table, "one")
    hub.add(one)
    read_until(reader, b"mine\ndata: 1")
    clock.advance(0.25)
    broker.publish(table.code, 2)  # released at once, told when the tells' gap has passed
    read_until(reader, b"v2 one")
    reader.settimeout(0.2)
    with pytest.raises(TimeoutError):
        read_until(reader, b"mine\ndata: 2", limit=0.2)
    reader.settimeout(5)
    clock.advance(0.25)
    assert b"mine\ndata: 2" in read_until(reader, b"mine\ndata: 2")


@pytest.mark.timed
def test_a_screen_that_stops_reading_holds_up_no_other_and_then_gets_the_newest(broker, hub_for):
    table = Table()
    big = b"x" * 200_000  # more than a socket takes unread

    class Big(Table):
        def update(self, screen, snapshot):
            return b"event: felt\ndata: v%d %s\n\n" % (snapshot.version, big)

    table = Big()
    broker.publish(table.code, 1)
    hub = hub_for(table)
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


def test_a_release_that_waits_for_its_gap_is_sent_when_the_clock_reaches_it(clock, hubs):
    broker = Broker(clock, min_gap=1.0)
    table = Table()
    broker.publish(table.code, 1)
    hub = fanout.Fanout(broker, clock, contextlib.nullcontext, table)
    hubs.append(hub)
    one, reader = screen(table, "one")
    hub.add(one)
    read_until(reader, b"v1 one")
    broker.publish(table.code, 2)  # within the gap: it waits for the clock
    reader.settimeout(0.2)
    with pytest.raises(TimeoutError):
        read_until(reader, b"v2 one", limit=0.2)
    reader.settimeout(5)
    clock.advance(1.0)
    assert b"v2 one" in read_until(reader, b"v2 one")


def test_the_clock_is_applied_once_when_it_falls_due(clock, broker, hub_for):
    table = Table()
    table.due = clock.time() + 30
    broker.publish(table.code, 1)
    hub = hub_for(table)
    screens = [screen(table, f"s{i}") for i in range(3)]
    for s, reader in screens:
        hub.add(s)
        read_until(reader, b"v1 ")
    assert table.ticks == 0
    clock.advance(31)
    assert until(lambda: table.ticks == 1)
    clock.advance(31)
    time.sleep(0.1)  # a second tick would come at once: none does
    assert table.ticks == 1


def one_screen(broker, hub_for, name: str):
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    one, reader = screen(table, name)
    hub.add(one)
    read_until(reader, b"v1 " + name.encode())
    return hub, one, reader


def test_an_idle_screen_gets_a_heartbeat_when_the_clock_says(clock, broker, hub_for):
    hub, idle, reader = one_screen(broker, hub_for, "idle")
    clock.advance(fanout.HEARTBEAT)
    assert b": heartbeat" in read_until(reader, b": heartbeat")
    hub.remove(idle)


@pytest.mark.timed
def test_a_screen_that_has_gone_is_dropped_and_costs_nothing_after(clock, broker, hub_for):
    hub, gone, reader = one_screen(broker, hub_for, "gone")
    reader.close()
    clock.advance(fanout.HEARTBEAT)
    assert gone.ended.wait(5)  # found gone at its next heartbeat
    assert until(lambda: not hub.thread.is_alive())  # its last screen gone, the thread ends
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    time.sleep(0.5)
    after = resource.getrusage(resource.RUSAGE_SELF)
    used = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
    assert used < 0.2, f"something kept the processor busy: {used:.2f} s in 0.5 s"


def test_the_thread_ends_with_its_last_screen_and_a_stopped_fanout_takes_none(broker, hub_for):
    hub, one, _reader = one_screen(broker, hub_for, "one")
    hub.remove(one)
    assert until(lambda: not hub.thread.is_alive())
    late, _late_reader = screen(Table(), "late")
    assert not hub.add(late)  # the live channel starts another


def test_no_thread_is_left_behind(broker, hub_for):
    before = threading.active_count()
    hub, one, _reader = one_screen(broker, hub_for, "one")
    hub.remove(one)
    assert until(lambda: threading.active_count() == before)
