"""Computer players at a real table, on a real database: seated by the host, acting when the
clock says their turn is due (a second or two after the table moved, never at once), their
chips real chips of the ledger and the history, and their moves made once however many
workers tick the table."""

import threading

import pytest
from sqlalchemy import func, select

from montones import service
from montones.data.models import Hand, LedgerEntry, Player
from montones.extensions import db
from montones.service import Actor
from tests.helpers.apps import make_app
from tests.helpers.services import actions, run_computers, table_with

HOST = Actor(is_host=True)


def test_the_host_seats_computer_players_with_names_and_the_starting_chips(app, clock):
    code, seats = table_with(app, people=("Ana", "Lola"))
    with app.app_context():
        table = service.get_table(code)
        players = table.state["players"]
        computers = {pid: p for pid, p in players.items() if p.get("computer")}
        assert [p["name"] for p in computers.values()] == ["Paco", "Carmen"]  # Lola is taken
        assert all(p["chips"] == 100 for p in computers.values())
        assert not players[seats["Ana"]].get("computer")
        rows = db.session.scalars(select(Player.seat).where(Player.table_id == table.id)).all()
        assert set(computers) <= set(rows)  # a seat of the table's like any other
        assert service.ledger_totals(table)["house"] == -400
        view = game_view(table)
        assert [p["computer"] for p in view["players"]] == [False, False, True, True]


def game_view(table):
    from montones.rules.games import game

    return game(table.game).view(table.state)


def test_only_the_host_seats_a_computer_player(app):
    code, seats = table_with(app, computers=0)
    with app.app_context(), pytest.raises(service.NotAllowed):
        service.add_computer(code, Actor(seat=seats["Ana"]))
    assert len(actions(app, code)) == 1


def test_a_form_sent_twice_seats_one_computer_player(app):
    code, _seats = table_with(app, computers=0)
    with app.app_context():
        _table, first = service.add_computer(code, HOST, nonce="n1")
        table, again = service.add_computer(code, HOST, nonce="n1")
        assert first == "p2" and again is None
        assert len(service.get_table(code).state["players"]) == 2


def test_a_computer_acts_a_second_or_two_after_the_table_moved_never_at_once(app, clock):
    code, seats = table_with(app, computers=2)
    with app.app_context():
        service.act(code, HOST, "draw", {})
        table = service.get_table(code)
        due = service.clock_deadline(table)
        banker = table.state["banker"]
        if banker == seats["Ana"]:  # Ana's bank waits for Ana: no computer has anything to do
            assert due is None
            service.act(code, Actor(seat=banker), "bank", {"amount": 50})
            table = service.get_table(code)
            due = service.clock_deadline(table)
        assert clock.time() + 1.0 <= due <= clock.time() + 2.0
        version = table.version
        assert not service.tick(code)  # not yet
        clock.advance(due - clock.time() - 0.01)
        assert not service.tick(code)
        assert service.get_table(code).version == version
        clock.advance(0.01)
        assert service.tick(code)
        assert service.get_table(code).version == version + 1
        assert actions(app, code)[-1].actor != "system"  # the computer's own seat acted


def test_a_computer_banker_waits_for_a_person_to_bet_then_closes_the_bets(app, clock):
    with app.app_context():
        for _ in range(30):  # the draw for the first bank is the deck's: until a computer wins it
            code, seats = table_with(app, computers=1)
            service.act(code, HOST, "draw", {})
            if service.get_table(code).state["banker"] != seats["Ana"]:
                break
        ana = Actor(seat=seats["Ana"])
        run_computers(clock, code, until=lambda s: s["phase"] == "cut")  # the bank put up
        service.act(code, ana, "cut", {"position": 12})
        table = service.get_table(code)
        # The computer banker gives Ana its patience: 12 seconds, not its pace.
        assert service.clock_deadline(table) == pytest.approx(clock.time() + 12, abs=0.01)
        clock.advance(11)
        assert not service.tick(code)
        service.act(code, ana, "bet", {"layout": "top", "amount": 3})
        table = service.get_table(code)
        due = service.clock_deadline(table)  # now every punter is in: the banker's pace
        assert clock.time() + 1.0 <= due <= clock.time() + 2.0
        clock.advance(2)
        assert service.tick(code)
        assert service.get_table(code).state["phase"] == "coup_over"


def test_a_computer_banker_waits_the_apps_patience(app, clock, monkeypatch):
    """COMPUTER_PATIENCE is how long a computer banker waits for a table of people (the test
    servers' scripted players need 2 seconds, not a person's 12)."""
    monkeypatch.setitem(app.config, "COMPUTER_PATIENCE", 2.0)
    with app.app_context():
        for _ in range(30):
            code, seats = table_with(app, computers=1)
            service.act(code, HOST, "draw", {})
            if service.get_table(code).state["banker"] != seats["Ana"]:
                break
        run_computers(clock, code, until=lambda s: s["phase"] == "cut")
        service.act(code, Actor(seat=seats["Ana"]), "cut", {"position": 12})
        table = service.get_table(code)
        due = service.clock_deadline(table)
        assert clock.time() + 1.0 <= due <= clock.time() + 2.0 + 0.01  # its pace, or the 2 s
        clock.advance(due - clock.time())
        assert service.tick(code)  # Ana has not bet: the banker closes all the same
        assert service.get_table(code).state["phase"] == "coup_over"


def test_an_all_computer_table_plays_hands_whose_chips_are_in_the_ledger_and_history(app, clock):
    code, _seats = table_with(app, game="montones", people=(), computers=3)
    with app.app_context():
        table = service.get_table(code)
        for _ in range(120):
            due = service.clock_deadline(service.get_table(code))
            clock.advance(max(0.0, due - clock.time()))
            service.tick(code)
        table = service.get_table(code)
        hands = db.session.scalar(
            select(func.count()).select_from(Hand).where(Hand.table_id == table.id)
        )
        assert hands >= 5
        ledger = service.ledger_totals(table)
        for pid, p in table.state["players"].items():
            assert ledger[f"player:{pid}"] == p["chips"]
        per_version = db.session.execute(
            select(func.sum(LedgerEntry.amount))
            .where(LedgerEntry.table_id == table.id)
            .group_by(LedgerEntry.version)
        ).scalars()
        assert set(per_version) == {0}
        assert set(actor for actor, _kind in actions(app, code)) <= {"p1", "p2", "p3", "system"}


def test_a_paused_or_ended_table_stops_its_computers(app, clock):
    code, _seats = table_with(app, people=(), computers=3)
    with app.app_context():
        service.act(code, HOST, "draw", {})
        service.host_action(code, HOST, "pause")
        clock.advance(60)
        assert service.clock_deadline(service.get_table(code)) is None
        assert not service.tick(code)
        service.host_action(code, HOST, "resume")
        assert service.clock_deadline(service.get_table(code)) is not None
        service.host_action(code, HOST, "end")
        clock.advance(60)
        assert service.clock_deadline(service.get_table(code)) is None
        assert not service.tick(code)


def test_two_workers_ticking_at_once_make_one_move(app, clock):
    """Each worker's fan-out ticks the table when its turn falls due: the move is worked out
    under the table's lock at the version found there, so the second finds nothing due yet."""
    code, _seats = table_with(app, people=(), computers=3)
    with app.app_context():
        service.act(code, HOST, "draw", {})
        version = service.get_table(code).version
        clock.advance(2.0)
    done = []

    def worker():
        with app.app_context():
            done.append(service.tick(code))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(done) == [False, False, False, True]
    with app.app_context():
        assert service.get_table(code).version == version + 1


def test_a_restart_loses_no_computer_turn(app, clock, database_url):
    """Nothing of a computer's turn is kept in a process: a new app on the same database finds
    it due at the same time and plays it."""
    code, _seats = table_with(app, people=(), computers=2)
    with app.app_context():
        service.act(code, HOST, "draw", {})
        due = service.clock_deadline(service.get_table(code))
    again = make_app(database_url, CLOCK=clock)
    with again.app_context():
        table = service.get_table(code)
        assert service.clock_deadline(table) == due
        clock.advance(due - clock.time())
        assert service.tick(code)
        db.session.remove()
        db.engine.dispose()


def test_the_host_removes_a_computer_player_whose_chips_stay_with_its_seat(app, clock):
    code, seats = table_with(app, computers=2)
    with app.app_context():
        with pytest.raises(service.ServiceError):
            service.remove_computer(code, HOST, seats["Ana"])  # a person is sent away, not removed
        with pytest.raises(service.NotAllowed):
            service.remove_computer(code, Actor(seat=seats["Ana"]), "p2")
        service.remove_computer(code, HOST, "p2")
        table = service.get_table(code)
        assert table.state["players"]["p2"]["left"] and table.state["players"]["p2"]["chips"] == 100
        assert actions(app, code)[-1].kind == "kick"
