"""A phone's own regions (#status and the action bar) come back whole, every time.

A tap's answer carries them, and a refusal every region; a fetch of them (the phone's answer to
its stream's ``mine``) carries both, whatever the phone already shows: there is one way for a
phone to learn what changed, and no answer is left short to save a redraw.
"""

from __future__ import annotations

import re

import pytest

from tests.helpers.nights import HX, MonteNight, Night

QUICK = re.compile(r'<input type="radio" name="amount" value="(\w+)"')
CHOSEN = re.compile(r'<input type="radio" name="amount" value="(\w+)" checked')

INTENT = {"mode": "bet", "amount": "1", "custom": ""}  # what #intent holds as a page opens


def regions(response) -> list[str]:
    return re.findall(
        r'<(?:section|div) id="(status|felt|odds|bar)"', response.get_data(as_text=True)
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
    assert re.search(r'<ol class="heaps[^"]*" hx-include="#intent, #tap">', felt)
    assert 'class="chip__withdraw"' in felt
