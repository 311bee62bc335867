"""Service tests run on a real database: SQLite always, PostgreSQL where a server answers
(the ``postgres_url`` fixture of tests/conftest.py)."""

import secrets

import pytest

from montones import create_app
from montones.config import TestConfig


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def database_url(request, tmp_path_factory):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('db') / 'montones.sqlite'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture(scope="module")
def app(database_url):
    """One app per test module and database: each test makes its own tables."""
    from montones.config import database_uri

    class Config(TestConfig):
        SQLALCHEMY_DATABASE_URI = database_uri(database_url)

    app = create_app(Config)
    yield app
    with app.app_context():
        from montones.extensions import db

        db.session.remove()
        db.engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_database(request, tmp_path):
    """A database of its own, whose schema the test may take back to an older one: a SQLite
    file, or a new PostgreSQL database where the tests' server answers."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.sqlite'}"
        return
    request.getfixturevalue("postgres_url")  # skips (or fails under CI) with no server
    import psycopg

    from tests.conftest import PG_ADMIN

    name = f"montones_upgrade_{secrets.token_hex(4)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
