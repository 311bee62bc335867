"""What a live screen is sent: its regions whole, as out-of-band swaps that htmx's idiomorph
extension merges into the page (``hx-swap-oob="morph"``: the page's elements, focus and what a
player is typing are kept), in one ``update`` event.

What every screen of a kind shows alike (a phone's felt, the whole TV) is rendered once per
table, version, kind of screen and language, in the live channel's render cache: forty screens
cost one render, not forty. A seated phone's seat regions (its status, its guide, its bar) are
drawn for its seat, from the engine's views of them and the stake and mode the seat chose
(stored with its seat: :func:`choices`); each is drawn again only when what it is drawn from changed (:func:`seat_keys`).
A tap's answer is the same regions, drawn for the tapping phone.
"""

from __future__ import annotations

import re
import secrets

import jinja2_fragments
from flask import current_app, render_template
from flask_babel import force_locale, get_locale

from montones import service
from montones.data import queries
from montones.data.clock import clock
from montones.live import channel
from montones.rules.games import game
from montones.web import tv as tv_views
from montones.web.common import block_drawer, join_url, table_view
from montones.web.stakes import bar_region

PAGE = "play/table.html"
# What every screen of a kind shows alike: (page template, block). Each block is one element
# whose id is the block's name. A phone's "tap" carries the version and stage its taps on the
# felt were made at (the felt's forms name only what they tap).
SHARED = {
    "phone": [(PAGE, "tap"), (PAGE, "felt"), (PAGE, "odds")],
    "tv": [
        ("tv/table.html", "tv_status"),
        ("tv/table.html", "party"),
        ("tv/table.html", "felt"),
        ("tv/table.html", "players"),
        ("tv/table.html", "recent"),
    ],
}
# A phone's seat regions, drawn for its seat: what a tap is answered with. #seat_version last: the
# version they were drawn at and the drawing's nonce.
SEAT_REGIONS = ["status", "guide", "bar", "seat_version"]
WATCHING = "tv/_watching.html"
REACTIONS = "tv/_reactions.html"


def shared(table, kind: str, locale: str) -> str:
    """The blocks every screen of kind ``kind`` shows of ``table`` in ``locale``, out of band
    (in a request context: the blocks hold links)."""
    key = (table.code, table.version, kind, locale)
    return channel.of().renders.get(key, lambda: _render(table, kind))


def full_view(table) -> dict:
    """The table's view every screen shares (``table_view`` for no seat: the odds, the night's
    end), worked out once per version: the phones' felt, the TV and the host's page draw it."""
    key = (table.code, table.version, "full view", "")
    return channel.of().renders.get(key, lambda: table_view(table))


def _render(table, kind: str) -> str:
    context = {
        "table": table,
        "v": full_view(table),
        "stage": service.stage(table.state),
        "join_url": join_url(table),
        "oob": False,
        "tv": kind == "tv",
        "phone": kind == "phone",
        "recent": tv_views.recent(table) if kind == "tv" else [],
    }
    drawers = {template: block_drawer(template, context) for template, _block in SHARED[kind]}
    # A block with nothing in it for this game (Montones' odds) is not sent.
    blocks = (drawers[template](block) for template, block in SHARED[kind])
    return "".join(out_of_band(html) for html in blocks if html.strip())


def tv_open(code: str) -> bool:
    """Whether a TV of the table is open: phones defer to its reveal only then (show.js). The
    screens of this process are the ones known here."""
    return channel.of().tv_open(code)


def phone_context(table, player, choices: dict, **extra) -> dict:
    """What a phone's page and its seat's regions are drawn from, for ``player`` (None: nobody
    seated), with the stake and mode its seat chose."""
    rules = game(table.game)
    view = table_view(table, player.seat if player else None)
    mode = choices.get("mode", "bet")
    tap = rules.ACTIONS.get(mode)
    # A phone's seat regions are drawn from these two alone (see ``seat_keys``).
    regions = rules.regions(view) if player else {"status": None, "bar": None}
    return {
        "table": table,
        "v": view,
        "status": regions["status"],
        "bar": bar_region(regions["bar"]),
        "stage": service.stage(table.state),
        "mode": mode if tap is not None and tap.tap else "bet",
        "stake": choices.get("amount", ""),
        "custom": choices.get("custom", ""),
        "player": player,
        # Each drawing of the phone's seat regions comes with a fresh nonce (#seat_version's "drawing_nonce",
        # which their forms send): a form resent is a double click, not a new tap.
        "nonce": secrets.token_urlsafe(12),
        "phone": True,
        "tv_open": tv_open(table.code),
        "notice": None,
        "confirming": None,
        "choices": choices,
        **extra,
    }


def choices(table, seat: str, fresh: bool = False) -> dict[str, str]:
    """The stake and mode ``seat`` chose on its phone's bar, as stored (``Player.choices``):
    every seat's read once per table version in this process (the render cache), or read now
    (``fresh``: a stream's first drawing, which another worker's request may have changed)."""
    key = (table.code, table.version, "choices", "")
    renders = channel.of().renders
    if fresh:
        renders.put(key, queries.choices(table.id))
    return renders.get(key, lambda: queries.choices(table.id)).get(seat, {})


def chose(table, seat: str, choices: dict[str, str]) -> None:
    """``seat`` chose ``choices`` at ``table``'s version (a request of its phone stored them):
    what this process read of that version says so from now on."""
    found = channel.of().renders.peek((table.code, table.version, "choices", ""))
    if found is not None and found.get(seat, {}) != choices:
        found[seat] = choices


def seat_keys(
    table, seat: str, choices: dict, view: dict, notice=None, confirming=None
) -> dict[str, tuple]:
    """What each of a seat's regions is drawn from at ``table``'s version and the app's time
    (as a phone's regions are drawn: ``table_view``): the engine's views of its status and its
    bar (the bar's stakes as the quick stakes it offers: :func:`~montones.web.stakes.bar_region`),
    the table's stage (which their forms carry), whether the host has
    paused it; the bar also the seat's choices and what it is told or asked (``notice``,
    ``confirming``); #seat_version whether a TV is open (and the version it carries, drawn again at each
    one that draws another region: :func:`seat_regions`). ``view``: the view every seat shares,
    worked out once per version."""
    engine = game(table.game)
    regions = engine.regions(engine.view(table.state, seat, clock().time(), shared=view))
    status, bar = regions["status"], bar_region(regions["bar"])
    both = (service.stage(table.state), table.paused)
    return {
        "status": (status, *both),
        "guide": (status, bar, *both),
        "bar": (bar, *both, tuple(sorted(choices.items())), notice, confirming),
        "seat_version": (tv_open(table.code),),
    }


def kept_regions(table, seat: str, locale: str, keys: dict[str, tuple]) -> str | None:
    """The seat's regions of ``table`` in ``locale`` as last drawn, if each was drawn from what
    ``keys`` says (a tap's answer drew them), #seat_version drawn again, alone and without a
    request, if the table moved since (docs/performance.md); None if another must be drawn."""
    kept = channel.of().seat_drawings.get((table.code, seat, locale), {})
    drawn = {block: kept.get(block) for block in SEAT_REGIONS}
    if any(
        found is None or found[0] != keys[block]
        for block, found in drawn.items()
        if block != "seat_version"
    ):
        return None
    key = _key("seat_version", keys, table.version)
    if drawn["seat_version"] is None or drawn["seat_version"][0] != key:
        drawn["seat_version"] = kept["seat_version"] = (
            key,
            out_of_band(_seat_version(table, key[0])),
        )
    return "".join(drawn[block][1] for block in SEAT_REGIONS)


def _seat_version(table, tv: bool) -> str:
    """#seat_version at ``table``'s version, with a fresh nonce (no words, no links)."""
    values = {"table": table, "tv_open": tv, "nonce": secrets.token_urlsafe(12)}
    return jinja2_fragments.render_block(current_app.jinja_env, PAGE, "seat_version", values)


def _key(block: str, keys: dict[str, tuple], version: int) -> tuple:
    """What ``block`` is kept by: its key, and #seat_version's the version it carries too (a tap on an
    older drawing of the seat's regions is told so: app.js)."""
    return (*keys[block], version) if block == "seat_version" else keys[block]


def seat_regions(context: dict, blocks: list[str], keys: dict[str, tuple]) -> str:
    """A phone's seat ``blocks``, drawn with ``context``, out of band; a block last drawn for the
    seat from what ``keys`` says it is drawn from (:func:`seat_keys`) is not drawn again: at a
    table of thirty, a bet changes the bettor's status and nobody's bar."""
    draw = block_drawer(PAGE, context)
    table = context["table"]
    place = (table.code, context["player"].seat, str(get_locale()))
    kept = channel.of().seat_drawings.setdefault(place, {})
    html = []
    for block in blocks:
        found, key = kept.get(block), _key(block, keys, table.version)
        if found is None or found[0] != key:
            found = kept[block] = (key, out_of_band(draw(block)))
        html.append(found[1])
    return "".join(html)


def shared_view(table) -> dict:
    """The engine's view every seat shares at ``table``'s version, worked out once."""
    key = (table.code, table.version, "view", "")
    return channel.of().renders.get(key, lambda: game(table.game).view(table.state, None, None))


def watching(count: int, locale: str) -> str:
    """How many watch the table, out of band (no request needed: the template's words)."""
    with force_locale(locale):
        html = current_app.jinja_env.get_template(WATCHING).render(watching=count, oob=False)
    return out_of_band(html)


def reactions(table, recent: tuple) -> str:
    """A TV's reactions of the last moments, out of band (no request needed: no words)."""
    html = current_app.jinja_env.get_template(REACTIONS).render(
        table=table, reactions=recent, oob=False
    )
    return out_of_band(html)


def gone(table, reason: str | None, back: bool = False) -> str:
    """What a phone is told over everything when its seat is no longer its own (``reason``),
    or, ``back``, what said so taken away."""
    return out_of_band(
        render_template("play/_gone.html", table=table, gone=reason, back=back, oob=False)
    )


# --- the event -------------------------------------------------------------------------------

# A line break and the spaces, tabs and line breaks after it. Written to start with a plain
# character: a pattern that starts with a class ("[\r\n]+") is tried at every position of a
# phone's felt; a "\r" is made a "\n" first. Not "\s", which takes in the
# no-break spaces of numbers written the French way.
_LINE_BREAKS = re.compile(r"\n[ \t\n]*")
_FIRST_TAG = re.compile(r"^\s*<([a-zA-Z][\w:-]*)")


def one_line(html: str) -> str:
    """A block on one line: a line break and the indent after it are white space like a
    single space wherever our blocks have them (between tags, in text and in attribute
    values; none holds a <pre> or a <textarea>), and an event's data is one line."""
    return _LINE_BREAKS.sub(" ", html.replace("\r", "\n")).strip()


def out_of_band(html: str) -> str:
    """A block (one element, rendered without its own swap) as an out-of-band morph by its id,
    on one line."""
    return _FIRST_TAG.sub(r'<\1 hx-swap-oob="morph"', one_line(html), count=1)


def update(html: str) -> bytes:
    """The ``update`` event carrying ``html``, out-of-band elements on one line."""
    return f"event: update\ndata: {html}\n\n".encode()
