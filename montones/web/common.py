"""What every audience's views share: who is asking, form parsing, region rendering."""

from __future__ import annotations

import io
import secrets
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

import jinja2_fragments
import segno
from babel import Locale
from babel.numbers import format_decimal as babel_format_decimal
from babel.numbers import parse_pattern
from flask import Response, current_app, g, make_response, redirect, session, url_for
from flask_babel import force_locale, format_decimal, format_time, get_locale
from flask_babel import gettext as _
from markupsafe import Markup

from montones import service
from montones.data.clock import clock
from montones.extensions import htmx
from montones.live import channel
from montones.rules import computer
from montones.rules.errors import Phrase
from montones.rules.games import Game, game
from montones.rules.table import ALL_IN, Field

MAX_NUMBER = 1_000_000_000  # no count at a table of friends comes near; the database's does


# What a browser keeps for a table on the server, not in its cookie: the cookie is signed, not
# hidden, and a guest on the room's Wi-Fi reads it (plain HTTP). The cookie holds the browser's
# opaque id ("device") instead, which the database keeps the secrets under.
SECRET_KINDS = ("seats", "hosts")


def remember(kind: str, code: str, value: str) -> None:
    """Keep a seat token ("seats") or a host secret ("hosts") for a table, on the server under
    this browser's id; anything else ("seat_ids": which seat it took) in its cookie."""
    if kind in SECRET_KINDS:
        service.keep(_device(), code, kind, value)
        g.pop("kept", None)
        return
    kept = dict(session.get(kind, {}))
    kept[code] = value
    session[kind] = kept
    session.permanent = True


def _device() -> str:
    """This browser's opaque id, made the first time it is to keep a secret. A cookie of the
    days when the secrets were in it has them moved to the server."""
    if "device" not in session:
        session["device"] = secrets.token_urlsafe(24)
        session.permanent = True
    for kind in SECRET_KINDS:
        for code, value in session.pop(kind, {}).items():
            service.keep(session["device"], code, kind, value)
    return session["device"]


def credentials(code: str) -> tuple[str | None, str | None]:
    """The seat token and the host secret this browser keeps for table ``code``."""
    code = (code or "").upper()
    if any(kind in session for kind in SECRET_KINDS):
        _device()
    kept = g.get("kept")
    if kept is None or kept[0] != code:  # read once a request
        kept = g.kept = (code, service.kept(session.get("device"), code))
    return kept[1].get("seats"), kept[1].get("hosts")


def actor_for(table) -> tuple[service.Actor, service.Seat | None]:
    token, secret = credentials(table.code)
    player = service.player_by_token(table, token)
    host = service.is_host(table, secret)
    return service.Actor(seat=player.seat if player else None, is_host=host), player


def int_field(source, name: str, label: Phrase) -> int:
    """A whole number from a form; ``label`` names the field in a refusal, translated only
    where the refusal is shown (a tap's fields are read on every tap, and refused rarely)."""
    raw = (source.get(name) or "").strip()
    try:
        value = int(raw)
    except ValueError:
        if not raw:
            raise service.ServiceError("%(label)s is missing.", label=label) from None
        raise service.ServiceError("%(label)s must be a whole number.", label=label) from None
    if abs(value) > MAX_NUMBER:
        raise service.ServiceError("%(label)s is far too large.", label=label)
    return value


def parse_fields(source, fields: tuple[Field, ...], all_in: bool = False) -> dict:
    """The values of ``fields`` from a form, each parsed by its kind; an optional field left
    empty is left out. With ``all_in``, an ``amount`` may be the all-in chip (the rules say
    what it comes to when the action runs)."""
    values = {}
    for field in fields:
        raw = (source.get(field.name) or "").strip()
        if field.kind is bool:
            values[field.name] = raw == "on"
        elif field.optional and not raw:
            continue
        elif field.kind is str:  # a word (a layout, a seat): the rules judge an unknown one
            if not raw:
                raise service.ServiceError("%(label)s is missing.", label=field.label)
            values[field.name] = raw
        elif all_in and field.name == "amount" and raw == ALL_IN:
            values[field.name] = ALL_IN
        else:
            values[field.name] = int_field(source, field.name, field.label)
    return values


def asked_action(rules: Game, kind: str, form) -> tuple[str, dict]:
    """The action a form asks for at a table of game ``rules``, and its parsed fields.

    A tap on the felt (``kind`` "tap") does the action its ``mode`` names, one the game lets a
    tap do; a stake typed in "other" wins over the quick chip that is still chosen.
    """
    if kind == "tap":
        kind = form.get("mode", "bet")
        spec = rules.ACTIONS.get(kind)
        if spec is None or not spec.tap:
            raise service.ServiceError("Choose what a tap on a heap does.")
        if (form.get("custom") or "").strip():
            form = {**form.to_dict(), "amount": form.get("custom")}
    spec = rules.ACTIONS.get(kind)
    if spec is None or spec.host:  # not a player's: the service refuses it as it refuses all
        return kind, {}
    return kind, parse_fields(form, spec.fields, spec.all_in is not None)


def refusal(error: service.ServiceError) -> str:
    """A refusal as a sentence in the request's language (the service keeps it in English), its
    counts written as that language writes them (:func:`number`: "1,000", "1.000", "1 000")."""

    def words(template: str, **params) -> str:
        # A count written as words are ("%(n)s"); what the refusal quotes as sent ("%(n)r") kept.
        counts = {
            k: number(v) for k, v in params.items() if type(v) is int and f"%({k})s" in template
        }
        return _(template, **{**params, **counts})

    return error.sentence(words)


def computer_spellings() -> dict[str, tuple[str, ...]]:
    """How each computer player's name (the rules' ``NAMES``: what a table keeps, whatever the
    language) is written in every language the app speaks: a person may not sit down as "Лола"
    beside the computer Lola, whom a Russian screen calls so."""
    spelled: dict[str, set[str]] = {name: {name} for name in computer.NAMES}
    for language in current_app.config["LANGUAGES"]:
        with force_locale(language):
            for name in computer.NAMES:
                spelled[name].add(_(name))
    return {name: tuple(sorted(ways)) for name, ways in spelled.items()}


def shown_name(name: str) -> str:
    """A computer player's name as the request's language writes it: the table keeps the
    rules' name ("Lola", or "Lola 13" once the names ran out), which every screen draws in its
    own language (a Russian phone's Лола, a German TV's Lola)."""
    base, _space, count = name.rpartition(" ")
    if base in computer.NAMES and count.isdigit():
        return f"{_(base)} {count}"
    return _(name) if name in computer.NAMES else name


def shown_names(state: dict) -> dict[str, str]:
    """Every seat's name as this screen draws it: a computer's in the request's language."""
    return {
        pid: shown_name(p["name"]) if p.get("computer") else p["name"]
        for pid, p in state["players"].items()
    }


def shown_state(state: dict) -> dict:
    """``state`` with its computer players named in the request's language, for the engine's
    views (which draw names from the state): the state itself stays language-neutral."""
    if not any(p.get("computer") for p in state["players"].values()):
        return state
    names = shown_names(state)
    players = {pid: {**p, "name": names[pid]} for pid, p in state["players"].items()}
    return {**state, "players": players}


def shown_hands(table, entries: list[dict]) -> list[dict]:
    """Hand records as this screen draws them: their computers named in its language (a record
    keeps the names as the table did)."""
    computers = {pid for pid, p in table.state["players"].items() if p.get("computer")}
    if not computers:
        return entries
    return [
        {
            **entry,
            "meta": {
                **entry["meta"],
                "names": {
                    pid: shown_name(name) if pid in computers else name
                    for pid, name in entry["meta"]["names"].items()
                },
            },
        }
        for entry in entries
    ]


def table_view(table, seat=None) -> dict:
    """The engine's view for a seat (None: the view every screen shares), with the odds of
    each kind of bet for the help panel and, once the night is over, its end (:func:`night`).

    The shared view is worked out without the time: what every screen shows alike depends on
    the version alone, and is rendered once per version (:mod:`montones.live.renders`); the clocks
    it shows are deadlines the page counts down (``data-until``). A seat's view takes the time
    (the app's clock), for what the rules let it do now: a bank whose time is up closes.
    """
    engine = game(table.game)
    view = engine.view(shown_state(table.state), seat, clock().time() if seat is not None else None)
    view["odds"] = engine.table_odds(table.state)
    view["night"] = night(table) if table.ended_at else None
    # Why nobody new can sit down now, if so: the TV stops inviting with its code to join.
    view["no_room"] = service.no_room(table)
    return view


def night(table) -> dict:
    """The night as its end shows it on every screen: the standings net of buy-ins, its story,
    and the next night's table once the host has started one."""
    names = shown_names(table.state)
    story = service.story(table)
    for key, line in story.items():
        if isinstance(line, dict):
            story[key] = {**line, "name": names.get(line["player"], line["name"])}
            if "banker_name" in line:
                story[key]["banker_name"] = names.get(line["banker"], line["banker_name"])
    return {
        "standings": [
            {**row, "name": names.get(row["player"], row["name"])}
            for row in service.standings(table)
        ],
        "story": story,
        "next": table.next_code,
    }


def percent(value: Fraction) -> str:
    """A share as the request's language writes a percentage, with one decimal ("5.4%",
    "5,4 %"): the locale's own pattern, which has no decimals, given one."""
    locale = get_locale()
    pattern = parse_pattern(locale.percent_formats[None].pattern)
    pattern.frac_prec = (1, 1)
    return pattern.apply(Decimal(value.numerator) / Decimal(value.denominator), locale)


def number(value) -> str:
    """A count as the request's language writes it ("1,250", "1.250", "1 250"): Babel's, kept
    by language and count (a felt writes a few dozen, each costing Babel its pattern's walk:
    docs/performance.md)."""
    return _number(str(get_locale()), value)


@lru_cache(maxsize=4096, typed=True)
def _number(locale: str, value) -> str:
    return format_decimal(value)


def number_in(locale: Locale) -> Callable[[object], str]:
    """:func:`number` in ``locale``, for work done away from the request (a chart drawn in
    another thread: see :mod:`montones.web.chart`)."""
    return lambda value: babel_format_decimal(value, locale=locale)


def grouped_payments(lines: list[dict], losses: bool = False) -> list[dict]:
    """A deal's payment lines as a crowded list shows them, in the order the bank paid: each
    run of two or more void lines in a row (the bank empty: the stakes back, nothing paid) one
    entry, ``voids``, its players each named once with how many of their bets it holds
    ("Dolores ×2") in ``names``, its last line in ``last``; given ``losses``, each run of one
    player's whole losses in a row one entry, ``lost``, its amounts in ``amounts`` ("-25 ×4",
    or "-25 -10"); every other line as it is (``line``), a capped payment among them. Twenty-one
    void lines of a Russian hand drew twelve players' side at 17.6 px, a Monte Bank deal's
    thirty lines its felt at 17.8 (issue 36)."""
    entries: list[dict] = []
    run: list[dict] = []

    def kind(line: dict):
        if line["result"] == "void" and not line.get("undecided"):
            return "void"
        if losses and line["result"] == "lost" and -line["net"] == line["stake"]:
            return ("lost", line["name"])
        return None

    def close() -> None:
        if len(run) < 2:
            entries.extend({"line": line} for line in run)
        elif kind(run[0]) == "void":
            counts: dict[str, int] = {}
            for line in run:
                counts[line["name"]] = counts.get(line["name"], 0) + 1
            names = ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in counts.items())
            entries.append({"voids": list(run), "names": names, "last": run[-1]})
        else:
            nets = [line["net"] for line in run]
            if len(set(nets)) == 1:
                amounts = f"{number(nets[0])} ×{len(nets)}"
            else:
                amounts = " ".join(number(net) for net in nets)
            entries.append({"lost": list(run), "name": run[0]["name"], "amounts": amounts})
        run.clear()

    for line in lines:
        if run and kind(line) != kind(run[0]):
            close()
        if kind(line) is None:
            entries.append({"line": line})
        else:
            run.append(line)
    close()
    return entries


def hour(iso: str) -> str:
    """The time of day of an ISO timestamp, as the request's language writes it ("9:41 PM",
    "21:41")."""
    return format_time(datetime.fromisoformat(iso), "short")


def render_regions(template: str, blocks: list[str], http_status: int = 200, **context):
    """The named blocks of a page, the first swapped in place and the rest out of band."""
    if "nonce" not in context:
        context["nonce"] = secrets.token_urlsafe(12)
    draw = block_drawer(template, context)
    parts = []
    for i, block in enumerate(blocks):
        parts.append(draw(block, oob=i > 0 or context.get("all_oob", False)))
    html = "".join(parts)
    response = make_response(html, http_status)
    response.headers["Vary"] = "HX-Request"
    response.headers["Cache-Control"] = "no-store"
    return response


def block_drawer(template: str, context: dict):
    """``draw(block, **values)``: a block of ``template`` drawn with ``context`` (and the
    block's own ``values``). Flask's context processors run once for all the blocks drawn, not
    once per block as jinja2_fragments' Flask helper runs them."""
    app = current_app._get_current_object()
    app.update_template_context(context)

    def draw(block: str, **values) -> str:
        return jinja2_fragments.render_block(app.jinja_env, template, block, {**context, **values})

    return draw


def drawn_once(template: str, **inputs) -> Markup:
    """``template`` drawn from ``inputs`` alone (hashable values: no request, no table), once
    for them and the request's language, in the live channel's render cache: a first hand's
    guide is the same few lines and pictures for every phone at a step."""
    key = ("once", template, str(get_locale()), tuple(sorted(inputs.items())))
    template_ = current_app.jinja_env.get_template(template)
    return Markup(channel.of().renders.get(key, lambda: template_.render(**inputs)))


def join_url(table) -> str:
    return public_url("seats.join", table)


def watch_url(table) -> str:
    return public_url("watch.page", table)


def public_url(endpoint: str, table) -> str:
    """The address of a table's page as a guest's phone reaches it (the TV and the host page
    show it, and its QR code)."""
    public = current_app.config.get("PUBLIC_URL")
    path = url_for(endpoint, code=table.code)
    return (
        public.rstrip("/") + path if public else url_for(endpoint, code=table.code, _external=True)
    )


def not_kept(response):
    """A seat's pages show its rejoin code, its hands and the table's record: no cache keeps
    them (an answer that says otherwise keeps its own). The table's blueprints' after_request."""
    response.headers.setdefault("Cache-Control", "no-store")
    return response


def back_to(endpoint: str, **values):
    return redirect(url_for(endpoint, **values), code=303)


def wants_fragment() -> bool:
    """Whether htmx asked (flask-htmx reads its HX-Request header)."""
    return bool(htmx)


def qr_code(url: str) -> Response:
    """A QR code of ``url``, an SVG the TV and the host page show."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=10, border=2)
    response = Response(out.getvalue(), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "max-age=3600"
    return response
