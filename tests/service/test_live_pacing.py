"""The pace at which new versions reach the live streams (montones/broker.py), on real threads.

The gaps are widened from their real values so that a slow test machine cannot make a
publish land on the wrong side of one.
"""

from __future__ import annotations

import secrets
import threading
import time

import pytest

from montones import broker


@pytest.fixture
def gaps(monkeypatch):
    monkeypatch.setattr(broker, "MIN_GAP", 0.3)
    monkeypatch.setattr(broker, "MAX_GAP", 1.2)
    monkeypatch.setattr(broker, "QUIET", 2.5)


def fresh_code() -> str:
    return "T" + secrets.token_hex(6)


def test_a_change_on_a_quiet_table_goes_out_at_once(gaps):
    code = fresh_code()
    broker.publish(code, 1)
    assert broker.wait(code, 0, timeout=0) == 1


def test_a_burst_reaches_every_stream_as_one_release_of_its_newest_version(gaps):
    code = fresh_code()
    broker.publish(code, 1)
    seen: list[int] = []

    def stream():
        seen.append(broker.wait(code, 1, timeout=5))

    streams = [threading.Thread(target=stream) for _ in range(8)]
    for t in streams:
        t.start()
    started = time.monotonic()
    for version in (2, 3, 4):
        broker.publish(code, version)
    assert broker.wait(code, 1, timeout=0) == 1  # within the gap: nothing released yet
    for t in streams:
        t.join(5)
    assert seen == [4] * 8  # versions 2 and 3 were never sent on their own
    assert time.monotonic() - started >= 0.25


def test_the_gap_widens_while_changes_keep_coming_and_narrows_when_they_stop(gaps):
    code = fresh_code()
    broker.publish(code, 1)
    broker.publish(code, 2)
    broker.publish(code, 3)
    assert broker.wait(code, 1, timeout=5) == 3  # a release of two versions: the gap doubles
    broker.publish(code, 4)
    assert broker.wait(code, 3, timeout=0.45) == 3  # 0.3 s would have released it
    assert broker.wait(code, 3, timeout=5) == 4  # a release of one version: back to 0.3 s
    broker.publish(code, 5)
    started = time.monotonic()
    assert broker.wait(code, 4, timeout=5) == 5
    assert time.monotonic() - started < 0.45


def widen_to_the_most(code: str) -> int:
    """Two releases of two versions each: the gap goes 0.3 -> 0.6 -> 1.2 s. The last version."""
    broker.publish(code, 1)
    version = 1
    for _ in range(2):
        broker.publish(code, version + 1)
        broker.publish(code, version + 2)
        version += 2
        assert broker.wait(code, version - 2, timeout=5) == version
    return version


def test_a_busy_tables_gap_halves_at_a_release_of_one_version(gaps):
    code = fresh_code()
    version = widen_to_the_most(code)
    broker.publish(code, version + 1)  # alone in its release: the gap halves to 0.6 s, not 0.3
    assert broker.wait(code, version, timeout=5) == version + 1
    broker.publish(code, version + 2)
    started = time.monotonic()
    assert broker.wait(code, version + 1, timeout=5) == version + 2
    assert time.monotonic() - started >= 0.45


def test_a_table_quiet_for_a_while_starts_again_from_the_least_gap(gaps):
    code = fresh_code()
    version = widen_to_the_most(code)
    time.sleep(2.6)  # longer than QUIET: the next change goes out at once, the gap is 0.3 s
    broker.publish(code, version + 1)
    assert broker.wait(code, version, timeout=0) == version + 1
    broker.publish(code, version + 2)
    started = time.monotonic()
    assert broker.wait(code, version + 1, timeout=5) == version + 2
    assert time.monotonic() - started < 0.45


def test_the_released_table_is_the_one_its_writer_published(gaps):
    code = fresh_code()
    first, second = (type("Table", (), {"version": v})() for v in (1, 2))
    broker.publish(code, 1, first)
    broker.publish(code, 2, second)
    assert broker.released(code) is first  # the second waits for the next release
    assert broker.wait(code, 1, timeout=5) == 2
    assert broker.released(code) is second
