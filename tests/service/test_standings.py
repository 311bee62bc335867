"""The night's standings as a property: random nights of every game, played by computer players
through the service layer on a real database, with top-ups, computers taken off mid-hand and the
night ended whenever the draw says (mid-bank too). Whatever happened:

- each player's ``bought`` is their starting chips and the top-ups the host gave them, as this
  test counted them (a settlement's winnings, a bank coming back or a levy split are no buy-in);
- ``net`` is ``chips - bought``, and the places follow the nets;
- once the night is over, the nets add up to minus what the house kept (the levy's halves in
  Monte Bank; nothing in the other games), and each player's chips are the ledger's;
- a new night's players have bought exactly their starting chips there;
- the night's export verifies: its standings are what its hands and buy-ins add up to.

``STANDINGS_EXAMPLES`` nights per game and database (40 unless set).
"""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from montones import service
from montones.data import history
from montones.data.clock import ManualClock
from montones.data.models import Action
from montones.extensions import db
from montones.rules import audit
from montones.rules.games import game
from montones.service import Actor
from tests.helpers.apps import make_app
from tests.helpers.random_night import SETTINGS, STEPS, ServiceNight
from tests.helpers.random_night import play_computers as play

HOST = Actor(is_host=True)
EXAMPLES = int(os.environ.get("STANDINGS_EXAMPLES", "40"))


def told(name: str, table) -> None:
    """What the night went through, for ``--hypothesis-show-statistics``."""
    for events in db.session.scalars(select(Action.events).where(Action.table_id == table.id)):
        for happened in events:
            if happened["type"] == "bank_passed":
                event(f"{name}: a bank passed ({happened['why']})")
            elif happened["type"] == "pot_split" and happened["house"]:
                event(f"{name}: the house kept a levy")
            elif happened["type"] == "passed":
                event(f"{name}: a pass")


def check(code: str, bought: Counter) -> None:
    table = service.get_table(code)
    rows = service.standings(table)
    assert {row["player"]: row["bought"] for row in rows} == {
        seat: bought[seat] for seat in table.state["seats"]
    }
    for row in rows:
        assert row["net"] == row["chips"] - row["bought"]
    nets = [row["net"] for row in rows]
    assert nets == sorted(nets, reverse=True)
    if not table.ended_at:
        return
    kept = game(table.game).balances(table.state).get("house", 0)
    assert sum(nets) == -kept, rows
    ledger = service.ledger_totals(table)
    for row in rows:
        assert row["chips"] == ledger.get(f"player:{row['player']}", 0)


@pytest.mark.parametrize("name", sorted(SETTINGS))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), computers=st.integers(2, 4), chips=st.sampled_from([5, 30, 100]))
def test_the_nets_of_a_night_add_up_to_minus_what_the_house_kept(app, name, data, computers, chips):
    table_settings = data.draw(SETTINGS[name], "settings")
    steps = data.draw(STEPS, "steps")
    kept_clock = app.extensions["clock"]
    app.extensions["clock"] = clock = ManualClock()
    try:
        with app.app_context():
            played(clock, name, table_settings, computers, chips, steps)
    finally:
        app.extensions["clock"] = kept_clock


def played(clock, name, table_settings, computers, chips, steps):
    night = ServiceNight(clock, name, table_settings, computers, chips)
    code = night.code
    for step in [*steps, ("play", 40), ("end",)]:
        if service.get_table(code).ended_at:
            break
        night.apply(step)
        check(code, night.bought)
    check(code, night.bought)
    told(name, service.get_table(code))
    # The export says the same, and verify re-derives it from the hands and buy-ins.
    assert audit.verify(json.loads(json.dumps(history.export(service.get_table(code))))) == []
    new = service.new_night(code, HOST)
    assert {row["bought"] for row in service.standings(new)} <= {chips}


def test_a_monte_bank_night_whose_house_kept_a_levy_counts_no_winnings_as_bought(app, clock):
    """The night of issue 36: levies paid, banks passed and broken; the house keeps its halves of
    the pot. Nights of computers are played until one has (a levy needs a first-card win)."""
    with app.app_context():
        for _ in range(40):
            table, _secret = service.create_table(
                "monte_bank", "Night", 100, {"min_bet": 2, "bank_size": 10, "deals_per_bank": 2}
            )
            seats = [service.add_computer(table.code, HOST)[1] for _ in range(3)]
            service.act(table.code, HOST, "draw", {})
            service.act(table.code, HOST, "top_up", {"seat": seats[1], "amount": 50})
            play(clock, table.code, 400)
            table = service.get_table(table.code)
            assert table.ended_at  # every bank held: the night is over
            kept = table.state["house"]
            if kept:
                break
        else:
            pytest.fail("40 nights of Monte Bank and the house never kept a levy")
        check(table.code, Counter({seats[0]: 100, seats[1]: 150, seats[2]: 100}))
        assert sum(row["net"] for row in service.standings(table)) == -kept < 0


def test_a_database_from_before_buy_ins_were_marked_upgrades_with_its_buy_ins(fresh_database):
    """An older database's ledger has no ``kind``: the app adds it, marks the entries of its
    joins and top-ups as buy-ins, and the ledger is append-only again afterwards."""

    def opened():
        app = make_app(fresh_database)
        app.extensions["clock"] = ManualClock()
        return app

    app = opened()
    with app.app_context():
        for _ in range(40):  # a night whose house kept a levy, as the was
            table, _secret = service.create_table(
                "monte_bank", "Night", 100, {"min_bet": 2, "bank_size": 10, "deals_per_bank": 2}
            )
            seats = [service.add_computer(table.code, HOST)[1] for _ in range(3)]
            service.act(table.code, HOST, "draw", {})
            service.act(table.code, HOST, "top_up", {"seat": seats[0], "amount": 30})
            play(app.extensions["clock"], table.code, 400)
            if service.get_table(table.code).state["house"]:
                break
        code = table.code
        before = service.standings(service.get_table(code))
        db.session.remove()
        with db.engine.begin() as conn:  # the ledger as it was made before migrations
            conn.exec_driver_sql("ALTER TABLE ledger DROP COLUMN kind")
            conn.exec_driver_sql("DROP TABLE alembic_version")
        db.engine.dispose()
    app = opened()
    with app.app_context():
        table = service.get_table(code)
        assert service.buy_ins(table) == {seats[0]: 130, seats[1]: 100, seats[2]: 100}
        assert service.standings(table) == before
        db.session.remove()
        with pytest.raises(Exception, match="append-only"):
            with db.engine.begin() as conn:
                conn.exec_driver_sql("UPDATE ledger SET kind = NULL")
        db.engine.dispose()
