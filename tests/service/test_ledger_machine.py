"""The chip ledger under a Hypothesis state machine, driven only through the HTTP routes.

One machine keeps a Montones table and a Monte table, each created through POST /tables by the
host's test client and played by phones (test clients with their own session and CSRF token)
that sit down through the join page. Every step is a request at one table: mostly a move the
screens offer now (picked from ``view(state, seat)["me"]["can"]``, so hands are dealt and banks
pass), sometimes an illegal one (any kind, junk fields, a kicked player, a stranger, no CSRF
token, no htmx), a double click (the same nonce again), a tap from an older stage, a join, a
top-up, a kick, a pause, or the end of the night (a new table then takes its place).

After every step, for every table: the chips of all players, the bank and the open stakes are
the chips ever issued (counted here: starting chips per accepted join plus accepted top-ups); no
balance is below 0; every ledger version sums to 0; the ledger's totals per account are the
balances and the house owes what was issued; each version has exactly one action; the seats are
the players who were let in. A refused request (a 4xx or a notice) changed nothing: not the
state, not the ledger, not the action log; an accepted one made a new version; a table whose
version did not move did not change at all.

The app (one per database) lives for the module and each example plays fresh tables on it. The
rules engines' shuffles, cuts and lots are seeded from the example, so an example replays.
``LEDGER_EXAMPLES`` sets the number of examples per database (80 unless set, here and under
CI; run in two halves of distinct examples); ``-s``
prints which steps ran how often and how far the games got.
"""

from __future__ import annotations

import os
import random
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import func, select

from montones import service
from montones.data.models import Action, GameTable, LedgerEntry
from montones.extensions import db
from montones.rules import chance, monte, monte_bank, montones
from montones.rules.games import GAMES as ENGINES
from montones.rules.table import MOST_CHIPS, MOST_SEATS, TABLE_DEFAULTS, looks, skeleton
from tests.helpers.apps import make_app
from tests.helpers.nights import HX, Night, csrf_of, notice

MAX_NUMBER = 1_000_000_000  # the largest number a form field takes (views.common.MAX_NUMBER)
MAX_SEATS = 6  # seats at a table, kicked players' included
MAX_JOINS = 3  # join attempts at a table after its first players, refused names included

# How likely a kind is picked when someone may do it: the steps that move a hand along most.
WEIGHTS = {
    "montones": {
        "offer": 8,
        "pass": 10,
        "cut": 16,
        "heaps": 16,
        "bet": 10,
        "against": 6,
        "declare": 2,
        "choose": 8,
        "withdraw": 2,
        "close": 8,
        "next": 12,
        "keep": 4,
        "abona": 3,
        "close_bank": 9,
        "tres": 4,
        "sit_out": 1,
        "sit_in": 10,
        "close_auction": 3,  # the host, before everyone answered
        "kick_banker": 20,  # the host, when a kicked cutter left the deck waiting (see _moves)
    },
    "monte": {
        "draw": 10,
        "bank": 10,
        "decline": 2,
        "cut": 10,
        "bet": 10,
        "withdraw": 2,
        "gate": 6,
        "next": 10,
    },
    "monte_bank": {
        "draw": 10,
        "bank": 10,
        "cut": 10,
        "bet": 10,
        "change": 2,
        "withdraw": 2,
        "close": 6,
        "next": 8,
        "aces": 3,
    },
}
TAPS = {
    "montones": {"bet", "against", "declare", "choose"},
    "monte": {"bet"},
    "monte_bank": {"bet"},
}

# The table of a step, by weight: a Montones hand takes more steps than a Monte coup. An
# example plays both tables, or (deeper) only one.
GAMES = ("montones", "montones", "monte", "monte_bank")
FOCUS = ("both", "both", "montones", "monte", "monte_bank")
# The mode of a step at a table, by weight; a mode that does not apply now plays instead.
MODES = (
    ("play",) * 40
    + ("misplay",) * 4
    + ("join",) * 3
    + ("again", "stale", "top_up") * 2
    + ("kick", "pause", "end")
)

NAMES = ["Ana", "Ben", "Eva", "Lola", "Paco", "Tere", "Juan", "Rosa"]
ODD_NAMES = ["ana", " Ben ", "", "   ", "x" * 25, "Ñandú", "<b>Eva</b>"]

# What a confused or hostile phone may put in a form field.
JUNK = ["", "0", "-1", "1", "2", "3", "5", "40", "x", "1.5", "99999999999", str(MAX_NUMBER)]
JUNK += ["bottom", "top", "middle", "bet", "p1", "p2", "p9", "1\x00"]
FIELDS = ["amount", "custom", "heap", "position", "count", "bet", "layout", "mode", "seat"]
MISPLAY_KINDS = {
    game: [*sorted(ENGINES[game].ACTIONS), "tap", "fly", "draw", "close_auction"]
    for game in ENGINES
}
HOST_ROUTE_KINDS = ["top_up", "kick", "pause", "resume", "draw", "close_auction", "fly", "bet"]


def _monte_form(drawn: dict) -> dict:
    low, high = drawn["limits"]
    form = {
        "bank_size": drawn["bank_size"],
        "min_bet": low,
        "max_bet": high,
        "banks_each": drawn["banks_each"],
        "short_bank": drawn["short_bank"],
        "cut_timeout": "600",
    }
    if drawn["two_card"]:
        form["two_card"] = "on"
        if drawn["generous"]:
            form["generous"] = "on"
    if drawn["private_circle"]:
        form["private_circle"] = "on"
    return form


FORMS = {
    "montones": st.fixed_dictionaries(
        {
            "min_bet": st.sampled_from(["1", "1", "2"]),
            "heaps": st.sampled_from([(2, 3), (3, 5), (2, 8), (4, 4), (3, 13)]),
        }
    ).map(
        lambda d: {
            "min_bet": d["min_bet"],
            "heaps_min": str(d["heaps"][0]),
            "heaps_max": str(d["heaps"][1]),
            "tenure": "60",
            "cut_timeout": "600",
        }
    ),
    "monte": st.fixed_dictionaries(
        {
            "bank_size": st.sampled_from(["5", "20", "50"]),
            "limits": st.sampled_from(
                [("1", "10"), ("1", "2"), ("2", "50"), ("1", str(MOST_CHIPS))]
            ),
            "banks_each": st.sampled_from(["1", "1", "2"]),
            "two_card": st.booleans(),
            "generous": st.booleans(),
            "short_bank": st.sampled_from(["", "", "1", "2", "3"]),
            "private_circle": st.booleans(),
        }
    ).map(_monte_form),
    "monte_bank": st.fixed_dictionaries(
        {
            "min_bet": st.sampled_from(["1", "1", "2"]),
            "mb_bank_size": st.sampled_from(["5", "20", "50"]),
            "mb_banks_each": st.sampled_from(["1", "1", "2"]),
            "mb_deals_per_bank": st.sampled_from(["", "", "1", "3"]),
            "mb_levy": st.sampled_from(["on", "on", ""]),
            "cut_timeout": st.just("600"),
        }
    ),
}
SETUP = {
    game: st.fixed_dictionaries(
        {
            "chips": st.sampled_from([1, 4, 10, 30, 100]),
            "players": st.integers(2, 4),
            "form": FORMS[game],
        }
    )
    for game in ENGINES
}


def parsed(raw: object) -> int | None:
    """What ``views.common.int_field`` makes of a form value: a number, or None if refused."""
    try:
        value = int(str(raw).strip())
    except ValueError:
        return None
    return value if abs(value) <= MAX_NUMBER else None


def bucket(n: int, edges: tuple[int, ...]) -> str:
    """``n`` as the range it falls in: "0", "1-2", "3-5" or "6+" for edges (0, 1, 3, 6)."""
    low = max(e for e in edges if e <= n)
    higher = [e for e in edges if e > n]
    if not higher:
        return f"{low}+"
    return str(low) if higher[0] - 1 == low else f"{low}-{higher[0] - 1}"


STATS: Counter = Counter()  # what ran, over all examples of a test: printed at its end


def note(label: str) -> None:
    event(label)
    STATS[label] += 1


# --- what the machine keeps ---------------------------------------------------------------


@dataclass(eq=False)
class Phone:
    """A test client: its session holds its seats and host rights, ``token`` its CSRF token."""

    client: object
    token: str = ""


@dataclass(frozen=True)
class Picture:
    """A table as the database holds it: everything a request could change."""

    state: dict
    version: int
    paused: bool
    ended: bool
    ledger: tuple  # (version, account, sum, rows) per version and account
    actions: tuple  # (count, lowest version, highest version)


@dataclass
class Table:
    game: str
    code: str
    chips: int
    issued: int = 0  # chips handed out: starting chips per join, plus accepted top-ups
    seats: dict[str, Phone] = field(default_factory=dict)  # every seat taken, and by whom
    names: dict[str, str] = field(default_factory=dict)  # the name each seat was taken with
    joins: int = 0
    picture: Picture | None = None  # as the last invariant check saw it
    expect: str | None = None  # "same" or "moved": what the step's request must have done
    stages: list[str] = field(default_factory=list)  # every stage the table has shown
    last: tuple | None = None  # (phone, seat, kind, form) of the last accepted tap
    bankers: list[str] = field(default_factory=list)

    @property
    def state(self) -> dict:
        return self.picture.state

    def left(self, seat: str) -> bool:
        return self.picture is not None and self.state["players"][seat].get("left", False)

    def live_seats(self) -> list[str]:
        return [s for s in self.seats if not self.left(s)]

    def left_seats(self) -> list[str]:
        return [s for s in self.seats if self.left(s)]

    def seat_of(self, phone: Phone) -> str | None:
        return next((s for s, p in self.seats.items() if p is phone and not self.left(s)), None)


# --- the machine ----------------------------------------------------------------------------


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self, app):
        super().__init__()
        self.app = app
        self.host: Phone | None = None  # one host device for the night's tables
        self.phones: list[Phone] = []  # the friends' phones; one may sit at both tables
        self.current: dict[str, Table] = {}
        self.nonces = 0
        self.steps = 0
        self.focus = "both"
        self.setups: dict[str, dict] = {}
        self.progress: Counter = Counter()  # hands, coups and banks changing hands
        self.system = chance.SYSTEM
        STATS["examples"] += 1

    def teardown(self):
        chance.SYSTEM = self.system
        STATS[f"steps in an example: {bucket(self.steps, (0, 10, 25, 40, 50))}"] += 1
        for what in ("montones: a hand dealt", "monte: a coup dealt"):
            STATS[f"{what}, per example: {bucket(self.progress[what], (0, 1, 3, 6))}"] += 1
        for game in ENGINES:
            passes = self.progress[f"{game}: the bank changed hands"]
            STATS[f"{game}: the bank changed hands, per example: {bucket(passes, (0, 1, 3))}"] += 1

    # --- the rules ------------------------------------------------------------------------

    def _count(self, name: str) -> None:
        STATS[f"rule: {name}"] += 1
        self.steps += 1

    @initialize(
        seed=st.integers(0, 2**32 - 1),
        focus=st.sampled_from(FOCUS),
        montones_setup=SETUP["montones"],
        monte_setup=SETUP["monte"],
        monte_bank_setup=SETUP["monte_bank"],
    )
    def open_tables(self, seed, focus, montones_setup, monte_setup, monte_bank_setup):
        """The night's settings; each table opens at its first step (a night that plays only
        one game opens only that one)."""
        self._count("open_tables")
        # The rules engines' shuffles, cuts and lots, replayable from the example.
        chance.SYSTEM = random.Random(seed)
        self.focus = focus
        self.setups = {
            "montones": montones_setup,
            "monte": monte_setup,
            "monte_bank": monte_bank_setup,
        }
        note(f"focus: {focus}")

    # One rule for every step, its mode an argument: the weights of the modes (mostly a legal
    # move) are what keep hands going; rules of their own would each be drawn as often.
    @rule(mode=st.sampled_from(MODES), data=st.data())
    def step(self, mode, data):
        games = GAMES if self.focus == "both" else (self.focus,)
        game = data.draw(st.sampled_from(games), label="game")
        t = self.current.get(game)
        live = t.live_seats() if t else []
        if t is None:
            mode = "open"
        elif t.picture.ended:
            mode = "new table"
        elif mode == "join" and not self._joinable(t):
            mode = "play"
        elif mode == "again" and not self._resendable(t):
            mode = "play"
        elif mode == "stale" and (t.picture.paused or not live or not self._old_stages(t)):
            mode = "play"
        elif mode == "kick" and len(live) < 3:
            mode = "top_up"
        elif mode == "end" and t.picture.version < 25:
            mode = "play"
        self._count(f"step at {game}: {mode}")
        if mode == "open":
            self._open(game, **self.setups[game])
            return
        if mode == "new table":
            self._open(game, **data.draw(SETUP[game], label="setup"))
            return
        getattr(self, f"_{mode}")(t, data)

    # --- tables and people ----------------------------------------------------------------

    def _open(self, game: str, chips: int, players: int, form: dict) -> None:
        """POST /tables from the host's device; the first players sit down."""
        if self.host is None:
            client = self.app.test_client()
            self.host = Phone(client, csrf_of(client.get("/")))
        response = self.host.client.post(
            "/tables",
            data={"csrf_token": self.host.token, "game": game, "name": "Ledger", **form}
            | {"chips": str(chips)},
        )
        assert response.status_code == 303, response.get_data(as_text=True)
        code = re.search(r"/t/([A-Z]{4})/host$", response.location).group(1)
        t = Table(game=game, code=code, chips=chips)
        self.current[game] = t
        while len(self.phones) < players:
            self.phones.append(Phone(self.app.test_client()))
        for name, phone in zip(NAMES, self.phones[:players], strict=False):
            assert self._sit(t, name, phone)

    def _joinable(self, t: Table) -> bool:
        return len(t.seats) < MAX_SEATS and t.joins < MAX_JOINS

    def _join(self, t: Table, data) -> None:
        """Someone sits down: a new phone, a friend from the other table, a kicked player
        coming back, or the host; a refused name seats nobody."""
        taken = sorted(t.names[s] for s in t.live_seats())
        fresh = [n for n in NAMES if n not in taken]
        name = data.draw(st.sampled_from(fresh * 4 + ODD_NAMES + taken), label="name")
        standing = [p for p in [*self.phones, self.host] if t.seat_of(p) is None]
        # 0 and 1: a new phone; then a phone not seated here (the last one is the host's).
        which = data.draw(st.integers(0, len(standing) + 1), label="phone")
        if which < 2:
            phone = Phone(self.app.test_client())
            self.phones.append(phone)
        else:
            phone = standing[which - 2]
        t.joins += 1
        accepted = self._sit(t, name, phone)
        by = "the host" if phone is self.host else "a new phone" if which < 2 else "a phone"
        note(f"{t.game}: join by {by} {'ok' if accepted else 'refused'}")

    def _sit(self, t: Table, name: str, phone: Phone) -> bool:
        """The join page, then its form; True if the player was seated."""
        if not phone.token:
            page = phone.client.get(f"/t/{t.code}/join")
            assert page.status_code == 200
            phone.token = csrf_of(page)
        clean = name.strip()
        # A name stays its seat's, sent away or not (one line in the standings); a phone whose
        # last seat here was sent away sits down again only when the host lets it back in.
        taken = {looks(t.names[s]) for s in t.seats if not t.left(s)}
        # Nor under a name drawn alike to one sent away ("B0b" for "Bob"), while they are away.
        away = {skeleton(t.names[s]) for s in t.seats if t.left(s)}
        mine = [s for s, p in t.seats.items() if p is phone]
        sent_away = bool(mine) and t.left(mine[-1])
        # A table seats TABLE_DEFAULTS["most_players"] at most (those sent away not counted),
        # and gives MOST_SEATS seats over its night (those sent away counted).
        full = (
            sum(not t.left(s) for s in t.seats) >= TABLE_DEFAULTS["most_players"]
            or len(t.seats) >= MOST_SEATS
        )
        # The host may have closed the doors to new players (a seat sent away stays out too).
        closed = t.picture is not None and bool(t.picture.state.get("closed"))
        ok = (
            not sent_away
            and not full
            and not closed
            and 0 < len(clean) <= 24
            and looks(clean) not in taken
            and skeleton(clean) not in away
        )
        response = phone.client.post(
            f"/t/{t.code}/join", data={"csrf_token": phone.token, "name": name}
        )
        expected = 303 if ok else 403 if sent_away else 422
        assert response.status_code == expected, (name, response.status_code)
        t.expect = "moved" if ok else "same"
        if ok:
            seat = f"p{len(t.names) + 1}"  # the invariant checks the seat has this name
            t.seats[seat], t.names[seat] = phone, clean
            t.issued += t.chips
        return ok

    # --- the modes of a step ----------------------------------------------------------------

    def _play(self, t: Table, data) -> None:
        """A move the screens offer now, with the stage the screen showed and a fresh nonce;
        now and then the same form twice, as a double click sends it."""
        if t.picture.paused and data.draw(st.booleans(), label="resume"):
            self._host(t, "resume", {}, expect_ok=True, label="resume")
            return
        moves = self._moves(t)
        if not moves:  # nobody may do anything (Monte waits for a second player): top up
            self._top_up(t, data)
            return
        weights = dict(WEIGHTS[t.game])
        hand = t.state.get("hand")
        if t.game == "montones" and hand and t.state["phase"] == montones.BETTING:
            # The banker's heap first, then close: a close before it is refused.
            chosen = hand["bank_heap"] is not None
            weights["close"], weights["choose"] = (12, 1) if chosen else (1, 10)
        kinds = sorted({kind for _, kind in moves}, key=lambda k: (-weights[k], k))
        kind = self._weighted(data, kinds, [weights[k] for k in kinds], "kind")
        seat = data.draw(st.sampled_from([s for s, k in moves if k == kind]), label="seat")
        if seat is None:  # the host's move
            if kind == "kick_banker":
                banker = t.state["bank"]["banker"]
                self._host(t, "kick", {"seat": banker}, expect_ok=True, label="play kick_banker")
            else:
                # The draw and the close of the auction are moves: refused while paused.
                ok = not t.picture.paused
                self._host(t, kind, {}, expect_ok=ok, label=f"play {kind}")
            return
        fields = self._fields(t, seat, kind, data)
        label = f"play {kind}"
        if kind in TAPS[t.game] and data.draw(st.integers(0, 2), label="tap") == 0:
            fields = {**fields, "mode": kind}
            kind = "tap"
            if "amount" in fields and data.draw(st.booleans(), label="custom"):
                fields["custom"], fields["amount"] = fields["amount"], "1"
        with_stage = data.draw(st.integers(0, 6), label="stage") > 0
        with_nonce = data.draw(st.integers(0, 9), label="nonce") > 0
        twice = with_nonce and data.draw(st.integers(0, 7), label="double click") == 0
        response = self._tap(
            t,
            t.seats[seat],
            kind,
            fields,
            stage=service.stage(t.state) if with_stage else None,
            nonce=self._nonce(kind) if with_nonce else None,
            label=label,
        )
        if t.picture.paused:  # the host paused the table: every player's tap is refused
            assert response.status_code == 422, (kind, response.status_code, notice(response))
        if twice and response.status_code == 200 and notice(response) is None:
            # The second request finds its nonce done: it answers as the first and does nothing.
            once = self._picture(t)
            phone, _seat, kind, form = t.last
            again = phone.client.post(f"/t/{t.code}/a/{kind}", data=form, headers=HX)
            assert (again.status_code, notice(again)) == (200, None), notice(again)
            assert self._picture(t) == once, "a double click did the action twice"
            note(f"{t.game}: double click {label[5:]}")

    def _misplay(self, t: Table, data) -> None:
        """Anything from anyone: a kind the rules do not allow now, junk fields, a kicked
        player, a phone that never sat here, the host; a bad CSRF token; no htmx."""
        who = data.draw(st.sampled_from(["seat", "seat", "left", "stranger", "host"]), label="who")
        if who == "seat" and t.live_seats():
            phone = t.seats[data.draw(st.sampled_from(t.live_seats()), label="seat")]
        elif who == "left" and t.left_seats():
            phone = t.seats[data.draw(st.sampled_from(t.left_seats()), label="seat")]
        elif who == "host":
            phone = self.host
        else:
            strangers = [p for p in self.phones if p.token and p not in t.seats.values()]
            if not strangers:
                client = self.app.test_client()
                strangers = [Phone(client, csrf_of(client.get("/")))]
                self.phones.append(strangers[0])
            phone = strangers[0]
        fields = data.draw(
            st.dictionaries(st.sampled_from(FIELDS), st.sampled_from(JUNK), max_size=4),
            label="fields",
        )
        token = data.draw(st.sampled_from([None] * 8 + ["", "forged"]), label="csrf")
        if data.draw(st.integers(0, 9), label="host route") == 0:
            kind = data.draw(st.sampled_from(HOST_ROUTE_KINDS), label="kind")
            self._host(t, kind, fields, expect_ok=None, label=f"misplay {kind}", token=token)
            return
        kind = data.draw(st.sampled_from(MISPLAY_KINDS[t.game]), label="kind")
        stage = data.draw(
            st.sampled_from([service.stage(t.state), None, "0-auction", "junk"]), label="stage"
        )
        hx = data.draw(st.integers(0, 6), label="htmx") > 0
        self._tap(
            t,
            phone,
            kind,
            fields,
            stage=stage,
            nonce=self._nonce(kind),
            label=f"misplay {kind}",
            token=token,
            hx=hx,
        )

    def _again(self, t: Table, data) -> None:
        """The last accepted tap sent again, same nonce, steps later: nothing happens twice."""
        phone, _seat, kind, form = t.last
        response = phone.client.post(f"/t/{t.code}/a/{kind}", data=form, headers=HX)
        if t.seat_of(phone) is not None:
            assert (response.status_code, notice(response)) == (200, None), notice(response)
        else:  # kicked since
            assert response.status_code == 403
        t.expect = "same"
        note(f"{t.game}: again {form.get('mode', kind) if kind == 'tap' else kind}")

    def _resendable(self, t: Table) -> bool:
        """A nonce is per seat: a phone sent away and seated again sends a new tap."""
        if t.last is None:
            return False
        phone, seat, _kind, _form = t.last
        return t.seat_of(phone) in (seat, None)

    def _old_stages(self, t: Table) -> list[str]:
        now = service.stage(t.state)
        return [s for s in t.stages if s != now]

    def _stale(self, t: Table, data) -> None:
        """A tap from a screen that still shows an older stage: 409, and nothing moves."""
        old = data.draw(st.sampled_from(self._old_stages(t)), label="old stage")
        moves = [(s, k) for s, k in self._moves(t) if s is not None]
        if moves:
            seat, kind = data.draw(st.sampled_from(moves), label="move")
            fields = self._fields(t, seat, kind, data)
        else:
            seat = data.draw(st.sampled_from(t.live_seats()), label="seat")
            kind, fields = "sit_out", {}
        response = self._tap(
            t, t.seats[seat], kind, fields, stage=old, nonce=self._nonce(kind), label=None
        )
        assert response.status_code == 409, (old, kind, response.status_code, notice(response))
        assert notice(response)
        note(f"{t.game}: stale {kind}")

    def _top_up(self, t: Table, data) -> None:
        """The host gives chips: accepted for a seated player and 1 to MOST_CHIPS chips, else
        refused."""
        seats = t.live_seats() * 4 + t.left_seats() + ["p99", ""]
        seat = data.draw(st.sampled_from(seats), label="seat")
        amount = data.draw(
            st.one_of(
                st.integers(1, 50).map(str),
                st.sampled_from(
                    ["0", "-3", "x", "", " 7 ", str(MOST_CHIPS), str(MOST_CHIPS + 1)]
                    + [str(MAX_NUMBER), str(MAX_NUMBER + 1)]
                ),
            ),
            label="amount",
        )
        self._host(t, "top_up", {"seat": seat, "amount": amount}, expect_ok=None, label="top_up")

    def _kick(self, t: Table, data) -> None:
        seats = t.live_seats() * 4 + t.left_seats() + ["p99"]
        seat = data.draw(st.sampled_from(seats), label="seat")
        self._host(t, "kick", {"seat": seat}, expect_ok=seat in t.live_seats(), label="kick")

    def _pause(self, t: Table, data) -> None:
        kind = "resume" if t.picture.paused else "pause"
        self._host(t, kind, {}, expect_ok=True, label=kind)

    def _end(self, t: Table, data) -> None:
        self._host(t, "end", {}, expect_ok=True, label="end")

    # --- choosing a move ------------------------------------------------------------------

    def _moves(self, t: Table) -> list[tuple[str | None, str]]:
        """(seat, kind) for everything the rules allow now; seat None is the host."""
        state, now = t.state, time.time()
        engine = ENGINES[t.game]
        auction = state["auction"] if t.game == "montones" else {}
        answered = set(auction.get("offers", {})) | set(auction.get("passed", []))
        moves = []
        for seat in t.live_seats():
            me = engine.view(state, seat, now)["me"]
            # Montones offers a broke player the bet buttons too (and a bank below the table
            # minimum takes no bet): the moves leave those out.
            broke = me["chips"] < state["settings"]["min_bet"]
            if t.game == "montones" and state["phase"] == montones.BETTING:
                broke = broke or state["bank"]["amount"] < state["settings"]["min_bet"]
            for kind in me["can"]:
                if kind in ("withdraw", "change") and not me["bets"]:
                    continue
                if broke and kind in ("bet", "against", "offer", "abona"):
                    continue
                if kind == "declare" and not me["chips"] and not me["bets"]:
                    continue
                if seat in answered and (kind == "pass" or kind == "offer" and auction["offers"]):
                    continue  # answered already: an offer again only if nobody has offered
                moves.append((seat, kind))
        if t.game == "montones" and state["phase"] == montones.AUCTION:
            if state["auction"]["offers"]:
                moves.append((None, "close_auction"))
        if t.game == "montones" and state["phase"] == montones.CUT:
            # A kicked cutter leaves the deck waiting for the cut timeout, which only an open
            # live stream applies; the host sends the banker away instead (the hand is off).
            if state["players"][state["hand"]["cutter"]].get("left"):
                moves.append((None, "kick_banker"))
        if t.game != "montones" and state["phase"] == monte.SEATING and len(t.live_seats()) >= 2:
            moves.append((None, "draw"))
        return moves

    def _fields(self, t: Table, seat: str, kind: str, data) -> dict:
        """Form fields for ``kind`` that the rules will usually take (not always: a bet may
        leave no heap for the banker, an amount may be over what the bank holds)."""
        state = t.state
        me = state["players"][seat]
        rules = state["settings"]

        def amount(low: int, high: int) -> int:
            return data.draw(st.integers(low, max(low, high)), label="amount")

        if t.game == "monte_bank":
            return self._casino_fields(state, me, seat, kind, amount, data)
        if t.game == "monte":
            if kind == "bank":
                return {"amount": amount(1, min(me["chips"], MAX_NUMBER))}
            if kind == "cut":
                return {"position": data.draw(st.integers(1, len(state["deck"]) - 1), label="cut")}
            if kind == "bet":
                coup = state["coup"]
                room = state["bank"] - sum(b["amount"] for b in coup["bets"])
                most = min(rules["max_bet"], room, me["chips"])
                layout = data.draw(st.sampled_from(monte.LAYOUTS), label="layout")
                return {"layout": layout, "amount": amount(rules["min_bet"], most)}
            if kind == "withdraw":
                mine = [b["id"] for b in state["coup"]["bets"] if b["player"] == seat]
                return {"bet": data.draw(st.sampled_from(mine), label="bet")}
            return {}
        hand = state["hand"]
        if kind in ("offer", "abona"):
            # Mostly a small bank, which the punters can break: then it passes.
            most = min(me["chips"], MAX_NUMBER)
            if data.draw(st.booleans(), label="small bank"):
                most = min(most, max(rules["min_bet"], 1 + most // 5))
            return {"amount": amount(1, most)}
        if kind == "cut":
            return {"position": data.draw(st.integers(1, len(hand["deck"]) - 1), label="cut")}
        if kind == "heaps":
            low, high = rules["heap_counts"]
            return {"count": data.draw(st.integers(low, high), label="count")}
        numbers = list(range(1, len(hand["heaps"]) + 1)) if hand else [1]
        if kind in ("bet", "against", "declare"):
            others = [h for h in numbers if h != hand["bank_heap"]] or [1]
            fields = {"heap": data.draw(st.sampled_from(others), label="heap")}
            if kind != "declare":
                # Often all the bank holds (or all one has): a winning bet breaks the bank.
                most = min(state["bank"]["amount"], me["chips"])
                all_in = data.draw(st.integers(0, 2), label="all in") == 0
                fields["amount"] = (
                    max(most, rules["min_bet"]) if all_in else amount(rules["min_bet"], most)
                )
            return fields
        if kind == "choose":
            free = [h for h in numbers if h not in montones.tied_heaps(hand)] or [1]
            return {"heap": data.draw(st.sampled_from(free), label="heap")}
        if kind == "withdraw":
            mine = [b["id"] for b in hand["bets"] if b["player"] == seat]
            return {"bet": data.draw(st.sampled_from(mine), label="bet")}
        if kind == "keep":
            splittable = [h for h in numbers if len(hand["heaps"][h - 1]) >= 3] or [1]
            return {"heap": data.draw(st.sampled_from(splittable), label="heap")}
        return {}

    def _casino_fields(self, state, me, seat, kind, amount, data) -> dict:
        """Monte Bank: a bank, a cut, a bet of any kind (its stake up to the bank, often
        all of it), a new stake, a bet to take back."""
        low = state["settings"]["min_bet"]
        if kind == "bank":
            return {"amount": amount(low, min(me["chips"], MAX_NUMBER))}
        if kind == "cut":
            return {"position": data.draw(st.integers(1, len(state["deck"]) - 1), label="cut")}
        mine = [b for b in state["deal"]["bets"] if b["player"] == seat]
        most = min(state["bank"], me["chips"])
        stake = max(most, low) if data.draw(st.integers(0, 2), label="all in") == 0 else None
        if kind == "bet":
            bet_kind = data.draw(st.sampled_from(monte_bank.KINDS), label="bet kind")
            on = data.draw(st.sampled_from(monte_bank.POSITIONS), label="on")
            against = data.draw(
                st.sampled_from([p for p in monte_bank.POSITIONS if p != on]), label="against"
            )
            sides = [s for s, held in monte_bank.SIDES.items() if on in held]
            side = data.draw(st.sampled_from(sides), label="side")
            # as the phone taps them: a side, a position twice, a position then another
            at = {"double": side, "cross": against}.get(bet_kind, on)
            if bet_kind == "monte_carlo":
                most = min(state["bank"], me["chips"] // 3)
                stake = None
            return {
                "at": at,
                "bet_kind": "monte_carlo" if bet_kind == "monte_carlo" else "layout",
                "first": on,
                "against": against,
                "side": side,
                "amount": stake or amount(low, most),
            }
        if kind == "change":
            placed = data.draw(st.sampled_from(mine), label="bet")
            return {"bet": placed["id"], "amount": amount(low, placed["amount"] + 2)}
        if kind == "withdraw":
            return {"bet": data.draw(st.sampled_from([b["id"] for b in mine]), label="bet")}
        return {}

    def _weighted(self, data, items: list, weights: list[int], label: str):
        point = data.draw(st.integers(0, sum(weights) - 1), label=label)
        for item, weight in zip(items, weights, strict=True):
            if point < weight:
                return item
            point -= weight
        raise AssertionError("unreachable")

    def _nonce(self, kind: str) -> str:
        self.nonces += 1
        return f"m{self.nonces}-{kind}"

    # --- requests -------------------------------------------------------------------------

    def _tap(
        self,
        t: Table,
        phone: Phone,
        kind: str,
        fields: dict,
        *,
        stage: str | None,
        nonce: str | None,
        label: str | None,
        token: str | None = None,
        hx: bool = True,
    ):
        """POST /t/CODE/a/<kind> from ``phone``, as its screen sends it; note what the answer
        says the request did (the invariant checks the table did just that)."""
        form = {k: str(v) for k, v in fields.items()}
        # An action that asks "are you sure?" first (tres últimas manos) is sent as its answer
        # sends it; the question itself is tested in tests/views/test_nobody_guessing.py.
        form.setdefault("confirm", "yes")
        if stage is not None:
            form["stage"] = stage
        if nonce is not None:
            form["nonce"] = nonce
        form["csrf_token"] = phone.token if token is None else token
        if not form["csrf_token"]:
            del form["csrf_token"]
        response = phone.client.post(f"/t/{t.code}/a/{kind}", data=form, headers=HX if hx else {})
        if not hx:
            # Without htmx: a redirect either way and the message flashed; the invariant still
            # holds the table to "no new version, no change at all".
            assert response.status_code in (303, 400), response.status_code
            t.expect = "same" if response.status_code == 400 else None
            if label:
                note(f"{t.game}: {label} (no htmx)")
            return response
        assert response.status_code in (200, 400, 403, 409, 422), response.status_code
        refused = response.status_code != 200 or notice(response) is not None
        assert not (refused and response.status_code == 200), notice(response)
        t.expect = "same" if refused else "moved"
        if not refused and nonce is not None:
            t.last = (phone, t.seat_of(phone), kind, form)
        if label:
            note(f"{t.game}: {label} {'refused' if refused else 'ok'}")
        return response

    def _host(
        self,
        t: Table,
        kind: str,
        fields: dict,
        *,
        expect_ok: bool | None,
        label: str,
        token: str | None = None,
    ) -> None:
        """POST /t/CODE/host/<kind> from the host's device: a redirect either way, so what it
        did is predicted (``expect_ok``; None: either) and the invariant checks it."""
        form = {k: str(v) for k, v in fields.items()}
        form.setdefault("confirm", "yes")  # sending away and ending the night ask first
        form["csrf_token"] = self.host.token if token is None else token
        if not form["csrf_token"]:
            del form["csrf_token"]
        if kind == "top_up":
            # Accepted for a seated player and a whole number of chips from 1 to MOST_CHIPS.
            amount = parsed(fields.get("amount", ""))
            expect_ok = (
                token is None
                and fields.get("seat") in t.live_seats()
                and 1 <= (amount or 0) <= MOST_CHIPS
            )
        response = self.host.client.post(f"/t/{t.code}/host/{kind}", data=form)
        if token is not None or any("\x00" in value for value in form.values()):
            assert response.status_code == 400  # no CSRF token, or a NUL byte
            expect_ok = False
        elif response.status_code == 403:  # a player's kind, from a host with no seat here
            assert expect_ok is None and kind not in ("top_up", "kick", "pause", "resume"), kind
            expect_ok = False
        else:
            assert response.status_code == 303, response.status_code
        if kind == "top_up" and expect_ok:
            t.issued += amount
        t.expect = None if expect_ok is None else "moved" if expect_ok else "same"
        note(
            f"{t.game}: host {label}{'' if expect_ok is None else ' ok' if expect_ok else ' refused'}"
        )

    # --- what must hold after every step ----------------------------------------------------

    def _picture(self, t: Table) -> Picture:
        return self._pictures([t])[t.code]

    def _pictures(self, tables: list[Table]) -> dict[str, Picture]:
        """The tables as the database holds them (by code), in two queries however many."""
        if not tables:
            return {}
        codes = [t.code for t in tables]
        ids = select(GameTable.id).where(GameTable.code.in_(codes))
        actions = (
            select(
                Action.table_id,
                func.count(Action.id).label("count"),
                func.min(Action.version).label("lowest"),
                func.max(Action.version).label("highest"),
            )
            .where(Action.table_id.in_(ids))
            .group_by(Action.table_id)
            .subquery()
        )
        with self.app.app_context():
            rows = db.session.execute(
                select(
                    GameTable.id,
                    GameTable.code,
                    GameTable.state,
                    GameTable.version,
                    GameTable.paused,
                    GameTable.ended_at,
                    actions.c.count,
                    actions.c.lowest,
                    actions.c.highest,
                )
                .outerjoin(actions, actions.c.table_id == GameTable.id)
                .where(GameTable.code.in_(codes))
            ).all()
            ledger = db.session.execute(
                select(
                    LedgerEntry.table_id,
                    LedgerEntry.version,
                    LedgerEntry.account,
                    func.sum(LedgerEntry.amount),
                    func.count(LedgerEntry.id),
                )
                .where(LedgerEntry.table_id.in_([row.id for row in rows]))
                .group_by(LedgerEntry.table_id, LedgerEntry.version, LedgerEntry.account)
                .order_by(LedgerEntry.table_id, LedgerEntry.version, LedgerEntry.account)
            ).all()
        entries = defaultdict(list)
        for table_id, version, account, total, count in ledger:
            entries[table_id].append((version, account, int(total), count))
        return {
            row.code: Picture(
                state=row.state,
                version=row.version,
                paused=row.paused,
                ended=row.ended_at is not None,
                ledger=tuple(entries[row.id]),
                actions=(row.count or 0, row.lowest, row.highest),
            )
            for row in rows
        }

    @invariant()
    def the_ledger_balances(self):
        pictures = self._pictures(list(self.current.values()))
        for t in self.current.values():
            before, now = t.picture, pictures[t.code]
            where = f"{t.game} table {t.code} at version {now.version}"
            state = now.state

            # The chips: every one issued is somewhere, none below zero.
            balances = ENGINES[state["game"]].balances(state)
            assert sum(balances.values()) == t.issued, (where, balances, t.issued)
            assert all(n >= 0 for n in balances.values()), (where, balances)
            if t.game == "montones":
                bets = state["hand"]["bets"] if state["hand"] else []
            else:
                deal = state.get("coup") or state.get("deal")
                bets = deal["bets"] if deal else []
            assert all(b["amount"] is None or b["amount"] > 0 for b in bets), (where, bets)

            # The ledger: each version a balanced transaction, the totals the balances.
            per_version, per_account = defaultdict(int), defaultdict(int)
            for version, account, total, _rows in now.ledger:
                per_version[version] += total
                per_account[account] += total
            unbalanced = {v: n for v, n in per_version.items() if n}
            assert not unbalanced, (where, "unbalanced versions", unbalanced)
            totals = {a: n for a, n in per_account.items() if n}
            # The house issued every chip; a levy's share (Monte Bank) comes back to it.
            kept = {a: n for a, n in balances.items() if n and a != "house"}
            house = balances.get("house", 0)
            assert totals.pop("house", 0) == house - t.issued, (where, totals, t.issued)
            assert totals == kept, (where, totals, balances)

            # One action per version; the row's version is the state's; the seats are who sat.
            assert now.version == state["version"], where
            count, lowest, highest = now.actions
            assert (count, highest) == (now.version, now.version or None), (where, now.actions)
            assert lowest == (1 if count else None), (where, now.actions)
            assert all(1 <= v <= now.version for v in per_version), (where, sorted(per_version))
            assert {s: p["name"] for s, p in state["players"].items()} == t.names, where

            # What the step's request did: a refusal nothing, an accepted one a new version.
            if before is not None:
                if now.version == before.version:
                    assert now == before, (where, "changed without a new version")
                if t.expect == "same":
                    assert now.version == before.version, (where, "a refusal changed the table")
                elif t.expect == "moved":
                    assert now.version > before.version, (where, "accepted, but nothing changed")
                self._progress(t, before.state, state)
            t.expect = None
            t.picture = now
            stage = service.stage(state)
            if stage not in t.stages:
                t.stages.append(stage)

    def _progress(self, t: Table, old: dict, new: dict) -> None:
        """Events for the report: hands and coups dealt and settled, banks changing hands."""
        seen = []
        if t.game == "montones":
            if new["hands"] > old["hands"]:
                seen.append("a hand dealt")
            if new["phase"] == montones.SETTLED and old["phase"] != montones.SETTLED:
                seen.append("a hand settled")
            banker = new["bank"]["banker"] if new["bank"] else None
            if old["bank"] and not new["bank"]:
                seen.append("a bank closed")
            if new["bank"] and not old["bank"]:
                seen.append("a bank opened")
        else:
            if new["phase"] == monte.BETTING and old["phase"] != monte.BETTING:
                seen.append("a coup dealt")
            last = "last_coup" if t.game == "monte" else "last_deal"
            if new[last] and new[last] != old[last]:
                seen.append("a coup settled" if t.game == "monte" else "a deal settled")
            if new.get("house", 0) > old.get("house", 0):
                seen.append("the levy pot split")
            if new["phase"] == monte.FINISHED and old["phase"] != monte.FINISHED:
                seen.append("finished")
            banker = new["banker"]
        if banker and (not t.bankers or t.bankers[-1] != banker):
            if t.bankers:
                seen.append("the bank changed hands")
            t.bankers.append(banker)
        for what in seen:
            note(f"{t.game}: {what}")
            self.progress[f"{t.game}: {what}"] += 1


LedgerMachine.TestCase.settings = settings(
    max_examples=int(os.environ.get("LEDGER_EXAMPLES", 80)),
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.large_base_example,
    ],
)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def shared_app(request, tmp_path_factory):
    """One app per database for the whole module: each example plays fresh tables on it."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('ledger') / 'montones.sqlite'}"
    else:
        url = request.getfixturevalue("postgres_url")

    # Nothing drops these connections; skip the ping before each use (thousands of them).
    app = make_app(url, SQLALCHEMY_ENGINE_OPTIONS={"pool_pre_ping": False})
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


# The examples of each database run in two halves, so the two test processes share the work
# (pyproject: pytest -n 2) instead of one waiting on the other. Each half draws its own random
# examples: under CI, Hypothesis's "ci" profile would otherwise derandomize both halves into the
# very same examples. A failure prints the blob that reproduces it.
PARTS = 2


@pytest.mark.parametrize("part", range(1, PARTS + 1))
def test_the_ledger_balances_after_every_step(shared_app, part):
    STATS.clear()
    started = time.perf_counter()
    total = LedgerMachine.TestCase.settings.max_examples
    share = total // PARTS + (1 if part <= total % PARTS else 0)
    run_state_machine_as_test(
        lambda: LedgerMachine(shared_app),
        settings=settings(LedgerMachine.TestCase.settings, max_examples=share, derandomize=False),
    )
    elapsed = time.perf_counter() - started
    steps = sum(n for label, n in STATS.items() if label.startswith("rule: "))
    print(f"\n{STATS['examples']} examples, {steps} steps in {elapsed:.1f} s")
    for label, n in sorted(STATS.items()):
        print(f"  {n:7d}  {label}")


# --- what the ledger got wrong ------------------------------------------------------------


def test_a_hand_with_more_than_2_31_chips_staked_settles(app):
    """A top-up is at most MOST_CHIPS, but the host may give one again and again: the stakes of
    the hand together are 2.2e9, and the close must settle them and ledger them like any other.
    The 4,000 top-ups are the service's own action, each as the host's form gives it, in one
    transaction (one each took a minute here)."""
    from montones.data.store import locked
    from montones.service.actions import _act

    night = Night(app, "Ana", "Ben", heaps=(4, 4))
    host = service.Actor(seat=None, is_host=True)
    with app.test_request_context(), locked(night.code) as (table, conn):
        for seat, chips in (("p1", MAX_NUMBER), ("p2", 3 * MAX_NUMBER)):
            for _ in range(chips // MOST_CHIPS):
                top_up = {"seat": seat, "amount": MOST_CHIPS}
                _act(conn, table, host, "top_up", top_up, None, None)
    night.to_betting("Ana", bank=MAX_NUMBER, heaps=4)
    for heap, amount in ((1, MAX_NUMBER), (2, MAX_NUMBER), (3, 200_000_000)):
        night.ok("Ben", "bet", heap=heap, amount=amount)
    night.ok("Ben", "choose", heap=4)
    night.ok("Ana", "close")  # PostgreSQL: DataError, integer out of range
    state = night.state()
    assert state["phase"] == "settled"
    ledger = {account: n for account, n in night.ledger().items() if n}
    assert ledger.pop("house") == -(2 * 100 + 4 * MAX_NUMBER)
    assert ledger == {a: n for a, n in ENGINES[state["game"]].balances(state).items() if n}
