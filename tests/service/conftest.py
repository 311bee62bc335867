"""Service tests run on a real database: SQLite always, PostgreSQL where a server answers
(the ``postgres_url`` fixture of tests/conftest.py)."""

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
