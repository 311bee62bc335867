"""The one clock the service and the live channel read, so that tests can set it.

The app keeps its clock in ``app.extensions["clock"]``: :class:`Clock` (the machine's) unless
the config's ``CLOCK`` gives another, such as a :class:`ManualClock` a test moves on by hand.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

from flask import current_app


class Clock:
    """Wall time (``time()``, seconds since the epoch: the rules' ``now``), a monotonic time
    for pacing (``monotonic()``), and waiting for either (``wait``)."""

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def utcnow(self) -> datetime:
        """Now as the database keeps times: UTC, without a time zone."""
        return datetime.fromtimestamp(self.time(), UTC).replace(tzinfo=None)

    def wait(
        self, condition: threading.Condition, seconds: float, real_limit: float | None = None
    ) -> None:
        """Wait on ``condition`` (held by the caller) until it is notified, or ``seconds`` of
        this clock pass, or ``real_limit`` seconds of real time (a socket's pace, which no
        clock of the app's sets)."""
        if real_limit is not None:
            seconds = min(seconds, real_limit)
        condition.wait(max(0.0, seconds))


class ManualClock(Clock):
    """A clock that stands still until a test moves it on with :meth:`advance`."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._elapsed = 0.0  # kept apart: a small step added to a large time loses its digits
        self._lock = threading.Lock()
        self._waiting: list[threading.Condition] = []  # woken by advance()

    def time(self) -> float:
        with self._lock:
            return self._now

    def monotonic(self) -> float:
        with self._lock:
            return self._elapsed

    def wait(
        self, condition: threading.Condition, seconds: float, real_limit: float | None = None
    ) -> None:
        """Wait until ``condition`` is notified or the clock is moved on (the waiter looks at
        the time again), or ``real_limit`` seconds of real time pass."""
        if seconds <= 0:
            return
        with self._lock:
            self._waiting.append(condition)
        try:
            condition.wait(real_limit)
        finally:
            with self._lock:
                self._waiting.remove(condition)

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds
            self._elapsed += seconds
            waiting = list(self._waiting)
        for condition in waiting:
            with condition:
                condition.notify_all()


def clock() -> Clock:
    """The current app's clock."""
    return current_app.extensions["clock"]


def init_app(app) -> None:
    app.extensions["clock"] = app.config.get("CLOCK") or Clock()
