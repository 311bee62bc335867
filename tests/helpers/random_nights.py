"""Random nights of every game on a real server, driven over HTTP, for the browser tests.

A :class:`Table` is one game's table in one language: the host's client (httpx), its players'
seats, each a cookie jar and a CSRF token, and any number of browser pages that watch it (a TV,
a phone that is a seat too). The players act over HTTP, so twelve of them need not be twelve
pages; a phone's seat taps through its own page's cookies, so whatever a step makes it see is
what its player would. :meth:`Table.night` walks a night in steps chosen by a seeded random:
the bank put up, the cut, bets of every kind and size (some bigger than the bank can pay, so
payments are capped), hands decided and dealt again, late joiners, the end of the night. After
each step it calls back, so a test can look at every screen there.

Every tap goes to whichever player the table lets do it now: a refusal changes nothing, so trying
the players in turn is how a driver that does not read the state finds the one whose turn it is.
"""

from __future__ import annotations

import re
from random import Random

import httpx

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
# Names as long as a room's names get.
NAMES = (
    "Ana", "Ben", "Carlos", "Dolores", "Eva", "Fernando", "Guadalupe", "Hugo", "Inés",
    "Jacinto", "Katarina", "Maximiliano",
)  # fmt: skip
FIELDS = {
    "montones": {"min_bet": 1, "heaps_min": 3, "heaps_max": 8, "tenure": 60, "cut_timeout": 600},
    "monte": {"bank_size": 50, "min_bet": 1, "max_bet": 10, "banks_each": 1, "cut_timeout": 600},
    "monte_bank": {"min_bet": 1, "mb_bank_size": 60, "mb_levy": "on", "mb_banks_each": 1},
}
BANKS = {"montones": (10, 60), "monte": (50, 50), "monte_bank": (60, 60)}
# A table of a game with options of its own (issue 41: Monte Bank with two side cards), played as
# its game is: its name, its game and the fields over the game's.
VARIANTS = {"monte_bank+sides": ("monte_bank", {"mb_side_cards": "2"})}


class Seat:
    """A player's browser, as far as the server knows it: a cookie jar and a CSRF token."""

    def __init__(self, base, code, name, language):
        self.name = name
        self.http = httpx.Client(base_url=base, timeout=30)
        self.code = code
        page = self.http.get(f"/t/{code}/join", params={"lang": language})
        self.token = CSRF.search(page.text).group(1)
        joined = self.http.post(f"/t/{code}/join", data={"csrf_token": self.token, "name": name})
        assert joined.status_code == 303, joined.text

    def tap(self, kind, **fields) -> int:
        """The answer's status: 200 when done, 409/422 when refused."""
        data = {"csrf_token": self.token, **{k: str(v) for k, v in fields.items()}}
        answer = self.http.post(
            f"/t/{self.code}/a/{kind}", data=data, headers={"HX-Request": "true"}
        )
        return answer.status_code


class PhoneSeat(Seat):
    """A player on a phone page: seated through the join page, tapping over HTTP with the page's
    cookies (its session is its seat)."""

    def __init__(self, page, base, code, name, language):
        self.name, self.page, self.code = name, page, code
        page.goto(f"{base}/t/{code}/join?lang={language}")
        page.locator('input[name="name"]').fill(name)
        page.locator('form[action$="/join"] button[type="submit"]').click()
        page.wait_for_url(re.compile(rf"/t/{code}$"))
        page.locator("#status").wait_for()
        headers = page.locator("body").get_attribute("hx-headers")
        self.token = re.search(r'"X-CSRF-Token": "([^"]+)"', headers).group(1)
        cookies = {c["name"]: c["value"] for c in page.context.cookies()}
        self.http = httpx.Client(base_url=base, timeout=30, cookies=cookies)


def create(base, game, language):
    """A table of ``game`` (or of a :data:`VARIANTS`) whose TV speaks ``language``; the host's
    client and token."""
    game, options = VARIANTS.get(game, (game, {}))
    host = httpx.Client(base_url=base, timeout=30)
    token = CSRF.search(host.get("/", params={"lang": language}).text).group(1)
    fields = {**FIELDS[game], **options}
    made = host.post(
        "/tables",
        data={"csrf_token": token, "game": game, "name": "Noche", "chips": 100, **fields},
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


class Table:
    """One game's table in one language, its players over HTTP (see the module's docstring)."""

    def __init__(self, base, game, language, rng: Random):
        self.host, self.token, self.code = create(base, game, language)
        self.sides = int(VARIANTS.get(game, (game, {}))[1].get("mb_side_cards", 0))
        game = VARIANTS.get(game, (game,))[0]
        self.base, self.game, self.language, self.rng = base, game, language, rng
        self.seats = []

    def sit(self, names):
        self.seats += [Seat(self.base, self.code, name, self.language) for name in names]

    def sit_phone(self, page, name):
        self.seats.append(PhoneSeat(page, self.base, self.code, name, self.language))

    def shuffled(self):
        return self.rng.sample(self.seats, len(self.seats))

    def host_does(self, kind, **fields):
        done = self.host.post(
            f"/t/{self.code}/host/{kind}",
            data={"csrf_token": self.token, "confirm": "yes", **fields},
        )
        assert done.status_code == 303, (kind, done.status_code)

    # --- a hand, step by step; each returns what it did, in words, for a failure's message ---

    def bank(self) -> str:
        """The bank put up: Montones' auction (one offers, the others pass), or the draw and
        the drawn banker's bank."""
        low, high = BANKS[self.game]
        amount = self.rng.randint(low, high)
        if self.game == "montones":
            banker = whoever_else(self.shuffled(), "offer", amount=amount)
            for seat in self.seats:
                if seat is not banker:
                    seat.tap("pass")
            return f"{banker and banker.name} offers {amount}"
        self.host_does("draw")
        banker = whoever_else(self.seats, "bank", amount=amount)
        return f"{banker and banker.name} puts up {amount}"

    def cut(self) -> str:
        """Cut, and in Montones the heaps made (a void Casino deal is shuffled and cut again)."""
        for _void in range(12):
            if whoever_else(self.seats, "cut", position=self.rng.randint(2, 30)) is None:
                break
        heaps = self.rng.randint(3, 8)
        if self.game == "montones":  # and a punter chooses the banker's heap
            whoever_else(self.seats, "heaps", count=heaps)
            chosen = self.rng.randint(1, heaps)
            whoever_else(self.shuffled(), "choose", heap=chosen)
            return f"cut, {heaps} heaps, the banker's {chosen}"
        return "cut"

    def bet(self, heaps=8) -> str:
        """Each punter, in a random order, one bet or two, of a kind and size at random (a
        refused one changes nothing)."""
        rng, made = self.rng, 0
        for seat in self.shuffled():
            for _bet in range(rng.choice((1, 1, 2))):
                amount = rng.choice((1, 2, 5, 10, 25))
                if self.game == "montones":
                    kind = rng.choice(("bet", "bet", "against"))
                    made += seat.tap(kind, heap=rng.randint(1, heaps), amount=amount) == 200
                elif self.game == "monte":
                    layout = rng.choice(("top", "bottom"))
                    made += seat.tap("bet", layout=layout, amount=amount) == 200
                else:
                    made += seat.tap("bet", amount=amount, **self.casino_bet()) == 200
        return f"{made} bets"

    def casino_bet(self):
        rng = self.rng
        positions = ["ul", "ur", "ll", "lr"]
        positions += ["s1", "s2"][: self.sides]
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
        whoever_else(self.seats, "gate" if self.game == "monte" else "close")
        return "decided"

    def next(self) -> str:
        """The next hand: dealt again, or in Montones the bank auctioned again when it broke
        or its tenure ended."""
        if whoever_else(self.seats, "next") is None:
            whoever_else(self.seats, "close_bank")
        for seat in self.seats:
            seat.tap("pass")
        return "next"

    def end(self) -> str:
        self.host_does("end")
        return "the night ended"
