"""The pace at which new versions reach the live screens (montones/live/broker.py).

Time is a :class:`ManualClock` the tests move on by hand; the releases that fall due are made by
whoever serves the screens (the fan-out thread), here the test itself.
"""

from __future__ import annotations

import pytest

from montones.data.clock import ManualClock
from montones.live.broker import Broker

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


def test_the_gap_widens_while_changes_keep_coming_and_narrows_when_they_stop(clock, broker):
    broker.publish(CODE, 1)
    broker.publish(CODE, 2)
    broker.publish(CODE, 3)
    assert later(clock, broker, MIN_GAP) == 3  # a release of two versions: the gap doubles
    broker.publish(CODE, 4)
    assert later(clock, broker, MIN_GAP) == 3  # the least gap would have released it
    assert later(clock, broker, MIN_GAP) == 4  # twice that; a release of one version: halved
    broker.publish(CODE, 5)
    assert later(clock, broker, MIN_GAP) == 5


def widen_to_the_most(clock, broker) -> int:
    """Two releases of two versions each: the gap goes 0.25 -> 0.5 -> 1 s. The last version."""
    broker.publish(CODE, 1)
    version = 1
    for gap in (MIN_GAP, 2 * MIN_GAP):
        broker.publish(CODE, version + 1)
        broker.publish(CODE, version + 2)
        version += 2
        assert later(clock, broker, gap) == version
    return version


def test_a_busy_tables_gap_halves_at_a_release_of_one_version(clock, broker):
    version = widen_to_the_most(clock, broker)
    broker.publish(CODE, version + 1)  # alone in its release: the gap halves to 0.5 s, no less
    assert later(clock, broker, MAX_GAP) == version + 1
    broker.publish(CODE, version + 2)
    assert later(clock, broker, 0.375) == version + 1
    assert later(clock, broker, 0.125) == version + 2


def test_the_gap_never_passes_the_most(clock, broker):
    version = widen_to_the_most(clock, broker)
    broker.publish(CODE, version + 1)
    broker.publish(CODE, version + 2)  # a release of two again: 2 s, held to 1
    assert later(clock, broker, MAX_GAP) == version + 2
    broker.publish(CODE, version + 3)
    broker.publish(CODE, version + 4)
    assert later(clock, broker, MAX_GAP - 0.125) == version + 2
    assert later(clock, broker, 0.125) == version + 4


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


# --- tells: the screens that fetch their own part (the phones) ---------------------------------


def test_on_a_quiet_table_a_version_is_told_as_it_is_released(broker):
    broker.publish(CODE, 1)
    assert broker.told_version(CODE) == broker.released_version(CODE) == 1


def test_releases_closer_than_the_tells_gap_are_told_together(clock, broker):
    broker.publish(CODE, 1)  # released and told at once
    clock.advance(MIN_GAP)
    broker.publish(CODE, 2)  # released at once; told after the tells' gap
    assert (broker.released_version(CODE), broker.told_version(CODE)) == (2, 1)
    assert broker.release_due() == MIN_TELL_GAP
    clock.advance(MIN_GAP)
    broker.publish(CODE, 3)
    assert broker.told_version(CODE) == 1
    later(clock, broker, 0)
    assert broker.told_version(CODE) == 3  # one tell for two releases: its gap doubles
    clock.advance(MIN_TELL_GAP)
    broker.publish(CODE, 4)
    assert broker.told_version(CODE) == 3  # half the new gap


def test_the_tells_gap_widens_further_than_the_releases(clock, broker):
    broker.publish(CODE, 1)
    version, told_at = 1, []
    while clock.monotonic() < 16:
        clock.advance(MIN_GAP)  # a release every 0.25 s, each of one version
        version += 1
        broker.publish(CODE, version)
        before = broker.told_version(CODE)
        broker.release_due()
        if broker.told_version(CODE) != before:
            told_at.append(clock.monotonic())
    gaps = {b - a for a, b in zip(told_at, told_at[1:], strict=False)}
    assert max(gaps) == MAX_TELL_GAP  # four releases to a tell once the table is busy
    assert broker.released_version(CODE) == version  # while every version is released
