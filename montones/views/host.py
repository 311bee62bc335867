"""The host: the device that created a table, with the switches for the night."""

from __future__ import annotations

import secrets

from flask import Blueprint, abort, flash, render_template, request, session
from flask_babel import gettext as _

from montones import service
from montones.views.common import (
    ENGINES,
    actor_for,
    back_to,
    int_field,
    join_url,
    refusal,
    remember,
    table_view,
)

bp = Blueprint("host", __name__, url_prefix="/t/<code>/host")


@bp.get("/claim/<secret>")
def claim(code, secret):
    """The host link: opening it on any device gives that device the host rights."""
    table = service.get_table(code)
    if not service.is_host(table, secret):
        abort(403)
    remember("hosts", table.code, secret)
    return back_to("host.page", code=table.code)


@bp.get("")
def page(code):
    table = service.get_table(code)
    actor, _player = actor_for(table)
    if not actor.is_host:
        abort(403)
    secret = session.get("hosts", {}).get(table.code)
    show_link = session.pop("show_host_link", None) == table.code
    return render_template(
        "host/table.html",
        table=table,
        v=table_view(table, actor.seat),
        join_url=join_url(table),
        host_secret=secret if show_link else None,
        standings=ENGINES[table.game].standings(table.state),
        nonce=secrets.token_urlsafe(12),
        actor=actor,
    )


@bp.post("/<kind>")
def act(code, kind):
    table = service.get_table(code)
    actor, _player = actor_for(table)
    # Only the host, and only the host's own actions: a player's actions go through /a/<kind>.
    host_kinds = {k for k, spec in service.ACTIONS[table.game].items() if spec.role == "host"}
    if not actor.is_host or kind not in host_kinds | {"pause", "resume", "end"}:
        abort(403)
    try:
        if kind in ("pause", "resume", "end"):
            service.host_action(table.code, actor, kind)
            if kind == "end":
                return back_to("play.standings", code=table.code)
        else:
            params = {}
            if kind in ("kick", "top_up"):
                params["seat"] = request.form.get("seat", "")
            if kind == "top_up":
                params["amount"] = int_field(request.form, "amount", _("The top-up"))
            # A resent form (a double tap on "+") gives the chips once.
            service.act(table.code, actor, kind, params, nonce=request.form.get("nonce") or None)
    except service.ServiceError as error:
        if isinstance(error, service.NotAllowed):
            abort(403)
        flash(refusal(error))
    return back_to("host.page", code=table.code)
