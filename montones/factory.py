"""The Flask application factory (imported lazily by :func:`montones.create_app`)."""

import os
import secrets
from collections.abc import Mapping
from pathlib import Path

import orjson
from babel import Locale
from flask import Flask, current_app, g, request, session
from flask.templating import Environment
from flask_babel import get_locale, get_translations
from jinja2 import pass_context
from markupsafe import Markup

from montones import channel, clock, limits, models, security, views
from montones.config import Config
from montones.extensions import babel, db, htmx

# templates/ and static/ are top-level folders of the checkout (the project is installed editable).
REPO_ROOT = Path(__file__).resolve().parent.parent


class Templates(Environment):
    """Flask's Jinja environment, with ``a.b`` on a plain dict found as the key first.

    The views hand the templates the rules' views: dicts, nested. Jinja tries ``a.b`` as an
    attribute first and the key after the AttributeError, and an exception per lookup was a
    fifth of a phone felt's render and a third of the TV's. A key named like a dict method
    (``items``, ``get``) now gives the key's value; no view has such a key, and the templates
    call those methods only on dicts without one.

    A template's globals are one dict, the environment's as they stand when it is loaded (every
    global is set in :func:`create_app`, before the first template; Jinja asks that none change
    after). Jinja's own ChainMap made every ``{% from ... import ... %}`` of a render compare
    the importing template's globals with it key by key (a seventh of a phone's status line).
    """

    def make_globals(self, d):
        return {**self.globals, **(d or {})}

    def getattr(self, obj, attribute):
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


def create_app(test_config=None):
    """Create the app; ``test_config`` (a config class or a mapping) is applied over ``Config``."""
    app = Flask(
        __package__,  # the app is the package (the games have names of their own)
        instance_relative_config=True,
        template_folder=str(REPO_ROOT / "templates"),
        static_folder=str(REPO_ROOT / "static"),
    )
    app.jinja_environment = Templates
    app.config.from_object(Config)
    if isinstance(test_config, Mapping):
        app.config.from_mapping(test_config)
    elif test_config is not None:
        app.config.from_object(test_config)

    instance = Path(app.instance_path)
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = _instance_secret_key(instance)
    if not app.config["SQLALCHEMY_DATABASE_URI"]:
        instance.mkdir(parents=True, exist_ok=True)
        app.config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{instance / 'montones.sqlite'}"

    options = {**app.config.get("SQLALCHEMY_ENGINE_OPTIONS", {})}
    # JSON columns through orjson: a table's state is read and written with every action.
    options.setdefault("json_serializer", _json_text)
    options.setdefault("json_deserializer", orjson.loads)
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        # A file on this machine: no connection to go stale (so no ping before each use), and
        # as many connections as the server has threads, each cheap. The one used last is
        # taken first: as a rule nothing was written since by another, so SQLite keeps its
        # page cache; one that sat in the pool while others wrote reads its pages again.
        options.pop("pool_pre_ping", None)
        if app.config["SQLALCHEMY_DATABASE_URI"] not in ("sqlite://", "sqlite:///:memory:"):
            options.setdefault("pool_size", 32)
            options.setdefault("max_overflow", 64)
            options.setdefault("pool_use_lifo", True)
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] = options
    clock.init_app(app)
    channel.init_app(app)
    db.init_app(app)
    babel.init_app(app, locale_selector=_select_locale)
    # Flask-Babel installs Jinja's newstyle gettext; the two the templates call are written out
    # over it. Jinja's ``_`` looks ``gettext`` up and calls it, which calls Flask-Babel's
    # function, which looks the translations up again, for each of the tens of strings of a
    # phone's answer (docs/performance.md, "Translations").
    app.jinja_env.globals.update(_=_gettext, gettext=_gettext, ngettext=_ngettext)
    htmx.init_app(app)
    app.before_request(_remember_lang)
    # Each language is named in itself, for the switch in base.html.
    languages = {
        code: Locale.parse(code).get_display_name(code).capitalize()
        for code in app.config["LANGUAGES"]
    }
    app.context_processor(lambda: {"current_locale": str(get_locale()), "languages": languages})
    security.init_app(app)
    limits.init_app(app)
    views.init_app(app)
    models.init_app(app)
    return app


def _translations():
    """The templates' translations, as Flask-Babel's, found once per request and language.

    Flask-Babel looks them up again for every string, and a phone's answer asks for tens of
    strings (docs/performance.md, "Translations"). Kept beside the locale Flask-Babel holds for
    the request, with the locale they are for: a render in another language (``force_locale``,
    which puts another locale object there) looks its own up.
    """
    babel = g.get("_flask_babel")
    held = getattr(babel, "babel_locale", None)
    kept = getattr(babel, "montones_translations", None)
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


def _json_text(value) -> str:
    """A JSON column's text; a key that is not a string is written as one, as the json module
    does."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _instance_secret_key(instance: Path) -> str:
    """The key kept in the instance folder, made on first start so sessions survive restarts."""
    instance.mkdir(parents=True, exist_ok=True)
    path = instance / "secret_key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    key = secrets.token_hex(32)
    with os.fdopen(fd, "w") as f:
        f.write(key)
    return key


def _remember_lang():
    """The switch's choice, kept for this device (the session cookie, 31 days) over the
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
