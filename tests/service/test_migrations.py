"""The schema is the migrations' (montones/migrations/): a new database is made by them as the
models describe it, and a database made before them is brought up to date."""

from pathlib import Path

import flask_migrate
from sqlalchemy import inspect

from montones.extensions import db
from tests.helpers.apps import make_app

HEAD = "0005"


def opened(url):
    return make_app(url)


def revision() -> str:
    with db.engine.connect() as conn:
        return conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one()


def test_a_new_database_is_made_as_the_models_describe_it(fresh_database):
    app = opened(fresh_database)
    with app.app_context():
        assert revision() == HEAD
        flask_migrate.check()  # exits 1 where the models and the migrated schema differ
        db.engine.dispose()


def test_a_database_made_before_migrations_gets_the_columns_added_since(fresh_database):
    app = opened(fresh_database)
    with app.app_context():
        with db.engine.begin() as conn:  # as the app made it before it had migrations
            conn.exec_driver_sql("DROP TABLE alembic_version")
            for table, column in (
                ("game_tables", "tv_language"),
                ("game_tables", "next_code"),
                ("game_tables", "party"),
                ("ledger", "kind"),
                ("players", "choices"),
            ):
                conn.exec_driver_sql(f"ALTER TABLE {table} DROP COLUMN {column}")
        db.engine.dispose()
    app = opened(fresh_database)
    with app.app_context():
        assert revision() == HEAD
        columns = {c["name"] for c in inspect(db.engine).get_columns("game_tables")}
        assert {"tv_language", "next_code", "party"} <= columns
        assert "kind" in {c["name"] for c in inspect(db.engine).get_columns("ledger")}
        assert "choices" in {c["name"] for c in inspect(db.engine).get_columns("players")}
        flask_migrate.check()
        db.engine.dispose()


def test_the_migrations_go_down_to_nothing_and_up_again(fresh_database):
    app = opened(fresh_database)
    with app.app_context():
        flask_migrate.downgrade(revision="base")
        assert inspect(db.engine).get_table_names() == ["alembic_version"]
        flask_migrate.upgrade()
        assert revision() == HEAD
        flask_migrate.check()
        db.engine.dispose()


def test_a_migration_imports_nothing_of_the_app():
    """A migration is frozen: it holds its own copy of what it runs (the triggers' statements,
    a ledger kind), so that changing the models never changes what an old migration does."""
    versions = Path(__file__).resolve().parents[2] / "montones" / "migrations" / "versions"
    found = [
        f"{path.name}: {line.strip()}"
        for path in sorted(versions.glob("*.py"))
        for line in path.read_text().splitlines()
        if line.lstrip().startswith(("import montones", "from montones"))
    ]
    assert not found, "\n".join(found)
