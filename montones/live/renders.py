"""The render cache: what is rendered for a table at a version, rendered once.

Keyed by (table code, version, kind of screen, language): a table at a version never changes
(:class:`~montones.data.snapshot.Snapshot`), so neither does what it renders to, and every screen of
a kind that shows that version shares one render. Nothing in it depends on the time: clocks are
rendered as deadlines the page counts down itself. The newest ``KEPT`` renders are kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

KEPT = 512  # renders: a few per version of every table that has screens open


class Renders:
    def __init__(self, kept: int = KEPT):
        self.kept = kept
        self._renders: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple, render: Callable[[], Any]) -> Any:
        """The render kept for ``key``, or ``render()``'s, kept from now on. Two threads that
        ask at once may both render: they render the same thing, and the streams ask for a
        version as it is published, so most are rendered once."""
        found = self._renders.get(key)  # one dict lookup needs no lock
        if found is None:
            found = render()
            with self._lock:
                self._renders[key] = found
                while len(self._renders) > self.kept:
                    self._renders.popitem(last=False)
        return found

    def put(self, key: tuple, value: Any) -> None:
        """Keep ``value`` for ``key`` (in place of what was kept)."""
        with self._lock:
            self._renders[key] = value
            self._renders.move_to_end(key)
            while len(self._renders) > self.kept:
                self._renders.popitem(last=False)

    def peek(self, key: tuple) -> Any:
        """The render kept for ``key``, or None."""
        return self._renders.get(key)
