"""The app's four languages: which one a request is answered in, and the templates' gettext.

The switch's choice is kept for the device (the session cookie) over the browser's
Accept-Language. The templates' ``_`` and ``ngettext`` are written out over Flask-Babel's:
Jinja's ``_`` looks ``gettext`` up and calls it, which calls Flask-Babel's function, which looks
the translations up again, for each of the tens of strings of a phone's answer
(docs/performance.md, "Translations").
"""

from babel import Locale
from flask import current_app, g, request, session
from flask_babel import get_locale, get_translations
from jinja2 import pass_context
from markupsafe import Markup

from montones.extensions import babel


def init_app(app) -> None:
    babel.init_app(app, locale_selector=_select_locale)
    app.jinja_env.globals.update(_=_gettext, gettext=_gettext, ngettext=_ngettext)
    app.before_request(_remember_lang)
    # Each language is named in itself, for the switch in base.html.
    languages = {
        code: Locale.parse(code).get_display_name(code).capitalize()
        for code in app.config["LANGUAGES"]
    }
    app.context_processor(lambda: {"current_locale": str(get_locale()), "languages": languages})


def _translations():
    """The templates' translations, as Flask-Babel's, found once per request and language.

    Flask-Babel looks them up again for every string, and a phone's answer asks for tens of
    strings (docs/performance.md, "Translations"). Kept beside the locale Flask-Babel holds for
    the request, with the locale they are for: a render in another language (``force_locale``,
    which puts another locale object there) looks its own up.
    """
    held_babel = g.get("_flask_babel")
    held = getattr(held_babel, "babel_locale", None)
    kept = getattr(held_babel, "montones_translations", None)
    if held is not None and kept is not None and kept[0] is held:
        return kept[1]
    locale = get_locale()
    translations = get_translations()
    g._flask_babel.montones_translations = (locale, translations)
    return translations


@pass_context
def _gettext(context, message: str, /, **variables) -> str:
    """``_("...", name=value)`` in a template, as Jinja's newstyle gettext does it: translated,
    marked safe where the template escapes, and %-formatted with escaped values (a message with
    no "%" in it needs no formatting, and is spared it)."""
    text = _translations().ugettext(message)
    if context.eval_ctx.autoescape:
        text = Markup(text)
    return text % variables if variables or "%" in text else text


@pass_context
def _ngettext(context, singular: str, plural: str, num: int, /, **variables) -> str:
    variables.setdefault("num", num)
    text = _translations().ungettext(singular, plural, num)
    if context.eval_ctx.autoescape:
        text = Markup(text)
    return text % variables


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
