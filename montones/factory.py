"""The Flask application factory (imported lazily by :func:`montones.create_app`)."""

import os
import secrets
from collections.abc import Mapping
from pathlib import Path

import orjson
from flask import Flask
from flask.templating import Environment

from montones import web
from montones.config import Config
from montones.data import clock, models
from montones.extensions import db, htmx
from montones.live import channel
from montones.web import i18n, limits, security


def _folder(name: str) -> str:
    """``templates/`` or ``static/``: top-level folders of a checkout (and of an editable
    install), which a wheel installs inside the package (pyproject.toml)."""
    package = Path(__file__).resolve().parent
    inside = package / name
    return str(inside if inside.is_dir() else package.parent / name)


class Templates(Environment):
    """Flask's Jinja environment, its templates' globals one dict.

    A template's globals are one dict, the environment's as they stand when it is loaded (every
    global is set in :func:`create_app`, before the first template; Jinja asks that none change
    after). Jinja's own ChainMap made every ``{% from ... import ... %}`` of a render compare
    the importing template's globals with it key by key (a seventh of a phone's status line).
    """

    def make_globals(self, d):
        return {**self.globals, **(d or {})}


def create_app(test_config=None):
    """Create the app; ``test_config`` (a config class or a mapping) is applied over ``Config``."""
    app = Flask(
        __package__,  # the app is the package (the games have names of their own)
        instance_relative_config=True,
        # Where the night's database and secret key live: MONTONES_INSTANCE (montones serve
        # --instance), else Flask's instance folder.
        instance_path=os.environ.get("MONTONES_INSTANCE") or None,
        template_folder=_folder("templates"),
        static_folder=_folder("static"),
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
    i18n.init_app(app)
    htmx.init_app(app)
    # Limits first: a device out of guesses is answered 429 before a request of it is checked
    # (a refused CSRF token, a NUL byte), whose answer could tell a table from none.
    limits.init_app(app)
    security.init_app(app)
    web.init_app(app)
    models.init_app(app)
    return app


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
