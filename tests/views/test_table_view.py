"""The view the templates draw from (views.common.table_view): what every seat sees alike is
worked out once per version, for a second at most, and a seat adds its own part to it."""

from __future__ import annotations

import copy

from montones_helpers import Night, put_state

from montones import service
from montones.views import common


def test_the_seats_of_one_version_share_one_view_and_each_has_its_own_part(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    with app.test_request_context("/"):
        table = service.get_table(night.code)
        everyone = common.table_view(table)
        ben = common.table_view(table, night.seats["Ben"])
        eva = common.table_view(table, night.seats["Eva"])
        assert everyone["me"] is None
        assert ben["heaps"] is everyone["heaps"] is eva["heaps"]  # worked out once
        assert ben["me"]["id"] == night.seats["Ben"] and eva["me"]["id"] == night.seats["Eva"]
        assert (
            "bet" in ben["me"]["can"]
            and "bet" not in common.table_view(table, night.seats["Ana"])["me"]["can"]
        )  # the banker does not bet


def test_a_view_is_worked_out_again_for_another_state_or_after_a_second(app, monkeypatch):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    with app.test_request_context("/"):
        table = service.get_table(night.code)
        first = common.table_view(table)
        assert common.table_view(table) is first
        monkeypatch.setattr(common, "VIEW_KEPT", -1.0)
        assert common.table_view(table) is not first
        monkeypatch.undo()
        kept = common.table_view(table)
        stacked = copy.deepcopy(table.state)
        stacked["players"][night.seats["Ben"]]["chips"] = 7
        put_state(table, stacked)  # the same version, another state (test set-up)
        again = common.table_view(service.get_table(night.code), night.seats["Ben"])
        assert again["me"]["chips"] == 7
        assert common.table_view(service.get_table(night.code)) is not kept
