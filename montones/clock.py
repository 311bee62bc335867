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
    """Wall time (``time()``, seconds since the epoch: the rules' ``now``) and a monotonic
    time for pacing (``monotonic()``)."""

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def utcnow(self) -> datetime:
        """Now as the database keeps times: UTC, without a time zone."""
        return datetime.fromtimestamp(self.time(), UTC).replace(tzinfo=None)


class ManualClock(Clock):
    """A clock that stands still until a test moves it on with :meth:`advance`."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._start = start
        self._lock = threading.Lock()

    def time(self) -> float:
        with self._lock:
            return self._now

    def monotonic(self) -> float:
        with self._lock:
            return self._now - self._start

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds


def clock() -> Clock:
    """The current app's clock."""
    return current_app.extensions["clock"]


def init_app(app) -> None:
    app.extensions["clock"] = app.config.get("CLOCK") or Clock()
