"""The live stream: one Server-Sent Events response per open screen (a phone, the TV, the host).

The view only opens a stream: it says which table, kind of screen, seat and language it is for,
and hands it to the live channel's fan-out thread (:mod:`montones.fanout`), which writes every
update, heartbeat and clock of every stream (what each is sent: :mod:`montones.views.updates`).
On connecting, a screen is sent what changed since the version its page showed, so a screen
that lost its stream catches up.

Under gunicorn the fan-out writes to the connection's own socket and the request's thread waits,
idle, for the stream to end. Under any other server (the Flask test client, Werkzeug's) the
fan-out writes to one end of a socket pair and the request relays what comes out of the other:
the same fan-out either way, so the tests exercise what production runs.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time

from flask import Blueprint, Response, current_app, request
from flask_babel import get_locale

from montones import channel, service
from montones.fanout import Screen
from montones.snapshot import Snapshot
from montones.views import updates
from montones.views.common import actor_for

bp = Blueprint("live", __name__, url_prefix="/t/<code>")

SCREENS = ("phone", "tv", "host")
RETRY = b"retry: 1500\n\n"  # how soon a browser reconnects (ms): sent with the headers


@bp.get("/stream")
def stream(code):
    table = Snapshot.of(service.get_table(code))
    kind = request.args.get("screen", "host")
    if kind not in SCREENS:
        kind = "host"
    _actor, player = actor_for(table)
    seen = request.args.get("v", type=int, default=-1)
    seat = player.seat if player else None
    about = {
        "screen": kind,
        "seat": seat,
        # Which device of the seat this is: a rejoin elsewhere counts up (told as "gone").
        "device": table.state["players"][seat].get("device", 0) if seat else None,
        "locale": (kind == "tv" and table.tv_language) or str(get_locale()),
        "base_url": request.host_url,
    }
    live = channel.of()
    max_seconds = current_app.config.get("STREAM_MAX_SECONDS", 600)
    sock = request.environ.get("gunicorn.socket")
    chunked = sock is not None and request.environ.get("SERVER_PROTOCOL") != "HTTP/1.0"
    relay = None
    if sock is None:
        sock, relay = socket.socketpair()
    screen = Screen(sock, chunked, table.code, seen, **about)

    def opened():
        fanout = None
        try:
            yield RETRY  # with the headers, through the server as usual
            live.broker.publish(table.code, table.version, table)  # a version unknown here yet
            fanout = live.serve(screen, updates)
            if relay is None:
                screen.ended.wait(max_seconds)
            else:
                yield from _relayed(relay, max_seconds)
        finally:
            clean = fanout.remove(screen) if fanout is not None else True
            if relay is not None:
                relay.close()
                sock.close()
            elif not clean:  # an update half written: end the connection
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    response = Response(opened(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.headers["X-Montones-Worker"] = str(os.getpid())  # which process holds the stream
    return response


def _relayed(relay: socket.socket, max_seconds: float):
    """What the fan-out writes to the other end of ``relay``, whole events at a time, until it
    stops writing or ``max_seconds`` pass."""
    ends = time.monotonic() + max_seconds
    pending = b""
    while (left := ends - time.monotonic()) > 0:
        relay.settimeout(left)
        try:
            data = relay.recv(1 << 20)
        except TimeoutError:
            return
        if not data:
            return
        pending += data
        cut = pending.rfind(b"\n\n") + 2
        if cut > 1:
            yield pending[:cut]
            pending = pending[cut:]
