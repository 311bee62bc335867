"""The app's four languages: which one a request is answered in (the templates' ``_`` and
``ngettext`` are Flask-Babel's, each answer kept by its language and words: :func:`kept`).

The switch's choice is kept for the device (the session cookie) over the browser's
Accept-Language.
"""

from babel import Locale
from flask import current_app, request, session
from flask_babel import get_locale, get_translations

from montones.extensions import babel


def init_app(app) -> None:
    babel.init_app(app, locale_selector=_select_locale)
    # Flask-Babel's own callables, asked once per language and words (see kept).
    app.jinja_env.install_gettext_callables(
        gettext=kept(lambda s: get_translations().ugettext(s)),
        ngettext=kept(lambda s, p, n: get_translations().ungettext(s, p, n)),
        newstyle=True,
        pgettext=kept(lambda c, s: get_translations().upgettext(c, s)),
        npgettext=kept(lambda c, s, p, n: get_translations().unpgettext(c, s, p, n)),
    )
    app.before_request(_remember_lang)
    # Each language is named in itself, for the switch in base.html.
    languages = {
        code: Locale.parse(code).get_display_name(code).capitalize()
        for code in app.config["LANGUAGES"]
    }
    app.context_processor(lambda: {"current_locale": str(get_locale()), "languages": languages})


KEPT = 20_000  # answers of each callable, at most: a plural's count makes them unbounded


def kept(ask):
    """``ask`` (one of Flask-Babel's template callables), its answer kept by the request's
    language and its arguments: a felt of thirty chips asks for the same words thirty times,
    and each ask costs Flask-Babel a walk through the request's globals to find its
    translations (docs/performance.md). Templates only: their variables are put in after."""
    answers: dict[tuple, str] = {}

    def translated(*words) -> str:
        key = (str(get_locale()), *words)
        found = answers.get(key)
        if found is None:
            if len(answers) >= KEPT:
                answers.clear()
            found = answers[key] = ask(*words)
        return found

    return translated


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
