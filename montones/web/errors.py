"""The app's own answers to an error that reached no view's: a table that does not exist, and a
tap refused before its view (a page out of date). Registered with the app (``init_app``)."""

from __future__ import annotations

from flask import render_template, request

from montones import service
from montones.web import limits
from montones.web.common import refusal, wants_fragment
from montones.web.seats import gone


def init_app(app) -> None:
    app.register_error_handler(400, bad_request)
    app.register_error_handler(service.NotFound, no_table)


def bad_request(error):
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
    return gone(table, "out_of_date", 400, error.description)


def no_table(error):
    limits.missed()
    return render_template("play/missing.html", message=refusal(error)), 404
