"""The live channel of an app: the open screens of this process and what wakes them.

One :class:`Channel` per app, in ``app.extensions["channel"]`` (made by :func:`init_app`), holds:

- ``broker``: the newest version of each table, which each open screen's stream waits for
  (:mod:`montones.live.broker`);
- ``renders``: what each table at each version renders to, for each kind of screen and
  language, rendered once (:mod:`montones.live.renders`);
- the open screens of each table (:class:`Screen`);
- the scheduler (:mod:`montones.live.scheduler`): one thread (a greenlet under ``montones
  serve``) that applies the tables' clocks and moves their computer players, and cuts a
  stream whose reader stopped reading. With PostgreSQL, the broker's listener thread too.

What a stream sends is the web's to say (``montones.web.stream``). Nothing of it is module
state: two apps (two tests) share nothing.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask, current_app

from montones.data import queries, store
from montones.live.broker import Broker
from montones.live.renders import Renders
from montones.live.scheduler import Scheduler
from montones.service.party import REACTIONS

# Real seconds a stream may spend writing one update before its connection is cut: a phone that
# stops reading (asleep, gone without a word) holds one connection and one update until then.
STUCK = 30.0
# A table's reactions kept for its TVs: the last few, each shown for REACTION_SECONDS; a seat's
# at most SEAT_SHOWN at once, however many workers its phone's taps reach.
REACTIONS_KEPT, REACTION_SECONDS, SEAT_SHOWN = 8, 4.0, 3
_SEAT = re.compile(r"p[0-9]{1,3}")


@dataclass(eq=False)
class Screen:
    """One open stream: which table, kind of screen, seat and language it shows."""

    code: str
    kind: str  # "phone", "tv", "watch" or "host"
    locale: str
    seat: str | None = None
    device: int | None = None  # which device of the seat: a rejoin elsewhere counts up
    address: str = ""
    cut: Callable[[], None] | None = None  # closes the connection under the server, if it can
    ended: bool = False
    writing_since: float | None = None  # when the server started writing its last update
    away: str | None = None  # the seat its player was sent away from (the host may let back)


class Channel:
    def __init__(self, app: Flask):
        self.app = app
        self.clock = app.extensions["clock"]
        self.broker = Broker(self.clock)
        self.renders = Renders()
        self.scheduler = Scheduler(self)
        # (code, seat, language) -> each of the seat's regions as last drawn, and what from:
        # a tap's answer draws them, and its phone's stream sends that drawing, not another.
        self.seat_drawings: dict[tuple[str, str, str], dict[str, tuple[tuple, str]]] = {}
        self._screens: dict[str, list[Screen]] = {}
        self._tvs: dict[str, int] = {}  # code -> its open TVs' streams, counted as they open
        # code -> its last reactions: (number, seat, reaction, monotonic time), not a version
        # of the table (a reveal playing on plays on); kept in this process.
        self._reactions: dict[str, deque] = {}
        self._reacted = 0
        # This channel's name in the reactions it tells other workers of (it hears its own).
        self.origin = secrets.token_hex(8)
        self.broker.heard = self.heard
        self._lock = threading.Lock()
        self._closed = False  # the server is stopping: no stream is served any more

    def open(self, screen: Screen) -> bool:
        """Count ``screen`` among its table's open screens; False once the server is
        stopping (the stream ends at once)."""
        with self._lock:
            if self._closed:
                return False
            self._screens.setdefault(screen.code, []).append(screen)
            if screen.kind == "tv":
                self._tvs[screen.code] = self._tvs.get(screen.code, 0) + 1
        self.broker.nudged(screen.code)
        self.scheduler.start()
        uri = self.app.config["SQLALCHEMY_DATABASE_URI"]
        if uri.startswith("postgresql"):  # other workers' changes, while there are screens
            self.broker.listen(uri, self.serving, self.stored_versions)
        return True

    def shut(self, screen: Screen) -> None:
        """``screen``'s stream ended: it is no longer counted."""
        with self._lock:
            screens = self._screens.get(screen.code, [])
            if screen in screens:
                screens.remove(screen)
                if screen.kind == "tv" and self._tvs.get(screen.code, 0) > 1:
                    self._tvs[screen.code] -= 1
                elif screen.kind == "tv":
                    self._tvs.pop(screen.code, None)
            if not screens:
                self._screens.pop(screen.code, None)
        self.end(screen)

    def end(self, screen: Screen) -> None:
        """End ``screen``'s stream at its next turn (its reader went, or the server stops)."""
        screen.ended = True
        self.broker.nudged(screen.code)

    def committed(self, app: Flask, table) -> None:
        """A change of this app's, committed: its screens are brought to it."""
        self.broker.publish(table.code, table.version, table)

    def close(self) -> None:
        """End every stream now, cleanly: the server is stopping."""
        with self._lock:
            self._closed = True
            screens = [screen for listed in self._screens.values() for screen in listed]
        for screen in screens:
            self.end(screen)
        self.scheduler.stop()

    def stored_versions(self) -> dict[str, int]:
        """The version of each table this process streams, as the database has it now."""
        with self.app.app_context():
            return queries.versions(self.codes())

    def codes(self) -> list[str]:
        with self._lock:
            return list(self._screens)

    def screens(self, code: str) -> list[Screen]:
        """The open screens of table ``code`` in this process."""
        with self._lock:
            return list(self._screens.get(code, []))

    def tv_open(self, code: str) -> bool:
        """Whether a TV of table ``code`` has its stream open in this process (asked at every
        drawing of a phone's seat regions: counted, not looked for among the screens)."""
        return code in self._tvs

    def serving(self) -> bool:
        """Whether this process has open screens."""
        return bool(self._screens) and not self._closed

    def stuck(self) -> None:
        """Cut the connection of every stream that has spent more than ``STUCK`` seconds
        writing one update: its reader has gone, and holds up nobody but itself meanwhile."""
        now = time.monotonic()
        with self._lock:
            screens = [screen for listed in self._screens.values() for screen in listed]
        for screen in screens:
            since = screen.writing_since
            if since is not None and now - since > STUCK and screen.cut is not None:
                screen.cut()

    def react(self, code: str, seat: str, reaction: str) -> None:
        """A seat's reaction: kept for its table's screens, which are woken to show it, and
        told to every other worker's (PostgreSQL's NOTIFY, as the tables' versions are)."""
        if self._keep(code, seat, reaction):
            payload = json.dumps({"t": code, "s": seat, "r": reaction, "o": self.origin})
            store.announce_reaction(payload)

    def heard(self, payload: str) -> None:
        """A reaction another worker's phone sent (its NOTIFY, heard by this process's
        listener): kept for this process's screens of its table as a reaction sent here is.
        Read with care, as anything that came over the network: what is not a reaction of a
        seat at a table is dropped, and so is this process's own (kept when it was sent)."""
        try:
            said = json.loads(payload)
            code, seat, reaction, origin = said["t"], said["s"], said["r"], said["o"]
        except (ValueError, KeyError, TypeError):
            return
        if origin == self.origin or reaction not in REACTIONS:
            return
        if not (isinstance(code, str) and isinstance(seat, str) and _SEAT.fullmatch(seat)):
            return
        self._keep(code[:12], seat, reaction)

    def _keep(self, code: str, seat: str, reaction: str) -> bool:
        """Keep a reaction for the table's TVs and wake them; False, dropped, when its seat
        already has ``SEAT_SHOWN`` on them: each worker limits a seat's reactions to what a
        person sends, and this bounds what they all send together."""
        now = time.monotonic()
        with self._lock:
            kept = self._reactions.setdefault(code, deque(maxlen=REACTIONS_KEPT))
            showing = sum(1 for r in kept if r[1] == seat and r[3] >= now - REACTION_SECONDS)
            if showing >= SEAT_SHOWN:
                return False
            self._reacted += 1
            kept.append((self._reacted, seat, reaction, now))
        self.broker.nudged(code, tvs=True)  # a phone has nothing of it to show
        return True

    def reactions(self, code: str) -> tuple:
        """Table ``code``'s reactions of the last ``REACTION_SECONDS``, oldest first."""
        since = time.monotonic() - REACTION_SECONDS
        with self._lock:
            return tuple(r for r in self._reactions.get(code, ()) if r[3] >= since)


def of(app: Flask | None = None) -> Channel:
    """The live channel of ``app`` (the current app by default)."""
    return (app or current_app).extensions["channel"]


def init_app(app: Flask) -> None:
    app.extensions["channel"] = live = Channel(app)
    store.committed.connect(live.committed, sender=app)
