"""What a live screen is sent when its table moves: the fan-out's glue (see :mod:`montones.live.fanout`).

What every screen of a kind shows alike (the felt of a phone, the whole TV) is rendered once per
table, version, kind of screen and language, in the live channel's render cache, and pushed in
the events themselves: forty screens cost one render, not forty. A screen is sent its regions
whole when its stream opens, and after that, in one ``update`` event, only the parts of them
that differ from the render it was last sent (:mod:`montones.live.parts`), as htmx swaps them out
of band; the parts from one render to the next are worked out once for every screen that makes
that step. A seated phone whose own
regions (its chips, its action bar) show something new is then told (``mine``, at the broker's
pace for tells) and fetches them; the host's page is sent the version (``changed``) and fetches what it shows.

A watcher's phone (``watch``, :mod:`montones.web.watch`) is sent the TV's render, in its own
language. How many watch is no part of a version: the fan-out asks :func:`aside` at every round,
and the TV and the watchers are sent the count of the table's open watcher streams (in this
process: with several workers, those its worker holds) when it changes.
"""

from __future__ import annotations

import re

from flask import current_app, render_template
from flask_babel import force_locale

from montones import service
from montones.data import history
from montones.data.clock import clock
from montones.data.snapshot import Snapshot
from montones.live import channel, parts
from montones.live.fanout import Screen
from montones.rules.games import game
from montones.web import tv as tv_views
from montones.web.common import block_drawer, join_url, table_view

# What each kind of screen receives in its events: (event name, page template, block).
# Each block is one element whose id is the block's name. A phone's "tap" carries the version
# and stage its taps on the felt were made at (the felt's forms name only what they tap).
SHARED = {
    "phone": [
        ("tap", "play/table.html", "tap"),
        ("felt", "play/table.html", "felt"),
        ("odds", "play/table.html", "odds"),
    ],
    "tv": [
        ("tv_status", "tv/table.html", "tv_status"),
        ("felt", "tv/table.html", "felt"),
        ("players", "tv/table.html", "players"),
        ("recent", "tv/table.html", "recent"),
    ],
}


class Render:
    """What every screen of a kind shows of a table at a version: its blocks, their parts, and
    the event that sends them whole."""

    __slots__ = ("key", "blocks", "parts", "whole", "_since")
    STEPS = 4  # the renders whose step to this one is kept: a screen or two behind, at most

    def __init__(self, key: tuple, blocks: dict[str, str]):
        self.key = key  # the render cache's: (table code, version, kind of screen, language)
        self.blocks = blocks
        # A block with nothing in it for this game (Montones' odds) is not sent. Split once
        # its line breaks are spaces (see event()), as the screens get it.
        self.parts = {
            name: parts.region_parts(one_line(html), name)
            for name, html in blocks.items()
            if html.strip()
        }
        self.whole = _update(
            [parts.out_of_band(found[name].html) for name, found in self.parts.items()]
        )
        # By the older render's key, not the render: a render held here would hold the ones it
        # holds, back to the table's first.
        self._since: dict[tuple, bytes] = {}

    def since(self, old: Render | None) -> bytes:
        """What brings a screen that holds ``old`` (None: nothing known) to this render: the
        parts that differ, or every region when that is no more."""
        if old is None:
            return self.whole
        found = self._since.get(old.key)
        if found is None:
            pieces = [
                piece
                for name, now in self.parts.items()
                for piece in parts.changed(old.parts.get(name), now, name)
            ]
            found = _update(pieces) if pieces else b""
            if len(found) >= len(self.whole):
                found = self.whole
            if len(self._since) >= self.STEPS:  # only the fan-out thread asks
                del self._since[next(iter(self._since))]
            self._since[old.key] = found
        return found


def shared(table, screen: str, locale: str) -> Render:
    """The render of ``table`` for every screen of kind ``screen`` in ``locale`` (in a request
    context: the blocks hold links)."""
    key = (table.code, table.version, screen, locale)
    return channel.of().renders.get(key, lambda: _render(table, screen, key))


def _render(table, screen: str, key: tuple) -> Render:
    context = {
        "table": table,
        "v": table_view(table),
        "stage": service.stage(table.state),
        "join_url": join_url(table),
        "oob": False,
        "tv": screen == "tv",
        "phone": screen == "phone",
        "tv_open": screen == "phone" and tv_open(table.code),
        "recent": history.hands(table, limit=tv_views.RECENT) if screen == "tv" else [],
    }
    drawers = {template: block_drawer(template, context) for _n, template, _b in SHARED[screen]}
    return Render(key, {name: drawers[template](block) for name, template, block in SHARED[screen]})


def tv_open(code: str) -> bool:
    """Whether a TV of the table is open: phones defer to its reveal only then (show.js). The
    screens of this process are the ones known here."""
    return any(screen.about["screen"] == "tv" for screen in channel.of().screens(code))


def phone_block(table, block: str, locale: str, oob: bool, seat: str | None = None) -> str | None:
    """A block every phone shows alike (the felt, the odds) as the streams push it (rendered
    once); None for a block of the phone's own. Drawn for ``seat``'s answer, it is then what
    that phone holds, which its streams here no longer know: they send it every region next."""
    if block not in (name for name, _template, _block in SHARED["phone"]):
        return None
    html = shared(table, "phone", locale).blocks[block]
    if seat is not None:
        for screen in channel.of().screens(table.code):
            if screen.about["seat"] == seat and screen.about["screen"] == "phone":
                screen.about["shown"] = None
    if html and oob:
        return html.replace(f'id="{block}"', f'id="{block}" hx-swap-oob="true"', 1)
    return html


# --- the fan-out's glue ------------------------------------------------------------------------


def snapshot(code: str, released: int) -> Snapshot:
    """The table at its released version, as released (so every screen shows the same one),
    or read from the database when its writer was another process; then kept in the broker,
    for the next screen to connect."""
    broker = channel.of().broker
    found = broker.released(code)
    if found is None or found.version < released:
        found = service.get_table(code)
        broker.publish(found.code, found.version, found)
    return found


# The order a round writes updates in: the phones (the many, one render of the felt for all
# of them) before the TV's render, which they need not wait for; the watchers' phones, sent
# the TV's picture, after the TV.
ORDER = {"phone": 0, "tv": 1, "watch": 2, "host": 3}


def order(screen: Screen) -> int:
    return ORDER[screen.about["screen"]]


def update(screen: Screen, table: Snapshot) -> bytes:
    """What brings ``screen`` from the render it was last sent (``about["shown"]``: none yet
    when its stream opens) to the one every screen of its kind shows of ``table``; the host's
    page, the version alone."""
    about = screen.about
    kind, locale = about["screen"], about["locale"]
    if kind == "tv" and table.tv_language:  # the host may change it while the TV looks
        locale = table.tv_language
    if kind == "host":
        return b"event: changed\ndata: %d\n\n" % table.version
    if about.get("count_locale", locale) != locale:  # the count of watchers, said again in it
        about["watching"] = None
    about["count_locale"] = locale
    if kind == "watch":  # the TV's picture, in the watcher's own language
        kind = "tv"
    back = kind == "phone" and let_back(table.state, about)
    if back:
        about["seat"] = about.pop("away")
    reason = departure(table.state, about) if kind == "phone" else None
    if (
        reason is None
        and not back
        and (table.code, table.version, kind, locale) in channel.of().renders
    ):
        return _sent(about, shared(table, kind, locale))
    # Rendered as for the screen's own request: its address (the links in the blocks) and its
    # language.
    with current_app.test_request_context(base_url=about["base_url"]), force_locale(locale):
        events = _sent(about, shared(table, kind, locale))
        if back:  # told as it was told it had gone: what said so goes, its regions come again
            gone = render_template("play/_gone.html", table=table, gone=None, back=True, oob=False)
            return events + event("gone", gone).encode()
        if reason is None:
            return events
        # Told once, over everything on it; a phone without its seat is told nothing more,
        # unless the host lets its player back in.
        about["seat"], about["away"] = None, about["seat"] if reason == "sent_away" else None
        gone = render_template("play/_gone.html", table=table, gone=reason, oob=False)
        return events + event("gone", gone).encode()


def _sent(about: dict, render: Render) -> bytes:
    data = render.since(about.get("shown"))
    about["shown"] = render
    return data


def let_back(state: dict, about: dict) -> bool:
    """Whether the player this phone's stream was told had been sent away is back at the
    table (the host let them back in), on this device still."""
    away = about.get("away")
    if away is None:
        return False
    player = state["players"].get(away)
    return (
        player is not None
        and not player.get("left")
        and player.get("device", 0) == about.get("device", 0)
    )


def departure(state: dict, about: dict) -> str | None:
    """Why a phone's stream no longer serves a seat: its player sent away by the host, or the
    seat moved to another device (see ``service.departure``); None while it does."""
    seat = about["seat"]
    if seat is None:
        return None
    player = state["players"].get(seat, {})
    if player.get("left"):
        return "sent_away"
    return "moved" if player.get("device", 0) != about.get("device", 0) else None


def tell(screens: list[Screen], table: Snapshot) -> list[bytes]:
    """``mine`` to each seated phone whose own regions would show something new at
    ``table``'s version, on which it fetches them; nothing to others.

    A phone's regions (its status and its bar) are drawn from what :func:`own` gives and from
    nothing else of the table: at a table of thirty, another player's bet changes every felt
    and most phones' regions not at all. Each stream knows what its phone was last drawn:
    what it was told of, or what this process last answered that seat (a tap, a fetch, the
    page: :func:`drawn`), whichever is newer. The phone whose tap made the version
    (``table.asked_by``) is not told of it, whether its answer was drawn before the tell or
    after: that answer carries its regions. A phone is told at its first change after its
    stream opened (what it showed before is not known here). With several worker processes a
    seat's answers may come from another one; then a phone told at one version that was
    answered a later one, whose regions others' actions change back before its next tell,
    keeps the later regions until they change again or it comes back to the foreground (which
    fetches every region).

    A seat's view is the view every seat shares with its own part (``my_view``) in it; only
    its own bets' marks differ, which neither the status nor the bar is drawn from. So the
    shared view is worked out once for all the phones told.
    """
    engine, now, shared = game(table.game), clock().time(), None
    told = []
    for screen in screens:
        about = screen.about
        seat = about["seat"]
        if about["screen"] != "phone" or seat is None or about.get("drawn_at", -1) >= table.version:
            told.append(b"")  # nothing of its own, or drawn at this version or a newer one
            continue
        if shared is None:
            shared = engine.view(table.state, None, now)
        regions = own(table, {**shared, "me": engine.my_view(table.state, seat, now)})
        if regions == about.get("own"):
            told.append(b"")
            continue
        about["own"], about["drawn_at"] = regions, table.version
        # The phone whose tap made this version gets these regions in the tap's answer.
        told.append(b"" if seat == table.asked_by else b"event: mine\ndata: %d\n\n" % table.version)
    return told


def drawn(table, seat: str, regions: tuple) -> None:
    """``seat``'s own regions were drawn at ``table``'s version as ``regions`` (:func:`own`)
    for an answer of this process: its streams here tell their phones only when they change
    from these. An answer drawn at an older version than one already noted (a slow fetch) is
    one its phone does not show (app.js keeps the newer), and is not noted either."""
    for screen in channel.of().screens(table.code):
        about = screen.about
        if about["seat"] == seat and table.version >= about.get("drawn_at", -1):
            about["own"], about["drawn_at"] = regions, table.version


def own(table, view: dict) -> tuple:
    """What a seat's own regions are drawn from at ``table``'s version, from its ``view``: the
    engine's views of its status and its bar (play.py renders them from these), the table's
    stage (which its forms carry) and whether the host has paused it."""
    engine = game(table.game)
    return (
        engine.status_view(view),
        engine.bar_view(view),
        service.stage(table.state),
        table.paused,
    )


WATCHING = "tv/_watching.html"


def aside(screens: list[Screen]) -> list[bytes]:
    """How many watch the table (its open watchers' streams), to each of its ``screens`` that
    shows it (the TV, a watcher's phone) when the count differs from what it was last sent."""
    count = sum(screen.about["screen"] == "watch" for screen in screens)
    sent = []
    for screen in screens:
        about = screen.about
        # A page is drawn saying nothing (as for none): a TV nobody watches is sent nothing.
        # (A TV whose stream opens again finds the count it showed, had every watcher gone
        # in the second between, said again at the next change.)
        if about["screen"] not in ("tv", "watch") or about.get("watching", 0) == count:
            sent.append(b"")
            continue
        about["watching"] = count
        # No request here, nor any of its context: the line is the template's words alone.
        with force_locale(about.setdefault("count_locale", about["locale"])):
            html = current_app.jinja_env.get_template(WATCHING).render(watching=count, oob=True)
        sent.append(_update([one_line(html)]))
    return sent


def deadline(table: Snapshot) -> float | None:
    return service.clock_deadline(table)


def tick(code: str) -> None:
    service.tick(code)


# A line break and the spaces, tabs and line breaks after it. Written to start with a plain
# character: a pattern that starts with a class ("[\r\n]+") is tried at every position of a
# phone's felt; a "\r" is made a "\n" first. Not "\s", which takes in the
# no-break spaces of numbers written the French way.
_LINE_BREAKS = re.compile(r"\n[ \t\n]*")


def one_line(html: str) -> str:
    return _LINE_BREAKS.sub(" ", html.replace("\r", "\n")).strip()


def _update(elements: list[str]) -> bytes:
    """The ``update`` event: out-of-band ``elements``, each on one line already."""
    return f"event: update\ndata: {''.join(elements)}\n\n".encode()


def event(name: str, html: str) -> str:
    """One SSE event carrying a block of HTML on one ``data:`` line.

    A line break and the indent after it are white space like a single space wherever our
    blocks have them (between tags, in text and in attribute values; none holds a <pre> or a
    <textarea>): a block of a few hundred lines would be that many ``data:`` lines for every
    screen to take apart again.
    """
    return f"event: {name}\ndata: {one_line(html)}\n\n"
