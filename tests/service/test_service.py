"""The service layer on a real database: one transaction per action, a ledger that balances."""

import dataclasses
import sys
import threading
import time
from contextlib import contextmanager
from datetime import datetime

import pytest
from sqlalchemy import event, func, select, text, update
from sqlalchemy.exc import DBAPIError

from montones import service
from montones.data import snapshot, store
from montones.data.models import Action, GameTable, Hand, LedgerEntry
from montones.extensions import db
from montones.live import broker, channel
from montones.rules.games import game
from montones.service import Actor


def seated(app, names=("Ana", "Ben", "Eva"), chips=100, **settings):
    with app.app_context():
        table, secret = service.create_table("montones", "Test", chips, settings)
        seats = {name: service.join(table.code, name)[0].seat for name in names}
        return table.code, seats


TABLES = (LedgerEntry.__table__, Action.__table__, Hand.__table__)


def state(app, code):
    with app.app_context():
        return service.get_table(code).state


def unbalanced_versions(app, code):
    with app.app_context():
        table = service.get_table(code)
        rows = db.session.execute(
            select(LedgerEntry.version, func.sum(LedgerEntry.amount))
            .where(LedgerEntry.table_id == table.id)
            .group_by(LedgerEntry.version)
        ).all()
        return [version for version, total in rows if total != 0]


def play_to_betting(app, code, seats, offer=50):
    ana, ben, eva = (Actor(seat=seats[n]) for n in ("Ana", "Ben", "Eva"))
    with app.app_context():
        service.act(code, ana, "offer", {"amount": offer})
        service.act(code, ben, "pass", {})
        service.act(code, eva, "pass", {})  # everyone answered: the auction closes by itself
        service.act(code, ben, "cut", {"position": 9})
        service.act(code, ana, "heaps", {"count": 4})
    return ana, ben, eva


def test_joining_issues_the_starting_chips_from_the_house(app):
    code, seats = seated(app)
    with app.app_context():
        totals = service.ledger_totals(service.get_table(code))
    assert totals == {"house": -300, **{f"player:{s}": 100 for s in seats.values()}}


def test_a_whole_hand_moves_chips_only_in_balanced_transactions(app):
    code, seats = seated(app)
    ana, ben, eva = play_to_betting(app, code, seats)
    with app.app_context():
        service.act(code, ben, "bet", {"heap": 1, "amount": 20})
        service.act(code, eva, "against", {"heap": 2, "amount": 10})
        service.act(code, eva, "choose", {"heap": 4})
        service.act(code, ana, "close", {})
        table = service.get_table(code)
        totals = {a: n for a, n in service.ledger_totals(table).items() if n}
        assert totals == {
            **{a: n for a, n in game(table.state["game"]).balances(table.state).items() if n},
            "house": -300,
        }
        versions = (
            db.session.execute(
                select(Action.version).where(Action.table_id == table.id).order_by(Action.version)
            )
            .scalars()
            .all()
        )
    assert unbalanced_versions(app, code) == []
    assert versions == list(range(1, table.version + 1))


def test_a_refused_action_changes_nothing(app):
    code, seats = seated(app)
    _ana, ben, _eva = play_to_betting(app, code, seats)
    before = state(app, code)
    with app.app_context():
        with pytest.raises(service.ServiceError, match="the most you can bet is 50"):
            service.act(code, ben, "bet", {"heap": 1, "amount": 51})
        with pytest.raises(service.NotAllowed):
            service.act(code, Actor(), "bet", {"heap": 1, "amount": 5})
        with pytest.raises(service.NotAllowed):
            service.act(code, ben, "kick", {"seat": seats["Eva"]})
    assert state(app, code) == before


def test_a_request_from_a_stale_screen_is_refused(app):
    code, seats = seated(app)
    _ana, ben, eva = play_to_betting(app, code, seats)
    old = service.stage(state(app, code))
    with app.app_context():
        service.act(code, eva, "choose", {"heap": 3})
        service.act(code, Actor(seat=seats["Ana"]), "close", {})
        with pytest.raises(service.Stale):
            service.act(code, ben, "bet", {"heap": 1, "amount": 5}, stage_seen=old)


def test_a_double_click_places_one_bet(app):
    code, seats = seated(app)
    _ana, ben, _eva = play_to_betting(app, code, seats)
    with app.app_context():
        for _ in range(3):
            service.act(code, ben, "bet", {"heap": 1, "amount": 5}, nonce="tap-1")
    assert len(state(app, code)["hand"]["bets"]) == 1


@contextmanager
def statements_run(app):
    """Every statement the app's engine sends to the database while the block runs, as sent."""
    seen = []

    def before(_conn, _cursor, statement, _params, _context, _executemany):
        seen.append(statement)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", before)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", before)


def test_an_action_reads_the_state_of_the_row_it_locks(app):
    """An action takes the table's state from the row it locks, in its own transaction, whatever
    the process published: a state stored by another writer (here a plain UPDATE, at the same
    version) is the one the action acts on."""
    code, seats = seated(app)
    _ana, _ben, eva = play_to_betting(app, code, seats)
    with app.app_context():
        elsewhere = {**service.get_table(code).state}
        elsewhere["players"] = {**elsewhere["players"]}
        elsewhere["players"][seats["Eva"]] = {**elsewhere["players"][seats["Eva"]], "chips": 3}
        with db.engine.begin() as connection:
            connection.execute(
                update(GameTable.__table__)
                .where(GameTable.__table__.c.code == code)
                .values(state=elsewhere)
            )
    with statements_run(app) as seen, app.app_context():
        with pytest.raises(service.ServiceError, match="You have 3 chips"):
            service.act(code, eva, "bet", {"heap": 2, "amount": 5})
    reads = [s for s in seen if s.lstrip().startswith("SELECT") and "FROM game_tables" in s]
    assert len(reads) == 1 and "game_tables.state" in reads[0]


def test_an_action_holds_the_tables_lock_before_it_reads(app):
    """SQLite: the action's transaction begins IMMEDIATE, holding the write lock before its
    first read; PostgreSQL: the table's row is selected FOR UPDATE."""
    code, seats = seated(app)
    with statements_run(app) as seen, app.app_context():
        service.act(code, Actor(seat=seats["Ana"]), "offer", {"amount": 10})
        dialect = db.engine.dialect.name
    read = next(i for i, s in enumerate(seen) if "FROM game_tables" in s)
    if dialect == "sqlite":
        assert seen[0] == "BEGIN IMMEDIATE" and read == 1
        assert "FOR UPDATE" not in seen[read]
    else:
        assert seen[read].rstrip().endswith("FOR UPDATE")


def test_the_table_an_action_leaves_is_the_table_read_back(app):
    """What an action returns is the table at the version it committed, its columns as their
    types, equal to the table read back."""
    code, _seats = seated(app)
    with app.app_context():
        paused = service.host_action(code, Actor(is_host=True), "pause")
        assert paused.paused is True and isinstance(paused.created_at, datetime)
        assert service.get_table(code) == paused
        ended = service.host_action(code, Actor(is_host=True), "end")
        assert isinstance(ended.ended_at, datetime)
        assert service.get_table(code) == ended


def test_a_table_at_a_version_holds_the_models_columns_and_nothing_else():
    """The row's columns are written once, in the model: a snapshot and a table held under its
    lock are made from them by name, and a column the model gains is theirs too."""
    columns = [c.name for c in GameTable.__table__.columns]
    assert sorted(snapshot.COLUMNS) == sorted(columns)
    held = [f.name for f in dataclasses.fields(store.LockedTable)]
    assert sorted(set(held) - {"asked_by", "committed"}) == sorted(columns)


def test_concurrent_bets_are_all_kept_and_nobody_overspends(app):
    names = [f"P{i}" for i in range(12)]
    code, seats = seated(app, ("Ana", "Ben", "Eva", *names), chips=30)
    for name in names:  # the auction closes once everyone has offered or passed
        with app.app_context():
            service.act(code, Actor(seat=seats[name]), "pass", {})
    play_to_betting(app, code, seats, offer=30)
    errors, barrier = [], threading.Barrier(len(names))

    def punter(name):
        actor = Actor(seat=seats[name])
        barrier.wait()
        for _ in range(4):  # 4 bets of 10 from 30 chips: one must be refused
            try:
                with app.app_context():
                    service.act(code, actor, "bet", {"heap": 1, "amount": 10})
            except service.ServiceError as refusal:
                errors.append(str(refusal))

    threads = [threading.Thread(target=punter, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    final = state(app, code)
    assert len(errors) == len(names) and all("You have 0 chips" in e for e in errors)
    assert len(final["hand"]["bets"]) == 3 * len(names)
    assert all(final["players"][seats[n]]["chips"] == 0 for n in names)
    assert sum(game(final["game"]).balances(final).values()) == 30 * (len(names) + 3)
    assert unbalanced_versions(app, code) == []


def test_an_action_is_published_to_the_live_channel(app):
    code, seats = seated(app)
    with app.app_context():
        table = service.get_table(code)
        version = table.version
        service.act(code, Actor(seat=seats["Ana"]), "offer", {"amount": 10})
        assert broker.latest(code).version == version + 1  # the committed table, as written
    assert channel.of(app).broker.published_version(code) == version + 1


def test_a_paused_table_skips_no_cutter_and_resuming_gives_the_cut_its_whole_time(app, clock):
    """The clock stops with the host's pause: the deck is not cut at random for Ben, who is to
    cut, while the table is paused, and on resume he has the whole cut time again."""
    code, seats = seated(app, cut_timeout=30)
    ana, ben, eva = (Actor(seat=seats[n]) for n in ("Ana", "Ben", "Eva"))
    host = Actor(is_host=True)
    with app.app_context():
        service.act(code, ana, "offer", {"amount": 50})
        service.act(code, ben, "pass", {})
        service.act(code, eva, "pass", {})
        service.host_action(code, host, "pause")
        clock.advance(600)  # a long pause, far past the cut time
        service.tick(code)
        table = service.get_table(code)
        assert table.state["phase"] == "cut"
        assert service.clock_deadline(table) is None
        service.host_action(code, host, "resume")
        table = service.get_table(code)
        assert service.clock_deadline(table) == clock.time() + 30
        clock.advance(29)
        service.tick(code)
        assert service.get_table(code).state["phase"] == "cut"
        clock.advance(2)
        service.tick(code)
        hand = service.get_table(code).state["hand"]
        assert hand["cut"]["how"] == "random"  # his time ran out: the deck was cut for him


@pytest.mark.parametrize(
    ("game_name", "kind"),
    [("monte", "draw"), ("monte_bank", "draw"), ("montones", "close_auction")],
)
def test_the_hosts_draw_and_close_of_the_auction_wait_for_the_table_to_resume(app, game_name, kind):
    """Who banks first is a move of the game, as every player's is: refused in words while
    the host has the table paused, done once it is resumed."""
    host = Actor(is_host=True)
    with app.app_context():
        table, _secret = service.create_table(game_name, "Test", 100, {})
        code = table.code
        ana, _ben = (Actor(seat=service.join(code, n)[0].seat) for n in ("Ana", "Ben"))
        if kind == "close_auction":
            service.act(code, ana, "offer", {"amount": 10})
        service.host_action(code, host, "pause")
        before = service.get_table(code)
        with pytest.raises(service.ServiceError, match="The host has paused the table"):
            service.act(code, host, kind, {})
        after = service.get_table(code)
        assert (after.version, after.state) == (before.version, before.state)
        service.host_action(code, host, "resume")
        service.act(code, host, kind, {})
        assert service.get_table(code).state["phase"] != before.state["phase"]


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE ledger SET amount = amount + 1",
        "DELETE FROM ledger",
        "UPDATE actions SET kind = 'bet'",
        "DELETE FROM actions",
        "UPDATE hands SET commitment = 'x'",
        "DELETE FROM hands",
    ],
)
def test_the_ledger_the_action_log_and_the_hands_are_append_only(app, statement):
    """The database refuses to change or remove a row of the night's record, whoever asks."""
    code, seats = seated(app)
    ana, ben, eva = play_to_betting(app, code, seats)
    with app.app_context():
        service.act(code, ben, "bet", {"heap": 1, "amount": 20})
        service.act(code, eva, "choose", {"heap": 4})
        service.act(code, ana, "close", {})
        table = service.get_table(code)
        counts = [db.session.scalar(select(func.count()).select_from(t)) for t in TABLES]
        assert all(counts), counts  # there is a row of each to refuse
        with pytest.raises(DBAPIError, match="append-only"):
            db.session.execute(text(statement))
        db.session.rollback()
        assert [db.session.scalar(select(func.count()).select_from(t)) for t in TABLES] == counts
        assert service.ledger_totals(table) == service.ledger_totals(service.get_table(code))


def test_tables_created_and_seats_taken_at_once_all_go_through(app):
    """Twelve hosts create tables while players join one: every write waits its turn, none is
    refused with "database is locked"."""
    code, seats = seated(app, ("Ana", "Ben"))
    failures, barrier = [], threading.Barrier(12)

    def host(i):
        barrier.wait()
        try:
            with app.app_context():
                for k in range(3):
                    service.create_table("montones", f"Table {i}", 100, {})
                    service.join(code, f"Guest {i}.{k}")
        except Exception as error:  # noqa: BLE001 (the test reports every failure)
            failures.append(f"{type(error).__name__}: {error}")

    threads = [threading.Thread(target=host, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert failures == []
    with app.app_context():
        assert db.session.scalar(select(func.count(GameTable.id))) >= 1 + 36


def test_a_pause_does_not_count_against_the_bankers_time(app, clock):
    """The bank's hour runs only while the table is open: a pause moves its end on by as long."""
    code, seats = seated(app)
    host = Actor(is_host=True)
    play_to_betting(app, code, seats)
    with app.app_context():
        opened = service.get_table(code).state["bank"]["opened_at"]
        service.host_action(code, host, "pause")
        clock.advance(1200)
        service.host_action(code, host, "resume")
        moved = service.get_table(code).state["bank"]["opened_at"] - opened
    assert moved == 1200


def until(check, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return check()


def standing_at_its_turn(thread) -> bool:
    """Whether ``thread`` waits for a table's turn: its innermost frame is the write
    transaction's (``store.locked``) before any of its work (the turn is taken in C)."""
    frame = sys._current_frames().get(thread.ident)
    return frame is not None and frame.f_code is store.locked.__wrapped__.__code__


def test_a_table_s_writers_take_turns_at_their_table_before_the_database(app):
    """While a writer of one table has that table's turn, an action at another table goes
    through, and another action at the first one waits for the turn: so a table whose players
    all tap at once queues for the database behind one of its own taps, not all of them."""
    busy, _ = seated(app)
    other, other_seats = seated(app)
    while store.turn(other) is store.turn(busy):  # tables share one turn in 64: not these
        other, other_seats = seated(app)
    busy_seats = state(app, busy)["players"]
    done = threading.Event()

    def waiting_writer():
        with app.app_context():
            service.act(busy, Actor(seat=next(iter(busy_seats))), "offer", {"amount": 10})
        done.set()

    turn = store.turn(busy)
    with turn:
        assert store.turn(busy) is turn  # one turn per table, however often it is asked for
        writer = threading.Thread(target=waiting_writer)
        writer.start()
        with app.app_context():  # another table's action is not held up
            service.act(other, Actor(seat=other_seats["Ana"]), "offer", {"amount": 10})
        # The first table's action waits for its turn: its writer stands at the turn.
        assert until(lambda: standing_at_its_turn(writer))
        assert not done.is_set()
    assert done.wait(10)
    writer.join(10)
    assert state(app, busy)["auction"]["offers"]
