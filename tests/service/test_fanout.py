"""The live fan-out thread (montones/live/fanout.py): what it puts in each screen's outbox for the
stream to send, that a screen whose stream stops taking holds up no other, and that it keeps the
table's clock and its pace.

Time is a :class:`ManualClock`: a test moves it on, and the fan-out, woken, does what falls due.
A test waits (a few seconds at most) only for the thread to react.
"""

from __future__ import annotations

import contextlib
import resource
import secrets
import threading
import time

import pytest

from montones.data.clock import ManualClock
from montones.live import fanout
from montones.live.broker import Broker


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

    def aside(self, screens):
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


def screen(table: Table, name: str, **kwargs) -> fanout.Screen:
    return fanout.Screen(table.code, -1, name=name, **kwargs)


class Reader(threading.Thread):
    """A stream as the server runs it (montones/live/stream.py): takes each update as it lands,
    until the stream ends."""

    def __init__(self, hub: fanout.Fanout, screen: fanout.Screen):
        super().__init__(daemon=True)
        self.hub, self.screen = hub, screen
        self.got = bytearray()
        self.done = False
        self._changed = threading.Condition()
        self.start()

    def run(self):
        while (data := self.screen.take()) is not None:
            with self._changed:
                self.got += data
                self._changed.notify_all()
            self.hub.taken(self.screen)
        with self._changed:
            self.done = True
            self._changed.notify_all()

    def until(self, needle: bytes, limit: float = 5.0) -> bytes:
        with self._changed:
            assert self._changed.wait_for(lambda: needle in self.got, limit), self.got[-200:]
            return bytes(self.got)

    def ended(self, limit: float = 5.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.done, limit)


def served(hub: fanout.Fanout, screen: fanout.Screen) -> Reader:
    hub.add(screen)
    return Reader(hub, screen)


def until(done, limit: float = 5.0) -> bool:
    """Wait (a little) for the fan-out thread to do what it was woken for."""
    end = time.monotonic() + limit
    while not done() and time.monotonic() < end:
        time.sleep(0.01)
    return done()


def test_each_update_is_the_newest_version_and_removing_a_screen_ends_its_stream(broker, hub_for):
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    tv = screen(table, "tv")
    reader = served(hub, tv)
    assert reader.until(b"v1 tv") == b"event: felt\ndata: v1 tv\n\n"
    broker.publish(table.code, 2)
    assert reader.until(b"v2 tv").endswith(b"event: felt\ndata: v2 tv\n\n")
    hub.remove(tv)
    assert reader.ended()


@pytest.mark.timed
def test_a_stream_whose_time_is_up_is_ended(broker, hub_for):
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    opened = time.monotonic()
    brief = screen(table, "b", ends=opened + 0.3)
    reader = served(hub, brief)
    assert reader.ended()  # the browser connects again
    assert 0.3 <= time.monotonic() - opened < 2.0
    assert b"v1 " in reader.got and brief.ended.is_set()


def test_every_screen_of_a_table_is_sent_one_table_read_once(broker, hub_for):
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    readers = [served(hub, screen(table, f"s{i}")) for i in range(5)]
    for reader in readers:
        reader.until(b"v1 ")
    before = table.snapshots
    broker.publish(table.code, 2)
    for reader in readers:
        reader.until(b"v2 ")
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
    readers = [served(hub, Recorded(table.code, 0, name=name)) for name in ("a", "b", "c")]
    for reader in readers:
        reader.until(b"event: mine")
    written.clear()
    broker.publish(table.code, 2)
    for reader in readers:
        reader.until(b"event: mine\ndata: 2")
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
    reader = served(hub, screen(table, "one"))
    reader.until(b"mine\ndata: 1")
    clock.advance(0.25)
    broker.publish(table.code, 2)  # released at once, told when the tells' gap has passed
    reader.until(b"v2 one")
    time.sleep(0.2)
    assert b"mine\ndata: 2" not in reader.got
    clock.advance(0.25)
    reader.until(b"mine\ndata: 2")


def test_a_screen_whose_stream_stops_taking_holds_up_no_other_and_then_gets_the_newest(
    broker, hub_for
):
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    asleep = screen(table, "asleep")
    hub.add(asleep)  # its stream takes nothing (the server is still writing to a sleeping phone)
    awake = served(hub, screen(table, "awake"))
    assert until(lambda: bool(asleep.outbox))  # its first update, which it never takes
    for version in range(2, 12):
        broker.publish(table.code, version)
        started = time.monotonic()
        awake.until(b"data: v%d " % version)
        assert time.monotonic() - started < 1.0
    assert bytes(asleep.outbox) == b"event: felt\ndata: v1 asleep\n\n"  # one update, not ten
    # Awake again, it takes what it had been sent, then the newest only.
    got = Reader(hub, asleep).until(b"data: v11 ")
    assert got == b"event: felt\ndata: v1 asleep\n\nevent: felt\ndata: v11 asleep\n\n"


def test_what_is_sent_aside_waits_for_a_stream_to_take_its_update_and_only_the_newest(
    broker, hub_for
):
    """The count of watchers, say: a screen whose stream is still writing its last update is
    sent it once that is taken, and of several counts meanwhile only the last."""

    class Counted(Table):
        count = 0

        def aside(self, screens):
            sent = []
            for one in screens:
                said = one.about.get("said")
                one.about["said"] = self.count
                news = b"event: count\ndata: %d\n\n" % self.count
                sent.append(b"" if said == self.count else news)
            return sent

    table = Counted()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    asleep = screen(table, "asleep")
    hub.add(asleep)
    awake = served(hub, screen(table, "awake"))
    awake.until(b"event: count\ndata: 0")
    for count in (1, 2, 3):
        table.count = count
        broker.poke()
        awake.until(b"event: count\ndata: %d" % count)
    assert bytes(asleep.outbox) == b"event: felt\ndata: v1 asleep\n\n"  # one update, no more
    got = Reader(hub, asleep).until(b"event: count")
    assert got == b"event: felt\ndata: v1 asleep\n\nevent: count\ndata: 3\n\n"


def test_a_release_that_waits_for_its_gap_is_sent_when_the_clock_reaches_it(clock, hubs):
    broker = Broker(clock, min_gap=1.0)
    table = Table()
    broker.publish(table.code, 1)
    hub = fanout.Fanout(broker, clock, contextlib.nullcontext, table)
    hubs.append(hub)
    reader = served(hub, screen(table, "one"))
    reader.until(b"v1 one")
    broker.publish(table.code, 2)  # within the gap: it waits for the clock
    time.sleep(0.2)
    assert b"v2 one" not in reader.got
    clock.advance(1.0)
    reader.until(b"v2 one")


def test_the_clock_is_applied_once_when_it_falls_due(clock, broker, hub_for):
    table = Table()
    table.due = clock.time() + 30
    broker.publish(table.code, 1)
    hub = hub_for(table)
    for i in range(3):
        served(hub, screen(table, f"s{i}")).until(b"v1 ")
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
    one = screen(table, name)
    reader = served(hub, one)
    reader.until(b"v1 " + name.encode())
    return hub, one, reader


def test_an_idle_screen_gets_a_heartbeat_when_the_clock_says(clock, broker, hub_for):
    hub, idle, reader = one_screen(broker, hub_for, "idle")
    clock.advance(fanout.HEARTBEAT)
    reader.until(b": heartbeat")
    hub.remove(idle)


@pytest.mark.timed
def test_the_thread_ends_with_its_last_screen_and_costs_nothing_after(broker, hub_for):
    hub, one, _reader = one_screen(broker, hub_for, "one")
    hub.remove(one)  # its stream closed by the server: the reader went
    assert until(lambda: not hub.thread.is_alive())
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    time.sleep(0.5)
    after = resource.getrusage(resource.RUSAGE_SELF)
    used = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
    assert used < 0.2, f"something kept the processor busy: {used:.2f} s in 0.5 s"
    assert not hub.add(screen(Table(), "late"))  # a stopped fan-out: the channel starts another


def test_no_thread_is_left_behind(broker, hub_for):
    before = threading.active_count()
    hub, one, reader = one_screen(broker, hub_for, "one")
    hub.remove(one)
    assert reader.ended()
    assert until(lambda: threading.active_count() == before)


@pytest.mark.timed
def test_a_stream_that_takes_nothing_for_too_long_has_its_connection_cut(
    broker, hub_for, monkeypatch
):
    monkeypatch.setattr(fanout, "STUCK", 0.2)
    table = Table()
    broker.publish(table.code, 1)
    hub = hub_for(table)
    cuts = []
    asleep = screen(table, "asleep", cut=lambda: cuts.append(time.monotonic()))
    hub.add(asleep)  # its stream never takes: the server is still writing to a reader asleep
    awake = served(hub, screen(table, "awake", cut=lambda: cuts.append("awake")))
    awake.until(b"v1 awake")
    assert until(lambda: bool(asleep.outbox))
    filled = time.monotonic()
    broker.publish(table.code, 2)  # a round, before its time is up
    awake.until(b"v2 awake")
    assert cuts == []
    time.sleep(0.25)
    broker.publish(table.code, 3)  # a round after it
    assert until(lambda: bool(cuts))
    assert cuts[0] - filled >= 0.2 and "awake" not in cuts
