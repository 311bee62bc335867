"""The live channel of an app: how every open screen learns of each change at its table.

One :class:`Channel` per app, in ``app.extensions["channel"]`` (made by :func:`init_app`), holds:

- ``broker``: the versions published by the service and released at a pace
  (:mod:`montones.live.broker`);
- ``renders``: what each table at each version renders to, for each kind of screen and
  language, rendered once (:mod:`montones.live.renders`);
- the fan-out: the one thread that works out every screen's updates (:mod:`montones.live.fanout`),
  started by the first screen and stopping when the last one goes; with PostgreSQL, the
  broker's listener thread runs while it does. Under ``montones serve`` both are greenlets
  (:mod:`montones.serving`).

What a screen is sent (the fan-out's glue) is the views' to say: :mod:`montones.live.updates`.
Nothing of it is module state: two apps (two tests) share nothing.
"""

from __future__ import annotations

import threading

from flask import Flask, current_app

from montones.data import queries, store
from montones.live.broker import Broker
from montones.live.fanout import Fanout, Glue, Screen
from montones.live.renders import Renders


class Channel:
    def __init__(self, app: Flask):
        self.app = app
        self.clock = app.extensions["clock"]
        self.broker = Broker(self.clock)
        self.renders = Renders()
        self._fanout: Fanout | None = None
        self._lock = threading.Lock()
        self._closed = False  # the server is stopping: no stream is served any more

    def serve(self, screen: Screen, glue: Glue) -> Fanout | None:
        """Hand an open screen to the fan-out thread (starting one if none runs); returns the
        fan-out serving it, to remove it from when its stream ends (None once the server is
        stopping: the stream ends at once)."""
        with self._lock:
            if self._closed:
                return None
            if self._fanout is None or not self._fanout.add(screen):
                self._fanout = Fanout(self.broker, self.clock, self.app.app_context, glue)
                self._fanout.add(screen)
            fanout = self._fanout
        uri = self.app.config["SQLALCHEMY_DATABASE_URI"]
        if uri.startswith("postgresql"):  # other workers' changes, while there are screens
            self.broker.listen(uri, self.serving, self.stored_versions)
        return fanout

    def committed(self, app: Flask, table) -> None:
        """A change of this app's, committed: its screens are brought to it."""
        self.broker.publish(table.code, table.version, table)

    def close(self) -> None:
        """End every stream now, cleanly: the server is stopping."""
        with self._lock:
            self._closed = True
            fanout = self._fanout
        if fanout is not None:
            fanout.close()

    def stored_versions(self) -> dict[str, int]:
        """The version of each table this process streams, as the database has it now."""
        fanout = self._fanout
        codes = fanout.codes() if fanout is not None else []
        with self.app.app_context():
            return queries.versions(codes)

    def screens(self, code: str) -> list[Screen]:
        """The live screens of table ``code`` in this process."""
        fanout = self._fanout
        return fanout.screens(code) if fanout is not None else []

    def serving(self) -> bool:
        """Whether a fan-out thread serves screens now."""
        fanout = self._fanout
        return fanout is not None and fanout.running


def of(app: Flask | None = None) -> Channel:
    """The live channel of ``app`` (the current app by default)."""
    return (app or current_app).extensions["channel"]


def init_app(app: Flask) -> None:
    app.extensions["channel"] = live = Channel(app)
    store.committed.connect(live.committed, sender=app)
