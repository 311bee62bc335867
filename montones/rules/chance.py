"""Where the rules draw their chance from: the system's CSPRNG, except in a rehearsal.

Every shuffle, random cut, heap size, lot and salt of a real table comes from ``SYSTEM``, a
``secrets.SystemRandom``. A rehearsal (the TV's demonstration, :mod:`montones.rules.demo`) plays
a hand nobody stakes anything on, and must play the same hand each time it is asked for it, in
any worker: inside :func:`rehearsal` the engines draw from one ``random.Random`` seeded with its
seed instead. It is a context variable, set and reset around the rehearsal's own calls, so a
real deal anywhere else (another thread, another greenlet) never sees it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from random import Random

SYSTEM: Random = secrets.SystemRandom()
_REHEARSED: ContextVar[Random | None] = ContextVar("rehearsed", default=None)


def source() -> Random:
    """What to draw from now: ``SYSTEM``, or the rehearsal's seeded source while one plays."""
    return _REHEARSED.get() or SYSTEM


@contextmanager
def rehearsal(seed: str) -> Iterator[None]:
    """Inside it, the engines' chance is ``random.Random(seed)``: the same seed, the same cards."""
    token = _REHEARSED.set(Random(seed))
    try:
        yield
    finally:
        _REHEARSED.reset(token)
