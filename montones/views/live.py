"""The live channel: one Server-Sent Events stream per open screen.

What every screen of a kind shows alike (the felt of a phone, the whole TV) is rendered once per
version and language and pushed in the event itself, so forty screens cost one render, not
forty. A phone's own regions (its chips, its action bar) are fetched only when what they show
for that seat has changed: the stream sends ``mine`` then. A burst of changes costs each screen
one update, of the newest version. On connecting, a stream sends what changed since the version
its page showed, so a screen that lost its stream catches up; in between it sends heartbeats,
and it applies the cut timeout when it falls due.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import OrderedDict
from types import SimpleNamespace

from flask import Blueprint, Response, current_app, request, stream_with_context
from flask_babel import get_locale
from jinja2_fragments.flask import render_block

from montones import history, live, service
from montones.extensions import db
from montones.views import tv as tv_views
from montones.views.common import actor_for, join_url, table_view

bp = Blueprint("live", __name__, url_prefix="/t/<code>")

HEARTBEAT = 15.0
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
_tables: dict[str, SimpleNamespace] = {}  # code -> the newest table read, for every stream
_html: OrderedDict[tuple, list] = OrderedDict()  # (code, version, screen, locale) -> blocks
_HTML_KEPT = 512


def _detached(row) -> SimpleNamespace:
    """What the templates read of a table row, kept after its database session is gone."""
    return SimpleNamespace(
        id=row.id,
        code=row.code,
        game=row.game,
        name=row.name,
        paused=row.paused,
        ended_at=row.ended_at,
        version=row.version,
        state=row.state,
    )


def _table(code: str, at_least: int) -> SimpleNamespace:
    """The table at ``at_least`` or newer, read from the database once for all streams."""
    with _lock:
        known = _tables.get(code)
    if known is not None and known.version >= at_least:
        return known
    row = service.get_table(code)
    fresh = _detached(row)
    db.session.remove()  # a stream must not hold a connection (or a read snapshot) open
    with _lock:
        known = _tables.get(code)
        if known is None or fresh.version > known.version:
            _tables[code] = fresh
        return _tables[code]


def _shared_blocks(table: SimpleNamespace, screen: str, locale: str) -> list[tuple[str, str]]:
    """(event name, HTML) of what every screen of this kind shows at this version, rendered once."""
    key = (table.code, table.version, screen, locale)
    with _lock:
        if key in _html:
            return _html[key]
    recent = []
    if screen == "tv":
        recent = history.hands(table, limit=tv_views.RECENT)
        db.session.remove()  # as in _table: a stream holds no connection while it waits
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
            "recent": recent,
        }
        blocks = [
            (name, render_block(template, block, **context))
            for name, template, block in SHARED[screen]
        ]
        _html[key] = blocks
        while len(_html) > _HTML_KEPT:
            _html.popitem(last=False)
        return blocks


def _shared_events(table: SimpleNamespace, screen: str, locale: str) -> str:
    """The same blocks as SSE events, also built once for every stream."""
    key = ("events", table.code, table.version, screen, locale)
    blocks = _shared_blocks(table, screen, locale)
    with _lock:
        if key not in _html:
            # A block with nothing in it for this game (Montones' odds never change) is not sent.
            _html[key] = "".join(_event(name, html) for name, html in blocks if html.strip())
        return _html[key]


def phone_shared(row, block: str, oob: bool) -> str | None:
    """A block every phone shows alike (the felt, the odds) at a table row's version, as the
    streams push it (rendered once); None for a block of the phone's own."""
    table = _detached(row)
    html = dict(_shared_blocks(table, "phone", str(get_locale()))).get(block)
    if html and oob:
        return html.replace(f'id="{block}"', f'id="{block}" hx-swap-oob="true"', 1)
    return html


def _event(name: str, data: str) -> str:
    lines = "".join(f"data: {line}\n" for line in data.replace("\r", "").split("\n"))
    return f"event: {name}\n{lines}\n"


def personal_digest(state: dict, seat: str | None) -> str:
    """What a seat's own regions (its chips, its status line, its action bar) are drawn from.

    When it changes, the phone fetches them again. The other players and their bets are left
    out: a bet placed by someone else changes the felt, pushed to everyone, not my chips or my
    choices (in Monte the room left under the bank does change, and so every phone's stakes).
    Read off the state directly: forty phones cost forty small scans, not forty views.
    """
    hand = state.get("hand") or state.get("coup") or {}
    bets = hand.get("bets", [])
    parts = {
        "table": {
            k: v
            for k, v in state.items()
            if k not in ("players", "hand", "coup", "last_coup", "deck", "discards", "version")
        },
        "me": state["players"].get(seat),
        "mine": [b for b in bets if b["player"] == seat],
        "hand": {k: v for k, v in hand.items() if k not in ("bets", "next_bet", "deck", "heaps")},
        "heaps": [len(h) for h in hand.get("heaps", [])],
        "on_table": sum(b["amount"] or 0 for b in bets) if state["game"] == "monte" else None,
    }
    return json.dumps(parts, sort_keys=True, default=str)


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
    digest = personal_digest(table.state, seat) if seen == version and seat else None
    deadline = service.cut_deadline(table.state)
    locale = str(get_locale())
    max_seconds = current_app.config.get("STREAM_MAX_SECONDS", 600)
    db.session.remove()

    def events():
        nonlocal deadline, digest
        yield "retry: 1500\n\n"
        live.publish(code, version)
        last, opened = seen, time.monotonic()
        while time.monotonic() - opened < max_seconds:
            timeout = HEARTBEAT
            if deadline is not None:
                timeout = max(0.2, min(timeout, deadline - time.time() + 0.1))
            current = live.wait(code, last, timeout)
            if current > last:
                table = _table(code, current)
                last = table.version
                deadline = service.cut_deadline(table.state)
                if screen == "host":
                    yield f"event: changed\ndata: {last}\n\n"
                    continue
                yield _shared_events(table, screen, locale)
                if seat is not None:
                    mine = personal_digest(table.state, seat)
                    if mine != digest:
                        digest = mine
                        yield f"event: mine\ndata: {last}\n\n"
            elif deadline is not None and time.time() >= deadline:
                service.tick(code)
                db.session.remove()
                deadline = service.cut_deadline(_table(code, last).state)
            else:
                yield ": heartbeat\n\n"

    response = Response(stream_with_context(events()), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.headers["X-Montones-Worker"] = str(os.getpid())  # which process holds the stream
    return response
