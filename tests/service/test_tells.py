"""A phone is told ("mine") exactly when its own regions would change: the invariant of
``updates.own``, under the ledger machine's random nights of all three games.

After every step, for every seated phone at every table: the phone's own regions (its status
and its bar, fetched as its stream's "mine" makes it fetch them) and ``updates.own`` at the
table's version, worked out from the seat's view and, as the fan-out does, from the shared view
with the seat's own part in it (the two must agree). Whenever ``own`` is what it was at the phone's previous check, the regions
must be too (their CSRF token and #own aside): otherwise a phone that is
not told would keep showing regions that changed. ``TELL_EXAMPLES`` sets the number of examples
(15 under ``CI=true``, 8 otherwise).
"""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import settings
from hypothesis.stateful import invariant, run_state_machine_as_test

from montones import create_app, service
from montones.config import TestConfig
from montones.data.clock import clock
from montones.live import updates
from montones.rules.games import game
from tests.helpers.nights import HX
from tests.service.test_ledger_machine import LedgerMachine

# What differs between two drawings of the same regions: the session's CSRF token, and #own (the
# version they were drawn at, the drawing's nonce).
_DRAWING = re.compile(r'name="csrf_token" value="[^"]*"|<div id="own".*?</div>')


def drawn(html: str) -> str:
    return _DRAWING.sub("", html)


class TellMachine(LedgerMachine):
    def __init__(self, app):
        super().__init__(app)
        self.seen: dict[tuple[str, str], tuple] = {}  # (code, seat) -> (own, regions)
        self.compared = 0

    @invariant()
    def a_phone_not_told_shows_nothing_new(self):
        for t in self.current.values():
            with self.app.app_context():
                table = service.get_table(t.code)
            for seat, phone in t.seats.items():
                if table.state["players"][seat].get("left"):
                    continue
                with self.app.test_request_context():
                    engine, now = game(table.game), clock().time()
                    own = updates.own(table, engine.view(table.state, seat, now))
                    # What the fan-out works it out from: the shared view with the seat's own
                    # part in it.
                    shared = engine.view(table.state, None, now)
                    mine = engine.my_view(table.state, seat, now)
                    assert updates.own(table, {**shared, "me": mine}) == own, (t.game, seat)
                response = phone.client.get(f"/t/{t.code}/p/mine", headers=HX)
                if response.status_code != 200 or table.ended_at:
                    continue
                regions = drawn(response.get_data(as_text=True))
                before = self.seen.get((t.code, seat))
                if before is not None and before[0] == own:
                    self.compared += 1
                    assert regions == before[1], (
                        f"{t.game} table {t.code} v{table.version}, seat {seat}: its regions "
                        "changed and updates.own did not, so its phone would not be told"
                    )
                self.seen[(t.code, seat)] = (own, regions)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    class Config(TestConfig):
        SQLALCHEMY_DATABASE_URI = f"sqlite:///{tmp_path_factory.mktemp('tells') / 'm.sqlite'}"
        SQLALCHEMY_ENGINE_OPTIONS = {"pool_pre_ping": False}

    return create_app(Config)


def test_a_phone_is_told_whenever_its_own_regions_change(app):
    examples = int(os.environ.get("TELL_EXAMPLES", 15 if os.environ.get("CI") == "true" else 8))
    machines = []

    def machine():
        machines.append(TellMachine(app))
        return machines[-1]

    run_state_machine_as_test(
        machine,
        settings=settings(
            LedgerMachine.TestCase.settings, max_examples=examples, derandomize=False
        ),
    )
    # The check ran: phones whose own view had not moved were compared.
    assert sum(m.compared for m in machines) > 0
