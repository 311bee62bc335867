"""The live stream: one Server-Sent Events response per open screen (a phone, the TV, the host).

The view says which table, kind of screen, seat and language the stream is for, and answers with
a generator the server writes: it hands its screen to the live channel's fan-out
(:mod:`montones.live.fanout`), which works out every update, heartbeat and clock of every stream and
ends it when its time is up (what each is sent: :mod:`montones.live.updates`), and yields what
lands in the screen's outbox. On connecting, a screen is sent what changed since the version its
page showed, so a screen that lost its stream catches up. Under ``montones serve`` a stream
blocked between two updates is a greenlet, not a thread (:mod:`montones.serving`).
"""

from __future__ import annotations

import os
import time
import zlib
from contextlib import closing

from flask import Blueprint, Response, current_app, request
from flask_babel import get_locale

from montones import service
from montones.live import channel, updates
from montones.live.fanout import Screen
from montones.web.common import actor_for

bp = Blueprint("stream", __name__, url_prefix="/t/<code>")

SCREENS = ("phone", "tv", "watch", "host")
RETRY = b"retry: 1500\n\n"  # how soon a browser reconnects (ms): sent with the headers
# A stream is compressed as one gzip member, flushed after each update so that it reaches its
# screen whole and at once. The window is 4 KiB, not zlib's 32: each update is mostly what the
# last few held (a version, a pile), and a stream keeps its compressor as long as it is open
# (about 32 kB each, not 256 kB). Flask-Compress compresses a stream without flushing it.
WINDOW_BITS, MEMORY_LEVEL = 12, 5
# A watcher's streams open at once from one client address, at one table: a phone's page, a
# second tab, a reload whose old stream has not closed yet. The TV counts them, so a guest
# cannot make it say more than this many for each device they hold.
WATCHERS_PER_ADDRESS = 3


@bp.get("/stream")
def stream(code):
    table = service.get_table(code)
    kind = request.args.get("screen", "host")
    if kind not in SCREENS:
        kind = "host"
    _actor, player = actor_for(table)
    seen = request.args.get("v", type=int, default=-1)
    seat = player.seat if player else None
    address = request.remote_addr or ""
    live = channel.of()
    if kind == "watch" and _watching_from(live, table.code, address) >= WATCHERS_PER_ADDRESS:
        # A failed EventSource does not connect again (a status other than 200 ends it).
        return Response(status=429, headers={"Cache-Control": "no-store"})
    about = {
        "screen": kind,
        "seat": seat,
        "address": address,
        # Which device of the seat this is: a rejoin elsewhere counts up (told as "gone").
        "device": table.state["players"][seat].get("device", 0) if seat else None,
        "locale": (kind == "tv" and table.tv_language) or str(get_locale()),
        "base_url": request.host_url,
    }
    ends = time.monotonic() + current_app.config.get("STREAM_MAX_SECONDS", 600)
    screen = Screen(table.code, seen, ends=ends, cut=request.environ.get("montones.cut"), **about)

    # Under montones serve, a stream ends as soon as its reader closes the connection
    # (montones.serving), not at the next heartbeat that fails: its connection is a descriptor.
    on_reader_gone = request.environ.get("montones.on_reader_gone")

    def events():
        fanout = None
        unwatch = on_reader_gone(screen.end) if on_reader_gone is not None else None
        try:
            yield RETRY
            live.broker.publish(table.code, table.version, table)  # a version unknown here yet
            if (
                kind == "watch"
                and _watching_from(live, table.code, address) >= WATCHERS_PER_ADDRESS
            ):
                # Opened at once with others from its address, which the count above had not
                # seen yet: counted again here, where under montones serve (greenlets) nothing
                # else runs between the count and the serve.
                return
            fanout = live.serve(screen, updates)
            while fanout is not None and (data := screen.take()) is not None:
                yield data
                fanout.taken(screen)
        finally:
            if unwatch is not None:
                unwatch()
            if fanout is not None:
                fanout.remove(screen)

    zipped = request.accept_encodings["gzip"] > 0
    # A HEAD request gets the head alone: Werkzeug never starts the generator for one.
    response = Response(gzipped(events()) if zipped else events(), mimetype="text/event-stream")
    if zipped:
        response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.headers["X-Montones-Worker"] = str(os.getpid())  # which process holds the stream
    return response


def gzipped(chunks):
    """Each chunk compressed, and flushed so that it can be read at once."""
    packer = zlib.compressobj(6, zlib.DEFLATED, 16 + WINDOW_BITS, MEMORY_LEVEL)
    with closing(chunks):  # the stream's own end (its finally) when its reader goes
        for data in chunks:
            yield packer.compress(data) + packer.flush(zlib.Z_SYNC_FLUSH)
    yield packer.flush()


def _watching_from(live: channel.Channel, code: str, address: str) -> int:
    """The watchers' streams this process holds open at table ``code`` for ``address``."""
    return sum(
        screen.about["screen"] == "watch" and screen.about["address"] == address
        for screen in live.screens(code)
    )
