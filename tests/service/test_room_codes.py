"""Room codes are few (24**4): a table nobody ever sat at or acted on gives its code back after
a while, so that tables made and left empty cannot use them up."""

from datetime import timedelta

from sqlalchemy import select, update

from montones import service
from montones.data import store
from montones.data.models import GameTable
from tests.helpers.nights import Night

ROWS = GameTable.__table__


def made_hours_ago(app, code: str, hours: float) -> None:
    with app.app_context(), store.transaction() as conn:
        conn.execute(
            update(ROWS)
            .where(ROWS.c.code == code)
            .values(created_at=store.clock().utcnow() - timedelta(hours=hours))
        )


def take(app, code: str) -> bool:
    with app.app_context(), store.transaction() as conn:
        return store.take_code(conn, code)


def test_an_empty_table_gives_its_code_back_after_twelve_hours(app):
    with app.app_context():
        table, _secret = service.create_table("montones", "", 100, {})
    made_hours_ago(app, table.code, 11.9)
    assert not take(app, table.code)
    made_hours_ago(app, table.code, 12.1)
    assert take(app, table.code)
    with app.app_context():
        row = (
            app.extensions["sqlalchemy"]
            .session.execute(select(ROWS.c.code).where(ROWS.c.id == table.id))
            .scalar_one()
        )
    assert row == f"-{table.id:x}"  # kept, under a code nobody can type


def test_a_table_someone_sat_at_keeps_its_code(app):
    night = Night(app, "Ana")
    made_hours_ago(app, night.code, 48)
    assert not take(app, night.code)


def test_a_code_no_table_has_is_free(app):
    assert take(app, "ZZZZ")
