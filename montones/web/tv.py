"""The TV: the table for the whole room, opened once and never touched again."""

from __future__ import annotations

import contextlib

from flask import Blueprint, abort, redirect, render_template, url_for
from flask_babel import force_locale

from montones import service
from montones.data import history
from montones.web.common import back_to, join_url, render_regions, table_view, wants_fragment

bp = Blueprint("tv", __name__, url_prefix="/t/<code>/tv")

PAGE = "tv/table.html"
REGIONS = ["tv_status", "felt", "players", "recent"]
RECENT = 5  # hands in the TV's corner between hands


def context(table):
    """What the TV's page draws from (a watcher's page too: the TV's picture)."""
    return {
        "table": table,
        "v": table_view(table),
        "join_url": join_url(table),
        "recent": history.hands(table, limit=RECENT),
        "tv": True,
        "screen": "tv",
    }


def in_table_language(table):
    """The TV speaks the language the host set for the table, else its browser's."""
    return force_locale(table.tv_language) if table.tv_language else contextlib.nullcontext()


@bp.get("")
def page(code):
    table = service.get_table(code)
    with in_table_language(table):
        return render_template(PAGE, **context(table))


@bp.get("/p/<region>")
def region(code, region):
    table = service.get_table(code)
    if not wants_fragment():
        return page(code)
    blocks = REGIONS if region == "all" else [region]
    if any(b not in REGIONS for b in blocks):
        abort(404)
    with in_table_language(table):
        return render_regions(PAGE, blocks, all_oob=region == "all", **context(table))


@bp.get("/next")
def next_night(code):
    """The TV of an ended night goes on to the next one, once the host has started it (its end
    screen asks by itself, htmx following ``HX-Redirect``)."""
    table = service.get_table(code)
    if table.next_code is None:
        return back_to("tv.page", code=table.code)
    there = url_for("tv.page", code=table.next_code)
    if wants_fragment():
        return "", 200, {"HX-Redirect": there}
    return redirect(there, code=303)
