"""The host: the device that created a table, with the switches for the night."""

from __future__ import annotations

import json
import secrets

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    render_template,
    request,
    session,
)
from flask_babel import gettext as _

from montones import service
from montones.data import history
from montones.rules.games import game
from montones.service import party
from montones.web import screens
from montones.web.common import (
    actor_for,
    back_to,
    block_drawer,
    computer_spellings,
    credentials,
    join_url,
    not_kept,
    number,
    parse_fields,
    refusal,
    remember,
    shown_hands,
    shown_names,
    table_view,
    watch_url,
)

bp = Blueprint("host", __name__, url_prefix="/t/<code>/host")
# The host's pages show the host link and the whole night's record: no cache keeps them.
bp.after_request(not_kept)


@bp.errorhandler(403)
def _not_the_host(error):
    """A wrong host link, or a device without the host's rights: said on a page of the app's,
    in the reader's language, not a bare error."""
    message = _("Only the host can open this page: ask the host for the host link.")
    return render_template("play/missing.html", message=message), 403


@bp.get("/claim/<secret>")
def claim(code, secret):
    """The host link: opening it on any device gives that device the host rights."""
    table = service.get_table(code)
    if not service.is_host(table, secret):
        abort(403)
    remember("hosts", table.code, secret)
    return back_to("host.page", code=table.code)


PAGE = "host/table.html"
# The page's live regions, in its order: each a block of PAGE, one element whose id is the
# block's name with "-" for "_". The host's stream sends each when what it is drawn from
# changed (:func:`live_regions`); the players' region, each player's card alone when only it did.
REGIONS = ("host_now", "host_switches", "host_players", "host_away")
CARD = "host_player"


@bp.get("")
def page(code):
    table = _hosted(code)
    actor, _player = actor_for(table)
    secret = credentials(table.code)[1]
    show_link = session.pop("show_host_link", None) == table.code
    return render_template(
        PAGE,
        **host_context(
            table,
            actor,
            _view(table, actor),
            host_secret=secret if show_link else None,
            confirm=_asked(table),
        ),
    )


def host_context(table, actor, view: dict, **extra) -> dict:
    """What the host's page and its regions are drawn from (``view``: the table's, for the
    host's seat if it has one)."""
    return {
        "table": table,
        "v": view,
        "join_url": join_url(table),
        "watch_url": watch_url(table),
        "host_secret": None,
        # Each drawing of a region comes with a fresh nonce (its forms': a form resent is one
        # action).
        "nonce": secrets.token_urlsafe(12),
        "actor": actor,
        "sent_away": _sent_away(table),
        "confirm": None,
        **extra,
    }


def _view(table, actor) -> dict:
    """The table's view as the host sees it: the one every screen shares, worked out once per
    version, or the host's seat's, when the host plays too."""
    return screens.full_view(table) if actor.seat is None else table_view(table, actor.seat)


def _sent_away(table) -> list[dict]:
    names = shown_names(table.state)
    return [
        {"id": seat, "name": names[seat], "chips": p["chips"]}
        for seat, p in table.state["players"].items()
        if p.get("left")
    ]


def live_regions(table, actor, drawn: dict) -> str:
    """The host page's regions of ``table`` whose inputs changed since they were last drawn
    for this page, out of band for idiomorph to merge ("" if none did). ``drawn`` (the page's
    stream keeps it, empty for a page drawn before the table moved) says what each region was
    drawn from, and is brought up to date here. In a request context as the host's own.

    What a region is drawn from: the table's switches it shows (:func:`_inputs`) and, for the
    game's own part (``host_now``), the keys of the view its templates read when it was last
    drawn, with their values; the players' region, who is at the table, each card its player's
    line of the view. A bet that changes nothing here draws nothing."""
    view = _view(table, actor)
    drawer = None
    html = []

    def draw(block: str, **values) -> str:
        nonlocal drawer
        if drawer is None:
            drawer = block_drawer(PAGE, host_context(table, actor, view))
        return screens.out_of_band(drawer(block, **values))

    for block in REGIONS:
        inputs = _inputs(block, table, view)
        if block == "host_now":
            read = drawn.get(block)
            if read is not None and read[0] == inputs and _same(read[1], view):
                continue
            reads = Reads(view)
            html.append(draw(block, v=reads))
            drawn[block] = (inputs, {key: view.get(key, MISSING) for key in reads.read_keys})
        elif drawn.get(block) != inputs:
            html.append(draw(block))
            drawn[block] = inputs
            for p in view["players"]:
                drawn[(CARD, p["id"])] = (p, table.ended_at)
        elif block == "host_players":  # the same players: the cards whose line changed
            for p in view["players"]:
                if drawn.get((CARD, p["id"])) != (p, table.ended_at):
                    html.append(draw(CARD, p=p))
                    drawn[(CARD, p["id"])] = (p, table.ended_at)
    return "".join(html)


def _inputs(block: str, table, view: dict) -> tuple:
    """What of the table region ``block`` shows, besides the view's keys ``host_now`` reads."""
    if block == "host_now":
        return (table.paused, table.ended_at)
    if block == "host_switches":
        state = table.state
        return (
            table.paused,
            table.ended_at,
            table.next_code,
            table.tv_language,
            table.party,
            state.get("closed"),
            state.get("tv_silent"),
            party.in_lobby(table),
        )
    if block == "host_players":
        return (table.ended_at, tuple(p["id"] for p in view["players"]))
    return tuple((p["id"], p["name"], p["chips"]) for p in _sent_away(table))


MISSING = object()  # a key the view does not have


def _same(read: dict, view: dict) -> bool:
    """Whether ``view`` has what ``read`` says of the keys a drawing read."""
    return all(view.get(key, MISSING) == value for key, value in read.items())


class Reads(dict):
    """A view that notes which of its keys a template reads (``v.x``, ``v["x"]``, ``"x" in
    v``; all of them when it is gone through whole): a drawing depends on those alone."""

    def __init__(self, view: dict):
        super().__init__(view)
        self.read_keys: set = set()

    def __getitem__(self, key):
        self.read_keys.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.read_keys.add(key)
        return super().get(key, default)

    def __contains__(self, key):
        self.read_keys.add(key)
        return super().__contains__(key)

    def __iter__(self):
        self.read_keys.update(dict.keys(self))
        return super().__iter__()

    def keys(self):
        self.read_keys.update(dict.keys(self))
        return super().keys()

    def values(self):
        self.read_keys.update(dict.keys(self))
        return super().values()

    def items(self):
        self.read_keys.update(dict.keys(self))
        return super().items()


def _asked(table) -> dict | None:
    """The question a drastic switch asks before it acts (``?confirm=kind``): sending one or
    several players away (``seat``, repeated), a large top-up (``seat``, ``amount``), ending
    the night, and once it is over, only starting the next one (which moves every screen)."""
    kind = request.args.get("confirm")
    if kind == "end" and not table.ended_at:
        return {"kind": "end"}
    if kind == "new_night" and table.ended_at and not table.next_code:
        return {"kind": "new_night"}
    players = table.state["players"]
    seats = [
        seat
        for seat in dict.fromkeys(request.args.getlist("seat"))
        if seat in players and not players[seat].get("left")
    ]
    if table.ended_at:
        return None
    if kind == "kick" and seats:
        shown = shown_names(table.state)
        return {"kind": "kick", "seats": seats, "name": ", ".join(shown[seat] for seat in seats)}
    amount = request.args.get("amount", "")
    if kind == "top_up" and len(seats) == 1 and amount.isdigit():
        return {
            "kind": "top_up",
            "seats": seats,
            "name": shown_names(table.state)[seats[0]],
            "amount": int(amount),
        }
    return None


def _large_top_up(table, kind: str) -> bool:
    """A top-up of more than the starting chips is asked about first: a whole buy-in or less
    is the usual top-up of a player who ran out, more is a typo's extra zero as often as a
    choice, and it weighs on the standings (a buy-in counts against what a player won)."""
    if kind != "top_up":
        return False
    try:
        amount = int((request.form.get("amount") or "").strip())
    except ValueError:
        return False  # refused in words by the action itself
    return amount > table.starting_chips


def _hosted(code):
    table = service.get_table(code)
    actor, _player = actor_for(table)
    if not actor.is_host:
        abort(403)
    return table


@bp.get("/history")
def hands(code):
    """Every hand of the night, its bets in the order the bank settled them."""
    table = _hosted(code)
    return render_template(
        "host/history.html", table=table, entries=shown_hands(table, history.hands(table))
    )


@bp.get("/export.json")
def export(code):
    """The whole table as one JSON file, for ``montones replay --hand N`` and ``montones verify``."""
    table = _hosted(code)
    name = f"montones-{table.code}-v{table.version}.json"
    return Response(
        json.dumps(history.export(table), indent=1, ensure_ascii=False),
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@bp.post("/<kind>")
def act(code, kind):
    table = service.get_table(code)
    actor, _player = actor_for(table)
    # Only the host, and only the host's own actions: a player's actions go through /a/<kind>.
    actions = game(table.game).ACTIONS
    host_kinds = {k for k, spec in actions.items() if spec.host}
    switches = {
        "pause",
        "resume",
        "end",
        "tv_language",
        "new_night",
        "add_computer",
        "remove_computer",
        *party.SWITCHES,
    }
    if not actor.is_host or kind not in host_kinds | switches:
        abort(403)
    drastic = kind in ("end", "new_night") or (kind in actions and actions[kind].confirm)
    if (drastic or _large_top_up(table, kind)) and request.form.get("confirm") != "yes":
        # Asked first; nothing changes yet.
        seats = request.form.getlist("seat")
        asked = {"seat": seats} if seats else {}
        if kind == "top_up":
            asked["amount"] = request.form.get("amount")
        return back_to("host.page", code=table.code, confirm=kind, **asked)
    try:
        if kind == "new_night":
            new = service.new_night(table.code, actor)
            # The same host secret opens the new table: this device keeps the host's rights.
            remember("hosts", new.code, credentials(table.code)[1])
            return back_to("host.page", code=new.code)
        if kind in party.SWITCHES:
            party.switch(table.code, actor, kind)
        elif kind == "tv_language":
            language = request.form.get("language") or None
            if language is not None and language not in current_app.config["LANGUAGES"]:
                abort(400)
            service.host_action(table.code, actor, kind, language)
        elif kind == "add_computer":
            nonce = request.form.get("nonce") or None
            done, seat = service.add_computer(
                table.code, actor, nonce, spellings=computer_spellings()
            )
            if seat is not None:
                name = shown_names(done.state)[seat]
                flash(_("%(name)s, a computer player, has sat down.", name=name), "done")
        elif kind == "remove_computer":
            seat = request.form.get("seat", "")
            name = shown_names(table.state).get(seat, "")
            service.remove_computer(table.code, actor, seat)
            flash(_("%(name)s, a computer player, has left the table.", name=name), "done")
        elif kind in ("pause", "resume", "end"):
            service.host_action(table.code, actor, kind)
            if kind == "end":
                return back_to("records.standings", code=table.code)
        else:
            spec = game(table.game).ACTIONS[kind]
            nonce = request.form.get("nonce") or None
            # An action on a player may be asked for several at once (send away these three):
            # one action each, in the order chosen.
            seats = list(dict.fromkeys(request.form.getlist("seat")))
            for seat in seats if len(seats) > 1 else [None]:
                form = {**request.form.to_dict(), "seat": seat} if seat else request.form
                params = parse_fields(form, spec.fields)
                # A resent form (a double tap on "+") gives the chips once.
                once = f"{nonce}-{seat}" if nonce and seat else nonce
                done = service.act(table.code, actor, kind, params, nonce=once)
            if kind == "top_up":  # answered where the host looks, with the chips it made
                who = done.state["players"][params["seat"]]
                name = shown_names(done.state)[params["seat"]]
                flash(
                    _("%(name)s has %(n)s chips now.", name=name, n=number(who["chips"])),
                    "done",
                )
            elif kind == "readmit":
                name = shown_names(done.state)[params["seat"]]
                flash(
                    _("%(name)s may come back: their seat and chips are theirs again.", name=name),
                    "done",
                )
            elif spec.plays:  # a move of the game: back at the picker (where the page has one)
                return back_to("host.page", code=table.code, _anchor="picker")
    except service.ServiceError as error:
        if isinstance(error, service.NotAllowed):
            abort(403)
        flash(refusal(error))
    return back_to("host.page", code=table.code)
