"""A table's records, for whoever sits or sat at it: my last hands, a done deck's seal opened,
the standings and their chart."""

from __future__ import annotations

import contextlib

from flask import Blueprint, Response, abort, render_template, request
from flask_babel import get_locale
from flask_babel import gettext as _

from montones import service
from montones.data import history
from montones.live import channel
from montones.rules import hand_records
from montones.service import party
from montones.web import chart, security
from montones.web.common import (
    actor_for,
    night,
    not_kept,
    number_in,
    shown_hands,
    shown_names,
    wants_fragment,
)
from montones.web.tv import in_table_language

bp = Blueprint("records", __name__, url_prefix="/t/<code>")
bp.after_request(not_kept)

RECALL = 12  # hands a phone can look back on


@bp.get("/history")
def recall(code):
    """My last hands, also while a hand is in play; a deck in play stays sealed."""
    table = service.get_table(code)
    _actor, player = actor_for(table)
    if player is None:
        abort(403)
    items = [
        {"entry": entry, "mine": history.for_seat(entry, player.seat)}
        for entry in shown_hands(table, history.hands(table, limit=RECALL))
    ]
    template = "history/_mine.html" if wants_fragment() else "play/history.html"
    return render_template(template, table=table, items=items)


@bp.get(f"/verify/<int(max={history.MOST_HANDS}):number>")
def verify(code, number):
    """Open a done deck's seal in the browser: anyone at the table may check it."""
    table = service.get_table(code)
    entry = history.hand(table, number)
    if entry is None or hand_records.own_deck(entry):  # the table's own cards: no seal
        abort(404)
    entry = shown_hands(table, [entry])[0]
    return render_template("play/verify.html", table=table, entry=entry)


@bp.get("/standings")
def standings(code):
    """The standings, net of buy-ins, and the night's story: so far while it is played, its
    end once it is over."""
    table = service.get_table(code)
    actor, player = actor_for(table)
    # The host's ways on from here (the end of the night lands the host here): a practice
    # table's hidden host is its one player, who has no host page to go back to.
    hosting = actor.is_host and not table.state["settings"].get("practice")
    return render_template(
        "play/standings.html",
        table=table,
        night=night(table),
        me=player.seat if player else None,
        hosting=hosting,
    )


@bp.get("/standings.svg")
def standings_chart(code):
    """The standings chart, for whoever may see the standings (the page and the TV show it)."""
    table = service.get_table(code)
    screen = "tv" if request.args.get("screen") == "tv" else "phone"
    # The TV's chart speaks the TV's language, as the rest of the TV does.
    with in_table_language(table) if screen == "tv" else contextlib.nullcontext():
        locale = get_locale()
        title = _("Chips over the night")

    def draw():
        names = shown_names(table.state)
        lines = service.chips_over_night(table)
        faces = {seat: party.face_of(table.party, seat) for seat in lines}
        return chart.drawing(
            lambda: chart.standings_svg(lines, names, screen, title, number_in(locale), faces)
        )

    # Held once drawn, and shared while it is drawn: a guest asking for it in a loop costs no
    # more drawing.
    key = (table.code, table.version, f"chart-{screen}", str(locale))
    svg = channel.of().renders.get(key, draw).result()
    response = Response(svg, mimetype="image/svg+xml")
    response.headers["Content-Security-Policy"] = security.IMAGE_CSP
    # The page asks for it with the table's version in the address; the language may change.
    response.headers["Cache-Control"] = "no-cache"
    return response
