"""The one way the tests make an app (the ``app`` fixture of tests/conftest.py, and a test that
needs a second one): the tests' configuration on a database of its own, with a module's own
settings over it."""

from __future__ import annotations

import os
from pathlib import Path

from montones import create_app
from montones.config import TestConfig, database_uri

# PostgreSQL for the tests of the scale-out path (the ``postgres_url`` fixture).
PG_ADMIN = os.environ.get("MONTONES_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


def make_app(database: str | Path, **config):
    """An app on ``database``: a database URL, or a folder for a new SQLite file in it; each of
    ``config`` set over :class:`TestConfig`."""
    if isinstance(database, Path):
        database = f"sqlite:///{database / 'montones.sqlite'}"

    class Config(TestConfig):
        SQLALCHEMY_DATABASE_URI = database_uri(database)

    for key, value in config.items():
        setattr(Config, key, value)
    return create_app(Config)
