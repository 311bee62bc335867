"""A phone's seat: taking one (the join and rejoin forms, the join QR code), following it to the
next night, leaving a practice table, and what a phone that has none here is told."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, session, url_for

from montones import service
from montones.service import party
from montones.web.common import (
    actor_for,
    back_to,
    computer_spellings,
    credentials,
    join_url,
    not_kept,
    qr_code,
    refusal,
    remember,
    wants_fragment,
)

bp = Blueprint("seats", __name__, url_prefix="/t/<code>")
bp.after_request(not_kept)


def departure(table) -> str | None:
    """Why this browser, which had a seat here, has none now (see ``service.departure``)."""
    seat = session.get("seat_ids", {}).get(table.code)
    return service.departure(table, credentials(table.code)[0], seat)


def gone(table, reason: str, status: int = 403, notice: str | None = None):
    """What a phone without its seat is answered, whatever it asked: why, and what it can do;
    to htmx, the region that says so, swapped over the whole screen."""
    context = {"table": table, "gone": reason, "notice": notice}
    if wants_fragment():
        html = render_template("play/_gone.html", oob=True, **context)
        return html, status, {"Vary": "HX-Request", "Cache-Control": "no-store"}
    return render_template("play/gone.html", **context), status


@bp.route("/join", methods=["GET", "POST"])
def join(code):
    table = service.get_table(code)
    _actor, player = actor_for(table)
    if player is not None:
        return back_to("play.page", code=table.code)
    if departure(table) == "sent_away":  # not back under another name without the host
        return gone(table, "sent_away")
    # A full or closed table says so before a name is typed (a watcher's "sit down" comes here).
    full = service.no_room(table) if not table.ended_at else None
    return _take_seat(
        table,
        "play/join.html",
        lambda: service.join(
            table.code,
            request.form.get("name", ""),
            computer_spellings(),
            party.chosen_face(request.form.get("face"), request.form.get("colour")),
        ),
        full,
    )


@bp.route("/rejoin", methods=["GET", "POST"])
def rejoin(code):
    table = service.get_table(code)
    return _take_seat(
        table,
        "play/rejoin.html",
        lambda: service.rejoin(table.code, request.form.get("rejoin", "")),
    )


def _take_seat(table, template: str, seat, refused_now: service.ServiceError | None = None):
    """The join and rejoin forms: on POST, ``seat()`` gives a seat token for this browser; on
    GET, the form says ``refused_now`` (what taking a seat would be refused now), if any."""
    error = refusal(refused_now) if refused_now is not None else None
    if request.method == "POST":
        try:
            player, token = seat()
        except service.ServiceError as refused:
            error = refusal(refused)
        else:
            remember("seats", table.code, token)
            remember("seat_ids", table.code, player.seat)  # to say where it went, if it goes
            return back_to("play.page", code=table.code)
    refused = error and request.method == "POST"
    # No name to type while nobody can sit down: the form says why, and offers to watch.
    closed = refused_now is not None
    page = render_template(template, table=table, error=error, closed=closed)
    return page, 422 if refused else 200


@bp.get("/qr.svg")
def qr(code):
    return qr_code(join_url(service.get_table(code)))


@bp.post("/leave-practice")
def leave_practice(code):
    """The player of a practice table leaves it, and it ends: their device holds the host's
    rights (the lobby's practice gave them)."""
    table = service.get_table(code)
    actor, _player = actor_for(table)
    if not table.state["settings"].get("practice") or not actor.is_host:
        abort(403)
    if not table.ended_at:
        service.host_action(table.code, actor, "end")
    return back_to("lobby.index")


@bp.get("/next")
def next_night(code):
    """A phone of the ended night goes to its seat at the next one (its end screen asks by
    itself). Asked by htmx, the answer sends the browser there (``HX-Redirect``), or nothing
    when its player was not seated again; a tap on the link goes to the new table's join form
    then."""
    table = service.get_table(code)
    if table.next_code is None:
        return back_to("records.standings", code=table.code)
    new = service.get_table(table.next_code)
    there = _next_seat(table, new)
    if there is None:
        if wants_fragment():
            return "", 204
        there = url_for("seats.join", code=new.code)
    if wants_fragment():
        return "", 200, {"HX-Redirect": there}
    return redirect(there, code=303)


def _next_seat(table, new) -> str | None:
    """Where this browser's seat at the next night ``new`` is: its page once the browser holds
    it (taking it if it still waits for this phone); the rejoin form if another device took
    it; None when this browser had no seat at ``table`` or its player was not seated again."""
    if service.player_by_token(new, credentials(new.code)[0]) is not None:
        return url_for("play.page", code=new.code)
    try:
        followed = service.follow(table.code, credentials(table.code)[0])
    except service.ServiceError as error:
        flash(refusal(error))
        return url_for("seats.rejoin", code=new.code)
    if followed is None:
        return None
    seat, token = followed
    remember("seats", new.code, token)
    remember("seat_ids", new.code, seat.seat)
    return url_for("play.page", code=new.code)
