"""Hypothesis-made values for every form field of every POST route: never a 5xx, and a refusal
changes nothing.

Each target is a route in the phase of the game where it matters (bets while betting, the cut
in the cut, the host's switches on a running table...), posted with a valid CSRF token by a
seated player (any of the punters or the banker) or the host, with and without htmx. A value is
any of: a number of any size or sign, a float, a number with a sign or spaces around it,
unicode digits, text of any unicode (NUL included), the empty string, a missing field, 1,000
to 10,000 characters, or several values under one key.

An answer is a refusal when its status is 4xx, when htmx shows a notice, or when a redirect
carries a flashed message; then the table (state, switches, seats, ledger, action count) and
the database's counts must be exactly as before. An accepted action must leave the ledger
equal to where the state says the chips are, and is then undone (``Checkpoint``) so that the
next example meets the table in the same phase. The number of payloads tried is printed at
the end of the module.
"""

from __future__ import annotations

import json
from collections import Counter
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from montones import service
from montones.rules.games import game
from tests.helpers.security import (
    HX,
    SECURITY_CONFIG,
    Checkpoint,
    browser,
    make_app,
    notice,
    rejoin_code,
    snapshot,
    table_in,
)

TRIED: Counter = Counter()  # payloads posted, by target
ACCEPTED: Counter = Counter()  # of which the app accepted (and the test then undid)
FUZZ = settings(
    max_examples=40,
    deadline=None,
    database=None,  # write nothing into the checkout
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


APP_CONFIG = SECURITY_CONFIG


@pytest.fixture(scope="module", autouse=True)
def report(request):
    """At the end of the module, the count of payloads, on the terminal even when captured."""
    yield
    total = sum(TRIED.values())
    lines = [
        f"security fuzz: {total} payloads tried over {len(TRIED)} targets, "
        f"{sum(ACCEPTED.values())} accepted (and undone), the rest refused"
    ]
    if request.config.getoption("verbose") > 0:
        lines += [
            f"  {count:5d} tried {ACCEPTED[target]:4d} accepted  {target}"
            for target, count in sorted(TRIED.items())
        ]
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print("\n" + "\n".join(lines))


# --- values ------------------------------------------------------------------------------------

NUMBERISH = st.one_of(
    st.integers(min_value=-3, max_value=60).map(str),  # the values that matter, often
    st.integers().map(str),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.integers(min_value=0, max_value=100).map(lambda n: f"+{n}"),
    st.integers(min_value=-100, max_value=100).map(lambda n: f"  {n}\t"),
    st.integers(min_value=0, max_value=100).map(lambda n: f"{n}.0"),
    st.sampled_from(
        [
            "",
            " ",
            "٣",  # an Arabic-Indic 3
            "５",  # a full-width 5
            "1_0",
            "0x1f",
            "1e3",
            "-0",
            "007",
            "+-1",
            "NaN",
            "inf",
            "∞",
            "5\x00",
            "\x00",
            "true",
            "None",
            "[]",
            "{}",
            "9" * 4301,  # over Python's digit limit for int()
            "-" + "9" * 5000,
        ]
    ),
)
WORDS = st.sampled_from(
    [
        "<script>alert(1)</script>",
        "' OR 1=1 --",
        "\u202e",
        "%00",
        "../../etc/passwd",
        "{{7*7}}",
        "${7*7}",
        "p1",
        "p2",
        "p3",
        "p99",
        "host",
        "system",
        "top",
        "bottom",
        "TOP",
        " top ",
        "bet",
        "against",
        "declare",
        "choose",
        "montones",
        "monte",
        "on",
        "off",
        "house",
    ]
)
LONG = st.builds(
    lambda char, n: char * n,
    st.sampled_from(["x", "9", "é", "😀", "\x00", " ", "<"]),
    st.integers(min_value=1000, max_value=10000),
)
VALUE = st.one_of(NUMBERISH, WORDS, st.text(max_size=40), LONG)
# A field is absent (None), one value, or several values under the same key.
FIELD = st.one_of(st.none(), VALUE, VALUE, VALUE, st.lists(VALUE, min_size=2, max_size=3))


# Values a field takes when it is not the one being fuzzed, so that the others do not always
# refuse the post first and the rules get to judge the fuzzed one.
SANE = {
    "amount": ["1", "3", "5"],
    "heap": ["1", "2", "3"],
    "position": ["10", "20"],
    "count": ["3", "4"],
    "layout": ["top", "bottom"],
    "mode": ["bet", "against", "declare", "choose"],
    "custom": ["", "2"],
    "seat": ["p1", "p2", "p3"],
    "bet": ["1", "2"],
}


def form(draw, fields: tuple[str, ...], table=None) -> dict:
    data = {}
    for name in fields:
        sane = st.sampled_from(SANE[name]) if name in SANE else st.none()
        value = draw(st.one_of(sane, sane, FIELD))
        if value is not None:
            data[name] = value
    # the phone's hidden fields: the stage the screen showed and the tap's nonce
    stages = [None, None, "junk"] + ([service.stage(table.state())] * 3 if table else [])
    stage = draw(st.one_of(st.sampled_from(stages), st.sampled_from(stages), st.text(max_size=20)))
    if stage is not None:
        data["stage"] = stage
    nonce = draw(st.one_of(st.none(), st.none(), st.text(max_size=40), LONG))
    if nonce is not None:
        data["nonce"] = nonce
    if draw(st.booleans()):
        data[draw(st.text(min_size=1, max_size=10))] = draw(VALUE)  # a field nobody asked for
    return data


# --- the oracle --------------------------------------------------------------------------------


def flashed_now(client) -> list:
    """The refusals flashed into a browser's session (a switch that worked, such as a top-up,
    flashes its answer as "done", which is no refusal)."""
    with client.session_transaction() as session:
        return [f for f in session.pop("_flashes", []) if f[0] != "done"]


def ledger_matches_state(app, code: str) -> None:
    with app.app_context():
        table = service.get_table(code)
        ledger = {k: v for k, v in service.ledger_totals(table).items() if k != "house" and v}
        held = {k: v for k, v in game(table.state["game"]).balances(table.state).items() if v}
        assert ledger == held, (ledger, held)
        assert sum(service.ledger_totals(table).values()) == 0


class Target:
    """A table in a phase, kept for the whole module and put back after every accepted post."""

    def __init__(self, app, game: str, phase: str):
        self.app = app
        self.table = table_in(app, game, phase)
        self.checkpoint = Checkpoint(app, self.table.code)

    def post(self, name, actor, path, data, hx, client=None, token=None):
        TRIED[name] += 1
        own_client, own_token = self.table.client(actor)
        client, token = client or own_client, token or own_token
        url = f"/t/{self.table.code}{path}"
        before = self.table.snapshot()
        assert json.loads(before)["table"] == self.checkpoint.table  # still in its phase
        response = client.post(url, data={**data, "csrf_token": token}, headers=HX if hx else {})
        assert response.status_code < 500, (name, actor, data)
        after = self.table.snapshot()
        flashes = flashed_now(client)
        refused = (
            response.status_code >= 400
            or (hx and response.status_code == 200 and notice(response) is not None)
            or bool(flashes)
        )
        if refused:
            assert after == before, (name, actor, response.status_code, data)
        elif after != before:
            ACCEPTED[name] += 1
            ledger_matches_state(self.app, self.table.code)
            self.checkpoint.restore()
        return response


@pytest.fixture(scope="module")
def targets(app):
    made: dict[tuple[str, str], Target] = {}

    def get(game: str, phase: str) -> Target:
        if (game, phase) not in made:
            made[(game, phase)] = Target(app, game, phase)
        return made[(game, phase)]

    return get


# (game, phase, route under /t/CODE, the form's fields, who posts)
PLAYERS = ("A", "B", "banker")
HOSTS = ("host", "host", "A")
MONTONES_TARGETS = [
    ("auction", "/a/offer", ("amount",), PLAYERS),
    ("auction", "/a/pass", (), PLAYERS),
    ("cut", "/a/cut", ("position",), PLAYERS),
    ("heaps", "/a/heaps", ("count",), PLAYERS),
    ("betting", "/a/bet", ("heap", "amount"), PLAYERS),
    ("betting", "/a/against", ("heap", "amount"), PLAYERS),
    ("betting", "/a/declare", ("heap",), PLAYERS),
    ("betting", "/a/choose", ("heap",), PLAYERS),
    ("betting", "/a/withdraw", ("bet",), PLAYERS),
    ("betting", "/a/tap", ("mode", "heap", "amount", "custom"), PLAYERS),
    ("betting", "/a/tres", (), PLAYERS),
    ("betting", "/a/sit_out", (), PLAYERS),
    ("b_out", "/a/sit_in", (), PLAYERS),
    ("chosen", "/a/close", (), PLAYERS),
    ("settled", "/a/next", (), PLAYERS),
    ("rey", "/a/keep", ("heap",), PLAYERS),
    ("broken", "/a/abona", ("amount",), PLAYERS),
    ("broken", "/a/close_bank", (), PLAYERS),
    ("auction", "/host/close_auction", (), HOSTS),
    ("betting", "/host/kick", ("seat",), HOSTS),
    ("betting", "/host/top_up", ("seat", "amount"), HOSTS),
    ("betting", "/host/pause", (), HOSTS),
    ("paused", "/host/resume", (), HOSTS),
    ("betting", "/host/end", (), HOSTS),
]
MONTE_TARGETS = [
    ("seating", "/host/draw", (), HOSTS),
    ("bank", "/a/bank", ("amount",), PLAYERS),
    ("cut", "/a/cut", ("position",), PLAYERS),
    ("betting", "/a/bet", ("layout", "amount"), PLAYERS),
    ("betting", "/a/tap", ("mode", "layout", "amount", "custom"), PLAYERS),
    ("betting", "/a/withdraw", ("bet",), PLAYERS),
    ("betting", "/a/gate", (), PLAYERS),
    ("coup_over", "/a/next", (), PLAYERS),
    ("betting", "/host/kick", ("seat",), HOSTS),
    ("betting", "/host/top_up", ("seat", "amount"), HOSTS),
    ("betting", "/host/pause", (), HOSTS),
    ("paused", "/host/resume", (), HOSTS),
    ("betting", "/host/end", (), HOSTS),
]
TARGETS = [("montones", *t) for t in MONTONES_TARGETS] + [("monte", *t) for t in MONTE_TARGETS]


@pytest.mark.parametrize(
    ("game", "phase", "path", "fields", "actors"),
    TARGETS,
    ids=[f"{g}-{ph}-{p.strip('/')}" for g, ph, p, _f, _a in TARGETS],
)
@FUZZ
@given(data=st.data())
def test_fuzzed_action_fields(targets, game, phase, path, fields, actors, data):
    post_fuzzed(targets, game, phase, path, fields, actors, data)


def post_fuzzed(targets, game, phase, path, fields, actors, data):
    """One payload, drawn from ``data``, posted to a target by one of its actors."""
    target = targets(game, phase)
    actor = data.draw(st.sampled_from(actors))
    hx = data.draw(st.booleans())
    posted = form(data.draw, fields, target.table)
    if "seat" in fields and data.draw(st.booleans()):
        posted["seat"] = data.draw(st.sampled_from(["p1", "p2", "p3", " p2", "P2", "p2\x00"]))
    if "bet" in fields and data.draw(st.booleans()):
        posted["bet"] = str(target.table.extra["bet"] + data.draw(st.integers(-2, 2)))
    target.post(f"{game} {phase} {path}", actor, path, posted, hx)


# --- creating, joining and rejoining -------------------------------------------------------------

CREATE_FIELDS = (
    "name",
    "chips",
    "min_bet",
    "heaps_min",
    "heaps_max",
    "tenure",
    "cut_timeout",
    "bank_size",
    "max_bet",
    "banks_each",
    "short_bank",
    "two_card",
    "generous",
    "private_circle",
)
GOOD = {
    "chips": "100",
    "min_bet": "1",
    "heaps_min": "3",
    "heaps_max": "8",
    "tenure": "60",
    "cut_timeout": "30",
    "bank_size": "50",
    "max_bet": "10",
    "banks_each": "1",
}


@settings(FUZZ, max_examples=150)
@given(data=st.data())
def test_fuzzed_table_creation(app, targets, data):
    """Any form for /tables: a 303 makes exactly one table; anything else makes none."""
    target = targets("montones", "auction")  # the table that must not change meanwhile
    client, token = target.table.client(data.draw(st.sampled_from(["anonymous", "A", "host"])))
    game = data.draw(st.one_of(st.sampled_from(["montones", "monte"]), VALUE, st.none()))
    posted = {"game": game} if game is not None else {}
    # one to three fields fuzzed, the others sane, so that the fuzzed ones decide
    fuzzed = data.draw(st.sets(st.sampled_from(CREATE_FIELDS), min_size=1, max_size=3))
    for name in CREATE_FIELDS:
        value = data.draw(FIELD) if name in fuzzed else GOOD.get(name)
        if value is not None:
            posted[name] = value
    hx = data.draw(st.booleans())
    TRIED["lobby /tables"] += 1
    before = json.loads(snapshot(target.app, target.table.code))
    response = client.post(
        "/tables", data={**posted, "csrf_token": token}, headers=HX if hx else {}
    )
    assert response.status_code < 500, posted
    after = json.loads(snapshot(target.app, target.table.code))
    if response.status_code == 303:
        ACCEPTED["lobby /tables"] += 1
        assert after["tables"] == before["tables"] + 1
        assert after["table"] == before["table"]
    else:
        assert response.status_code in (400, 422), posted  # 400: a NUL byte
        assert after == before, posted


@settings(FUZZ, max_examples=100)
@given(data=st.data())
def test_fuzzed_join_and_rejoin(app, targets, data):
    game = data.draw(st.sampled_from(["montones", "monte"]))
    target = targets(game, "auction" if game == "montones" else "seating")
    hx = data.draw(st.booleans())
    if data.draw(st.booleans()):
        name = data.draw(st.one_of(VALUE, st.sampled_from(["Ben", " ben ", "BEN", "Zed"])))
        newcomer = data.draw(st.sampled_from(["anonymous", "host"]))
        response = target.post(f"{game} /join", newcomer, "/join", {"name": name}, hx)
        assert response.status_code in (303, 400, 422)  # 400: a NUL byte
    else:
        real = rejoin_code(target.table, "A")
        code = data.draw(
            st.one_of(VALUE, st.sampled_from([real, real.lower(), f"  {real} ", real + "\x00"]))
        )
        client, token = browser(app)
        response = target.post(
            f"{game} /rejoin", "anonymous", "/rejoin", {"rejoin": code}, hx, client, token
        )
        assert response.status_code in (303, 400, 422)  # 400: a NUL byte


@settings(FUZZ, max_examples=120)
@given(data=st.data())
def test_fuzzed_action_names(targets, data):
    """Any text as the <kind> of /t/CODE/a/<kind> and /t/CODE/host/<kind>."""
    game = data.draw(st.sampled_from(["montones", "monte"]))
    target = targets(game, "betting")
    route = data.draw(st.sampled_from(["/a/", "/host/"]))
    kind = data.draw(st.one_of(st.text(max_size=30), WORDS, LONG))
    actor = data.draw(st.sampled_from(["A", "banker", "host"]))
    posted = form(data.draw, ("heap", "amount", "layout", "seat", "bet"), target.table)
    response = target.post(
        f"{game} {route}<kind>",
        actor,
        route + quote(kind, safe=""),
        posted,
        data.draw(st.booleans()),
    )
    assert response.status_code != 405 or "/" in kind or not kind


@settings(FUZZ, max_examples=60)
@given(data=st.data())
def test_fuzzed_table_codes_on_the_phone_routes(app, data):
    """Any text as the table code of the phones' routes: a 404 page, never a 500."""
    code = data.draw(st.one_of(st.text(max_size=12), WORDS, LONG))
    client, token = browser(app)
    path = data.draw(st.sampled_from(["", "/join", "/rejoin", "/standings", "/a/bet", "/p/all"]))
    TRIED["phone routes <code>"] += 1
    before = snapshot(app)
    url = f"/t/{quote(code, safe='')}{path}"
    if path in ("/join", "/rejoin", "/a/bet"):
        response = client.post(url, data={"csrf_token": token, "name": "Zed", "rejoin": "X"})
    else:
        response = client.get(url, headers=HX if data.draw(st.booleans()) else {})
    assert response.status_code < 500, url
    assert snapshot(app) == before


REACH_EXAMPLES = 20  # payloads per target for the check below: enough for most to get through


def test_the_fuzz_reached_past_the_refusals(targets):
    """The values are not all refused at the door: most targets had payloads accepted.

    The test fuzzes every target itself, on its own derandomized examples, and counts what it
    posted (what the other tests of the module post may run in another process). In one
    whole-module run of 40 payloads a target, all but four targets had some accepted.
    """
    before_tried, before_accepted = Counter(TRIED), Counter(ACCEPTED)

    def fuzzed(target):
        @settings(FUZZ, max_examples=REACH_EXAMPLES, derandomize=True)
        @given(data=st.data())
        def fuzz(data):
            post_fuzzed(targets, *target, data)

        return fuzz

    for target in TARGETS:
        fuzzed(target)()
    tried, accepted = TRIED - before_tried, ACCEPTED - before_accepted
    fuzzed = [target for target, count in tried.items() if count >= REACH_EXAMPLES]
    assert len(fuzzed) == len(TARGETS), tried
    reached = [target for target in fuzzed if accepted[target]]
    assert len(reached) * 2 >= len(fuzzed), {t: (tried[t], accepted[t]) for t in fuzzed}
    assert sum(accepted.values()) * 20 >= sum(tried.values()), accepted


# --- PostgreSQL: text the database refuses ----------------------------------------------------------


@pytest.fixture(scope="module")
def pg_app(request, tmp_path_factory):
    from montones.config import database_uri
    from montones.extensions import db

    url = request.getfixturevalue("postgres_url")
    app = make_app(
        tmp_path_factory.mktemp("security-pg"), SQLALCHEMY_DATABASE_URI=database_uri(url)
    )
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


PG_CASES = [
    ("a name with NUL", "/join", {"name": "Zed\x00"}, "anonymous", None),
    ("a rejoin code with NUL", "/rejoin", {"rejoin": "ABC\x00"}, "anonymous", None),
    ("a nonce with NUL", "/a/sit_out", {"nonce": "n\x00"}, "A", None),
    ("a nonce of 41 characters", "/a/sit_out", {"nonce": "n" * 41}, "A", None),
    ("a nonce of 10,000 characters", "/a/sit_out", {"nonce": "n" * 10000}, "A", None),
    (
        "a table name with NUL",
        "//tables",
        {**GOOD, "game": "montones", "name": "x\x00"},
        "host",
        None,
    ),
    ("an amount with NUL", "/a/bet", {"heap": "2", "amount": "5\x00"}, "A", None),
    ("a stage with NUL", "/a/sit_out", {"stage": "x\x00"}, "A", None),
    ("a layout with NUL", "/a/bet", {"layout": "top\x00", "amount": "1"}, "A", None),
    ("a seat with NUL", "/host/kick", {"seat": "p2\x00"}, "host", None),
    ("a name of 10,000 characters", "/join", {"name": "x" * 10000}, "anonymous", None),
]


@pytest.mark.parametrize(
    ("path", "fields", "actor"),
    [
        pytest.param(
            path,
            fields,
            actor,
            id=what,
            marks=[pytest.mark.xfail(strict=True, reason=bug)] if bug else [],
        )
        for what, path, fields, actor, bug in PG_CASES
    ],
)
def test_hostile_text_on_postgresql_is_refused_not_a_server_error(pg_app, path, fields, actor):
    table = table_in(pg_app, "montones", "betting")
    before = table.snapshot()
    response = table.post(actor, path, fields)
    TRIED["postgresql cases"] += 1
    assert response.status_code < 500
    if response.status_code >= 400 or notice(response):
        assert table.snapshot() == before


@pytest.mark.parametrize("url", ["/go?code=A%00", "/t/A%00B/join", "/t/A%00B"])
def test_a_table_code_with_nul_on_postgresql_is_refused(pg_app, url):
    assert pg_app.test_client().get(url).status_code == 400
