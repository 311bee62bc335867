"""The phones: joining a table, the player's screen and everything a player does."""

from __future__ import annotations

import io
import secrets

import segno
from flask import Blueprint, Response, abort, flash, render_template, request
from flask_babel import get_locale
from flask_babel import gettext as _

from montones import chart, history, security, service
from montones.rules.errors import Phrase
from montones.views import updates
from montones.views.common import (
    ENGINES,
    actor_for,
    back_to,
    credentials,
    int_field,
    join_url,
    refusal,
    remember,
    render_regions,
    table_view,
    wants_fragment,
)

bp = Blueprint("play", __name__, url_prefix="/t/<code>")

PAGE = "play/table.html"
REGIONS = ["status", "felt", "odds", "bar"]
# A phone's own regions: what an accepted tap answers with. The felt and the odds, the same for
# every phone, reach the tapping phone by its stream like every other screen (rendered once per
# version for all of them, not once more per tap); a refusal answers with every region.
MINE = ["status", "bar"]
RECALL = 12  # hands a phone can look back on

# The modes of a tap on the felt, per game: which action it is, and whether it needs the stake.
# A tap lands on a heap (a number) in Montones, on a layout (a word) in Monte.
TAP_MODES = {
    "montones": {"bet": True, "against": True, "declare": False, "choose": False},
    "monte": {"bet": True},
}


def _context(table, player, **extra):
    view = table_view(table, player.seat if player else None)
    mode = request.values.get("mode", "bet")
    context = {
        "table": table,
        "v": view,
        "bar": _bar_view(table.game, view) if player else None,
        "stage": service.stage(table.state),
        "mode": mode if mode in TAP_MODES[table.game] else "bet",
        "stake": request.values.get("amount", ""),
        "custom": request.values.get("custom", ""),
        "player": player,
        # Each rendering's forms carry fresh nonces: a resent form is a double click, not a new tap.
        "nonce": secrets.token_urlsafe(12),
        "phone": True,
        "notice": None,
        **extra,
    }
    return context


def _bar_view(game: str, v: dict) -> dict:
    """What a phone's action bar is drawn from, and nothing more: the bar template is given
    this as its ``v``, so what it shows cannot depend on anything left out here (a key it
    reads that is not here is undefined, and the view tests see the bar come out wrong)."""
    me = v["me"] or {}
    if game == "montones":
        bank, can = v["bank"], me.get("can", [])
        return {
            "phase": v["phase"],
            # My chips only where the bar shows them (the most I can offer or put up). While I
            # bet, it offers the quick stakes my chips and the bank allow, and the all-in chip
            # (worked out when the tap arrives): so my own bets seldom change the bar.
            "me": {
                "can": can,
                "chips": me.get("chips") if "offer" in can or "abona" in can else None,
                "offer": me.get("offer"),
            },
            "quick": _quick_stakes(me, v["settings"]["min_bet"]),
            "bank": bank and {key: bank[key] for key in ("amount", "closing", "name")},
            "bank_heap": v["bank_heap"],
            "cutter_name": v["cutter_name"],
            "heaps": [{"number": h["number"], "size": h["size"]} for h in v["heaps"]],
            "settings": {key: v["settings"][key] for key in ("heap_counts", "min_bet")},
        }
    return {
        "phase": v["phase"],
        "me": {key: me.get(key) for key in ("can", "chips", "bank_offer", "is_banker", "most")},
        **{key: v[key] for key in ("bank", "banker_name", "cutter_name", "deck", "on_table")},
        "room": v["room"],
        "settings": {key: v["settings"][key] for key in ("min_bet", "max_bet")},
    }


QUICK_STAKES = (1, 5, 10, 25)


def _quick_stakes(me: dict, least: int) -> list[int]:
    """The quick chips a Montones bar offers: the table minimum and more, up to the most I can
    stake now."""
    return [q for q in QUICK_STAKES if least <= q <= me.get("most", 0)]


def _shared(table):
    """The felt and the odds as every phone gets them, from the render the streams share."""
    locale = str(get_locale())
    return lambda block, oob: updates.phone_block(table, block, locale, oob)


def _seated(code):
    table = service.get_table(code)
    actor, player = actor_for(table)
    return table, actor, player


@bp.app_errorhandler(service.NotFound)
def _no_table(error):
    return render_template("play/missing.html", message=refusal(error)), 404


@bp.get("")
def page(code):
    table, _actor, player = _seated(code)
    if player is None:
        return back_to("play.join", code=table.code)
    if table.ended_at:
        return back_to("play.standings", code=table.code)
    return render_template(PAGE, **_context(table, player))


@bp.get("/p/<region>")
def region(code, region):
    table, _actor, player = _seated(code)
    if player is None:
        abort(403)
    if not wants_fragment():
        return page(code)
    blocks = {"all": REGIONS, "mine": MINE}.get(region, [region])
    if any(b not in REGIONS for b in blocks):
        abort(404)
    return render_regions(
        PAGE,
        blocks,
        all_oob=region in ("all", "mine"),
        prerendered=_shared(table),
        **_context(table, player),
    )


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


@bp.get("/verify/<int:number>")
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
        # Who is asking is read in the action's own transaction, and the form parsed there
        # for the table's game: one transaction for the whole tap.
        table, player = service.act_as(
            code,
            *credentials(code),
            lambda game: _asked(game, kind),
            stage_seen=request.form.get("stage") or None,
            nonce=request.form.get("nonce") or None,
        )
    except service.ServiceError as error:
        notice, status = refusal(error), error.status
        table = service.get_table(code)
        _actor, player = actor_for(table)
    if player is not None and table.state["players"].get(player.seat, {}).get("left"):
        player = None
    if not wants_fragment():
        if notice:
            flash(notice)
        return back_to("play.page", code=table.code)
    if player is None:
        return render_template("play/missing.html", message=notice), status
    return render_regions(
        PAGE,
        REGIONS if notice else MINE,
        status=status,
        all_oob=True,
        prerendered=_shared(table),
        **_context(table, player, notice=notice),
    )


def _asked(game: str, kind: str) -> tuple[str, dict]:
    """The action a form asks for and its params (a tap's mode says which action it is)."""
    params = _params(game, kind)
    if kind == "tap":
        kind = params.pop("mode")
    return kind, params


def _params(game: str, kind: str) -> dict:
    form = request.form
    if kind == "tap":
        modes = TAP_MODES[game]
        mode = form.get("mode", "bet")
        if mode not in modes:
            raise service.ServiceError("Choose what a tap on a heap does.")
        if game == "monte":
            params = {"mode": mode, "layout": _layout(form)}
        else:
            params = {"mode": mode, "heap": int_field(form, "heap", Phrase("The heap"))}
        if modes[mode]:
            # A typed amount wins over the quick chip that is still selected.
            if (form.get("custom") or "").strip():
                params["amount"] = int_field(form, "custom", Phrase("The amount"))
            elif (form.get("amount") or "").strip() == service.ALL_IN:
                params["amount"] = service.ALL_IN  # the all-in chip: the service says where
            else:
                params["amount"] = int_field(form, "amount", Phrase("The amount"))
        return params
    if game == "monte":
        return _monte_params(kind, form)
    fields = {
        "offer": {"amount": Phrase("The offer")},
        "cut": {"position": Phrase("The cut")},
        "heaps": {"count": Phrase("The number of heaps")},
        "bet": {"heap": Phrase("The heap"), "amount": Phrase("The amount")},
        "against": {"heap": Phrase("The heap"), "amount": Phrase("The amount")},
        "declare": {"heap": Phrase("The heap")},
        "choose": {"heap": Phrase("The heap")},
        "withdraw": {"bet": Phrase("The bet")},
        "keep": {"heap": Phrase("The heap")},
        "abona": {"amount": Phrase("The new bank")},
    }.get(kind, {})
    return {name: int_field(form, name, label) for name, label in fields.items()}


def _monte_params(kind: str, form) -> dict:
    fields = {
        "bank": {"amount": Phrase("The bank")},
        "cut": {"position": Phrase("The cut")},
        "bet": {"amount": Phrase("The amount")},
        "withdraw": {"bet": Phrase("The bet")},
    }.get(kind, {})
    params = {name: int_field(form, name, label) for name, label in fields.items()}
    if kind == "bet":
        params["layout"] = _layout(form)
    return params


def _layout(form) -> str:
    """The layout a Monte bet is on; the rules say what is wrong with an unknown one."""
    layout = (form.get("layout") or "").strip()
    if not layout:
        raise service.ServiceError("Choose the bottom or the top layout.")
    return layout


@bp.route("/join", methods=["GET", "POST"])
def join(code):
    table = service.get_table(code)
    _actor, player = actor_for(table)
    if player is not None:
        return back_to("play.page", code=table.code)
    return _take_seat(
        table, "play/join.html", lambda: service.join(table.code, request.form.get("name", ""))
    )


@bp.route("/rejoin", methods=["GET", "POST"])
def rejoin(code):
    table = service.get_table(code)
    return _take_seat(
        table,
        "play/rejoin.html",
        lambda: service.rejoin(table.code, request.form.get("rejoin", "")),
    )


def _take_seat(table, template: str, seat):
    """The join and rejoin forms: on POST, ``seat()`` gives a seat token for this browser."""
    error = None
    if request.method == "POST":
        try:
            _player, token = seat()
        except service.ServiceError as refused:
            error = refusal(refused)
        else:
            remember("seats", table.code, token)
            return back_to("play.page", code=table.code)
    return render_template(template, table=table, error=error), 422 if error else 200


@bp.get("/qr.svg")
def qr(code):
    table = service.get_table(code)
    out = io.BytesIO()
    segno.make(join_url(table), error="m").save(out, kind="svg", scale=10, border=2)
    response = Response(out.getvalue(), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "max-age=3600"
    return response


@bp.get("/standings")
def standings(code):
    table = service.get_table(code)
    _actor, player = actor_for(table)
    return render_template(
        "play/standings.html",
        table=table,
        rows=ENGINES[table.game].standings(table.state),
        me=player.seat if player else None,
    )


@bp.get("/standings.svg")
def standings_chart(code):
    """The standings chart, for whoever may see the standings (the page and the TV show it)."""
    table = service.get_table(code)
    screen = "tv" if request.args.get("screen") == "tv" else "phone"
    names = {seat: p["name"] for seat, p in table.state["players"].items()}
    svg = chart.standings_svg(
        service.chips_over_night(table), names, screen, _("Chips over the night")
    )
    response = Response(svg, mimetype="image/svg+xml")
    response.headers["Content-Security-Policy"] = security.IMAGE_CSP
    # The page asks for it with the table's version in the address; the language may change.
    response.headers["Cache-Control"] = "no-cache"
    return response
