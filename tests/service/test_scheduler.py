"""The scheduler: one thread per process that moves the computer players when their turn is
due, with no screen open (montones/live/scheduler.py)."""

from __future__ import annotations

import time

from montones import service
from montones.live import channel, scheduler
from montones.service import Actor
from tests.helpers.apps import make_app
from tests.helpers.services import actions, table_with

HOST = Actor(is_host=True)


def until(check, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()


def a_computer_to_move(app):
    """A table of Ana and two computers, drawn for the bank, whose next move is a computer's
    on the clock (Ana's bank, if she is drawn, put up): its code, the table and when it moves."""
    code, seats = table_with(app, computers=2)
    with app.app_context():
        service.act(code, HOST, "draw", {})
        table = service.get_table(code)
        if table.state["banker"] == seats["Ana"]:  # Ana's bank waits for Ana
            service.act(code, Actor(seat=table.state["banker"]), "bank", {"amount": 50})
            table = service.get_table(code)
        return code, table, service.clock_deadline(table)


def test_a_computer_moves_when_its_turn_is_due_with_no_screen_open(app, clock):
    code, table, due = a_computer_to_move(app)
    live = channel.of(app)
    assert not live.serving()  # no screen at all
    version = table.version
    clock.advance(due - clock.time() - 0.05)
    # Not before its turn: a round of the scheduler, run here, leaves the table as it was and
    # looks again in a moment (its turn is due), not after an idle wait.
    with app.app_context():
        assert 0 < live.scheduler.round() < scheduler.IDLE
    assert live.broker.published_version(code) == version
    live.scheduler.start()
    try:
        clock.advance(0.1)
        assert until(lambda: live.broker.published_version(code) > version)
        assert actions(app, code)[-1].actor != "system"  # the computer's own seat acted
    finally:
        live.scheduler.stop()


def test_a_table_another_worker_serves_is_ticked_from_the_database(app, clock):
    # A second app on the same database stands for another worker: it has never heard of the
    # table (no action, no stream, no NOTIFY on SQLite), and its scheduler finds it there.
    code, table, due = a_computer_to_move(app)
    other = make_app(app.config["SQLALCHEMY_DATABASE_URI"])
    other.extensions["clock"] = clock
    live = channel.of(other)
    assert live.broker.codes() == []
    live.scheduler.start()
    try:
        clock.advance(due - clock.time() + 0.1)
        assert until(lambda: live.broker.published_version(code) > table.version)
        assert actions(app, code)[-1].actor != "system"
    finally:
        live.scheduler.stop()


def test_a_code_no_table_has_stops_no_other_table_s_clock(app, clock):
    # A version heard for a table this database does not hold (another test's or night's, on
    # a shared PostgreSQL, or a table deleted since) must not fail every round: the other
    # tables' clocks go on.
    code, table, due = a_computer_to_move(app)
    live = channel.of(app)
    live.broker.publish("-EC", 3)
    clock.advance(due - clock.time() + 0.1)
    with app.app_context():
        assert live.scheduler.round() == 0.0  # the computer's turn was applied
    assert live.broker.published_version(code) > table.version
