"""A night of Montones driven only through the HTTP routes, for the view tests.

``Night(app, "Ana", "Ben", "Eva")`` creates a table through POST /tables (the host's client keeps
the host rights) and seats each named player with a test client of their own. ``do(name, kind,
**fields)`` is a tap on that player's phone: POST /t/CODE/a/<kind> with their CSRF token, as
htmx sends it unless ``hx=False``. ``snapshot()`` is everything an action could change, so a
refusal can be checked to have changed nothing.
"""

from __future__ import annotations

import copy
import dataclasses
import html
import json
import re

from flask import current_app
from sqlalchemy import func, select, update

from montones import service
from montones.data import store
from montones.data.models import Action, GameTable, LedgerEntry, Player
from montones.extensions import db
from montones.rules import monte
from montones.rules import montones as engine
from montones.rules.cards import FRENCH
from montones.rules.fairness import new_shuffle
from tests.helpers.tables import monte_bank_deck

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
# The bar's refusal, or the line over the phone's regions a reaction's refusal is said in.
NOTICE = re.compile(
    r'<p (?:id="tap-refused" )?class="notice(?:__text| tap-failed)?" role="alert"'
    r'(?: hx-swap-oob="true")?>(.*?)</p>',
    re.S,
)
FLASH = re.compile(r'<div class="flash" role="alert">(.*?)</div>', re.S)
REJOIN = re.compile(r'class="rejoin muted">[^<]*<strong>([^<]+)</strong>')

HX = {"HX-Request": "true"}


def put_state(table, state: dict) -> None:
    """Test set-up, never a route: store ``state`` as the table's, at the version it has.

    The app changes a state only with a new version, and the live channel holds the newest
    table this process published: so it is told of this one, as every writer tells it
    (store.committed)."""
    rows = GameTable.__table__
    db.session.execute(update(rows).where(rows.c.id == table.id).values(state=state))
    db.session.commit()
    store.committed.send(
        current_app._get_current_object(), table=dataclasses.replace(table, state=state)
    )


def csrf_of(response) -> str:
    found = CSRF.search(response.get_data(as_text=True))
    assert found, "the page carries no CSRF token"
    return found.group(1)


def fresh_token(client) -> str:
    """The CSRF token of a client's session, read off a page, as a browser would."""
    return csrf_of(client.get("/"))


def notice(response) -> str | None:
    """The refusal shown in the phone's bar (htmx answers) or on an error page, unescaped."""
    found = NOTICE.search(response.get_data(as_text=True))
    return html.unescape(found.group(1).strip()) if found else None


def shown_text(page: str) -> str:
    """What a page shows: its text between tags (neither its markup nor its scripts and styles),
    unescaped, each run of white space one space."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def flashed(response) -> str | None:
    """The flashed messages of a page, as text."""
    found = FLASH.search(response.get_data(as_text=True))
    if not found:
        return None
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(1))).strip())


def forms(response, kind: str) -> list[dict[str, str]]:
    """The hidden fields every form on a page that posts the action ``kind`` sends: its own,
    and those of #tap and #seat_version that it includes (its hx-include)."""
    page = response.get_data(as_text=True)
    found = []
    for block in page.split("<form")[1:]:
        block = block.split("</form>")[0]
        if re.search(rf'action="/t/[A-Z]{{4}}/a/{kind}"', block):
            fields = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', block)
            sent = {name: html.unescape(value) for name, value in fields}
            tap = tap_fields(page) if "#tap" in block else {}
            own = seat_version_fields(page) if "#seat_version" in block else {}
            found.append({**tap, **own, **sent})
    return found


def tap_fields(page: str) -> dict[str, str]:
    """What #tap adds to a tap on the felt: the stage and the version the felt shows."""
    return _fields(page, "tap")


def seat_version_fields(page: str) -> dict[str, str]:
    """What #seat_version adds to a tap: my regions' drawing's nonce (``drawing_nonce``)."""
    return _fields(page, "seat_version")


def _fields(page: str, ident: str) -> dict[str, str]:
    found = re.search(rf'<div(?: hx-swap-oob="\w+")? id="{ident}"[^>]*>(.*?)</div>', page)
    fields = re.findall(r'name="([^"]+)" value="([^"]*)"', found.group(1)) if found else []
    return {name: html.unescape(value) for name, value in fields}


class Night:
    def __init__(
        self,
        app,
        *names: str,
        chips: int = 100,
        min_bet: int = 1,
        heaps: tuple[int, int] = (3, 8),
        tenure: int = 60,
        cut_timeout: int = 600,
        table_name: str = "Friday",
        **settings: str,
    ):
        self.app = app
        self.host = app.test_client()
        self.host_token = fresh_token(self.host)
        response = self.host.post(
            "/tables",
            data={
                "csrf_token": self.host_token,
                "game": "montones",
                "name": table_name,
                "chips": str(chips),
                "min_bet": str(min_bet),
                "heaps_min": str(heaps[0]),
                "heaps_max": str(heaps[1]),
                "tenure": str(tenure),
                "cut_timeout": str(cut_timeout),
                **settings,
            },
        )
        assert response.status_code == 303, response.get_data(as_text=True)
        found = re.search(r"/t/([A-Z]{4})/host$", response.location)
        assert found, response.location
        self.code = found.group(1)
        self.chips = chips
        self.clients: dict[str, object] = {}
        self.tokens: dict[str, str] = {}
        self.seats: dict[str, str] = {}
        for name in names:
            self.join(name)

    # --- people ---------------------------------------------------------------------------

    def join(self, name: str, **fields: str):
        """``name`` sits down (``fields``: more of the join form, e.g. a face and colour)."""
        client = self.app.test_client()
        page = client.get(f"/t/{self.code}/join")
        assert page.status_code == 200
        token = csrf_of(page)
        before = set(self.state()["players"])
        response = client.post(
            f"/t/{self.code}/join", data={"csrf_token": token, "name": name, **fields}
        )
        assert response.status_code == 303, response.get_data(as_text=True)
        (seat,) = set(self.state()["players"]) - before
        self.clients[name], self.tokens[name], self.seats[name] = client, token, seat
        return client

    def name_of(self, seat: str) -> str:
        return next(name for name, s in self.seats.items() if s == seat)

    def do(self, name: str, kind: str, *, hx: bool = True, token: str | None = None, **fields):
        """``name`` taps ``kind`` on their phone; ``token=""`` sends no CSRF token at all."""
        data = {k: str(v) for k, v in fields.items()}
        token = self.tokens[name] if token is None else token
        if token:
            data["csrf_token"] = token
        return self.clients[name].post(
            f"/t/{self.code}/a/{kind}", data=data, headers=HX if hx else {}
        )

    def host_do(self, kind: str, *, token: str | None = None, **fields):
        """The host's switch ``kind``, answering yes to the question a drastic one asks first
        (``confirm=""``: not answered)."""
        fields.setdefault("confirm", "yes")
        data = {k: str(v) for k, v in fields.items() if v != ""}
        token = self.host_token if token is None else token
        if token:
            data["csrf_token"] = token
        return self.host.post(f"/t/{self.code}/host/{kind}", data=data)

    def page(self, name: str):
        return self.clients[name].get(f"/t/{self.code}")

    # --- reading --------------------------------------------------------------------------

    def table(self):
        return service.get_table(self.code)

    def state(self) -> dict:
        with self.app.app_context():
            return copy.deepcopy(self.table().state)

    def stage(self) -> str:
        return service.stage(self.state())

    def ledger(self) -> dict[str, int]:
        with self.app.app_context():
            return service.ledger_totals(self.table())

    def entries(self) -> list[tuple[int, str, int]]:
        """Every ledger row: (version, account, amount)."""
        with self.app.app_context():
            table = self.table()
            rows = db.session.execute(
                select(LedgerEntry.version, LedgerEntry.account, LedgerEntry.amount)
                .where(LedgerEntry.table_id == table.id)
                .order_by(LedgerEntry.id)
            ).all()
            return [tuple(row) for row in rows]

    def actions(self) -> list[tuple[int, str, str]]:
        """Every action row: (version, actor, kind)."""
        with self.app.app_context():
            table = self.table()
            rows = db.session.execute(
                select(Action.version, Action.actor, Action.kind)
                .where(Action.table_id == table.id)
                .order_by(Action.id)
            ).all()
            return [tuple(row) for row in rows]

    def rejoin_code(self, name: str) -> str:
        with self.app.app_context():
            table = self.table()
            return db.session.execute(
                select(Player.rejoin_code).where(
                    Player.table_id == table.id, Player.seat == self.seats[name]
                )
            ).scalar_one()

    def snapshot(self) -> str:
        """The state, the ledger totals, the number of actions, the host's switches and the
        seats' secrets: what any request could change."""
        with self.app.app_context():
            table = self.table()
            count = db.session.execute(
                select(func.count(Action.id)).where(Action.table_id == table.id)
            ).scalar_one()
            seats = db.session.execute(
                select(Player.seat, Player.token_hash, Player.rejoin_code)
                .where(Player.table_id == table.id)
                .order_by(Player.seat)
            ).all()
            return json.dumps(
                {
                    "state": table.state,
                    "ledger": service.ledger_totals(table),
                    "actions": count,
                    "paused": table.paused,
                    "ended": str(table.ended_at),
                    "seats": [list(row) for row in seats],
                },
                sort_keys=True,
            )

    # --- moving the night along, through the routes ----------------------------------------

    def chips_of(self, name: str) -> int:
        return self.state()["players"][self.seats[name]]["chips"]

    def banker(self) -> str:
        return self.name_of(self.state()["bank"]["banker"])

    def cutter(self) -> str:
        return self.name_of(self.state()["hand"]["cutter"])

    def ok(self, name: str, kind: str, **fields):
        response = self.do(name, kind, **fields)
        assert response.status_code == 200, (kind, notice(response))
        assert notice(response) is None, (kind, notice(response))
        return response

    def open_bank(self, banker: str, amount: int):
        """``banker`` offers ``amount`` and everyone else passes: the auction closes by itself."""
        self.ok(banker, "offer", amount=amount)
        for name in self.seats:
            if name != banker and not self.state()["players"][self.seats[name]].get("left"):
                self.ok(name, "pass")
        assert self.state()["phase"] == engine.CUT

    def to_betting(self, banker: str = "Ana", bank: int = 30, heaps: int = 3):
        """The auction, the cut and the heaps, each by the right player."""
        self.open_bank(banker, bank)
        self.ok(self.cutter(), "cut", position=10)
        self.ok(banker, "heaps", count=heaps)
        assert self.state()["phase"] == engine.BETTING

    def edit_hand(self, change):
        """Stack the cards of the hand in play: ``change(hand)`` edits the hand's heaps in
        place (test setup, never a route). The heaps must keep the same cards."""
        with self.app.app_context():
            table = self.table()
            state = copy.deepcopy(table.state)
            cards = sorted(sum(state["hand"]["heaps"], []))
            change(state["hand"])
            assert sorted(sum(state["hand"]["heaps"], [])) == cards
            put_state(table, state)

    def arrange(self, bottoms: dict[int, str]):
        """Stack the deck: heap ``h`` shows ``bottoms[h]`` when turned (a swap of two cards
        within the dealt heaps, so the 40 cards stay the same 40). Test setup, not a route."""
        with self.app.app_context():
            table = self.table()
            state = copy.deepcopy(table.state)
            heaps = state["hand"]["heaps"]
            for heap, card in bottoms.items():
                where = next(
                    (i, j)
                    for i, cards in enumerate(heaps)
                    for j, c in enumerate(cards)
                    if c == card
                )
                bottom = (heap - 1, len(heaps[heap - 1]) - 1)
                a, b = where, bottom
                heaps[a[0]][a[1]], heaps[b[0]][b[1]] = heaps[b[0]][b[1]], heaps[a[0]][a[1]]
            assert all(heaps[h - 1][-1] == c for h, c in bottoms.items())
            put_state(table, state)


def monte_form(token, chips=100, **settings):
    """The lobby's form for a Monte table as a host fills it in: True ticks a box."""
    form = {
        "csrf_token": token,
        "game": "monte",
        "name": "Monte night",
        "chips": str(chips),
        "bank_size": "50",
        "min_bet": "1",
        "max_bet": "10",
        "banks_each": "1",
    }
    for key, value in settings.items():
        if value is True:
            form[key] = "on"
        elif value is not False:
            form[key] = str(value)
    return form


class MonteNight:
    def __init__(self, app, *names, chips=100, **settings):
        self.app = app
        self.host = app.test_client()
        self.host_token = csrf_of(self.host.get("/"))
        form = getattr(self, "form", monte_form)
        response = self.host.post("/tables", data=form(self.host_token, chips, **settings))
        assert response.status_code == 303, response.get_data(as_text=True)
        self.code = re.search(r"/t/([A-Z]{4})/host$", response.location).group(1)
        self.clients, self.tokens, self.seats = {}, {}, {}
        for name in names:
            client = app.test_client()
            token = csrf_of(client.get(f"/t/{self.code}/join"))
            before = set(self.state()["players"])
            joined = client.post(f"/t/{self.code}/join", data={"csrf_token": token, "name": name})
            assert joined.status_code == 303, joined.get_data(as_text=True)
            (seat,) = set(self.state()["players"]) - before
            self.clients[name], self.tokens[name], self.seats[name] = client, token, seat

    def name_of(self, seat):
        return next(name for name, s in self.seats.items() if s == seat)

    def do(self, name, kind, **fields):
        data = {k: str(v) for k, v in fields.items()}
        data["csrf_token"] = self.tokens[name]
        return self.clients[name].post(f"/t/{self.code}/a/{kind}", data=data, headers=HX)

    def host_do(self, kind, **fields):
        """As Night.host_do: a drastic switch's question answered yes."""
        fields.setdefault("confirm", "yes")
        data = {k: str(v) for k, v in fields.items()}
        data["csrf_token"] = self.host_token
        return self.host.post(f"/t/{self.code}/host/{kind}", data=data)

    def state(self):
        with self.app.app_context():
            return copy.deepcopy(service.get_table(self.code).state)

    def stage(self):
        return service.stage(self.state())

    def snapshot(self):
        """The state, the ledger and the action count: what any request could change."""
        with self.app.app_context():
            table = service.get_table(self.code)
            count = db.session.execute(
                select(func.count(Action.id)).where(Action.table_id == table.id)
            ).scalar_one()
            return json.dumps(
                {"state": table.state, "ledger": service.ledger_totals(table), "actions": count},
                sort_keys=True,
            )

    # --- the steps of a bank --------------------------------------------------------------

    @property
    def banker(self):
        return self.name_of(self.state()["banker"])

    @property
    def punters(self):
        return [name for name in self.seats if name != self.banker]

    def draw(self):
        assert self.host_do("draw").status_code == 303
        assert self.state()["phase"] == monte.BANK

    def put_up(self, amount=50):
        response = self.do(self.banker, "bank", amount=amount, stage=self.stage())
        assert response.status_code == 200, notice(response)

    def cut(self, position=20):
        cutter = self.name_of(self.state()["cutter"])
        response = self.do(cutter, "cut", position=position, stage=self.stage())
        assert response.status_code == 200, notice(response)
        assert self.state()["phase"] == monte.BETTING

    def betting(self, bank=50):
        """From a new table to the first coup's bets."""
        self.draw()
        self.put_up(bank)
        self.cut()

    def tap(self, name, layout, amount, **extra):
        return self.do(name, "tap", layout=layout, amount=amount, stage=self.stage(), **extra)

    def stack(self, top, bottom, gate, position=20):
        """Stack the shuffled deck so that the cut at ``position`` deals ``top`` and ``bottom``
        (bottom card first) and turns ``gate`` (test setup, before the cut; never a route)."""
        with self.app.app_context():
            table = service.get_table(self.code)
            state = copy.deepcopy(table.state)
            middle = [c for c in FRENCH.codes if c not in (*top, *bottom, gate)]
            dealt = [*top, *middle, gate, *reversed(bottom)]
            state["deck"] = dealt[-position:] + dealt[:-position]  # the cut makes it ``dealt``
            state["shuffle"] = new_shuffle(state["deck"])
            put_state(table, state)


def monte_bank_form(token, chips=100, **settings):
    """The lobby's form for a Monte Bank table as a host fills it in (the levy ticked,
    as the lobby shows it); True ticks a box, False leaves it empty."""
    form = {
        "csrf_token": token,
        "game": "monte_bank",
        "name": "Casino night",
        "chips": str(chips),
        "min_bet": "1",
        "mb_bank_size": "50",
        "mb_banks_each": "1",
        "mb_levy": "on",
        "cut_timeout": "600",
    }
    for key, value in settings.items():
        if value is True:
            form[key] = "on"
        elif value is False:
            form.pop(key, None)
        else:
            form[key] = str(value)
    return form


class MonteBankNight(MonteNight):
    """A Monte Bank table through the routes: as MonteNight, with its own lobby form,
    cuts that deal again after a void deal, and a deck stacked to lay out a known deal."""

    def __init__(self, app, *names, chips=100, **settings):
        self.form = monte_bank_form
        super().__init__(app, *names, chips=chips, **settings)

    def cut(self, position=20):
        while True:
            cutter = self.name_of(self.state()["cutter"])
            response = self.do(cutter, "cut", position=position, stage=self.stage())
            assert response.status_code == 200, notice(response)
            if self.state()["phase"] != "cut":  # a void deal is shuffled and cut again
                return

    def tap(self, name, at, amount, kind="layout", against="ll", side="upper", **extra):
        return self.do(
            name,
            "tap",
            at=at,
            bet_kind=kind,
            against=against,
            side=side,
            amount=amount,
            stage=self.stage(),
            **extra,
        )

    def stack_deal(self, dealt, position=20):
        """Stack the shuffled deck so that the cut at ``position`` gives ``dealt`` (top card
        first), sealed as the table seals it (test setup, before the cut; never a route)."""
        with self.app.app_context():
            table = service.get_table(self.code)
            state = copy.deepcopy(table.state)
            state["deck"] = dealt[-position:] + dealt[:-position]
            state["shuffle"] = new_shuffle(state["deck"])
            put_state(table, state)


# A deal of Monte Bank with a bet of each kind to win or lose (tests/views).
MONTE_BANK_EXAMPLE = monte_bank_deck(["7S", "7C"], "AD", "3C", "KH", ["JC", "AH", "7H", "6C", "KD"])


def monte_bank_betting(app, deck=MONTE_BANK_EXAMPLE, bank=50, **settings):
    """A Monte Bank table of Ana, Ben and Eva, its bank put up and ``deck`` cut: bets are open."""
    night = MonteBankNight(app, "Ana", "Ben", "Eva", **settings)
    night.draw()
    night.put_up(bank)
    night.stack_deal(deck)
    night.cut()
    return night


def page_text(response) -> str:
    """What a response shows as text: without its markup and its drawn cards (svg), unescaped,
    each run of white space one space."""
    page = re.sub(r"<svg.*?</svg>", " ", response.get_data(as_text=True), flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))
