"""Service tests run on a real database: SQLite always, PostgreSQL where a server answers
(the ``postgres_url`` fixture of tests/conftest.py)."""

import secrets

import pytest


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def database_url(request, tmp_path_factory):
    """Each module's app (the ``app`` fixture of tests/conftest.py) on SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('db') / 'montones.sqlite'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_database(request, tmp_path):
    """A database of its own, whose schema the test may take back to an older one: a SQLite
    file, or a new PostgreSQL database where the tests' server answers."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.sqlite'}"
        return
    request.getfixturevalue("postgres_url")  # skips (or fails under CI) with no server
    import psycopg

    from tests.helpers.apps import PG_ADMIN

    name = f"montones_upgrade_{secrets.token_hex(4)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
