"""How fast one device may try things that a guesser would repeat: taking a seat, and naming a
table that is not there. Flask-Limiter keeps the count; this module says what counts.

A room code is four letters (24**4 = 331,776 codes) so that it stays short to type; a rejoin
code is six characters of 32. What keeps a guesser from finding a running table, or taking
someone's seat, is time: each device (its address on the room's network) has an allowance.

- ``seats`` (``SEATS_LIMIT``): joining a table or taking a seat back with a rejoin code, 5 in
  any 50 s.
- ``guesses`` (``GUESSES_LIMIT``): a room code that names no table, 10 in any 60 s, wherever
  it is named (a table's pages, ``/go``, a rules page's ``?t=``). Once a device has used them
  up, every request of it that names a table waits its turn (429): at 600 codes an hour, finding
  one of 8 running tables takes about 69 hours on average.
- ``tables`` (``TABLES_LIMIT``): creating a table (a practice table too), 10 in any 10 minutes, so that no guest takes
  the room codes (and a code whose table was left empty is taken back: see
  ``service.create_table``).

All three are moving windows (``RATELIMIT_STRATEGY``): a try counts against its device for one window
after it is made. These allowances were token buckets (5 at once, then one every 10 s; 10 at
once, then one every 6 s), which Flask-Limiter has no strategy for. A moving window as long as
the bucket takes to fill keeps the bucket's burst and its pace over the long run (a device that
tries once every 10 s, or every 6 s, is never held back); after a burst it is stricter: the sixth
seat comes 50 s after five taken at once, not 10 s. A fixed window would let twice the burst
through where two windows meet.

The host's own machine (a loopback address: its TV tab, its host page, a browser on the laptop)
is not limited: guests reach the server over the room's network.

A seat's reactions (``reactions``, ``REACTIONS_LIMIT``: a burst of three, then about one every
two seconds) are limited the same way, apart from its actions, refused as cheaply.

A seat's actions (``actions``, ``ACTIONS_LIMIT``) are limited apart, by seat, not by address,
and on the host's machine too (a practice table's phone, a bench): a burst of a few taps, then
about one a second, what a person does. A seat's pace is kept by a sliding window counter (the
limits library's: the last window's count, weighted by how much of it is still in the window,
plus this one's): two counts a seat and limit, where a moving window keeps every try. A tap past it is refused at once, before the view, in
words on the phone (:func:`_too_fast`); one table tapping flat out thus never costs another
table's screens more than a person's pace does.

The tries are kept in memory (``RATELIMIT_STORAGE_URI``), each process its own with several
workers; Flask-Limiter drops a try once it is a window old.

Live streams (``/t/CODE/stream``) are held open for minutes, each a connection of the server's:
:class:`Streams` bounds them by what a night needs, so that short requests (``/healthz``, a tap,
a page) always find a connection, however many addresses a guest brings.

- In all, a process holds at most ``STREAMS_MOST`` streams: ``montones serve`` sets it to
  ``connections // SCREEN_CONNECTIONS`` (montones/serving.py: the connections a process serves
  at once, and what each open screen takes: its stream and a kept-alive connection for its
  taps); the other half is for short requests.
- A seat holds at most ``DEVICE_STREAMS`` streams, the table's host (its page and its TVs,
  opened in the host's browser) ``HOST_STREAMS``: a new one past them closes that seat's or
  host's oldest (a reload's new stream takes over from the old one).
- A stream without a seat or the host's cookie (a watcher, a TV on a device of its own) gives
  way: at most ``DEVICE_STREAMS`` of them from one address at a table (past it, 429) and
  ``WATCHERS`` at a table; past these or past the process's bound a new one is refused (503,
  tried again by the page's stream later); a seat's or the host's new stream past the
  process's bound closes the oldest such stream instead. A table then holds at most its players x ``DEVICE_STREAMS`` +
  ``HOST_STREAMS`` + ``WATCHERS`` streams.

The host's machine (a loopback address) is not limited here either; its streams are counted.
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Callable
from dataclasses import dataclass

from flask import Response, current_app, g, render_template, request
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_limiter import ApplicationLimit, Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from markupsafe import escape

from montones import service
from montones.data.clock import clock
from montones.web.common import actor_for, credentials

DEVICE_STREAMS = 3  # a device's page, a second tab, a reload whose old stream is not closed yet
HOST_STREAMS = 2 * DEVICE_STREAMS  # the host's page and a TV in the host's browser
WATCHERS = 10  # a few guests watching without a seat, and TVs on devices of their own


def missed() -> None:
    """The request named a table that is not there: it uses one of the device's guesses."""
    g.missed_table = True


def _naming() -> bool:
    """Whether the request names a table: its answer tells whether that table exists."""
    return (
        "code" in (request.view_args or {})
        or request.endpoint == "lobby.go"
        or (request.endpoint == "lobby.rules" and bool(request.args.get("t")))
    )


def _seating() -> bool:
    return request.method == "POST" and request.endpoint in ("seats.join", "seats.rejoin")


def _creating() -> bool:
    return request.method == "POST" and request.endpoint in ("lobby.create", "lobby.practice")


def _host_machine() -> bool:
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


def _acting() -> bool:
    return request.method == "POST" and request.endpoint == "play.act"


def _reacting() -> bool:
    return request.method == "POST" and request.endpoint == "play.react"


def _seat() -> str:
    """Who an action is counted against: the seat this browser holds at the table (its seat
    token), or its address when it holds none."""
    code = (request.view_args or {}).get("code", "").upper()
    token = credentials(code)[0]
    return f"{code} {token}" if token else get_remote_address()


def said(message: str) -> str:
    """A refusal said on the phone over nothing else (its #tap-refused line), cheaply."""
    return f'<p id="tap-refused" class="notice tap-failed" role="alert" hx-swap-oob="true">{escape(message)}</p>'


def _too_fast():
    """A tap past its seat's allowance: said on the phone, over nothing else, cheaply."""
    if request.endpoint == "play.react":
        message = _("Too many reactions at once: wait a moment.")
    else:
        message = _("Too many taps at once: wait a moment and tap again.")
    return said(message), 429, {"Retry-After": "1", "Cache-Control": "no-store"}


def _refused(error: RateLimitExceeded):
    """The page for a device out of tries, with how long it waits for its next one."""
    if error.limit.scope in ("actions", "reactions"):
        return _too_fast()
    window = current_app.extensions["limits"].current_limit.window
    # The app's clock reads the machine's time, as the limits library does (a test sets both).
    seconds = max(1, math.ceil(window.reset_time - clock().time()))
    message = ngettext(
        "Too many tries from this device: wait %(num)s second and try again.",
        "Too many tries from this device: wait %(num)s seconds and try again.",
        seconds,
    )
    answer = render_template("play/missing.html", message=message)
    return answer, 429, {"Retry-After": str(seconds), "Cache-Control": "no-store"}


@dataclass(eq=False)
class Ticket:
    """One open stream: its table, who holds it (``seat:p3``, ``host``, or None: it gives way),
    the address it came from, and what closes its connection (None where the server gives
    none: Flask's test client)."""

    code: str
    holder: str | None
    address: str
    cut: Callable[[], None] | None
    local: bool = False


class Streams:
    """The open streams of this process, bounded as the module says. Under ``montones serve``
    every request is a greenlet, and nothing here yields: no lock is needed."""

    def __init__(self, most: int):
        self.most = most
        self.open: list[Ticket] = []  # in the order they opened

    def admit(self, ticket: Ticket) -> int | None:
        """None if ``ticket``'s stream may open (older streams it takes over are closed), else
        the status that refuses it: 429 when its device holds enough, 503 when the table or
        the process does."""
        if not ticket.local:
            if ticket.holder is not None:
                mine = [t for t in self.open if (t.code, t.holder) == (ticket.code, ticket.holder)]
                most = HOST_STREAMS if ticket.holder == "host" else DEVICE_STREAMS
                if len(mine) >= most and not self._close(mine[0]):
                    return 429
            else:
                watching = [t for t in self.open if t.code == ticket.code and t.holder is None]
                if sum(t.address == ticket.address for t in watching) >= DEVICE_STREAMS:
                    return 429
                if len(watching) >= WATCHERS:
                    return 503
            if len(self.open) >= self.most:
                if ticket.holder is None:
                    return 503
                giving = next((t for t in self.open if t.holder is None and not t.local), None)
                if giving is None or not self._close(giving):
                    return 503
        self.open.append(ticket)
        return None

    def release(self, ticket: Ticket) -> None:
        """The stream ended (or was closed here): its place is free."""
        if ticket in self.open:
            self.open.remove(ticket)

    def _close(self, ticket: Ticket) -> bool:
        if ticket.cut is None:
            return False
        self.release(ticket)
        ticket.cut()
        return True


def _streaming() -> bool:
    return request.endpoint == "stream.stream"


def _admit_stream():
    """Before a stream's view: a place among the process's streams, or a refusal."""
    if not _streaming():
        return None
    try:
        table = service.get_table(request.view_args["code"])
    except service.NotFound:
        return None  # the view answers it, and counts the guess
    actor, player = actor_for(table)
    # A host who also plays holds the host's streams (page, TVs and phone), not a seat's three.
    holder = "host" if actor.is_host else (f"seat:{player.seat}" if player else None)
    ticket = Ticket(
        table.code,
        holder,
        request.remote_addr or "",
        request.environ.get("montones.cut"),
        _host_machine(),
    )
    refused = current_app.extensions["streams"].admit(ticket)
    if refused is not None:
        # The page's stream tries again later (htmx's sse extension, backing off); the
        # connection is let go at once.
        headers = {"Retry-After": "60", "Cache-Control": "no-store", "Connection": "close"}
        return Response(status=refused, headers=headers)
    g.stream_ticket = ticket
    return None


def _hold_stream(response):
    """The stream's place is given back when its response ends (its reader gone, its time up,
    or the server stopping): the server closes every response it writes."""
    ticket = g.pop("stream_ticket", None)
    if ticket is not None:
        streams = current_app.extensions["streams"]
        response.call_on_close(lambda: streams.release(ticket))
    return response


def _drop_stream(_error) -> None:
    """A stream's view that failed gives its place back at once."""
    ticket = g.pop("stream_ticket", None)
    if ticket is not None:
        current_app.extensions["streams"].release(ticket)


def init_app(app) -> None:
    # A Limiter of the app's own: Flask-Limiter keeps its storage in the Limiter, and one shared
    # by several apps (the tests make many) would share their counts.
    limiter = Limiter(
        get_remote_address,
        application_limits=[
            # A guess is tested before the view and counted after it, once the view knows that
            # the code named no table.
            ApplicationLimit(
                app.config["GUESSES_LIMIT"],
                scope="guesses",
                exempt_when=lambda: not _naming(),
                deduct_when=lambda _response: g.get("missed_table", False),
            ),
            ApplicationLimit(
                app.config["SEATS_LIMIT"], scope="seats", exempt_when=lambda: not _seating()
            ),
            ApplicationLimit(
                app.config["TABLES_LIMIT"], scope="tables", exempt_when=lambda: not _creating()
            ),
        ],
    )
    limiter.request_filter(_host_machine)
    # A seat's pace, in a Limiter of its own: by seat, from any address (the host's machine
    # too), on a sliding window counter (two counts a seat and window), not the moving window's
    # list of every try, which the memory storage walks whole up to 100 times a second
    # (docs/performance.md). Only a tap or a reaction is looked at.
    pace = Limiter(
        _seat,
        strategy="sliding-window-counter",
        storage_uri=app.config["RATELIMIT_STORAGE_URI"],
        application_limits=[
            ApplicationLimit(
                app.config["ACTIONS_LIMIT"], scope="actions", exempt_when=lambda: not _acting()
            ),
            # A seat's reactions, apart from its taps and as they are: what a person sends.
            ApplicationLimit(
                app.config["REACTIONS_LIMIT"],
                scope="reactions",
                exempt_when=lambda: not _reacting(),
            ),
        ],
    )
    pace.request_filter(lambda: not (_acting() or _reacting()))
    limiter.init_app(app)
    pace.init_app(app)
    app.extensions["limits"] = limiter
    app.register_error_handler(RateLimitExceeded, _refused)
    app.extensions["streams"] = Streams(app.config["STREAMS_MOST"])
    app.before_request(_admit_stream)
    app.after_request(_hold_stream)
    app.teardown_request(_drop_stream)
