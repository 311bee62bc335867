"""The lobby: the home page, where a host creates a table and a player types a room code."""

from __future__ import annotations

from flask import (
    Blueprint,
    abort,
    current_app,
    render_template,
    request,
    send_from_directory,
    session,
)
from flask_babel import get_locale
from flask_babel import gettext as _

from montones import service
from montones.rules.errors import Phrase, RulesError
from montones.rules.games import GAMES, game
from montones.rules.table import TABLE_SETTINGS
from montones.web import limits
from montones.web.common import (
    back_to,
    computer_spellings,
    int_field,
    parse_fields,
    refusal,
    remember,
)

bp = Blueprint("lobby", __name__)


@bp.get("/")
def index():
    return render_template("lobby/index.html", form={}, error=None)


@bp.post("/tables")
def create():
    form = request.form
    name = form.get("game") or next(iter(GAMES))
    try:
        chips = int_field(form, "chips", Phrase("Starting chips"))
        settings = _settings(name, form)
        table, secret = service.create_table(name, form.get("name", ""), chips, settings)
    except service.ServiceError as error:
        return render_template("lobby/index.html", form=form, error=refusal(error)), 422
    remember("hosts", table.code, secret)
    session["show_host_link"] = table.code
    return back_to("host.page", code=table.code)


@bp.post("/practice")
def practice():
    """One tap: a practice table of the game chosen, this phone's seat at it with three
    computer players, the game under way. The phone keeps the host's rights unseen (it ends the
    table when its player leaves); there is no host link to keep."""
    try:
        table, seat, token, secret = service.practice(
            # A name that reads right where the story speaks of the player ("Игрок выиграл"):
            # "You" made "You wins", and Russian's «Ты» worse.
            request.form.get("game", ""),
            _("Practice"),
            _("Player"),
            spellings=computer_spellings(),
        )
    except service.ServiceError as error:
        return render_template("lobby/index.html", form={}, error=refusal(error)), 422
    remember("seats", table.code, token)
    remember("seat_ids", table.code, seat.seat)
    remember("hosts", table.code, secret)
    return back_to("play.page", code=table.code)


def _settings(name: str, form) -> dict:
    """A new table's settings from the lobby's fields for the game called ``name``."""
    try:
        rules = game(name)
    except RulesError:
        # the form's own field: refused in the lobby's words, as its other fields are
        raise service.ServiceError("Choose one of the games.") from None
    return {
        **rules.settings_from(parse_fields(form, rules.SETTINGS)),
        **parse_fields(form, TABLE_SETTINGS),
    }


@bp.get("/go")
def go():
    """A player typed the room code shown on the TV."""
    code = (request.args.get("code") or "").strip().upper()
    try:
        table = service.get_table(code)
    except service.NotFound:
        limits.missed()
        return render_template(
            "lobby/index.html",
            form={},
            error=_("No table has the code %(code)s.", code=code or "—"),
        ), 404
    return back_to("seats.join", code=table.code)


@bp.get("/rules/<name>")
def rules(name):
    """How to play a game, for people who have never played: the game's own page in the
    request's language (``templates/games/<name>/rules/<language>.html``). From a table
    (``?t=CODE``), it links back to that table's odds panel."""
    try:
        engine = game(name)
    except RulesError:
        abort(404)
    language = str(get_locale())
    if language not in current_app.config["LANGUAGES"]:
        language = current_app.config["BABEL_DEFAULT_LOCALE"]
    code = (request.args.get("t") or "").strip().upper()
    table = None
    if code:
        try:
            table = service.get_table(code)
        except service.NotFound:
            limits.missed()  # it tells whether a table exists, as /go does
            table = None
    return render_template(
        "lobby/rules.html",
        name=name,
        rules=engine,
        page=f"games/{name}/rules/{language}.html",
        table=table if table is not None and table.game == name else None,
    )


@bp.get("/healthz")
def healthz():
    """For a host's check (and the load benchmark's baseline): the server answers."""
    return "ok", 200, {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"}


@bp.get("/favicon.ico")
def favicon():
    """Browsers ask for it whatever the page links: a 404 in every console otherwise."""
    return send_from_directory(current_app.static_folder, "img/favicon.ico", max_age=86400)
