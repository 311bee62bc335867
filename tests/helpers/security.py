"""What the security tests share: an app, tables of both games in a chosen phase (driven through
the real routes with the ``Night`` and ``MonteNight`` helpers of tests/views), the five actors,
and a snapshot of everything a request could change.

The actors of a table: ``anonymous`` (a browser with a session and its CSRF token, but no seat
and no host secret), ``A`` and ``B`` (two punters), ``banker`` and ``host`` (the device that
created the table, with the host secret, not seated).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field

from sqlalchemy import delete, func, select

from montones import service
from montones.data.models import (
    APPEND_ONLY,
    Action,
    GameTable,
    LedgerEntry,
    Player,
)
from montones.extensions import db
from montones.rules import monte
from tests.helpers import apps
from tests.helpers.nights import HX, MonteBankNight, MonteNight, Night, csrf_of, flashed, notice

__all__ = ["HX", "csrf_of", "flashed", "notice"]

ACTORS = ("anonymous", "A", "B", "banker", "host")


# The security tests' app: unhandled exceptions become 500 answers (as in production) instead
# of propagating into the test, so "no 5xx" can be asserted; no live stream is kept open.
SECURITY_CONFIG = {"PROPAGATE_EXCEPTIONS": False, "STREAM_MAX_SECONDS": 0}


def make_app(folder, **config):
    """A security test's app (:data:`SECURITY_CONFIG`) on its own SQLite file in ``folder``."""
    return apps.make_app(folder, **{**SECURITY_CONFIG, **config})


def browser(app):
    """A browser that opened the home page: a session with a CSRF token, nothing else."""
    client = app.test_client()
    return client, csrf_of(client.get("/"))


# --- what a request could change -----------------------------------------------------------


def snapshot(app, code: str | None = None) -> str:
    """The table (state, version, switches, name), its seats and their secrets, its ledger
    totals and action count, and how many tables, seats, actions and ledger rows there are in
    the whole database."""
    with app.app_context():
        out = {
            "tables": db.session.execute(select(func.count(GameTable.id))).scalar_one(),
            "players": db.session.execute(select(func.count(Player.id))).scalar_one(),
            "actions": db.session.execute(select(func.count(Action.id))).scalar_one(),
            "ledger": db.session.execute(select(func.count(LedgerEntry.id))).scalar_one(),
        }
        if code is not None:
            table = service.get_table(code)
            seats = db.session.execute(
                select(Player.seat, Player.name, Player.token_hash, Player.rejoin_code)
                .where(Player.table_id == table.id)
                .order_by(Player.seat)
            ).all()
            out["table"] = {
                "state": table.state,
                "version": table.version,
                "name": table.name,
                "paused": table.paused,
                "ended": str(table.ended_at),
                "party": table.party,
                "host_hash": table.host_hash,
                "seats": [list(row) for row in seats],
                "ledger": service.ledger_totals(table),
                "actions": db.session.execute(
                    select(func.count(Action.id)).where(Action.table_id == table.id)
                ).scalar_one(),
            }
        db.session.remove()
        return json.dumps(out, sort_keys=True, default=str)


def last_action(app, code: str) -> tuple[str, str]:
    """(actor, kind) of the table's newest action row."""
    with app.app_context():
        table = service.get_table(code)
        row = db.session.execute(
            select(Action.actor, Action.kind)
            .where(Action.table_id == table.id)
            .order_by(Action.id.desc())
            .limit(1)
        ).one()
        db.session.remove()
        return tuple(row)


class Checkpoint:
    """A table as it is now, to put it back after a fuzzed request that was accepted (test
    set-up only: the rows an accepted action added are deleted, the state is written back)."""

    def __init__(self, app, code: str):
        self.app, self.code = app, code
        with app.app_context():
            table = service.get_table(code)
            self.table_id = table.id
            self.fields = {
                "state": copy.deepcopy(table.state),
                "version": table.version,
                "paused": table.paused,
                "ended_at": table.ended_at,
                "party": copy.deepcopy(table.party),
            }
            self.players = {
                row.id: (row.token_hash, row.rejoin_code)
                for row in db.session.execute(
                    select(Player).where(Player.table_id == table.id)
                ).scalars()
            }
            self.last_action = db.session.execute(
                select(func.coalesce(func.max(Action.id), 0))
            ).scalar_one()
            self.last_entry = db.session.execute(
                select(func.coalesce(func.max(LedgerEntry.id), 0))
            ).scalar_one()
            db.session.remove()
        self.table = json.loads(snapshot(app, code))["table"]

    def restore(self) -> None:
        with self.app.app_context():
            tid = self.table_id
            # The records are append-only in the database: lifted for this set-up step alone,
            # inside its transaction, and put back before it commits.
            dialect = db.engine.dialect.name
            connection = db.session.connection()
            # SQLite cannot disable a trigger: each is dropped, and made again as it was.
            triggers = (
                connection.exec_driver_sql(
                    "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN "
                    f"({', '.join(repr(table) for table in APPEND_ONLY)})"
                ).all()
                if dialect == "sqlite"
                else []
            )
            for name, _sql in triggers:
                connection.exec_driver_sql(f"DROP TRIGGER {name}")
            if dialect != "sqlite":
                for table in APPEND_ONLY:
                    connection.exec_driver_sql(f"ALTER TABLE {table} DISABLE TRIGGER USER")
            db.session.execute(
                delete(Action).where(Action.table_id == tid, Action.id > self.last_action)
            )
            db.session.execute(
                delete(LedgerEntry).where(
                    LedgerEntry.table_id == tid, LedgerEntry.id > self.last_entry
                )
            )
            for player in db.session.execute(
                select(Player).where(Player.table_id == tid)
            ).scalars():
                if player.id not in self.players:
                    db.session.delete(player)
                else:
                    player.token_hash, player.rejoin_code = self.players[player.id]
            table = db.session.get(GameTable, tid)
            table.state = copy.deepcopy(self.fields["state"])
            table.version = self.fields["version"]
            table.paused = self.fields["paused"]
            table.ended_at = self.fields["ended_at"]
            table.party = copy.deepcopy(self.fields["party"])
            db.session.flush()
            for _name, sql in triggers:
                connection.exec_driver_sql(sql)
            if dialect != "sqlite":
                for table_name in APPEND_ONLY:
                    connection.exec_driver_sql(f"ALTER TABLE {table_name} ENABLE TRIGGER USER")
            db.session.commit()
            db.session.remove()
        assert json.loads(snapshot(self.app, self.code))["table"] == self.table


# --- tables in a phase, with their actors ----------------------------------------------------


@dataclass
class Table:
    """A table of either game and who is who at it (role -> player name)."""

    app: object
    night: object  # Night or MonteNight
    game: str
    roles: dict[str, str]
    extra: dict = field(default_factory=dict)  # ids a scene made: bet ids, seats
    _anonymous: tuple | None = None

    @property
    def code(self) -> str:
        return self.night.code

    def seat(self, role: str) -> str:
        return self.night.seats[self.roles[role]]

    def client(self, actor: str):
        """The test client and CSRF token of an actor."""
        if actor == "host":
            return self.night.host, self.night.host_token
        if actor == "anonymous":
            if self._anonymous is None:
                self._anonymous = browser(self.app)
            return self._anonymous
        name = self.roles[actor]
        return self.night.clients[name], self.night.tokens[name]

    def post(self, actor: str, path: str, fields: dict, *, hx: bool = True, token=None):
        """POST ``path`` (relative to /t/CODE, or absolute when it starts with //) as ``actor``
        with their CSRF token (``token=""``: none; any other string: that token)."""
        client, own = self.client(actor)
        data = {k: v if isinstance(v, list) else str(v) for k, v in fields.items()}
        token = own if token is None else token
        if token:
            data["csrf_token"] = token
        url = path[1:] if path.startswith("//") else f"/t/{self.code}{path}"
        return client.post(url, data=data, headers=HX if hx else {})

    def snapshot(self) -> str:
        return snapshot(self.app, self.code)

    def state(self) -> dict:
        return self.night.state()


def _montones(app, **kwargs) -> Night:
    return Night(app, "Ana", "Ben", "Eva", **kwargs)


MONTONES_ROLES = {"banker": "Ana", "A": "Ben", "B": "Eva"}


def montones_table(app, phase: str, **kwargs) -> Table:
    """A Montones table (Ana, Ben and Eva) in ``phase``:

    auction: Ana has offered 30, Ben and Eva have not answered.
    cut: Ana holds a bank of 30; ``A`` is the punter whose turn it is to cut.
    heaps: the deck is cut; Ana makes the heaps.
    betting: three heaps; ``B`` (Eva) has bet 5 on heap 1 (``extra["bet"]`` is its id).
    chosen: as betting, and Ben gave the banker heap 3.
    b_out: as betting, and Eva sits out.
    paused: as betting, and the host paused the table.
    kicked: as betting, and the host sent ``A`` (Ben) away.
    ended: as betting, and the host ended the night.
    settled: Eva's bet on heap 1 won (6 de copas over the banker's 4 de oros).
    rey: as settled, the banker turned the Rey de copas: the heaps may stay.
    own_rey: as rey, with the table's own cards entered by the banker (7o, 6o, Rc).
    broken: Eva bet the whole bank of 30 on heap 1 and won: the bank is broken.
    """
    if phase in OWN or phase == "own_rey":
        night = _montones(app, own_deck=OWN.get(phase, "banker"), **kwargs)
        night.ok("Ana", "offer", amount=30)
        night.ok("Ben", "pass")
        night.ok("Eva", "pass")
        night.ok("Ana", "heaps", count=3)
        night.ok("Eva", "bet", heap=1, amount=5)
        night.ok("Ben", "choose", heap=3)
        night.ok("Ana", "close")
        if phase == "own_rey":
            for card in ("7o", "6o", "Rc"):
                night.ok("Ana", "card", card=card)
            assert night.state()["phase"] == "settled"
        else:
            _entered(night, "Ana", phase, "7o")
        return Table(app, night, "montones", dict(MONTONES_ROLES), {})
    night = _montones(app, **kwargs)
    roles = dict(MONTONES_ROLES)
    extra: dict = {}
    if phase == "lobby":  # everyone seated, nobody has acted, the host has not started
        return Table(app, night, "montones", roles, extra)
    if phase == "auction":
        night.ok("Ana", "offer", amount=30)
        return Table(app, night, "montones", roles, extra)
    night.open_bank("Ana", 30)
    if phase == "cut":
        cutter = night.cutter()
        roles["A"], roles["B"] = cutter, ({"Ben", "Eva"} - {cutter}).pop()
        return Table(app, night, "montones", roles, extra)
    night.ok(night.cutter(), "cut", position=10)
    if phase == "heaps":
        return Table(app, night, "montones", roles, extra)
    night.ok("Ana", "heaps", count=3)
    stake = 30 if phase == "broken" else 5
    night.ok("Eva", "bet", heap=1, amount=stake)
    extra["bet"] = night.state()["hand"]["bets"][-1]["id"]
    if phase == "b_out":
        night.ok("Eva", "sit_out")
    elif phase == "paused":
        assert night.host_do("pause").status_code == 303
    elif phase == "kicked":
        assert night.host_do("kick", seat=night.seats["Ben"]).status_code == 303
    elif phase == "closed":
        assert night.host_do("close_doors").status_code == 303
    elif phase == "silent":
        assert night.host_do("tv_sound_off").status_code == 303
    elif phase == "quiet":
        assert night.host_do("reactions_off").status_code == 303
    elif phase == "ended":
        assert night.host_do("end").status_code == 303
    elif phase in ("chosen", "settled", "rey", "broken"):
        night.ok("Ben", "choose", heap=3)
        if phase != "chosen":
            night.arrange({3: "Rc" if phase == "rey" else "4o", 1: "6c"})
            night.ok("Ana", "close")
            assert night.state()["phase"] == "settled"
            if phase == "broken":
                assert night.state()["bank"]["amount"] == 0
    return Table(app, night, "montones", roles, extra)


def monte_table(app, phase: str, **kwargs) -> Table:
    """A Monte table (Ana, Ben and Eva; bank 50, bets 1 to 10) in ``phase``:

    seating: nobody has drawn yet (``banker`` is Ana, in name only).
    bank: the draw made a banker, who puts up the bank now.
    cut: the bank is up; ``A`` is the punter whose turn it is to cut.
    betting: the layouts are dealt; ``B`` has bet 1 on the top layout (``extra["bet"]``).
    paused: as betting, and the host paused the table.
    kicked: as betting, and the host sent ``A`` away.
    ended: as betting, and the host ended the night.
    coup_over: as betting, and the banker turned the gate.
    """
    if phase in OWN:
        kwargs["own_deck"] = OWN[phase]
    night = MonteNight(app, "Ana", "Ben", "Eva", **kwargs)
    if phase == "seating":
        return Table(app, night, "monte", dict(MONTONES_ROLES))
    night.draw()
    banker = night.banker
    first, second = night.punters
    roles = {"banker": banker, "A": first, "B": second}
    extra: dict = {}
    if phase == "bank":
        return Table(app, night, "monte", roles, extra)
    night.put_up(50)
    if phase in OWN:
        _entered(night, banker, phase, "KH")
        return Table(app, night, "monte", roles, extra)
    if phase == "cut":
        cutter = night.name_of(night.state()["cutter"])
        roles["A"], roles["B"] = cutter, ({first, second} - {cutter}).pop()
        return Table(app, night, "monte", roles, extra)
    night.cut()
    response = night.tap(roles["B"], "top", 1)
    assert response.status_code == 200 and notice(response) is None, notice(response)
    extra["bet"] = night.state()["coup"]["bets"][-1]["id"]
    if phase == "paused":
        assert night.host_do("pause").status_code == 303
    elif phase == "kicked":
        assert night.host_do("kick", seat=night.seats[roles["A"]]).status_code == 303
    elif phase == "closed":
        assert night.host_do("close_doors").status_code == 303
    elif phase == "silent":
        assert night.host_do("tv_sound_off").status_code == 303
    elif phase == "ended":
        assert night.host_do("end").status_code == 303
    elif phase == "coup_over":
        assert night.do(banker, "gate", stage=night.stage()).status_code == 200
        assert night.state()["phase"] == monte.COUP_OVER
    return Table(app, night, "monte", roles, extra)


def monte_bank_table(app, phase: str, **kwargs) -> Table:
    """A Monte Bank table (Ana, Ben and Eva; bets from 1 up to the bank) in ``phase``:

    seating, bank, cut, paused, kicked, ended: as at Monte.
    betting: a deal is laid out (void deals cut again); ``B`` has a round of 1 on ul.
    deal_over: as betting, and the banker said the bets are done.
    closed: as betting, and the host closed the table to new players.
    """
    if phase in OWN:
        kwargs["own_deck"] = OWN[phase]
    night = MonteBankNight(app, "Ana", "Ben", "Eva", **kwargs)
    if phase == "seating":
        return Table(app, night, "monte_bank", dict(MONTONES_ROLES))
    night.draw()
    banker = night.banker
    first, second = night.punters
    roles = {"banker": banker, "A": first, "B": second}
    extra: dict = {}
    if phase == "bank":
        return Table(app, night, "monte_bank", roles, extra)
    night.put_up(50)
    if phase in OWN:
        _entered(night, banker, phase, "KH")
        return Table(app, night, "monte_bank", roles, extra)
    if phase == "cut":
        cutter = night.name_of(night.state()["cutter"])
        roles["A"], roles["B"] = cutter, ({first, second} - {cutter}).pop()
        return Table(app, night, "monte_bank", roles, extra)
    night.cut()
    response = night.tap(roles["B"], "ul", 1)
    assert response.status_code == 200 and notice(response) is None, notice(response)
    extra["bet"] = night.state()["deal"]["bets"][-1]["id"]
    if phase == "paused":
        assert night.host_do("pause").status_code == 303
    elif phase == "kicked":
        assert night.host_do("kick", seat=night.seats[roles["A"]]).status_code == 303
    elif phase == "ended":
        assert night.host_do("end").status_code == 303
    elif phase == "deal_over":
        assert night.do(banker, "close", stage=night.stage()).status_code == 200
        assert night.state()["phase"] == "deal_over"
    elif phase == "closed":
        assert night.host_do("close_doors").status_code == 303
        assert night.state()["closed"]
    elif phase == "silent":
        assert night.host_do("tv_sound_off").status_code == 303
        assert night.state()["tv_silent"]
    return Table(app, night, "monte_bank", roles, extra)


# Phases of a table played with its own cards (issue 42): "own", the banker enters the cards;
# "own_host", the host does. Either way one card is entered and the next is awaited (Montones:
# bets closed, Eva's 5 on heap 1, heap 3 the banker's; Monte and Monte Bank: the bank is up).
OWN = {"own": "banker", "own_host": "host"}


def _entered(night, banker: str, phase: str, card: str) -> None:
    if OWN[phase] == "host":
        assert night.host_do("host_card", card=card).status_code == 303
    else:
        response = night.do(banker, "card", card=card)
        assert response.status_code == 200 and notice(response) is None, notice(response)
    assert night.state()["phase"] == "entering"


def table_in(app, game: str, phase: str, **kwargs) -> Table:
    make = {"montones": montones_table, "monte": monte_table, "monte_bank": monte_bank_table}[game]
    return make(app, phase, **kwargs)


def rejoin_code(table: Table, role: str) -> str:
    with table.app.app_context():
        found = db.session.execute(
            select(Player.rejoin_code).where(
                Player.table_id == service.get_table(table.code).id,
                Player.seat == table.seat(role),
            )
        ).scalar_one()
        db.session.remove()
        return found


def kept_secret(app, client, code: str, kind: str) -> str:
    """A secret a browser keeps for table ``code`` (``kind``: "seats" or "hosts"), which the
    server keeps under the browser's id."""
    with client.session_transaction() as session:
        device = session["device"]
    with app.app_context():
        found = service.kept(device, code)[kind]
        db.session.remove()
        return found


def host_secret(table: Table) -> str:
    return kept_secret(table.app, table.night.host, table.code, "hosts")


def path_of(location: str) -> str:
    """The page a redirect goes to: its path, without the host or a place on the page (the
    host's card lands back on its picker, #picker)."""
    return re.sub(r"#.*$", "", re.sub(r"^https?://[^/]+", "", location or ""))
