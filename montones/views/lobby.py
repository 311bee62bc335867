"""The lobby: the home page, where a host creates a table and a player types a room code."""

from __future__ import annotations

from flask import Blueprint, render_template, request, session
from flask_babel import gettext as _

from montones import service
from montones.rules.errors import Phrase
from montones.views.common import back_to, int_field, refusal, remember

bp = Blueprint("lobby", __name__)


@bp.get("/")
def index():
    return render_template("lobby/index.html", form={}, error=None)


@bp.post("/tables")
def create():
    form = request.form
    game = form.get("game", "montones")
    try:
        chips = int_field(form, "chips", Phrase("Starting chips"))
        settings = _settings(game, form)
        table, secret = service.create_table(game, form.get("name", ""), chips, settings)
    except service.ServiceError as error:
        return render_template("lobby/index.html", form=form, error=refusal(error)), 422
    remember("hosts", table.code, secret)
    session["show_host_link"] = table.code
    return back_to("host.page", code=table.code)


def _settings(game: str, form) -> dict:
    if game == "montones":
        low = int_field(form, "heaps_min", Phrase("The fewest heaps"))
        high = int_field(form, "heaps_max", Phrase("The most heaps"))
        return {
            "min_bet": int_field(form, "min_bet", Phrase("The minimum bet")),
            "heap_counts": [low, high],
            "tenure_minutes": int_field(form, "tenure", Phrase("The bank's time")),
            "cut_timeout": int_field(form, "cut_timeout", Phrase("The time to cut")),
        }
    if game == "monte":
        short = (form.get("short_bank") or "").strip()
        return {
            "bank_size": int_field(form, "bank_size", Phrase("The bank")),
            "min_bet": int_field(form, "min_bet", Phrase("The minimum bet")),
            "max_bet": int_field(form, "max_bet", Phrase("The maximum bet")),
            "banks_each": int_field(form, "banks_each", Phrase("Banks for each player")),
            "two_card": form.get("two_card") == "on",
            "generous": form.get("generous") == "on",
            "short_bank": int_field(form, "short_bank", Phrase("A short bank")) if short else None,
            "private_circle": form.get("private_circle") == "on",
            **(
                {"cut_timeout": int_field(form, "cut_timeout", Phrase("The time to cut"))}
                if (form.get("cut_timeout") or "").strip()
                else {}
            ),
        }
    raise service.ServiceError("Choose Montones or Monte.")


@bp.get("/go")
def go():
    """A player typed the room code shown on the TV."""
    code = (request.args.get("code") or "").strip().upper()
    try:
        table = service.get_table(code)
    except service.NotFound:
        return render_template(
            "lobby/index.html",
            form={},
            error=_("No table has the code %(code)s.", code=code or "—"),
        ), 404
    return back_to("play.join", code=table.code)


@bp.get("/healthz")
def healthz():
    """For a host's check (and the load benchmark's baseline): the server answers."""
    return "ok", 200, {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"}
