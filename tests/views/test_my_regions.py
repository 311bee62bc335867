"""A phone's own regions (#status, #guide and the action bar): what a tap and a fetch answer.

A tap's answer carries them, and a refusal every region; a fetch of them (the phone's answer to
its stream's ``mine``) carries them too. A phone that says what it holds of them (#own's
``held``, the marks of their parts) is sent only the parts that differ from it, and #own
again; one that holds nothing known, or whose answer says something over the screen (a
refusal), is sent them whole. Either way the phone then shows what a fresh drawing shows.
"""

from __future__ import annotations

import re

import pytest

from montones.live import parts
from tests.helpers.nights import HX, MonteNight, Night, forms, own_fields

QUICK = re.compile(r'<input type="radio" name="amount" value="(\w+)"')
CHOSEN = re.compile(r'<input type="radio" name="amount" value="(\w+)" checked')

INTENT = {"mode": "bet", "amount": "1", "custom": ""}  # what #intent holds as a page opens


def regions(response) -> list[str]:
    return re.findall(
        r'<(?:section|div)(?: hx-swap-oob="true")? id="(status|felt|odds|bar)"',
        response.get_data(as_text=True),
    )


def mine(night, name: str, **params):
    return night.clients[name].get(f"/t/{night.code}/p/mine", query_string=params, headers=HX)


@pytest.fixture
def betting(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    return night


def test_a_tap_is_answered_with_my_status_and_my_bar(betting):
    answer = betting.do("Ben", "tap", heap=1, mode="bet", amount=1, custom="")
    assert answer.status_code == 200
    assert regions(answer) == ["status", "bar"]
    assert betting.chips_of("Ben") == 99


def test_a_withdraw_is_answered_with_my_status_and_my_bar(betting):
    betting.ok("Ben", "tap", heap=1, mode="bet", amount=1, custom="")
    (bet,) = betting.state()["hand"]["bets"]
    answer = betting.do("Ben", "withdraw", bet=bet["id"], **INTENT)
    assert regions(answer) == ["status", "bar"]
    assert betting.state()["hand"]["bets"] == []


def test_a_refusal_is_answered_with_every_region(betting):
    answer = betting.do("Ben", "tap", heap=1, mode="bet", amount=500, custom="")
    assert answer.status_code == 422
    assert regions(answer) == ["status", "felt", "bar"]  # Montones has no odds of the coup


def test_a_fetch_of_my_regions_carries_both_though_nothing_of_mine_changed(betting):
    before = mine(betting, "Ben", **INTENT)
    betting.ok("Eva", "tap", heap=2, mode="bet", amount=3, custom="")
    after = mine(betting, "Ben", **INTENT)
    assert regions(before) == regions(after) == ["status", "bar"]


def test_a_fetch_of_my_regions_in_monte_carries_both(app):
    night = MonteNight(app, "Ana", "Ben", "Eva", chips=40)
    night.betting(bank=20)
    assert regions(mine(night, night.punters[0])) == ["status", "bar"]


def test_a_tap_that_changes_the_bar_gets_the_new_bar(app):
    # Ben has 12 chips under a bank of 10: the bar offers 1, 5 and 10 until a bet of 5 leaves
    # him 7, and then only 1 and 5 (and the all-in chip, always).
    night = Night(app, "Ana", "Ben", "Eva", chips=12)
    night.to_betting("Ana", bank=10)
    before = mine(night, "Ben", **INTENT).get_data(as_text=True)
    assert QUICK.findall(before) == ["1", "5", "10", "max"]
    answer = night.do("Ben", "tap", heap=1, mode="bet", amount=5, custom="")
    assert QUICK.findall(answer.get_data(as_text=True)) == ["1", "5", "max"]


def test_a_stake_no_longer_offered_leaves_the_all_in_chip_chosen(app):
    night = Night(app, "Ana", "Ben", "Eva", chips=12)
    night.to_betting("Ana", bank=10)
    night.ok("Ben", "tap", heap=1, mode="bet", amount=5, custom="", stage=night.stage())
    bar = mine(night, "Ben", mode="bet", amount="10", custom="")  # 7 chips left: no 10
    assert CHOSEN.findall(bar.get_data(as_text=True)) == ["max"]
    again = mine(night, "Ben", mode="bet", amount="5", custom="")
    assert CHOSEN.findall(again.get_data(as_text=True)) == ["5"]


def test_a_phones_felt_sends_the_intent_with_its_withdraw_buttons(betting):
    betting.ok("Ben", "tap", heap=1, mode="bet", amount=1, custom="")
    page = betting.page("Ben").get_data(as_text=True)
    felt = page[page.index('<section id="felt"') :]
    assert re.search(r'<ol class="heaps[^"]*" hx-include="#intent, #tap, #own">', felt)
    assert 'class="chip__withdraw"' in felt


# --- only what changed ---------------------------------------------------------------------

OWN = ("status", "guide", "bar")
TAG = re.compile(r"<\w+[^>]*>")


def sent(response) -> list[str]:
    """The ids of the elements an answer swaps (#own last)."""
    tags = TAG.findall(response.get_data(as_text=True))
    return [re.search(r' id="([^"]+)"', tag).group(1) for tag in tags if "hx-swap-oob" in tag]


class Phone:
    """What a phone holds of its own regions, kept up to date as htmx would: every element of
    an answer swapped in place of the one with its id."""

    def __init__(self, night, name: str):
        self.night, self.name = night, name
        self.regions = self.whole(**INTENT)
        page = night.clients[name].get(f"/t/{night.code}")
        self.own = own_fields(page.get_data(as_text=True))

    def whole(self, **intent) -> dict[str, str]:
        """My regions as a fetch that says it holds nothing gets them, one line each."""
        answer = mine(self.night, self.name, **intent)
        assert answer.headers.get("X-Own") is None
        html = answer.get_data(as_text=True)
        found = {}
        for region in OWN:
            start = html.index(f'id="{region}"')
            start = html.rindex("<", 0, start)
            found[region] = parts.split(html[start:])[region].html.replace(
                ' hx-swap-oob="true"', ""
            )
        return found

    def take(self, response) -> None:
        html = response.get_data(as_text=True)
        for piece in parts.split(html).values():  # each element with an id, nested or not
            if ' hx-swap-oob="true"' not in piece.html[: piece.html.index(">")]:
                continue
            plain = piece.html.replace(' hx-swap-oob="true"', "", 1)
            ident = re.search(r'id="([^"]+)"', plain).group(1)
            if ident == "own":
                self.own = own_fields(plain)
                continue
            if ident in ("tap", "felt", "odds"):  # every phone's, not mine
                continue
            (region,) = [r for r, held in self.regions.items() if f'id="{ident}"' in held]
            held = parts.split(self.regions[region])[ident].html
            self.regions[region] = self.regions[region].replace(held, plain)

    def fetch(self, **intent):
        answer = mine(self.night, self.name, held=self.own["held"], **intent)
        self.take(answer)
        return answer

    def tap(self, kind: str, **fields):
        answer = self.night.do(self.name, kind, held=self.own["held"], **fields)
        self.take(answer)
        return answer


def squeeze(html: str) -> str:
    return re.sub(r"\s+", " ", html)


def test_the_page_holds_the_marks_a_fetch_gives(betting):
    page = own_fields(betting.page("Ben").get_data(as_text=True))
    fetched = own_fields(mine(betting, "Ben", **INTENT).get_data(as_text=True))
    assert page["held"] == fetched["held"] and page["drawn"] != fetched["drawn"]
    assert len(page["held"].split(".")) > len(OWN)  # my regions come in parts


def test_a_fetch_that_holds_the_newest_gets_only_own(betting):
    ben = Phone(betting, "Ben")
    answer = ben.fetch(**INTENT)
    assert answer.headers["X-Own"] == "parts"
    assert sent(answer) == ["own"]
    assert ben.regions == ben.whole(**INTENT)


def test_a_bet_sends_only_the_chips_that_changed(betting):
    ben = Phone(betting, "Ben")
    answer = ben.tap("tap", heap=1, mode="bet", amount=1, custom="")
    assert answer.headers["X-Own"] == "parts"
    assert sent(answer) == ["status-me", "own"]
    assert betting.chips_of("Ben") == 99
    assert ben.regions == ben.whole(**INTENT)
    # Another stake chosen: its chip and the one it was are drawn again, and nothing else.
    answer = ben.tap("tap", heap=2, mode="bet", amount=5, custom="")
    assert sent(answer) == ["status-me", "stake-1", "stake-5", "own"]
    assert ben.regions == ben.whole(**{**INTENT, "amount": "5"})
    assert len(answer.get_data()) < len(ben.whole(**INTENT)["bar"]) / 2


def test_each_answer_of_a_hand_shows_what_a_fresh_drawing_shows(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    phones = {name: Phone(night, name) for name in ("Ana", "Ben", "Eva")}
    steps = [
        ("Ben", "tap", {"heap": 1, "mode": "bet"}),
        ("Eva", "tap", {"heap": 3, "mode": "choose"}),
        ("Eva", "tap", {"heap": 2, "mode": "bet", "amount": 1}),
        ("Ana", "close", {}),
        ("Ana", "next", {}),
    ]
    answers = []
    for name, kind, fields in steps:  # each phone's stake stays the first chip (INTENT)
        answer = phones[name].tap(kind, stage=night.stage(), **{**INTENT, **fields})
        assert answer.status_code == 200
        for phone in phones.values():
            if phone.name != name:
                answers.append(phone.fetch(**INTENT).headers.get("X-Own"))
            assert phone.regions == phone.whole(**INTENT), (kind, phone.name)
    assert answers.count("parts") >= len(answers) // 2  # most of them, only what changed


def test_another_punters_bet_in_monte_changes_only_the_room_left(app):
    night = MonteNight(app, "Ana", "Ben", "Eva", chips=40)
    night.betting(bank=20)
    first, second = night.punters
    phone = Phone(night, second)
    assert night.tap(first, "top", 1).status_code == 200
    answer = phone.fetch()
    assert sent(answer) == ["bar-room", "own"]
    assert phone.regions == phone.whole()


@pytest.mark.parametrize(
    "held",
    [
        "AAAAAA.BBBBBB",  # marks, but of nothing this phone was drawn
        "<script>alert(1)</script>",
        "AAAAAA.BBBB",  # a mark cut short
        ".".join(["AAAAAA"] * 201),  # more than any phone holds
        "A" * 100_000,
    ],
)
def test_an_unknown_or_malformed_holding_gets_the_whole_regions(betting, held):
    answer = mine(betting, "Ben", held=held, **INTENT)
    assert answer.status_code == 200
    assert answer.headers.get("X-Own") is None
    assert sent(answer) == ["status", "guide", "bar", "own"]
    assert "<script>" not in answer.get_data(as_text=True)


def test_a_holding_of_every_part_and_more_is_still_what_is_held(betting):
    # Marks the phone does not hold besides its own (at most MOST_HELD in all) are no matter.
    ben = Phone(betting, "Ben")
    held = ben.own["held"] + "." + ".".join(["AAAAAA"] * 100)
    answer = mine(betting, "Ben", held=held, **INTENT)
    assert sent(answer) == ["own"]


def test_a_refusal_sends_every_region_whole_whatever_the_phone_holds(betting):
    ben = Phone(betting, "Ben")
    answer = ben.tap("tap", heap=1, mode="bet", amount=500, custom="")
    assert answer.status_code == 422
    assert answer.headers.get("X-Own") is None
    assert sent(answer) == ["status", "tap", "felt", "guide", "bar", "own"]


def test_a_form_of_the_bar_sent_twice_from_one_drawing_is_one_tap(app):
    # The bar's forms name what they do (key); the drawing they were made on comes from #own
    # (drawn): the same form sent twice is a double tap, and the same form from the next
    # drawing is a new tap.
    night = Night(app, "Ana", "Ben", "Eva")
    page = night.page("Ana")
    (offer,) = forms(page, "offer")
    assert offer["key"] == "offer" and "nonce" not in offer
    assert offer["drawn"] == own_fields(page.get_data(as_text=True))["drawn"]
    first = night.do("Ana", "offer", **{**offer, "amount": "40"})
    again = night.do("Ana", "offer", **{**offer, "amount": "50"})  # the double: not another
    assert (first.status_code, again.status_code) == (200, 200)
    assert night.state()["auction"]["offers"] == {night.seats["Ana"]: 40}
    (fresh,) = forms(night.page("Ana"), "offer")
    assert fresh["drawn"] != offer["drawn"]
    night.ok("Ana", "offer", **{**fresh, "amount": "50"})
    assert night.state()["auction"]["offers"] == {night.seats["Ana"]: 50}


def test_a_form_of_the_bar_from_an_older_stage_is_stale(app):
    night = Night(app, "Ana", "Ben", "Eva")
    (offer,) = forms(night.page("Ben"), "offer")
    night.open_bank("Ana", 30)
    before = night.snapshot()
    response = night.do("Ben", "offer", **{**offer, "amount": "40"})
    assert response.status_code == 409
    assert night.snapshot() == before


def test_a_bar_form_changes_at_no_version_of_its_own(betting):
    # What changes at every drawing (its version, its nonce) is in #own, not in my regions:
    # two drawings a version apart that show the same are the same.
    before = mine(betting, "Ben", **INTENT).get_data(as_text=True)
    betting.ok("Eva", "tap", heap=2, mode="bet", amount=3, custom="")
    after = mine(betting, "Ben", **INTENT).get_data(as_text=True)
    own = re.compile(r'<div id="own".*?</div>')
    assert own.sub("", before) == own.sub("", after)
    assert own.search(before).group(0) != own.search(after).group(0)
