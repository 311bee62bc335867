"""The app's four languages: which one a request is answered in (the templates' ``_`` and
``ngettext`` are Flask-Babel's).

The switch's choice is kept for the device (the session cookie) over the browser's
Accept-Language.
"""

from babel import Locale
from flask import current_app, request, session
from flask_babel import get_locale

from montones.extensions import babel


def init_app(app) -> None:
    babel.init_app(app, locale_selector=_select_locale)
    app.before_request(_remember_lang)
    # Each language is named in itself, for the switch in base.html.
    languages = {
        code: Locale.parse(code).get_display_name(code).capitalize()
        for code in app.config["LANGUAGES"]
    }
    app.context_processor(lambda: {"current_locale": str(get_locale()), "languages": languages})


def _remember_lang():
    """The switch's choice, kept for this device (the session cookie: two days, security.py) over the
    browser's Accept-Language."""
    lang = request.args.get("lang")
    if lang in current_app.config["LANGUAGES"] and session.get("lang") != lang:
        session["lang"] = lang
        session.permanent = True


def _select_locale():
    languages = current_app.config["LANGUAGES"]
    if session.get("lang") in languages:
        return session["lang"]
    return request.accept_languages.best_match(languages)
