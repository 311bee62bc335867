"""A random night on the real server (``montones serve``), every seat's move chosen by its game's
computer strategy (``Game.play``) from its own view, with a seeded random: for browser tests that
watch a few screens while a whole table plays.

A seat is either a browser page (a phone a test watches: it acts through its context's requests,
with its cookie and CSRF token, as its own taps would) or an HTTP client of its own
(``tests.helpers.liveserver.Phone``). Nothing waits on a person's pace: a move is made as soon as
the one before it is answered, a banker's patience is skipped as soon as nobody else moves, and
the test decides when the table has seen a hand (``RandomNight.step(patient=...)``).

The state each seat's view is drawn from is read from the server's own database (SQLite, in the
test's folder), never written: every move goes through the routes.
"""

from __future__ import annotations

import json
import re
import time
from random import Random

from sqlalchemy import select

from montones import service
from montones.data.models import LedgerEntry
from montones.extensions import db
from montones.rules.computer import PATIENCE
from montones.rules.games import game
from tests.helpers.liveserver import Phone, database_app
from tests.helpers.screens import PHONE


def page_token(page) -> str:
    return json.loads(page.evaluate("document.body.getAttribute('hx-headers')"))["X-CSRF-Token"]


class BrowserSeat:
    """A watched phone: a page at the table, acting through its context's requests."""

    def __init__(self, base, page):
        self.base, self.page = base, page

    def post(self, path, **data):
        fields = {k: str(v) for k, v in data.items()}
        headers = {"HX-Request": "true", "X-CSRF-Token": page_token(self.page)}
        return self.page.context.request.post(self.base + path, form=fields, headers=headers)

    def shows_all(self, code) -> bool:
        """Whether the page's own regions (its status and bar) say what the table draws for it
        now, for its choices: their words, as a fresh drawing of them has them."""
        query = self.page.evaluate(OWN_QUERY)
        answer = self.page.context.request.get(
            f"{self.base}/t/{code}/p/mine?{query}", headers={"HX-Request": "true"}
        )
        return self.page.evaluate(SAME_WORDS, answer.text())


# What a phone sends when it fetches its own regions (its hx-include: #intent, #own).
OWN_QUERY = """() => {
  const fields = new URLSearchParams();
  for (const id of ["intent", "own"]) {
    const el = document.getElementById(id);
    if (!el) continue;
    for (const input of el.querySelectorAll("input, select")) {
      if (!input.name || ((input.type === "radio" || input.type === "checkbox") && !input.checked)) continue;
      fields.append(input.name, input.value);
    }
  }
  return fields.toString();
}"""
# Whether the page's #status and #bar say what those of an answer (its HTML) say.
SAME_WORDS = """(html) => {
  const fresh = new DOMParser().parseFromString(html, "text/html");
  const words = (el) => el ? el.textContent.replace(/\\s+/g, " ").trim() : null;
  return ["status", "bar"].every((id) => words(fresh.getElementById(id)) === words(document.getElementById(id)));
}"""


class HttpSeat:
    """A seat nobody watches: an HTTP client with its own cookie."""

    def __init__(self, phone: Phone):
        self.phone = phone

    def post(self, path, **data):
        return self.phone.post(path, **data)


def join_page(browser, base, code, name, locale, viewport=PHONE):
    """A phone-sized browser in ``locale`` that sits down as ``name``."""
    context = browser.new_context(viewport=viewport, locale=locale, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(f"{base}/t/{code}/join")
    page.locator("input[name=name]").fill(name)
    page.locator("form button[type=submit]").last.click()
    page.wait_for_selector("#status")
    return page


class RandomNight:
    """A table of ``game_name`` with ``players`` seats: the first ``watched`` are browser pages
    (``pages``: made by ``open_phone(name, locale)``), the others HTTP clients. ``moves`` lists
    what was done, for a failure's message."""

    def __init__(self, base, folder, game_name, players, seed, chips=200):
        self.base, self.game_name = base, game_name
        self.rules = game(game_name)
        self.app = database_app(folder)
        with self.app.app_context():
            table, self.secret = service.create_table(game_name, "Random night", chips, {})
        self.code = table.code
        self.rng = Random(seed)
        self.seats: dict[str, object] = {}  # seat -> BrowserSeat | HttpSeat
        self.names: dict[str, str] = {}
        self.players = players
        self.moves: list[str] = []
        self.host = None

    def table(self):
        with self.app.app_context():
            return service.get_table(self.code)

    def _new_seat(self):
        return set(self.table().state["players"]) - set(self.seats)

    def sit_page(self, page, name):
        (seat,) = self._new_seat()
        self.seats[seat], self.names[seat] = BrowserSeat(self.base, page), name
        return seat

    def sit_http(self, name):
        phone = Phone(self.base)
        phone.page(f"/t/{self.code}/join")
        phone.http.post(f"/t/{self.code}/join", data={"csrf_token": phone.token, "name": name})
        # The table's page may hold no form yet (a Monte table before the draw): its token is
        # the one htmx sends, in the body's hx-headers.
        html = phone.http.get(f"/t/{self.code}").text
        phone.token = re.search(r'"X-CSRF-Token": "([^"]+)"', html).group(1)
        (seat,) = self._new_seat()
        self.seats[seat], self.names[seat] = HttpSeat(phone), name
        return seat

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

    def host_do(self, kind):
        """The host's switch ``kind`` (its page ``self.host``), a drastic one answered yes."""
        headers = {"X-CSRF-Token": page_token(self.host)}
        form = {"csrf_token": page_token(self.host), "confirm": "yes"}
        answer = self.host.context.request.post(
            f"{self.base}/t/{self.code}/host/{kind}", form=form, headers=headers
        )
        self.moves.append(f"host {kind}: {answer.status}")
        return answer

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
        answer = self.seats[seat].post(
            f"/t/{self.code}/a/{kind}", stage=service.stage(before.state), **params
        )
        status = answer.status if hasattr(answer, "status") else answer.status_code
        self.moves.append(f"{self.names[seat]} {kind} {params}: {status}")
        table = self.table()
        result = self.rules.view(table.state, None, None).get("result") or {}
        return table.version, table.version > before.version and result.get(
            "version"
        ) == table.version
