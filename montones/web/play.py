"""A player's phone at the table: its screen, its regions, and its taps (the seat itself is
``seats``', the records ``records``')."""

from __future__ import annotations

from flask import Blueprint, abort, flash, make_response, render_template, request, url_for
from flask_babel import get_locale

from montones import service
from montones.live import broker, channel
from montones.rules.games import game
from montones.service import party
from montones.web import limits, screens
from montones.web.common import (
    actor_for,
    asked_action,
    back_to,
    block_drawer,
    credentials,
    not_kept,
    refusal,
    table_view,
    wants_fragment,
)
from montones.web.seats import departure, gone

bp = Blueprint("play", __name__, url_prefix="/t/<code>")
bp.after_request(not_kept)

PAGE = screens.PAGE
REGIONS = ["status", "tap", "felt", "odds", "guide", "bar", "seat_version"]
# A phone's seat regions: what an accepted tap answers with. The felt and the odds, the same for
# every phone, reach the tapping phone by its stream like every other screen (rendered once per
# version for all of them, not once more per tap); a refusal answers with every region.
SEAT_BLOCKS = screens.SEAT_REGIONS


def _context(table, player, **extra):
    """What the phone's page and regions are drawn from, with the stake and mode its seat
    chose: as stored with its seat, and what this request says of them, stored too when it
    changes them (a tap's own transaction stored what it says: ``service.act_as``), so that
    its stream's redraws, by any worker, keep them."""
    if player is not None:
        player = service.choose(table, player, request.values)
        choices = player.choices or {}
        screens.chose(table, player.seat, choices)
    else:
        choices = {name: request.values.get(name, "") for name in ("mode", "amount", "custom")}
    rules = game(table.game)
    # An action that cannot be taken back, asked about before it is sent (``?ask=kind``).
    extra.setdefault("confirming", _confirming(rules, request.args.get("ask")))
    return screens.phone_context(table, player, choices, **extra)


def _confirming(rules, kind: str | None) -> str | None:
    spec = rules.ACTIONS.get(kind or "")
    return kind if spec is not None and spec.confirm and not spec.host else None


def _seated(code):
    table = service.get_table(code)
    actor, player = actor_for(table)
    return table, actor, player


@bp.get("")
def page(code):
    table, _actor, player = _seated(code)
    if player is None:
        reason = departure(table)
        if reason is not None:
            return gone(table, reason, 200)
        return back_to("seats.join", code=table.code)
    # Once the night is over the page stays live: its felt shows the end of the night, and then
    # the way to the next one when the host starts it.
    return render_template(PAGE, **_context(table, player))


@bp.get("/back")
def back(code):
    """Asked every few seconds by the full page saying this phone was sent away (a page with no
    stream, drawn by a reload or a tap): once the host has let its player back in, htmx is told
    to go back to the table; until then nothing changes."""
    table, _actor, player = _seated(code)
    if player is None:
        return "", 204
    return "", 200, {"HX-Redirect": url_for("play.page", code=table.code)}


@bp.get("/p/<region>")
def region(code, region):
    table, _actor, player = _seated(code)
    if player is None:
        reason = departure(table)
        if reason is not None:
            return gone(table, reason)
        abort(403)
    if not wants_fragment():
        return page(code)
    blocks = {"all": REGIONS, "seat": SEAT_BLOCKS}.get(region, [region])
    if any(b not in REGIONS for b in blocks):
        abort(404)
    if len(blocks) == 1:  # one region, swapped in place
        return block_drawer(PAGE, _context(table, player))(region), {"Vary": "HX-Request"}
    return _answer(table, player, blocks)


@bp.post("/a/<kind>")
def act(code, kind):
    notice, status = None, 200
    try:
        # The form is parsed with the spec of the table's game, then the service runs it in
        # one transaction, where it reads who is asking.
        # A table's game never changes: the newest table the live channel holds says which,
        # without a read, and the row when it holds none.
        held = broker.latest(code.upper())
        rules = game(held.game if held is not None else service.game_of(code))
        asked, params = asked_action(rules, kind, request.form)
        if _confirming(rules, asked) and request.form.get("confirm") != "yes":
            asking = _ask(code, asked)
            if asking is not None:
                return asking
        table, player = service.act_as(
            code,
            *credentials(code),
            asked,
            params,
            stage_seen=request.form.get("stage") or None,
            nonce=_nonce(request.form),
            choices=request.values,
        )
    except service.ServiceError as error:
        notice, status = refusal(error), error.status
        table = service.get_table(code)
        _actor, player = actor_for(table)
    if player is not None and table.state["players"].get(player.seat, {}).get("left"):
        player = None
    reason = departure(table) if player is None else None
    if reason is not None:  # said over the whole screen, as the page says it
        if wants_fragment():
            return gone(table, reason, status)
        notice = None
    if not wants_fragment():
        if notice:
            flash(notice)
        return back_to("play.page", code=table.code)
    if player is None:  # a device with no seat here (never had one, or its cookie expired)
        return gone(table, "no_seat", status, notice)
    # A refusal: every region, whole (the phone's screen was not what the table is).
    return _answer(table, player, REGIONS if notice else SEAT_BLOCKS, status, notice=notice)


def _nonce(form) -> str | None:
    """What makes a tap one tap: what it tapped (``key``) and the drawing it was tapped on: for
    a tap on the felt, the felt's version (``seen``, from #tap); for a form of the phone's own
    regions, their drawing's nonce (``drawing_nonce``, from #seat_version). A form that names its own nonce
    (the host's) is one tap by it."""
    if form.get("nonce"):
        return form["nonce"]
    seen, drawing, key = form.get("seen"), form.get("drawing_nonce"), form.get("key")
    if not key:
        return None
    if seen:
        return f"v{seen}-{key}"
    return f"d{drawing}-{key}" if drawing else None


def _ask(code: str, kind: str):
    """Before an action that cannot be taken back: the bar asks "are you sure?" (its answer
    sends the action again with ``confirm=yes``); nothing is changed yet. None when the
    player may not do it now."""
    table, _actor, player = _seated(code)
    mine = table_view(table, player.seat)["me"] if player is not None else None
    seen = request.form.get("stage") or None
    if (
        table.paused
        or not mine
        or kind not in mine["can"]
        or seen not in (None, service.stage(table.state))
    ):
        return None  # not this player's to do now (or asked from an older screen): refused
    if not wants_fragment():
        return back_to("play.page", code=table.code, ask=kind)
    return _answer(table, player, SEAT_BLOCKS, confirming=kind)


def _answer(table, player, blocks: list[str], http_status: int = 200, **extra):
    """``blocks`` whole, out of band for idiomorph to merge: those every phone shows alike
    (the felt) as the streams render them, the phone's own drawn for it."""
    context = _context(table, player, **extra)
    seat = [block for block in blocks if block in SEAT_BLOCKS]
    locale = str(get_locale())
    html = [screens.shared(table, "phone", locale)] if len(seat) < len(blocks) else []
    if seat:  # kept for the phone's stream, which sends this drawing, not another
        keys = screens.seat_keys(
            table,
            player.seat,
            context["choices"],
            screens.shared_view(table),
            context["notice"],
            context["confirming"],
        )
        html.append(screens.seat_regions(context, seat, keys))
    response = make_response("".join(html), http_status)
    response.headers["Vary"] = "HX-Request"
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/react/<reaction>")
def react(code, reaction):
    """A reaction from a seat's phone: it floats over the TV beside the player's face for a
    moment. It changes nothing of the table (no version: a reveal playing on the TV plays on);
    the live channel keeps the table's last few and wakes its screens. Limited by seat to what
    a person does (``web/limits.py``, ``reactions``); answered with nothing to swap."""
    table = service.get_table(code)
    try:
        seat = party.reacting(table, credentials(table.code)[0], reaction)
    except service.ServiceError as error:
        return limits.said(refusal(error)), error.status, {"Cache-Control": "no-store"}
    channel.of().react(table.code, seat, reaction)
    return "", 204
