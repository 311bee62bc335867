"""Random nights: the one driver of every test that plays them, in the service and in browsers.

A night is a table of one game, its players (people, phones a test watches among them, and
computer players) and what its host does to it. One vocabulary of steps drives it everywhere
(:class:`Steps`): computers (or every seat, by the computers' strategy) play some turns, the host
tops a player up, takes a computer player off (mid-hand too), ends the night (mid-bank too).
``STEPS`` draws them for Hypothesis, ``SETTINGS`` a table's settings for each game.

- :class:`ServiceNight` applies them through the service layer on the test's database, its
  computers moving when the test's clock says they are due (the standings' property test).
- :class:`RandomNight` plays the night on the real server (``montones serve``) over HTTP, as
  its players' phones would: every seat's move chosen by its game's computer strategy
  (``Game.play``) from its own view (:meth:`RandomNight.step`: the reveal test), or a hand scripted
  step by step with bets of every kind and size, some bigger than the bank can pay, so payments
  are capped (:meth:`RandomNight.bank`, ``cut``, ``bet``, ``decide``, ``next``: the fits test),
  late joiners up to twelve players (:meth:`RandomNight.sit`), in any of the four languages.

A seat is a browser page (a phone a test watches, tapping with its page's cookie and CSRF token)
or an HTTP client of its own (:class:`Seat`). Nothing waits on a person's pace: a move is made as
soon as the one before it is answered. A refused tap changes nothing, so trying the players in
turn (:func:`whoever_else`) is how a scripted step finds the one whose turn it is. The state each
seat's view is drawn from is read from the server's own database (SQLite, in the test's folder),
never written: every move goes through the routes.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from random import Random

import httpx
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context
from playwright.sync_api import Error as PlaywrightError
from sqlalchemy import select

from montones import service
from montones.data.models import LedgerEntry
from montones.extensions import db
from montones.rules.computer import PATIENCE
from montones.rules.games import game
from montones.service.computers import next_turn
from tests.helpers.liveserver import database_app
from tests.helpers.screens import PHONE

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
HOST_SEAT = service.Actor(is_host=True)

# Names as long as a room's names get.
NAMES = (
    "Ana", "Ben", "Carlos", "Dolores", "Eva", "Fernando", "Guadalupe", "Hugo", "Inés",
    "Jacinto", "Katarina", "Maximiliano",
)  # fmt: skip
# A table's settings as the new-table form sends them (a browser night), and as the service
# takes them (a service night: small banks break, deals per bank make the bank pass and the
# levy split often; a levy is a quarter of a first-card win, so only bets of a few chips pay one).
FIELDS = {
    "montones": {"min_bet": 1, "heaps_min": 3, "heaps_max": 8, "tenure": 60, "cut_timeout": 600},
    "monte": {"bank_size": 50, "min_bet": 1, "max_bet": 10, "banks_each": 1, "cut_timeout": 600},
    "monte_bank": {"min_bet": 1, "mb_bank_size": 60, "mb_levy": "on", "mb_banks_each": 1},
}
SETTINGS = {
    "montones": st.fixed_dictionaries(
        {"min_bet": st.sampled_from([1, 2]), "heap_counts": st.just([2, 4])}
    ),
    "monte": st.fixed_dictionaries(
        {
            "bank_size": st.sampled_from([3, 10, 40]),
            "max_bet": st.sampled_from([2, 10]),
            "banks_each": st.sampled_from([1, 2]),
        }
    ),
    "monte_bank": st.fixed_dictionaries(
        {
            "min_bet": st.sampled_from([1, 2]),
            "bank_size": st.sampled_from([3, 10, 40]),
            "levy": st.sampled_from([True, True, True, False]),
            "deals_per_bank": st.sampled_from([None, 1, 2]),
            "banks_each": st.sampled_from([1, 2]),
        }
    ),
}
BANKS = {"montones": (10, 60), "monte": (50, 50), "monte_bank": (60, 60)}
# A table of a game with options of its own (issue 41: Monte Bank with two side cards), played as
# its game is: its name, its game and the fields over the game's.
VARIANTS = {"monte_bank+sides": ("monte_bank", {"mb_side_cards": "2"})}

# What happens over a night besides the hands, for Hypothesis: ("play", turns), ("top_up",
# which player, chips), ("remove", which computer), ("end",).
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("play"), st.integers(1, 25)),
        st.tuples(st.just("top_up"), st.integers(0, 3), st.sampled_from([1, 7, 50])),
        st.tuples(st.just("remove"), st.integers(0, 3)),
        st.tuples(st.just("end")),
    ),
    max_size=8,
)


def told(what: str) -> None:
    """What a night went through, for ``--hypothesis-show-statistics`` (in a Hypothesis test)."""
    if currently_in_test_context():
        event(what)


class Steps:
    """The night's steps, the same at every level: a night says how it plays ``turns``, tops up,
    takes a computer off and ends (``play``, ``top_up``, ``remove``, ``end``); ``bought`` counts
    the chips the house gave each seat, as the test saw it give them."""

    game_name: str
    computers: list[str]
    bought: Counter

    def players(self) -> list[str]:
        """The seats a top-up may go to, in the order a step's index counts them."""
        raise NotImplementedError

    def apply(self, step: tuple) -> None:
        kind, *args = step
        if kind == "play":
            self.play(args[0])
        elif kind == "top_up":
            seats = self.players()
            seat = seats[args[0] % len(seats)]
            if self.top_up(seat, args[1]):
                self.bought[seat] += args[1]
        elif kind == "remove":
            seat = self.computers[args[0] % len(self.computers)]
            staked = game(self.game_name).balances(self.state()).get("stakes")
            if self.remove(seat):
                told(
                    f"{self.game_name}: a computer removed" + (" with bets down" if staked else "")
                )
        elif kind == "end":
            if self.state().get("bank"):
                told(f"{self.game_name}: the night ended mid-bank")
            self.end()
        else:
            raise ValueError(step)


def play_computers(clock, code: str, turns: int) -> None:
    """Let the computers of the table ``code`` take ``turns`` turns through the service, each
    when ``clock`` (the test's :class:`~montones.data.clock.ManualClock`) says it is due."""
    for _ in range(turns):
        due = service.clock_deadline(service.get_table(code))
        if due is None:  # the night is over
            return
        clock.advance(max(0.0, due - clock.time()))
        service.tick(code)


class ServiceNight(Steps):
    """A night of ``computers`` computer players through the service layer, in the app's
    context, on ``clock`` (the test's :class:`~montones.data.clock.ManualClock`)."""

    def __init__(self, clock, game_name: str, settings: dict, computers: int, chips: int):
        self.clock, self.game_name = clock, game_name
        table, _secret = service.create_table(game_name, "Night", chips, settings)
        self.code = table.code
        self.computers = [service.add_computer(self.code, HOST_SEAT)[1] for _ in range(computers)]
        self.bought = Counter({seat: chips for seat in self.computers})
        if "draw" in game(game_name).ACTIONS:
            service.act(self.code, HOST_SEAT, "draw", {})

    def table(self):
        return service.get_table(self.code)

    def state(self) -> dict:
        return self.table().state

    def players(self) -> list[str]:
        return self.computers

    def play(self, turns: int) -> None:
        play_computers(self.clock, self.code, turns)

    def top_up(self, seat: str, amount: int) -> bool:
        try:
            service.act(self.code, HOST_SEAT, "top_up", {"seat": seat, "amount": amount})
        except service.ServiceError:
            return False  # refused (a player sent away): nothing issued
        return True

    def remove(self, seat: str) -> bool:
        try:
            service.remove_computer(self.code, HOST_SEAT, seat)
        except service.ServiceError:
            return False
        return True

    def end(self) -> None:
        service.host_action(self.code, HOST_SEAT, "end")


# --- a night on the real server -------------------------------------------------------------------


def page_token(page) -> str:
    return re.search(
        r'"X-CSRF-Token": "([^"]+)"', page.locator("body").get_attribute("hx-headers")
    )[1]


class Seat:
    """A player's device nobody watches, as far as the server knows it: a cookie jar and a CSRF
    token, seated through the join page in ``language``."""

    def __init__(self, base, code, name, language="en"):
        self.name, self.code = name, code
        self.http = httpx.Client(base_url=base, timeout=30)
        page = self.http.get(f"/t/{code}/join", params={"lang": language})
        token = CSRF.search(page.text).group(1)
        joined = self.http.post(f"/t/{code}/join", data={"csrf_token": token, "name": name})
        assert joined.status_code == 303, joined.text
        # The table's page may hold no form yet (a Monte table before the draw): its token is
        # the one htmx sends, in the body's hx-headers.
        html = self.http.get(f"/t/{code}").text
        self.token = re.search(r'"X-CSRF-Token": "([^"]+)"', html).group(1)

    def tap(self, kind, **fields) -> int:
        """The answer's status: 200 when done, 409/422 when refused."""
        data = {"csrf_token": self.token, **{k: str(v) for k, v in fields.items()}}
        answer = self.http.post(
            f"/t/{self.code}/a/{kind}",
            data=data,
            headers={"HX-Request": "true", "X-CSRF-Token": self.token},
        )
        return answer.status_code


class PageSeat(Seat):
    """A player on a phone page a test watches: seated through the join page (unless it is
    already), tapping with the page's own cookie and token, as its own taps would."""

    def __init__(self, page, base, code, name, language=None):
        self.name, self.page, self.code, self.base = name, page, code, base
        if language is not None:
            page.goto(f"{base}/t/{code}/join?lang={language}")
            page.locator('input[name="name"]').fill(name)
            page.locator('form[action$="/join"] button[type="submit"]').click()
            page.wait_for_url(re.compile(rf"/t/{code}$"))
        page.locator("#status").wait_for()

    def shows_all(self, code) -> bool:
        """Whether the page's own regions (its status and bar) say what the table draws for it
        now, for its choices: their words, as a fresh drawing of them has them."""
        query, language = self.page.evaluate(OWN_QUERY), self.page.evaluate(LANGUAGE)
        # In the page's language: the context's requests send no Accept-Language of their own
        # (a Russian phone never matched an English drawing: each step waited out its 10 s).
        answer = self.page.context.request.get(
            f"{self.base}/t/{code}/p/seat?{query}",
            headers={"HX-Request": "true", "Accept-Language": language},
        )
        return self.page.evaluate(SAME_WORDS, answer.text())

    def tap(self, kind, **fields) -> int:
        token = page_token(self.page)
        data = {"csrf_token": token, **{k: str(v) for k, v in fields.items()}}
        answer = post(
            self.page.context.request,
            f"{self.base}/t/{self.code}/a/{kind}",
            form=data,
            headers={"HX-Request": "true", "X-CSRF-Token": token},
        )
        return answer.status


def post(request, url, **options):
    """A page's POST through its context's ``request``, sent again once if it was reset before
    any answer: a kept-alive connection the server closes after its idle time (8 s) can close
    just as a request is written on it, which then never reached the app (a fits night's bet
    failed so, "read ECONNRESET", in a whole-suite run). A browser sends such a request again on
    a new connection; Playwright's API client does not."""
    try:
        return request.post(url, **options)
    except PlaywrightError as error:
        if "ECONNRESET" not in str(error):
            raise
    return request.post(url, **options)


LANGUAGE = "() => navigator.languages.join(',')"  # what the page's own requests accept
# What a phone sends when it fetches its own regions (its hx-include: #intent, #seat_version).
OWN_QUERY = """() => {
  const fields = new URLSearchParams();
  for (const id of ["intent", "seat_version"]) {
    const el = document.getElementById(id);
    if (!el) continue;
    for (const input of el.querySelectorAll("input, select")) {
      if (!input.name || ((input.type === "radio" || input.type === "checkbox") && !input.checked)) continue;
      fields.append(input.name, input.value);
    }
  }
  return fields.toString();
}"""
# Whether the page's #status and #bar say what those of an answer (its HTML) say; a clock by
# its deadline (data-until), not the time left, which the page counts down and an answer leaves
# empty (compared as words, a phone with a clock never matched: each step waited out its 10 s).
SAME_WORDS = """(html) => {
  const fresh = new DOMParser().parseFromString(html, "text/html");
  const words = (el) => {
    if (!el) return null;
    const copy = el.cloneNode(true);
    copy.querySelectorAll("time[data-until]").forEach((clock) => { clock.textContent = clock.dataset.until; });
    return copy.textContent.replace(/\\s+/g, " ").trim();
  };
  return ["status", "bar"].every((id) => words(fresh.getElementById(id)) === words(document.getElementById(id)));
}"""


def join_page(browser, base, code, name, locale, viewport=PHONE):
    """A phone-sized browser in ``locale`` that sits down as ``name``."""
    context = browser.new_context(viewport=viewport, locale=locale, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(f"{base}/t/{code}/join")
    page.locator("input[name=name]").fill(name)
    page.locator("form button[type=submit]").last.click()
    page.wait_for_selector("#status")
    return page


def create(base, game_name, language, fields=None):
    """A table of ``game_name`` made on the new-table form (``fields``: :data:`FIELDS`'s), whose
    TV speaks ``language``; the host's client and token, and the table's code."""
    host = httpx.Client(base_url=base, timeout=30)
    token = CSRF.search(host.get("/", params={"lang": language}).text).group(1)
    made = host.post(
        "/tables",
        data={
            "csrf_token": token,
            "game": game_name,
            "name": "Noche",
            "chips": 100,
            **(FIELDS[game_name] if fields is None else fields),
        },
    )
    assert made.status_code == 303, made.text
    code = re.search(r"/t/([A-Z]{4})/host", made.headers["location"]).group(1)
    host.post(f"/t/{code}/host/tv_language", data={"csrf_token": token, "language": language})
    return host, token, code


def whoever_else(seats, kind, **fields):
    """The first of ``seats`` the table lets do ``kind`` now does it; None if none may."""
    for seat in seats:
        if seat.tap(kind, **fields) == 200:
            return seat
    return None


class RandomNight(Steps):
    """A table of ``game_name`` on the server at ``base`` (its database in ``folder``), its TV
    speaking ``language``, its random moves drawn from ``seed``: made on the new-table form
    (``fields``, :data:`FIELDS`'s by default), or, given the service's ``settings``, in the
    server's database with ``chips`` each, its host secret kept (``secret``) for a host's page
    to claim. ``host_page``: the host's page, once a test opens one (the host's switches are
    then its taps). ``moves`` lists what was done, for a failure's message."""

    def __init__(
        self, base, folder, game_name, seed, language="en", fields=None, settings=None, chips=100
    ):
        game_name, options = VARIANTS.get(game_name, (game_name, {}))
        self.sides = int(options.get("mb_side_cards", 0))
        if options and fields is None:
            fields = {**FIELDS[game_name], **options}
        self.base, self.game_name, self.language = base, game_name, language
        self.rules = game(game_name)
        self.app = database_app(folder)
        self.host = self.token = self.secret = None
        if settings is None:
            self.host, self.token, self.code = create(base, game_name, language, fields)
        else:
            with self.app.app_context():
                table, self.secret = service.create_table(game_name, "Noche", chips, settings)
            self.code = table.code
        self.rng = Random(seed)
        self.seats: dict[str, Seat] = {}
        self.computers: list[str] = []
        self.bought: Counter = Counter()
        self.moves: list[str] = []
        self.host_page = None

    # --- who sits down ----------------------------------------------------------------------------

    def _seated(self, seat: Seat) -> str:
        (new,) = set(self.state()["players"]) - set(self.seats) - set(self.computers)
        self.seats[new] = seat
        self.bought[new] += self.table().starting_chips
        return new

    def sit(self, names) -> list[str]:
        """Players nobody watches sit down, one device each."""
        return [self._seated(Seat(self.base, self.code, n, self.language)) for n in names]

    def sit_page(self, page, name, language=None) -> str:
        """A watched phone sits down (``language``: through the join page; None: it has)."""
        return self._seated(PageSeat(page, self.base, self.code, name, language))

    def computers_done(self, patient: bool = False, wait: float = 8.0) -> None:
        """Wait, at most ``wait`` seconds, while the server's computer players have a move due
        now (a second or two after the table moved); ``patient``: also for a move they make only
        once the table has stood still (a computer banker closing the bets, after the server's
        COMPUTER_PATIENCE), up to ``wait`` + that patience."""
        if not self.computers:
            return
        patience = self.app.config["COMPUTER_PATIENCE"]
        pace = self.app.config["COMPUTER_PACE"]
        deadline = time.monotonic() + wait + (patience if patient else 0.0)
        while time.monotonic() < deadline:
            with self.app.app_context():
                table = service.get_table(self.code)
                turn = None if table.ended_at else next_turn(table, db.session)
            if turn is None or (not patient and turn.due > time.time() + 2 * pace + 0.5):
                return
            time.sleep(0.1)

    def add_computer(self) -> str:
        before = set(self.state()["players"])
        assert self.host_do("add_computer") < 400
        (seat,) = set(self.state()["players"]) - before
        self.computers.append(seat)
        self.bought[seat] += self.table().starting_chips
        return seat

    def players(self) -> list[str]:
        return [*self.seats, *self.computers]

    def names(self) -> dict[str, str]:
        return {seat: player.name for seat, player in self.seats.items()}

    # --- reading the table --------------------------------------------------------------------------

    def table(self):
        with self.app.app_context():
            return service.get_table(self.code)

    def state(self) -> dict:
        return self.table().state

    def outcome(self, version):
        """What the hand settled at ``version`` decided, in numbers: the chips it moved, each
        movement and each account's sum (signed), and the chips each account it touched holds
        after it."""
        with self.app.app_context():
            table = service.get_table(self.code)
            rows = db.session.execute(
                select(LedgerEntry.version, LedgerEntry.account, LedgerEntry.amount).where(
                    LedgerEntry.table_id == table.id, LedgerEntry.version <= version
                )
            ).all()
        moved, sums, balances = set(), {}, {}
        for at, account, amount in rows:
            balances[account] = balances.get(account, 0) + amount
            if at == version:
                moved.add(amount)
                sums[account] = sums.get(account, 0) + amount
        return moved | set(sums.values()), {balances[account] for account in sums}

    # --- the host -------------------------------------------------------------------------------------

    def host_do(self, kind, **fields) -> int:
        """The host's switch ``kind`` (through the host's page once a test opened one), a
        drastic one answered yes; the answer's status."""
        if self.host_page is not None:
            token = page_token(self.host_page)
            answer = post(
                self.host_page.context.request,
                f"{self.base}/t/{self.code}/host/{kind}",
                form={"csrf_token": token, "confirm": "yes", **fields},
                headers={"X-CSRF-Token": token},
            )
            status = answer.status
        else:
            data = {"csrf_token": self.token, "confirm": "yes", **fields}
            status = self.host.post(f"/t/{self.code}/host/{kind}", data=data).status_code
        self.moves.append(f"host {kind} {fields}: {status}")
        return status

    # A refusal of the host's switch is answered on the host's page, with the same redirect as
    # what was done: the table says which it was.

    def bought_by(self, seat: str) -> int:
        with self.app.app_context():
            return service.buy_ins(service.get_table(self.code)).get(seat, 0)

    def top_up(self, seat: str, amount: int) -> bool:
        before = self.bought_by(seat)
        self.host_do("top_up", seat=seat, amount=str(amount))
        return self.bought_by(seat) > before

    def remove(self, seat: str) -> bool:
        was = self.state()["players"][seat].get("left", False)
        self.host_do("remove_computer", seat=seat)
        return not was and self.state()["players"][seat].get("left", False)

    def end(self) -> str:
        assert self.host_do("end") < 400
        return "the night ended"

    # --- moves by the computers' strategy -----------------------------------------------------------

    def next_move(self, patient: bool):
        """The next seat to move and its move, as the computer players would choose them (a
        move that waits for the table's patience only if ``patient``); None if nobody moves."""
        table = self.table()
        now = time.time()
        order = self.rng.sample(sorted(self.seats), len(self.seats))
        for idle in (0.0, PATIENCE) if patient else (0.0,):
            for seat in order:
                if table.state["players"].get(seat, {}).get("left"):
                    continue
                view = self.rules.view(table.state, seat, now)
                move = self.rules.play(view, self.rng, idle)
                if move is not None:
                    return table, seat, move
        return None

    def step(self, patient: bool = False):
        """Make the next move through its seat's requests; returns (the version it made, whether
        that version settled a hand: its result is of that version), or None if nobody moves."""
        found = self.next_move(patient)
        if found is None:
            return None
        before, seat, (kind, params) = found
        status = self.seats[seat].tap(kind, stage=service.stage(before.state), **params)
        self.moves.append(f"{self.seats[seat].name} {kind} {params}: {status}")
        table = self.table()
        result = self.rules.view(table.state, None, None).get("result") or {}
        return table.version, table.version > before.version and result.get(
            "version"
        ) == table.version

    def play(self, turns: int, wait: float = 6.0) -> None:
        """``turns`` moves, each seat's as the computers' strategy chooses it; while no seat
        here can move, the server's own computer players (which move on its clock, a second or
        two after the table moved) are given up to ``wait`` seconds."""
        for _ in range(turns):
            deadline = time.monotonic() + wait
            while not self.table().ended_at and (self.step() or self.step(patient=True)) is None:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.25)

    # --- a hand scripted step by step; each returns what it did, in words -------------------------

    def shuffled(self) -> list[Seat]:
        seats = list(self.seats.values())
        return self.rng.sample(seats, len(seats))

    def bank(self) -> str:
        """The bank put up: Montones' auction (one offers, the others pass), or the draw and
        the drawn banker's bank."""
        low, high = BANKS[self.game_name]
        amount = self.rng.randint(low, high)
        if self.game_name == "montones":
            banker = whoever_else(self.shuffled(), "offer", amount=amount)
            for seat in self.seats.values():
                if seat is not banker:
                    seat.tap("pass")
            self.computers_done()
            return f"{banker and banker.name} offers {amount}"
        assert self.host_do("draw") < 400
        self.computers_done()
        banker = whoever_else(self.seats.values(), "bank", amount=amount)
        self.computers_done()
        return f"{banker and banker.name if banker else 'a computer'} puts up {amount}"

    def cut(self) -> str:
        """Cut, and in Montones the heaps made (a void Casino deal is shuffled and cut again)."""
        seats = list(self.seats.values())
        for _void in range(12):
            # A computer cuts when it is its turn: given its second, a person may be next.
            cutter = whoever_else(seats, "cut", position=self.rng.randint(2, 30))
            self.computers_done()
            if (
                cutter is None
                and whoever_else(seats, "cut", position=self.rng.randint(2, 30)) is None
            ):
                break
        heaps = self.rng.randint(3, 8)
        if self.game_name == "montones":  # and a punter chooses the banker's heap
            whoever_else(seats, "heaps", count=heaps)
            self.computers_done()
            chosen = self.rng.randint(1, heaps)
            whoever_else(self.shuffled(), "choose", heap=chosen)
            self.computers_done()
            return f"cut, {heaps} heaps, the banker's {chosen}"
        return "cut"

    def bet(self, heaps=8) -> str:
        """Each punter, in a random order, one bet or two, of a kind and size at random (a
        refused one changes nothing)."""
        rng, made = self.rng, 0
        for seat in self.shuffled():
            for _bet in range(rng.choice((1, 1, 2))):
                amount = rng.choice((1, 2, 5, 10, 25))
                if self.game_name == "montones":
                    kind = rng.choice(("bet", "bet", "against"))
                    made += seat.tap(kind, heap=rng.randint(1, heaps), amount=amount) == 200
                elif self.game_name == "monte":
                    layout = rng.choice(("top", "bottom"))
                    made += seat.tap("bet", layout=layout, amount=amount) == 200
                else:
                    made += seat.tap("bet", amount=amount, **self.casino_bet()) == 200
        return f"{made} bets"  # the computers' own bets: computers_done, once every table bet

    def casino_bet(self):
        rng = self.rng
        positions = ["ul", "ur", "ll", "lr", *["s1", "s2"][: self.sides]]
        kind = rng.choice(("round", "round", "double", "cross", "monte_carlo"))
        first, at = rng.sample(positions, 2)
        if kind == "monte_carlo" and at in ("s1", "s2"):
            kind = "cross"  # a Monte Carlo lies on the layout
        side = rng.choice(("upper", "lower", "left", "right"))
        bar = {"bet_kind": "layout", "against": first, "side": side}
        if kind == "round":
            return {**bar, "at": at}
        if kind == "double":
            return {**bar, "at": side}
        if kind == "cross":
            return {**bar, "at": at, "first": first}
        return {**bar, "bet_kind": "monte_carlo", "at": at}

    def decide(self) -> str:
        """The banker closes the bets and turns the cards."""
        kind = "gate" if self.game_name == "monte" else "close"
        if whoever_else(self.seats.values(), kind) is None:
            self.computers_done(patient=True)  # a computer banker closes once the table is still
            return "decided by a computer"
        return "decided"

    def next(self) -> str:
        """The next hand: dealt again, or in Montones the bank auctioned again when it broke
        or its tenure ended."""
        seats = list(self.seats.values())
        if whoever_else(seats, "next") is None:
            whoever_else(seats, "close_bank")
        self.computers_done()
        for seat in seats:
            seat.tap("pass")
        self.computers_done()
        return "next"

    def top_up_now_and_then(self) -> str:
        """The host tops up a player now and then (one time in two): a person or a computer, 7
        or 50 chips; ``bought`` counts what it gave."""
        if self.rng.random() < 0.5:
            return "no top-up"
        seat = self.rng.choice(self.players())
        amount = self.rng.choice((7, 50))
        if self.top_up(seat, amount):
            self.bought[seat] += amount
            return f"topped up {amount}"
        return "top-up refused"
