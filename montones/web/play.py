"""The phones: joining a table, the player's screen and everything a player does."""

from __future__ import annotations

import contextlib

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import get_locale
from flask_babel import gettext as _

from montones import service
from montones.data import history
from montones.live import broker, channel
from montones.rules.games import game
from montones.web import chart, limits, screens, security
from montones.web.common import (
    actor_for,
    asked_action,
    back_to,
    block_drawer,
    credentials,
    join_url,
    night,
    number_in,
    qr_code,
    refusal,
    remember,
    table_view,
    wants_fragment,
)
from montones.web.tv import in_table_language

bp = Blueprint("play", __name__, url_prefix="/t/<code>")

PAGE = screens.PAGE
REGIONS = ["status", "tap", "felt", "odds", "guide", "bar", "own"]
# A phone's seat regions: what an accepted tap answers with. The felt and the odds, the same for
# every phone, reach the tapping phone by its stream like every other screen (rendered once per
# version for all of them, not once more per tap); a refusal answers with every region.
SEAT_BLOCKS = screens.SEAT_REGIONS
RECALL = 12  # hands a phone can look back on


def _context(table, player, **extra):
    """What the phone's page and regions are drawn from, with the stake and mode its seat
    chose (kept for its stream's redraws: ``Channel.choose``)."""
    if player is not None:
        choices = channel.of().choose(table.code, player.seat, request.values)
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


def _departure(table) -> str | None:
    """Why this browser, which had a seat here, has none now (see ``service.departure``)."""
    seat = session.get("seat_ids", {}).get(table.code)
    return service.departure(table, credentials(table.code)[0], seat)


def _gone(table, reason: str, status: int = 403, notice: str | None = None):
    """What a phone without its seat is answered, whatever it asked: why, and what it can do;
    to htmx, the region that says so, swapped over the whole screen."""
    context = {"table": table, "gone": reason, "notice": notice}
    if wants_fragment():
        html = render_template("play/_gone.html", oob=True, **context)
        return html, status, {"Vary": "HX-Request", "Cache-Control": "no-store"}
    return render_template("play/gone.html", **context), status


@bp.app_errorhandler(400)
def _bad_request(error):
    """A tap refused before it reached a view (a page out of date: its CSRF token is not the
    session's) is said on the phone too: htmx swaps nothing of a bare error page."""
    table = request.view_args and request.view_args.get("code")
    if not wants_fragment() or not table:
        return error
    try:
        table = service.get_table(table)
    except service.NotFound:
        limits.missed()  # the answer differs from a table's: it tells whether one exists
        return error
    return _gone(table, "out_of_date", 400, error.description)


@bp.after_request
def _not_kept(response):
    """A seat's pages show its rejoin code, its hands and the table's record: no cache keeps
    them (an answer that says otherwise keeps its own)."""
    response.headers.setdefault("Cache-Control", "no-store")
    return response


@bp.app_errorhandler(service.NotFound)
def _no_table(error):
    limits.missed()
    return render_template("play/missing.html", message=refusal(error)), 404


@bp.get("")
def page(code):
    table, _actor, player = _seated(code)
    if player is None:
        reason = _departure(table)
        if reason is not None:
            return _gone(table, reason, 200)
        return back_to("play.join", code=table.code)
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


@bp.post("/leave-practice")
def leave_practice(code):
    """The player of a practice table leaves it, and it ends: their device holds the host's
    rights (the lobby's practice gave them)."""
    table, actor, _player = _seated(code)
    if not table.state["settings"].get("practice") or not actor.is_host:
        abort(403)
    if not table.ended_at:
        service.host_action(table.code, actor, "end")
    return back_to("lobby.index")


@bp.get("/p/<region>")
def region(code, region):
    table, _actor, player = _seated(code)
    if player is None:
        reason = _departure(table)
        if reason is not None:
            return _gone(table, reason)
        abort(403)
    if not wants_fragment():
        return page(code)
    blocks = {"all": REGIONS, "mine": SEAT_BLOCKS}.get(region, [region])
    if any(b not in REGIONS for b in blocks):
        abort(404)
    if len(blocks) == 1:  # one region, swapped in place
        return block_drawer(PAGE, _context(table, player))(region), {"Vary": "HX-Request"}
    return _answer(table, player, blocks)


@bp.get("/history")
def recall(code):
    """My last hands, also while a hand is in play; a deck in play stays sealed."""
    table, _actor, player = _seated(code)
    if player is None:
        abort(403)
    items = [
        {"entry": entry, "mine": history.for_seat(entry, player.seat)}
        for entry in history.hands(table, limit=RECALL)
    ]
    template = "history/_mine.html" if wants_fragment() else "play/history.html"
    return render_template(template, table=table, items=items)


@bp.get(f"/verify/<int(max={history.MOST_HANDS}):number>")
def verify(code, number):
    """Open a done deck's seal in the browser: anyone at the table may check it."""
    table = service.get_table(code)
    entry = history.hand(table, number)
    if entry is None:
        abort(404)
    return render_template("play/verify.html", table=table, entry=entry)


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
        )
    except service.ServiceError as error:
        notice, status = refusal(error), error.status
        table = service.get_table(code)
        _actor, player = actor_for(table)
    if player is not None and table.state["players"].get(player.seat, {}).get("left"):
        player = None
    reason = _departure(table) if player is None else None
    if reason is not None:  # said over the whole screen, as the page says it
        if wants_fragment():
            return _gone(table, reason, status)
        notice = None
    if not wants_fragment():
        if notice:
            flash(notice)
        return back_to("play.page", code=table.code)
    if player is None:  # a device with no seat here (never had one, or its cookie expired)
        return _gone(table, "no_seat", status, notice)
    # A refusal: every region, whole (the phone's screen was not what the table is).
    return _answer(table, player, REGIONS if notice else SEAT_BLOCKS, status, notice=notice)


def _nonce(form) -> str | None:
    """What makes a tap one tap: what it tapped (``key``) and the drawing it was tapped on: for
    a tap on the felt, the felt's version (``seen``, from #tap); for a form of the phone's own
    regions, their drawing's nonce (``drawn``, from #own). A form that names its own nonce
    (the host's) is one tap by it."""
    if form.get("nonce"):
        return form["nonce"]
    seen, drawn, key = form.get("seen"), form.get("drawn"), form.get("key")
    if not key:
        return None
    if seen:
        return f"v{seen}-{key}"
    return f"d{drawn}-{key}" if drawn else None


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
        live = channel.of()
        choices = live.choices.get((table.code, player.seat), {})
        keys = screens.seat_keys(
            table,
            player.seat,
            choices,
            screens.shared_view(table),
            context["notice"],
            context["confirming"],
        )
        html.append(screens.seat_regions(context, seat, keys))
    response = make_response("".join(html), http_status)
    response.headers["Vary"] = "HX-Request"
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.route("/join", methods=["GET", "POST"])
def join(code):
    table = service.get_table(code)
    _actor, player = actor_for(table)
    if player is not None:
        return back_to("play.page", code=table.code)
    if _departure(table) == "sent_away":  # not back under another name without the host
        return _gone(table, "sent_away")
    # A full or closed table says so before a name is typed (a watcher's "sit down" comes here).
    full = service.no_room(table) if not table.ended_at else None
    return _take_seat(
        table,
        "play/join.html",
        lambda: service.join(table.code, request.form.get("name", "")),
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


@bp.get("/next")
def next_night(code):
    """A phone of the ended night goes to its seat at the next one (its end screen asks by
    itself). Asked by htmx, the answer sends the browser there (``HX-Redirect``), or nothing
    when its player was not seated again; a tap on the link goes to the new table's join form
    then."""
    table = service.get_table(code)
    if table.next_code is None:
        return back_to("play.standings", code=table.code)
    new = service.get_table(table.next_code)
    there = _next_seat(table, new)
    if there is None:
        if wants_fragment():
            return "", 204
        there = url_for("play.join", code=new.code)
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
        return url_for("play.rejoin", code=new.code)
    if followed is None:
        return None
    seat, token = followed
    remember("seats", new.code, token)
    remember("seat_ids", new.code, seat.seat)
    return url_for("play.page", code=new.code)


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
        names = {seat: p["name"] for seat, p in table.state["players"].items()}
        lines = service.chips_over_night(table)
        return chart.drawing(
            lambda: chart.standings_svg(lines, names, screen, title, number_in(locale))
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
