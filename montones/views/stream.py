"""The live channel: one Server-Sent Events stream per open screen.

What every screen of a kind shows alike (the felt of a phone, the whole TV) is rendered once per
version and language and pushed in the event itself, so forty screens cost one render, not
forty. A phone's own regions (its chips, its action bar) are fetched by the phone itself: every
update of a phone's stream ends with ``mine``. Versions reach the
streams at the pace :mod:`montones.broker` releases them, the same version to every screen at the
same moment, so a burst of changes costs each screen one update per release. On connecting, a
stream sends what changed since the version its page showed, so a screen that lost its stream
catches up; in between it sends heartbeats, and it applies the cut timeout when it falls due.

Under gunicorn a stream's own thread only opens it: the fan-out thread of the process
(:mod:`montones.fanout`) writes its updates and heartbeats and applies the clock. Elsewhere (the
Flask test client, another server) each stream does all that in its own loop here.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import threading
import time
from collections import OrderedDict
from types import SimpleNamespace

from flask import Blueprint, Response, current_app, request, stream_with_context
from flask_babel import force_locale, get_locale

from montones import broker, fanout, history, service
from montones.extensions import db
from montones.views import tv as tv_views
from montones.views.common import actor_for, block_drawer, join_url, table_view

bp = Blueprint("live", __name__, url_prefix="/t/<code>")

HEARTBEAT = fanout.HEARTBEAT
SCREENS = ("phone", "tv", "host")
# What each kind of screen receives in its events: (event name, page template, block).
SHARED = {
    "phone": [("felt", "play/table.html", "felt"), ("odds", "play/table.html", "odds")],
    "tv": [
        ("tv_status", "tv/table.html", "tv_status"),
        ("felt", "tv/table.html", "felt"),
        ("players", "tv/table.html", "players"),
        ("recent", "tv/table.html", "recent"),
    ],
}

_lock = threading.Lock()
_loading: dict[str, threading.Lock] = {}  # code -> held by the one stream reading the table
_tables: dict[str, SimpleNamespace] = {}  # code -> the newest table read, for every stream
# (code, version, screen, locale) -> blocks; ("events", code, ...) -> those blocks as SSE bytes;
# ("recent", code, stage, deck in play) -> the TV's last hands
_html: OrderedDict[tuple, list | bytes] = OrderedDict()
_rendering: dict[tuple, threading.Lock] = {}  # key of _html -> held by the one stream rendering it
_HTML_KEPT = 512


def _known(code: str, at_least: int) -> SimpleNamespace | None:
    """The table this process holds for ``code`` at version ``at_least`` or newer, if any: the
    one released to the streams when it is that version (so every stream shows the same one),
    else the newest held."""
    released = broker.released(code)
    if released is not None and released.version == at_least:
        return released
    published = broker.latest(code)
    with _lock:
        known = _tables.get(code)
        if published is not None and (known is None or published.version > known.version):
            known = _tables[code] = published
    return known if known is not None and known.version >= at_least else None


def _table(code: str, at_least: int) -> SimpleNamespace:
    """The table at ``at_least`` or newer, for every stream at once.

    A writer in this process hands its committed table to the broker, so the streams it wakes
    read nothing; otherwise (a writer in another process) one stream reads the row and the
    others wait for it, rather than forty streams reading the same row at the same moment.
    """
    known = _known(code, at_least)
    if known is not None:
        return known
    with _lock:
        loading = _loading.setdefault(code, threading.Lock())
    with loading:
        known = _known(code, at_least)
        if known is not None:
            return known
        fresh = broker.snapshot(service.get_table(code))
        db.session.remove()  # a stream must not hold a connection (or a read snapshot) open
        with _lock:
            known = _tables.get(code)
            if known is None or fresh.version > known.version:
                _tables[code] = fresh
            return _tables[code]


def _shared_blocks(table: SimpleNamespace, screen: str, locale: str) -> list[tuple[str, str]]:
    """(event name, HTML) of what every screen of this kind shows at this version, rendered once.

    The first stream to want them renders them, and the streams that want the same wait for it;
    streams of another kind (the phones while the TV's are rendered) do not.
    """
    key = (table.code, table.version, screen, locale)
    found = _html.get(key)
    if found is not None:
        return found
    with _lock:
        rendering = _rendering.setdefault(key, threading.Lock())
    with rendering:
        with _lock:
            if key in _html:
                return _html[key]
        context = {
            "table": table,
            "v": table_view(table),
            "stage": service.stage(table.state),
            "nonce": f"v{table.version}",
            "join_url": join_url(table),
            "oob": False,
            "tv": screen == "tv",
            "phone": screen == "phone",
            "recent": _recent(table) if screen == "tv" else [],
        }
        drawers = {template: block_drawer(template, context) for _n, template, _b in SHARED[screen]}
        blocks = [(name, drawers[template](block)) for name, template, block in SHARED[screen]]
        with _lock:
            _html[key] = blocks
            _rendering.pop(key, None)
            while len(_html) > _HTML_KEPT:
                _html.popitem(last=False)
        return blocks


def _recent(table: SimpleNamespace) -> list:
    """The TV's last hands, read once per stage of the table and deck in play: a new hand is
    recorded only by the action that settles one, which moves the table to another stage, and
    what they show of a deck changes only when that deck is done."""
    key = ("recent", table.code, service.stage(table.state), history.live_commitment(table))
    with _lock:
        found = _html.get(key)
    if found is None:
        found = history.hands(table, limit=tv_views.RECENT)
        db.session.remove()  # as in _table: a stream holds no connection while it waits
        with _lock:
            _html[key] = found
    return found


def _shared_events(table: SimpleNamespace, screen: str, locale: str) -> bytes:
    """The same blocks as SSE events, built and encoded once for every stream."""
    key = ("events", table.code, table.version, screen, locale)
    found = _html.get(key)  # a read needs no lock (one dict lookup): forty streams ask at once
    if found is not None:
        return found
    blocks = _shared_blocks(table, screen, locale)
    with _lock:
        if key not in _html:
            # A block with nothing in it for this game (Montones' odds never change) is not sent.
            _html[key] = "".join(
                _event(name, html) for name, html in blocks if html.strip()
            ).encode()
        return _html[key]


def _update(table, screen: str, seat: str | None, locale: str) -> bytes:
    """What brings a screen of this kind to ``table``'s version, as bytes to send: a phone's
    ends with ``mine``, on which it fetches its own regions."""
    if screen == "host":
        return f"event: changed\ndata: {table.version}\n\n".encode()
    update = _shared_events(table, screen, locale)
    if seat is not None:
        update += f"event: mine\ndata: {table.version}\n\n".encode()
    return update


# --- the fan-out thread's side (montones/fanout.py) ---------------------------------------------

_fanout: fanout.Fanout | None = None
_fanout_lock = threading.Lock()


def _hub(app) -> fanout.Fanout:
    """This process's fan-out thread, started by the first stream."""
    global _fanout
    with _fanout_lock:
        if _fanout is None:
            _fanout = fanout.Fanout(app.app_context, _fanout_update, _fanout_deadline, _fanout_tick)
        return _fanout


def _fanout_update(screen: fanout.Screen, code: str, released: int) -> tuple[bytes, int]:
    table = _table(code, released)
    about = screen.about
    kind, locale = about["screen"], about["locale"]
    if kind != "host" and ("events", table.code, table.version, kind, locale) not in _html:
        # Rendered as for the screen's own request: its address (the links in the blocks) and
        # its language.
        with current_app.test_request_context(base_url=about["base_url"]), force_locale(locale):
            _shared_events(table, kind, locale)
    return _update(table, kind, about["seat"], locale), table.version


def _fanout_deadline(code: str) -> float | None:
    return service.clock_deadline(_table(code, broker.released_version(code)))


def _fanout_tick(code: str) -> None:
    service.tick(code)
    db.session.remove()


def phone_shared(row, block: str, oob: bool) -> str | None:
    """A block every phone shows alike (the felt, the odds) at a table row's version, as the
    streams push it (rendered once); None for a block of the phone's own."""
    if block not in (name for name, _template, _block in SHARED["phone"]):
        return None
    table = broker.snapshot(row)
    html = dict(_shared_blocks(table, "phone", str(get_locale()))).get(block)
    if html and oob:
        return html.replace(f'id="{block}"', f'id="{block}" hx-swap-oob="true"', 1)
    return html


# A line break and the spaces, tabs and line breaks after it. Written to start with a plain
# character: a pattern that starts with a class ("[\r\n]+") is scanned for at every position,
# eight times slower on a phone's felt (150 µs against 19); a "\r" is made a "\n" first. Not
# "\s", which takes in the no-break spaces of numbers written the French way.
_LINE_BREAKS = re.compile(r"\n[ \t\n]*")


def _event(name: str, html: str) -> str:
    """One SSE event carrying a block of HTML on one ``data:`` line.

    A line break and the indent after it are white space like a single space wherever our
    blocks have them (between tags, in text and in attribute values; none holds a <pre> or a
    <textarea>): a block of a few hundred lines would be that many ``data:`` lines for every
    screen to take apart again.
    """
    data = _LINE_BREAKS.sub(" ", html.replace("\r", "\n")).strip()
    return f"event: {name}\ndata: {data}\n\n"


@bp.get("/stream")
def stream(code):
    table = service.get_table(code)
    screen = request.args.get("screen", "host")
    if screen not in SCREENS:
        screen = "host"
    _actor, player = actor_for(table)
    seat = player.seat if player else None
    code, version = table.code, table.version
    seen = request.args.get("v", type=int, default=-1)
    deadline = service.clock_deadline(table)
    locale = str(get_locale())
    max_seconds = current_app.config.get("STREAM_MAX_SECONDS", 600)
    db.session.remove()

    def events():
        nonlocal deadline
        yield "retry: 1500\n\n"
        broker.publish(code, version)
        last, opened = seen, time.monotonic()
        while time.monotonic() - opened < max_seconds:
            timeout = HEARTBEAT
            if deadline is not None:
                timeout = max(0.2, min(timeout, deadline - time.time() + 0.1))
            current = broker.wait(code, last, timeout)
            if current > last:
                table = _table(code, current)
                last = table.version
                deadline = service.clock_deadline(table)
                yield _update(table, screen, seat, locale)  # one write to the socket
            elif deadline is not None and time.time() >= deadline:
                service.tick(code)
                db.session.remove()
                deadline = service.clock_deadline(_table(code, last))
            else:
                yield ": heartbeat\n\n"

    sock = request.environ.get("gunicorn.socket")
    if sock is not None:
        # Under gunicorn: the fan-out thread writes this screen's updates to its socket.
        about = {"screen": screen, "seat": seat, "locale": locale}
        about["base_url"] = request.host_url
        chunked = request.environ.get("SERVER_PROTOCOL") != "HTTP/1.0"
        hub = _hub(current_app._get_current_object())

        def handed_over():
            yield "retry: 1500\n\n"  # with the headers, through the server as usual
            broker.publish(code, version)
            mine = fanout.Screen(sock, chunked, code, seen, group=(screen, locale), **about)
            hub.add(mine)
            try:
                mine.ended.wait(max_seconds)
            finally:
                if not hub.remove(mine):  # an update half written: end the connection
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)

        response = Response(handed_over(), mimetype="text/event-stream")
    else:
        response = Response(stream_with_context(events()), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.headers["X-Montones-Worker"] = str(os.getpid())  # which process holds the stream
    return response
