"""The live stream: one Server-Sent Events response per open screen (a phone, the TV, the host).

The view only opens a stream: it says which table, kind of screen, seat and language it is for,
and hands it to the live channel's fan-out thread (:mod:`montones.fanout`), which writes every
update, heartbeat and clock of every stream and ends it when its time is up (what each is sent:
:mod:`montones.views.updates`). On connecting, a screen is sent what changed since the version
its page showed, so a screen that lost its stream catches up.

Under ``montones serve`` (:mod:`montones.server`) the request hands its connection over
(``environ["montones.detach"]``): once the response's head and first bytes are out, the fan-out
owns the socket and the request's thread is free. Under any other server (the Flask test client,
Werkzeug's) the fan-out writes to one end of a socket pair and the request relays what comes
out of the other: the same fan-out either way, so the tests exercise what production runs.
"""

from __future__ import annotations

import os
import socket
import time

from flask import Blueprint, Response, current_app, request
from flask_babel import get_locale

from montones import channel, service
from montones.fanout import Screen
from montones.views import updates
from montones.views.common import actor_for

bp = Blueprint("stream", __name__, url_prefix="/t/<code>")

SCREENS = ("phone", "tv", "host")
RETRY = b"retry: 1500\n\n"  # how soon a browser reconnects (ms): sent with the headers


@bp.get("/stream")
def stream(code):
    table = service.get_table(code)
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
    ends = time.monotonic() + current_app.config.get("STREAM_MAX_SECONDS", 600)

    def serve(sock: socket.socket, chunked: bool):
        screen = Screen(sock, chunked, table.code, seen, ends=ends, **about)
        live.broker.publish(table.code, table.version, table)  # a version unknown here yet
        return screen, live.serve(screen, updates)

    detach = request.environ.get("montones.detach")
    if detach is not None:
        detach(serve)  # called once RETRY is on the wire
        body = iter((RETRY,))  # not a list: its length is not the stream's
    else:
        body = _relayed(serve)
    response = Response(body, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.headers["X-Montones-Worker"] = str(os.getpid())  # which process holds the stream
    return response


def _relayed(serve):
    """RETRY, then what the fan-out writes to one end of a socket pair, whole events at a time,
    until it ends the stream (or the client closes the response)."""
    sock, relay = socket.socketpair()
    screen = fanout = None
    try:
        yield RETRY
        screen, fanout = serve(sock, False)
        pending = b""
        while data := relay.recv(1 << 20):
            pending += data
            cut = pending.rfind(b"\n\n") + 2
            if cut > 1:
                yield pending[:cut]
                pending = pending[cut:]
    finally:
        if fanout is not None:
            fanout.remove(screen)
        sock.close()
        relay.close()
