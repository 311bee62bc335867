"""The TV: the table for the whole room, opened once and never touched again."""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_babel import force_locale
from markupsafe import Markup

from montones import service
from montones.data import history
from montones.data.clock import clock
from montones.rules import demo
from montones.rules.games import game
from montones.web.common import (
    back_to,
    join_url,
    render_regions,
    shown_hands,
    shown_state,
    table_view,
    wants_fragment,
)

bp = Blueprint("tv", __name__, url_prefix="/t/<code>/tv")

PAGE = "tv/table.html"
# The demonstration is a region of its own: the live streams never push it (what it shows
# follows the clock, not the table's version); it asks for its next step itself.
REGIONS = ["tv_status", "party", "felt", "players", "recent", "demo"]
RECENT = 5  # hands in the TV's corner between hands


def context(table):
    """What the TV's page draws from (a watcher's page too: the TV's picture)."""
    return {
        "table": table,
        "v": table_view(table),
        "join_url": join_url(table),
        "recent": recent(table),
        "demo": demonstration(table),
        "tv": True,
        "screen": "tv",
    }


def recent(table) -> list[dict]:
    """The TV's last hands, its computers named in its language."""
    return shown_hands(table, history.hands(table, limit=RECENT))


@dataclass(frozen=True)
class Rehearsed:
    """The table a demonstration's step is drawn as (the game's felt asks its table these):
    the real table's code and game, the demonstration's state, never paused nor ended."""

    code: str
    game: str
    state: dict[str, Any]
    paused: bool = False
    ended_at: None = None


def demonstration(table) -> dict[str, Any] | None:
    """The step of the table's demonstration (:mod:`montones.rules.demo`) its TVs show now,
    while nobody has sat down; None once anyone has, or the night is over. Worked out again
    from the wall clock at every ask: every TV of the table shows the same step, and nothing
    of it is kept anywhere."""
    if table.state["players"] or table.ended_at:
        return None
    now = clock().time()
    rules = game(table.game)
    settings = demo.settings_of(rules, table.state["settings"])
    number, index, step = demo.step_at(rules, table.code, now, settings)
    # The step's view shows its result at once: a reveal (show.js) takes longer than a step.
    # Drawn again from its state (as every TV's view is, without the time) for the computers'
    # names in the TV's language.
    view = rules.view(shown_state(step.state), None, None)
    view["version"] += 1
    return {
        "number": number + 1,
        "step": step,
        "v": view,
        "table": Rehearsed(table.code, table.game, step.state),
        # When the next step is due, to the next tenth of a second: its TVs ask for it then.
        "next_in": math.ceil((demo.STEP_SECONDS - now % demo.STEP_SECONDS) * 10) / 10,
    }


def in_table_language(table):
    """The TV speaks the language the host set for the table, else its browser's."""
    return force_locale(table.tv_language) if table.tv_language else contextlib.nullcontext()


@bp.app_template_filter("without_ids")
def without_ids(html: str) -> Markup:
    """A region drawn a second time on a page (the demonstration's felt), its ids renamed: the
    live streams swap the real one's by id, and show.js finds the felt by its id."""
    return Markup(str(html).replace(' id="', ' data-demo-id="'))


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
    with in_table_language(table):
        return draw_regions(region, context(table))


def draw_regions(region: str, drawn_from: dict):
    """The TV's ``region`` (``all``: every one, each out of band) from ``drawn_from``, the TV's
    context or a watcher's; 404 for a region the TV does not have."""
    blocks = REGIONS if region == "all" else [region]
    if any(b not in REGIONS for b in blocks):
        abort(404)
    return render_regions(PAGE, blocks, all_oob=region == "all", **drawn_from)


@bp.get("/next")
def next_night(code):
    """The TV of an ended night goes on to the next one, once the host has started it (its end
    screen asks by itself, htmx following ``HX-Redirect``); a watcher's phone, to its watch page."""
    table = service.get_table(code)
    # A watcher's phone shows the TV's picture, this ask too: it goes on to the new night's
    # watch page, not to its TV page (htmx says which page asks).
    asking = urlsplit(request.headers.get("HX-Current-URL", "")).path
    screen = "watch.page" if asking == url_for("watch.page", code=table.code) else "tv.page"
    if table.next_code is None:
        return back_to(screen, code=table.code)
    there = url_for(screen, code=table.next_code)
    if wants_fragment():
        return "", 200, {"HX-Redirect": there}
    return redirect(there, code=303)
