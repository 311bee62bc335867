"""Service tests run on a real database: SQLite always, PostgreSQL where a server answers.

Outside CI, with no PostgreSQL server, the PostgreSQL runs skip and say why; under CI
(``CI=true``) they fail instead.
"""

import os
import secrets

import pytest

from montones import create_app
from montones.config import TestConfig

PG_ADMIN = os.environ.get("MONTONES_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


@pytest.fixture(scope="session")
def postgres_url():
    try:
        import psycopg

        admin = psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=3)
    except Exception as error:  # no driver or no server
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs PostgreSQL at {PG_ADMIN}: {error}")
        pytest.skip(f"no PostgreSQL at {PG_ADMIN} ({error.__class__.__name__}): SQLite only")
    name = f"montones_test_{secrets.token_hex(4)}"
    admin.execute(f'CREATE DATABASE "{name}"')
    yield PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    admin.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'montones.sqlite'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def app(database_url):
    from montones.config import database_uri

    class Config(TestConfig):
        SQLALCHEMY_DATABASE_URI = database_uri(database_url)

    app = create_app(Config)
    yield app
    with app.app_context():
        from montones.extensions import db

        db.session.remove()
        db.engine.dispose()
