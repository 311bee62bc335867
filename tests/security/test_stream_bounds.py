"""Live streams are bounded by what a night needs (montones/web/limits.py): each seat and each
host a few, a few watchers a table, and in all a share of the server's connections; a stream
without a seat or the host's cookie gives way first. The live test (tests/live/
test_stream_bounds.py) floods a real server from many addresses."""

from __future__ import annotations

import pytest

from montones.web.limits import DEVICE_STREAMS, HOST_STREAMS, WATCHERS, Streams, Ticket
from tests.helpers.apps import make_app
from tests.helpers.nights import Night


class Opened:
    """A stream's ticket whose connection records being closed."""

    def __init__(self, code="ABCD", holder=None, address="10.0.0.2", local=False, cut=True):
        self.closed = False
        self.ticket = Ticket(code, holder, address, self.close if cut else None, local)

    def close(self):
        self.closed = True


def admit(streams: Streams, **about) -> tuple[int | None, Opened]:
    opened = Opened(**about)
    return streams.admit(opened.ticket), opened


def test_past_the_process_bound_a_watcher_is_refused_and_a_seat_takes_the_oldest_watchers_place():
    streams = Streams(most=4)
    watchers = [admit(streams, code=f"T{n}AA", address=f"10.0.0.{n}")[1] for n in range(3)]
    assert admit(streams, code="SEAT", holder="seat:p1")[0] is None
    assert [o.ticket in streams.open for o in watchers] == [True] * 3
    assert admit(streams, code="T9AA", address="10.0.0.9")[0] == 503  # full: it gives way
    refused, seat = admit(streams, code="SEAT", holder="seat:p2")
    assert refused is None and watchers[0].closed and not watchers[1].closed
    assert len(streams.open) == 4
    streams.release(watchers[0].ticket)  # its stream's own end, later: nothing more
    assert len(streams.open) == 4
    # Nothing left that gives way: the next seat's stream is refused.
    for n in (3, 4):
        assert admit(streams, code="SEAT", holder=f"seat:p{n}")[0] is None
    assert admit(streams, code="SEAT", holder="seat:p5")[0] == 503
    streams.release(seat.ticket)
    assert admit(streams, code="SEAT", holder="seat:p5")[0] is None


def test_a_seats_or_hosts_new_stream_past_its_few_takes_over_from_its_oldest():
    streams = Streams(most=100)
    for holder, most in (("seat:p1", DEVICE_STREAMS), ("host", HOST_STREAMS)):
        mine = [admit(streams, holder=holder)[1] for _ in range(most)]
        assert not any(o.closed for o in mine)
        assert admit(streams, holder=holder)[0] is None
        assert mine[0].closed and not any(o.closed for o in mine[1:])
        assert sum(t.holder == holder for t in streams.open) == most
    # Another table's seat p1 is another seat.
    assert admit(streams, code="WXYZ", holder="seat:p1")[0] is None
    assert sum(t.holder == "seat:p1" for t in streams.open) == DEVICE_STREAMS + 1


def test_a_table_takes_a_few_watchers_and_a_device_a_few_of_them():
    streams = Streams(most=100)
    for _ in range(DEVICE_STREAMS):
        assert admit(streams, address="10.0.0.7")[0] is None
    assert admit(streams, address="10.0.0.7")[0] == 429  # its device holds enough
    assert admit(streams, code="WXYZ", address="10.0.0.7")[0] is None  # another table
    for n in range(WATCHERS - DEVICE_STREAMS):
        assert admit(streams, address=f"10.0.1.{n}")[0] is None
    assert admit(streams, address="10.0.2.1")[0] == 503  # the table holds enough
    assert admit(streams, holder="seat:p1")[0] is None  # a seat's is not a watcher's


def test_the_hosts_machine_is_never_refused_nor_closed_and_counted():
    streams = Streams(most=2)
    local = [admit(streams, address="127.0.0.1", local=True)[1] for _ in range(3)]
    assert len(streams.open) == 3
    assert admit(streams, holder="seat:p1")[0] == 503  # nothing that gives way
    assert not any(o.closed for o in local)


def test_without_a_way_to_close_a_stream_a_seats_new_one_is_refused_instead():
    streams = Streams(most=1)
    admit(streams, cut=False)
    assert admit(streams, holder="seat:p1")[0] == 503


@pytest.fixture
def small(tmp_path):
    return make_app(tmp_path, STREAM_MAX_SECONDS=10, STREAMS_MOST=3)


def test_the_stream_view_is_refused_past_the_bound_and_gives_its_place_back_when_it_ends(small):
    night = Night(small, "Ana")
    url = f"/t/{night.code}/stream?screen=watch&v=0"
    assert small.extensions["streams"].most == 3
    closed: list[str] = []

    def watcher(n: int):
        environ = {"REMOTE_ADDR": f"10.0.0.{n}", "montones.cut": lambda: closed.append(n)}
        return small.test_client().get(url, buffered=False, environ_base=environ)

    opened = [watcher(n) for n in range(3)]
    assert [r.status_code for r in opened] == [200] * 3
    refused = watcher(3)
    assert refused.status_code == 503 and refused.headers["Connection"] == "close"
    assert refused.headers["Retry-After"] == "60" and refused.mimetype != "text/event-stream"
    opened[1].close()  # a stream that ends gives its place back
    again = watcher(4)
    assert again.status_code == 200 and again.mimetype == "text/event-stream"
    # Ana's phone, seated, takes the oldest watcher's place: its connection is closed.
    ana = night.clients["Ana"].get(
        f"/t/{night.code}/stream?screen=phone&v=0",
        buffered=False,
        environ_base={"REMOTE_ADDR": "10.0.0.20"},
    )
    assert ana.status_code == 200 and closed == [0]
    for response in [*opened, again, ana]:
        response.close()
    assert small.extensions["streams"].open == []
