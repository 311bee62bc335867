"""gunicorn's worker class for ``montones serve``: :class:`montones.server.Server` on the
sockets gunicorn's arbiter listens on.

gunicorn keeps what it is good at on POSIX (the arbiter, its settings, several worker processes
for PostgreSQL, restarting a worker that dies); the worker's connections are the server's, so a
stream or a half-sent request holds no thread here either. At SIGTERM the worker ends every live
stream cleanly and stops within a fraction of a second.
"""

from __future__ import annotations

import os

from gunicorn.workers.base import Worker as BaseWorker

from montones.server import Server


class Worker(BaseWorker):
    server: Server | None = None

    def run(self) -> None:
        channel = getattr(self.wsgi, "extensions", {}).get("channel")  # montones.channel
        self.server = Server(
            self.wsgi,
            [listener.sock for listener in self.sockets],
            threads=self.cfg.threads,
            keepalive=self.cfg.keepalive,
            multiprocess=self.cfg.workers > 1,
            on_stop=channel.close if channel is not None else None,
            tick=self._tick,
        )
        if not self.alive:  # a SIGTERM before the server was made
            return
        self.server.run()

    def _tick(self) -> None:
        self.notify()  # the heartbeat gunicorn's arbiter expects
        if not self.alive or self.ppid != os.getppid():  # stopped, or the arbiter is gone
            self.server.stop()

    def handle_exit(self, sig, frame) -> None:
        super().handle_exit(sig, frame)
        if self.server is not None:
            self.server.stop()
