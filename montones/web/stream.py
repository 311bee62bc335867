"""The live stream: one Server-Sent Events response per open screen (a phone, the TV, a
watcher's phone, the host).

Each stream is one loop: it waits for a newer version of its table (:meth:`Broker.wait`; a
stream that was busy skips the versions it missed), and sends its screen's regions whole in one
``update`` event (:mod:`montones.web.screens`), which htmx's idiomorph extension merges into
the page; the host's page, the regions whose inputs changed (``host.live_regions``). On
connecting, a screen is sent its regions if its table moved since its page was drawn. A stream
sends a heartbeat when it has had nothing to send for ``HEARTBEAT`` seconds, and ends after
``STREAM_MAX_SECONDS`` (the browser connects again). Under ``montones serve`` a stream is a
greenlet (:mod:`montones.serving`): one that stops reading holds up only itself, and its
connection is cut once it has spent ``channel.STUCK`` seconds writing one update.

The response is compressed with gzip when the browser takes it, with one ``zlib`` compressor
per stream, flushed after each event: each update is mostly what the last one held, which the
compressor's 32 KiB window still has.
"""

from __future__ import annotations

import os
import time
import zlib
from contextlib import ExitStack, closing
from urllib.parse import urlencode

from flask import Blueprint, Response, current_app, request
from flask_babel import force_locale, get_locale
from werkzeug.test import EnvironBuilder

from montones import service
from montones.live import channel
from montones.live.channel import Screen
from montones.web import host, screens
from montones.web.common import actor_for

bp = Blueprint("stream", __name__, url_prefix="/t/<code>")

SCREENS = ("phone", "tv", "watch", "host")
RETRY = b"retry: 1500\n\n"  # how soon a browser reconnects (ms): sent with the headers
HEARTBEAT = 15.0  # seconds between writes to a screen, at most
# A stream sends at most one update in this time: a table tapping flat out costs each of its
# screens fifty updates a second, each of the newest version, not one per tap. At 50 ms the
# live bench's bets, each placed once the last shows everywhere, waited for it: p95 61 ms.
GAP = 0.02
# gzip with zlib's whole 32 KiB window: an update repeats the last one nearly whole. Level 1
# finds those repeats in two thirds of level 6's time, for twice the bytes, far under the
# budget of 400 a screen and action (96 updates of a Montones table of 25, 2026-12-05: a
# phone's 7.9 kB update 20.7 against 32.2 µs, 416 against 202 bytes; the TV's 12.6 kB, 27.0
# against 38.6 µs, 535 against 178): the worker's CPU is the budget the night misses, not
# the bytes. Memory level 5 compresses them as well as 8 with a quarter of its hash
# (docs/performance.md, "The live path").
WINDOW_BITS, MEMORY_LEVEL, LEVEL = 15, 5, 1


@bp.get("/stream")
def stream(code):
    table = service.get_table(code)
    kind = request.args.get("screen", "host")
    if kind not in SCREENS:
        kind = "host"
    actor, player = actor_for(table)
    seen = request.args.get("v", type=int, default=-1)
    address = request.remote_addr or ""
    live = channel.of()
    seat = player.seat if player else None
    screen = Screen(
        code=table.code,
        kind=kind,
        locale=str(get_locale()),
        seat=seat,
        device=table.state["players"][seat].get("device", 0) if seat else None,
        address=address,
        cut=request.environ.get("montones.cut"),
    )
    # What a phone's seat regions are drawn in: its address (the links), its cookie (the
    # session its forms' CSRF tokens come from) and its language.
    asked = {
        "base_url": request.host_url,
        "headers": {"Cookie": request.headers.get("Cookie", "")},
    }
    ends = time.monotonic() + current_app.config.get("STREAM_MAX_SECONDS", 600)
    sender = Sender(current_app._get_current_object(), screen, player, asked, seen, actor)
    # Under montones serve, a stream ends as soon as its reader closes the connection
    # (montones.serving), not at the next heartbeat that fails: its connection is a descriptor.
    on_reader_gone = request.environ.get("montones.on_reader_gone")

    def events():
        unwatch = on_reader_gone(lambda: live.end(screen)) if on_reader_gone else None
        opened = False
        try:
            yield RETRY
            live.broker.publish(table.code, table.version, table)  # a version unknown here yet
            opened = live.open(screen)
            mark, sent_at = (seen, -1), 0.0
            while opened and not screen.ended:
                left = ends - time.monotonic()
                if left <= 0:
                    return
                now = live.broker.wait(table.code, mark, min(HEARTBEAT, left), kind == "tv")
                if screen.ended:
                    return
                if now == mark:
                    if time.monotonic() < ends:
                        yield b": heartbeat\n\n"
                    continue
                wait = sent_at + GAP - time.monotonic()
                if wait > 0:  # a burst: the newest version once the gap is over
                    time.sleep(wait)
                    now = live.broker.mark(table.code)
                mark = now
                data = sender.send()
                if data:
                    sent_at = screen.writing_since = time.monotonic()
                    yield data
                    screen.writing_since = None
        finally:
            if unwatch is not None:
                unwatch()
            if opened:
                live.shut(screen)

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


class Sender:
    """What one stream sends: its screen's regions at the table's newest version, whole."""

    def __init__(self, app, screen: Screen, player, asked: dict, seen: int, actor=None):
        self.app, self.screen, self.player, self.asked = app, screen, player, asked
        self.actor = actor  # who the screen's browser is (the host's page: the host)
        self.host_drawn: dict = {}  # what each of the host page's regions was drawn from
        self.version = seen  # the version whose regions the screen shows
        self.watching: tuple[int, str] | None = None  # the count it shows, and in what
        self.reactions: tuple = ()  # the reactions it shows (see Channel.reactions)
        self.drawn: dict | None = None  # what its seat regions were drawn from (seat_keys)
        self.live = channel.of(app)
        self._environ: dict | None = None  # the WSGI environ of its renders (see _context)

    def send(self) -> bytes:
        """The events that bring the screen to the table as it stands (nothing if it shows
        that already)."""
        with self.app.app_context():  # fresh each time: nothing read is held to the next
            return self._send()

    def _send(self) -> bytes:
        screen, live = self.screen, self.live
        table = live.broker.latest(screen.code)
        if table is None or table.version < live.broker.published_version(screen.code):
            table = service.get_table(screen.code)
            live.broker.publish(table.code, table.version, table)
        if screen.kind == "host":
            if table.version == self.version or not getattr(self.actor, "is_host", False):
                return b""
            self.version = table.version
            with self._context(screen.locale):
                html = host.live_regions(table, self.actor, self.host_drawn)
            return screens.update(html) if html else b""
        html = []
        if screen.kind in ("tv", "watch"):
            html += self._watching(table)
        moved = table.version != self.version
        if screen.kind == "phone":
            html += self._phone(table, moved)
        elif moved:
            locale = screen.locale
            if screen.kind == "tv" and table.tv_language:  # the host may change it
                locale = table.tv_language
            html.append(self._shared(table, "tv", locale))
        if screen.kind == "tv":
            html += self._reactions(table)
        self.version = table.version
        return screens.update("".join(html)) if html else b""

    def _shared(self, table, kind: str, locale: str) -> str:
        key = (table.code, table.version, kind, locale)
        found = self.live.renders.peek(key)
        if found is not None:
            return found
        with self._context(locale):
            return screens.shared(table, kind, locale)

    def _context(self, locale: str, choices: dict | None = None):
        """A request as the screen's own (its address, cookie and language), for a render.
        Its WSGI environ is built once per stream and copied for each render (building it
        anew, as ``test_request_context`` does, cost a tenth of the worker on the night)."""
        if self._environ is None:
            self._environ = EnvironBuilder(
                "/", base_url=self.asked["base_url"], headers=self.asked["headers"]
            ).get_environ()
        environ = dict(self._environ)
        if choices:
            environ["QUERY_STRING"] = urlencode(choices)
        both = ExitStack()
        both.enter_context(self.app.request_context(environ))
        both.enter_context(force_locale(locale))
        return both

    def _phone(self, table, moved: bool) -> list[str]:
        screen = self.screen
        html = [self._shared(table, "phone", screen.locale)] if moved else []
        if screen.away is not None and _back(table.state, screen):
            screen.seat, screen.away = screen.away, None
            self.drawn = None
            with self._context(screen.locale):
                html.append(screens.gone(table, None, back=True))
        if screen.seat is None:
            return html
        reason = _departure(table.state, screen)
        if reason is not None:
            # Told once, over everything on it; a phone without its seat is told nothing
            # more, unless the host lets its player back in.
            screen.away = screen.seat if reason == "sent_away" else None
            screen.seat = None
            with self._context(screen.locale):
                html.append(screens.gone(table, reason))
            return html
        choices = screens.choices(table, screen.seat, fresh=self.drawn is None)
        keys = screens.seat_keys(table, screen.seat, choices, screens.shared_view(table))
        if keys != self.drawn:
            drawing = screens.kept_regions(table, screen.seat, screen.locale, keys)
            if drawing is None:  # not as the seat's tap was just answered
                with self._context(screen.locale, choices):
                    context = screens.phone_context(table, self.player, choices)
                    drawing = screens.seat_regions(context, screens.SEAT_REGIONS, keys)
            self.drawn = keys
            html.append(drawing)
        return html

    def _reactions(self, table) -> list[str]:
        """The table's reactions of the last moments, when they changed (a TV's)."""
        recent = self.live.reactions(table.code)
        if recent == self.reactions:
            return []
        self.reactions = recent
        with self._context(self.screen.locale):  # its faces' links
            return [screens.reactions(table, recent)]

    def _watching(self, table) -> list[str]:
        """How many watch, when that or the language it is said in changed."""
        locale = self.screen.locale
        if self.screen.kind == "tv" and table.tv_language:
            locale = table.tv_language
        count = sum(s.kind == "watch" for s in self.live.screens(table.code))
        if (count, locale) == self.watching:
            return []
        # A page is drawn saying nothing (as for none): a TV nobody watches is sent nothing.
        said = self.watching[0] if self.watching else 0
        self.watching = (count, locale)
        return [screens.watching(count, locale)] if count or said else []


def _back(state: dict, screen: Screen) -> bool:
    """Whether the player this phone's stream was told had been sent away is back at the
    table (the host let them back in), on this device still."""
    player = state["players"].get(screen.away)
    return (
        player is not None
        and not player.get("left")
        and player.get("device", 0) == (screen.device or 0)
    )


def _departure(state: dict, screen: Screen) -> str | None:
    """Why a phone's stream no longer serves a seat: its player sent away by the host, or the
    seat moved to another device (see ``service.departure``); None while it does."""
    player = state["players"].get(screen.seat, {})
    if player.get("left"):
        return "sent_away"
    return "moved" if player.get("device", 0) != (screen.device or 0) else None


def gzipped(chunks):
    """Each chunk compressed, and flushed so that it can be read at once."""
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, 16 + WINDOW_BITS, MEMORY_LEVEL)
    with closing(chunks):  # the stream's own end (its finally) when its reader goes
        for data in chunks:
            yield packer.compress(data) + packer.flush(zlib.Z_SYNC_FLUSH)
    yield packer.flush()
