"""A phone's own regions (#status, #guide and the action bar): what a tap and a fetch answer.

A tap's answer carries them whole, out of band for idiomorph to merge, and a refusal every
region; a fetch of them carries them too. The stake and mode a seat chose are kept on the
server, so every drawing of its bar shows them.
"""

from __future__ import annotations

import re

import pytest

from montones.live import channel
from tests.helpers.nights import HX, MonteNight, Night, forms, seat_version_fields

QUICK = re.compile(r'<input type="radio" name="amount" value="(\w+)"')
CHOSEN = re.compile(r'<input type="radio" name="amount" value="(\w+)" checked')

INTENT = {"mode": "bet", "amount": "1", "custom": ""}  # what #intent holds as a page opens


def regions(response) -> list[str]:
    return re.findall(
        r'<(?:section|div)(?: hx-swap-oob="morph")? id="(status|felt|odds|bar)"',
        response.get_data(as_text=True),
    )


def seat_regions(night, name: str, **params):
    return night.clients[name].get(f"/t/{night.code}/p/seat", query_string=params, headers=HX)


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
    assert regions(answer) == ["felt", "status", "bar"]  # Montones has no odds of the coup


def test_a_fetch_of_my_regions_carries_both_though_nothing_of_mine_changed(betting):
    before = seat_regions(betting, "Ben", **INTENT)
    betting.ok("Eva", "tap", heap=2, mode="bet", amount=3, custom="")
    after = seat_regions(betting, "Ben", **INTENT)
    assert regions(before) == regions(after) == ["status", "bar"]


def test_a_fetch_of_my_regions_in_monte_carries_both(app):
    night = MonteNight(app, "Ana", "Ben", "Eva", chips=40)
    night.betting(bank=20)
    assert regions(seat_regions(night, night.punters[0])) == ["status", "bar"]


def test_a_tap_that_changes_the_bar_gets_the_new_bar(app):
    # Ben has 30 chips under a bank of 30: the bar offers 1, 5, 10 and 25 until a bet of 20
    # leaves him 10, and then only 1 and 5 (and the all-in chip, always).
    night = Night(app, "Ana", "Ben", "Eva", chips=30)
    night.to_betting("Ana", bank=30)
    before = seat_regions(night, "Ben", **INTENT).get_data(as_text=True)
    assert QUICK.findall(before) == ["1", "5", "10", "25", "max"]
    answer = night.do("Ben", "tap", heap=1, mode="bet", amount=20, custom="")
    assert QUICK.findall(answer.get_data(as_text=True)) == ["1", "5", "max"]


def test_a_bet_draws_the_bettors_bar_again_only_when_its_quick_stakes_change(app):
    # Ben has 30 chips under a bank of 30: a bet of 1 changes the most he can stake (29, then
    # 28), not the stakes his bar offers; a bet that leaves him under 25 changes them.
    night = Night(app, "Ana", "Ben", "Eva", chips=30)
    night.to_betting("Ana", bank=30)

    def drawings():
        with app.app_context():
            return dict(channel.of(app).seat_drawings[(night.code, night.seats["Ben"], "en")])

    night.ok("Ben", "tap", heap=1, mode="bet", amount=1, custom="")
    first = drawings()
    night.ok("Ben", "tap", heap=1, mode="bet", amount=1, custom="")
    second = drawings()
    assert second["status"] is not first["status"]  # his chips changed
    assert second["bar"] is first["bar"]  # the same bar, not drawn again
    assert QUICK.findall(second["bar"][1]) == ["1", "5", "10", "25", "max"]
    night.ok("Ben", "tap", heap=1, mode="bet", amount=5, custom="")
    assert QUICK.findall(drawings()["bar"][1]) == ["1", "5", "10", "max"]


def test_the_bar_offers_the_tables_least_first_and_no_chip_the_max_one_stakes(app):
    # The three games' bars offer the same quick stakes (web/stakes.py): a table's least of 2
    # comes first, and a chip as big as the most Ben may stake is the "max" one.
    night = Night(app, "Ana", "Ben", "Eva", chips=25, min_bet=2)
    night.to_betting("Ana", bank=25)
    bar = seat_regions(night, "Ben", **INTENT).get_data(as_text=True)
    assert QUICK.findall(bar) == ["2", "5", "10", "max"]


def test_a_stake_no_longer_offered_leaves_the_all_in_chip_chosen(app):
    night = Night(app, "Ana", "Ben", "Eva", chips=30)
    night.to_betting("Ana", bank=30)
    night.ok("Ben", "tap", heap=1, mode="bet", amount=20, custom="", stage=night.stage())
    bar = seat_regions(night, "Ben", mode="bet", amount="10", custom="")  # 10 left: 10 is "max"
    assert CHOSEN.findall(bar.get_data(as_text=True)) == ["max"]
    again = seat_regions(night, "Ben", mode="bet", amount="5", custom="")
    assert CHOSEN.findall(again.get_data(as_text=True)) == ["5"]


def test_a_phones_felt_sends_the_intent_with_its_withdraw_buttons(betting):
    betting.ok("Ben", "tap", heap=1, mode="bet", amount=1, custom="")
    page = betting.page("Ben").get_data(as_text=True)
    felt = page[page.index('<section id="felt"') :]
    assert re.search(r'<ol class="heaps[^"]*" hx-include="#intent, #tap, #seat_version">', felt)
    assert 'class="chip__withdraw"' in felt


# --- each answer whole, its stake kept -----------------------------------------------------

TAG = re.compile(r"<\w+[^>]*>")


def sent(response) -> list[str]:
    """The ids of the elements an answer swaps (#seat_version last)."""
    tags = TAG.findall(response.get_data(as_text=True))
    return [re.search(r' id="([^"]+)"', tag).group(1) for tag in tags if "hx-swap-oob" in tag]


def test_an_answer_sends_my_regions_whole_for_idiomorph_to_merge(betting):
    answer = betting.do("Ben", "tap", heap=1, mode="bet", amount=1, custom="")
    assert sent(answer) == ["status", "guide", "bar", "seat_version"]
    assert answer.get_data(as_text=True).count('hx-swap-oob="morph"') == 4


def test_a_refusal_sends_every_region_whole(betting):
    answer = betting.do("Ben", "tap", heap=1, mode="bet", amount=500, custom="")
    assert answer.status_code == 422
    assert sent(answer) == ["tap", "felt", "status", "guide", "bar", "seat_version"]


def test_the_stake_a_seat_chose_stays_chosen_on_a_page_drawn_again(betting):
    betting.ok("Ben", "tap", heap=1, mode="bet", amount=5, custom="")
    page = betting.page("Ben").get_data(as_text=True)
    assert CHOSEN.findall(page) == ["5"]
    assert CHOSEN.findall(seat_regions(betting, "Ben").get_data(as_text=True)) == ["5"]
    assert CHOSEN.findall(betting.page("Eva").get_data(as_text=True)) == ["1"]  # hers, not his


def test_a_form_of_the_bar_sent_twice_from_one_drawing_is_one_tap(app):
    # The bar's forms name what they do (key); the drawing they were made on comes from #seat_version
    # (drawn): the same form sent twice is a double tap, and the same form from the next
    # drawing is a new tap.
    night = Night(app, "Ana", "Ben", "Eva")
    page = night.page("Ana")
    (offer,) = forms(page, "offer")
    assert offer["key"] == "offer" and "nonce" not in offer
    assert (
        offer["drawing_nonce"] == seat_version_fields(page.get_data(as_text=True))["drawing_nonce"]
    )
    first = night.do("Ana", "offer", **{**offer, "amount": "40"})
    again = night.do("Ana", "offer", **{**offer, "amount": "50"})  # the double: not another
    assert (first.status_code, again.status_code) == (200, 200)
    assert night.state()["auction"]["offers"] == {night.seats["Ana"]: 40}
    (fresh,) = forms(night.page("Ana"), "offer")
    assert fresh["drawing_nonce"] != offer["drawing_nonce"]
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
    # What changes at every drawing (its version, its nonce) is in #seat_version, not in my regions:
    # two drawings a version apart that show the same are the same.
    before = seat_regions(betting, "Ben", **INTENT).get_data(as_text=True)
    betting.ok("Eva", "tap", heap=2, mode="bet", amount=3, custom="")
    after = seat_regions(betting, "Ben", **INTENT).get_data(as_text=True)
    own = re.compile(r'<div hx-swap-oob="morph" id="seat_version".*?</div>')
    assert own.sub("", before) == own.sub("", after)
    assert own.search(before).group(0) != own.search(after).group(0)
