"""The pace at which new versions reach the live screens (montones/broker.py).

Time is a :class:`ManualClock` the tests move on by hand; the releases that fall due are made by
whoever serves the screens (the fan-out thread), here the test itself.
"""

from __future__ import annotations

import pytest

from montones.broker import Broker
from montones.clock import ManualClock

CODE = "ABCD"
# Each a sum of powers of two: no rounding.
MIN_GAP, MAX_GAP, QUIET = 0.25, 1.0, 4.0
MIN_TELL_GAP, MAX_TELL_GAP = 0.5, 2.0


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def broker(clock):
    return Broker(
        clock,
        min_gap=MIN_GAP,
        max_gap=MAX_GAP,
        quiet=QUIET,
        min_tell_gap=MIN_TELL_GAP,
        max_tell_gap=MAX_TELL_GAP,
    )


def later(clock, broker, seconds: float) -> int:
    """Move the clock on, make the releases due by then; the version released."""
    clock.advance(seconds)
    broker.release_due()
    return broker.released_version(CODE)


def test_a_change_on_a_quiet_table_goes_out_at_once(broker):
    broker.publish(CODE, 1)
    assert broker.released_version(CODE) == 1
    assert broker.release_due() is None  # nothing waits


def test_a_burst_goes_out_as_one_release_of_its_newest_version(clock, broker):
    broker.publish(CODE, 1)
    for version in (2, 3, 4):
        clock.advance(0.0625)
        broker.publish(CODE, version)
    assert broker.released_version(CODE) == 1  # within the gap: nothing released yet
    assert broker.release_due() == MIN_GAP  # the release waits for the gap
    assert later(clock, broker, 0.03125) == 1
    assert later(clock, broker, 0.03125) == 4  # versions 2 and 3 were never released alone


def test_the_gap_doubles_while_releases_have_to_wait_for_it(clock, broker):
    broker.publish(CODE, 1)
    broker.publish(CODE, 2)
    assert later(clock, broker, MIN_GAP) == 2  # it waited: the gap doubles
    broker.publish(CODE, 3)
    assert later(clock, broker, MIN_GAP) == 2  # the least gap would have released it
    assert later(clock, broker, MIN_GAP) == 3  # twice that; it waited again: doubled again
    broker.publish(CODE, 4)
    assert later(clock, broker, MAX_GAP - 0.125) == 3
    assert later(clock, broker, 0.125) == 4  # never wider than the most


def widen_to_the_most(clock, broker) -> int:
    """Two releases that wait for the gap: it goes 0.25 -> 0.5 -> 1 s. The last version."""
    broker.publish(CODE, 1)
    broker.publish(CODE, 2)
    assert later(clock, broker, MIN_GAP) == 2
    broker.publish(CODE, 3)
    assert later(clock, broker, 2 * MIN_GAP) == 3
    return 3


def test_a_release_that_need_not_wait_halves_the_gap(clock, broker):
    version = widen_to_the_most(clock, broker)
    clock.advance(MAX_GAP)  # the gap has passed, the table is not quiet yet
    broker.publish(CODE, version + 1)
    assert broker.released_version(CODE) == version + 1  # at once: the gap halves to 0.5 s
    broker.publish(CODE, version + 2)
    assert later(clock, broker, 0.375) == version + 1
    assert later(clock, broker, 0.125) == version + 2


def test_a_table_quiet_for_a_while_starts_again_from_the_least_gap(clock, broker):
    version = widen_to_the_most(clock, broker)
    clock.advance(QUIET)  # quiet: the next change goes out at once, the gap is the least
    broker.publish(CODE, version + 1)
    assert broker.released_version(CODE) == version + 1
    broker.publish(CODE, version + 2)
    assert later(clock, broker, MIN_GAP) == version + 2


def test_the_released_table_is_the_one_its_writer_published(clock, broker):
    first, second = (type("Table", (), {"version": v})() for v in (1, 2))
    broker.publish(CODE, 1, first)
    broker.publish(CODE, 2, second)
    assert broker.released(CODE) is first  # the second waits for the next release
    assert later(clock, broker, MIN_GAP) == 2
    assert broker.released(CODE) is second
    assert broker.latest(CODE) is second


def test_a_version_heard_from_another_process_is_released_without_its_table(clock, broker):
    broker.publish(CODE, 1, type("Table", (), {"version": 1})())
    clock.advance(QUIET)
    broker.publish(CODE, 2)  # a writer elsewhere tells the version alone
    assert broker.released_version(CODE) == 2
    assert broker.released(CODE) is None  # whoever shows it reads it
    read = type("Table", (), {"version": 2})()
    broker.publish(CODE, 2, read)  # and hands it back: the next screen reads nothing
    assert broker.released(CODE) is read


def test_a_waiter_wakes_at_a_change_or_when_the_clock_moves_on(clock, broker):
    news = broker.news()
    broker.publish(CODE, 1)
    broker.wait(news, seconds=60)  # there is news already: no wait at all
    news = broker.news()
    broker.wait(news, seconds=60, real_limit=0.01)  # no news, the clock stands: real time ends it
    assert broker.news() == news


def test_on_a_quiet_table_a_version_is_told_as_it_is_released(broker):
    broker.publish(CODE, 1)
    assert broker.told_version(CODE) == broker.released_version(CODE) == 1


def test_tells_wait_for_a_wider_gap_than_releases_and_widen_while_they_wait(clock, broker):
    broker.publish(CODE, 1)  # released and told at once
    clock.advance(MIN_GAP)
    broker.publish(CODE, 2)  # released at once; told only after the tells' gap
    assert (broker.released_version(CODE), broker.told_version(CODE)) == (2, 1)
    assert broker.release_due() == MIN_TELL_GAP
    assert later(clock, broker, MIN_TELL_GAP - MIN_GAP) == 2
    assert broker.told_version(CODE) == 2  # it waited: the tells' gap doubles to 1 s
    clock.advance(MIN_GAP)
    broker.publish(CODE, 3)  # released at once (the releases' gap has passed)
    assert broker.released_version(CODE) == 3
    assert later(clock, broker, 0.5) == 3
    assert broker.told_version(CODE) == 2
    later(clock, broker, 0.25)  # 1 s after the last tell
    assert broker.told_version(CODE) == 3
