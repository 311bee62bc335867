"""Watching without a seat: a guest follows the table from a phone, the TV's picture fitted to it.

A watcher's page is the TV's (its regions, pushed by the same stream in the same renders, so
it shows nothing the TV does not) in the watcher's own language, laid out for a phone; and a
way to sit down while there is room. The TV counts the watchers' open streams
(:mod:`montones.web.stream`).
"""

from __future__ import annotations

from flask import Blueprint, render_template

from montones import service
from montones.web import tv
from montones.web.common import qr_code, refusal, wants_fragment, watch_url

bp = Blueprint("watch", __name__, url_prefix="/t/<code>/watch")

PAGE = "watch/table.html"


def _context(table):
    no_room = service.no_room(table)
    return {
        **tv.context(table),
        "screen": "watch",
        "no_room": refusal(no_room) if no_room is not None else None,
    }


@bp.get("")
def page(code):
    table = service.get_table(code)
    return render_template(PAGE, **_context(table))


@bp.get("/p/<region>")
def region(code, region):
    """The TV's regions, as a watcher's phone shows them (in its own language)."""
    table = service.get_table(code)
    if not wants_fragment():
        return page(code)
    return tv.draw_regions(region, _context(table))


@bp.get("/qr.svg")
def qr(code):
    return qr_code(watch_url(service.get_table(code)))
