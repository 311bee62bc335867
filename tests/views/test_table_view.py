"""The view the templates draw from (views.common.table_view): the view every screen shares
depends on the table's version alone, and a seat's own part on the time as well."""

from __future__ import annotations

import pytest

from montones import service
from montones.web import common
from tests.helpers.nights import Night


@pytest.fixture
def settled(app, clock):
    night = Night(app, "Ana", "Ben", "Eva", tenure=60)
    night.to_betting("Ana", bank=30)
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Eva", "choose", heap=3)
    night.ok("Ana", "close")
    return night


def test_each_seat_has_its_own_part(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    with app.test_request_context("/"):
        table = service.get_table(night.code)
        everyone = common.table_view(table)
        ben = common.table_view(table, night.seats["Ben"])
        assert everyone["me"] is None
        assert ben["me"]["id"] == night.seats["Ben"]
        assert ben["heaps"] == everyone["heaps"]
        assert "bet" in ben["me"]["can"]
        assert "bet" not in common.table_view(table, night.seats["Ana"])["me"]["can"]


def test_the_view_every_screen_shares_does_not_change_with_the_time(app, clock, settled):
    with app.test_request_context("/"):
        table = service.get_table(settled.code)
        before = common.table_view(table)
        clock.advance(2 * 60 * 60)  # the bank's time is long up
        assert common.table_view(table) == before
        assert before["bank"]["ends_at"]  # the clock it shows is a deadline the page counts


def test_a_seats_view_takes_the_time_a_bank_whose_time_is_up_closes(app, clock, settled):
    with app.test_request_context("/"):
        table = service.get_table(settled.code)
        assert not common.table_view(table, settled.seats["Ana"])["bank"]["closing"]
        clock.advance(61 * 60)
        assert common.table_view(table, settled.seats["Ana"])["bank"]["closing"]


def test_the_bankers_bar_offers_to_close_the_bank_once_its_time_is_up(clock, settled):
    def bar() -> str:
        answer = settled.clients["Ana"].get(
            f"/t/{settled.code}/p/seat", headers={"HX-Request": "true"}
        )
        return answer.get_data(as_text=True)

    assert "Gather and deal the next hand" in bar()
    clock.advance(61 * 60)  # no new version: the time alone
    assert "Close the bank" in bar()
