"""CSRF tokens, cookie settings and the security headers every response carries."""

from __future__ import annotations

import secrets
from datetime import timedelta

from flask import abort, request, session

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "media-src 'self' data:; "  # NoSleep's silent video keeps a phone awake without Wake Lock
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)

# An SVG the app draws (the standings chart) carries its own <style>; it runs no script at all.
IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return token


def _refuse_nul():
    """A NUL byte is never part of a name, a code or a number (and PostgreSQL refuses it)."""
    values = [request.path]
    for source in (request.args, request.form):
        values += [value for listed in source.listvalues() for value in listed]
    if any("\x00" in value for value in values):
        abort(400, description="That request holds a character no field accepts.")
    return None


def _check_csrf():
    if request.method in SAFE_METHODS:
        return None
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token", "")
    expected = session.get("csrf")
    if not expected or not secrets.compare_digest(sent.encode(), expected.encode()):
        abort(400, description="This page is out of date: reload it and try again.")
    return None


def _headers(response):
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    # Pages answer htmx with a fragment and a browser with the whole page: caches must tell them apart.
    response.vary.add("HX-Request")
    return response


def init_app(app) -> None:
    # Flask has defaults for these (SameSite unset, 31 days): set ours, not setdefault.
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    app.config["PERMANENT_SESSION_LIFETIME"] = timedelta(days=2)
    app.before_request(_refuse_nul)
    app.before_request(_check_csrf)
    app.after_request(_headers)
    app.jinja_env.globals["csrf_token"] = csrf_token
