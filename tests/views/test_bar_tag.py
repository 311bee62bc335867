"""A tap's answer leaves out the action bar when the phone already shows the bar it would draw.

The bar's intent form carries a tag of what the bar is drawn from (play._bar_tag); a tap sends
it (hx-include="#intent", the withdraw buttons too). The answer then holds #status alone. The
invariant that makes this safe: two bars with the same tag are the same bar, but for their
forms' nonces and the version they are marked with.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from montones_helpers import HX, Night
from test_monte_actions import MonteNight

TAG = re.compile(r'<input type="hidden" name="bar" value="([0-9a-f]+)">')
NONCE = re.compile(r'name="nonce" value="[^"]*"')
VERSION = re.compile(r'data-v="\d+"')
QUICK = re.compile(r'<input type="radio" name="amount" value="(\w+)"')
CHOSEN = re.compile(r'<input type="radio" name="amount" value="(\w+)" checked')


INTENT = {"mode": "bet", "amount": "1", "custom": ""}  # what #intent holds as a page opens


def bar_of(night, name: str, **params) -> str:
    """The bar a phone shows after drawing it with these intent values (a tap's answer, or
    a fetch of its own regions, is drawn with the values the tap or the fetch sent)."""
    response = night.clients[name].get(f"/t/{night.code}/p/bar", query_string=params, headers=HX)
    assert response.status_code == 200
    return response.get_data(as_text=True)


def tag_of(html: str) -> str | None:
    found = TAG.search(html)
    return found.group(1) if found else None


def same_but_nonces(html: str) -> str:
    return VERSION.sub("", NONCE.sub("", html))


def regions(response) -> set[str]:
    return set(re.findall(r'<section id="(\w+)"', response.get_data(as_text=True)))


@pytest.fixture
def betting(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    return night


def test_a_tap_from_a_phone_showing_the_bar_it_would_draw_is_answered_without_it(betting):
    tag = tag_of(bar_of(betting, "Ben", **INTENT))
    answer = betting.do("Ben", "tap", heap=1, mode="bet", amount=1, custom="", bar=tag)
    assert answer.status_code == 200
    assert regions(answer) == {"status"}
    assert betting.chips_of("Ben") == 99  # the bet went down all the same


def test_a_tap_with_another_tag_or_none_gets_the_bar(betting):
    tag = tag_of(bar_of(betting, "Ben", **INTENT))
    for sent in ("0123456789abcdef", None):
        fields = {"bar": sent} if sent else {}
        answer = betting.do("Ben", "tap", heap=1, mode="bet", amount=1, custom="", **fields)
        assert regions(answer) == {"status", "bar"}
        assert tag_of(answer.get_data(as_text=True)) == tag


def test_a_tap_that_changes_the_bar_gets_the_new_bar(app):
    # Ben has 12 chips under a bank of 10: the bar offers 1, 5 and 10 until a bet of 5 leaves
    # him 7, and then only 1 and 5 (and the all-in chip, always).
    night = Night(app, "Ana", "Ben", "Eva", chips=12)
    night.to_betting("Ana", bank=10)
    before = bar_of(night, "Ben", **INTENT)
    assert QUICK.findall(before) == ["1", "5", "10", "max"]
    answer = night.do("Ben", "tap", heap=1, mode="bet", amount=5, custom="", bar=tag_of(before))
    assert regions(answer) == {"status", "bar"}
    assert QUICK.findall(answer.get_data(as_text=True)) == ["1", "5", "max"]


def test_a_stake_no_longer_offered_leaves_the_all_in_chip_chosen(app):
    night = Night(app, "Ana", "Ben", "Eva", chips=12)
    night.to_betting("Ana", bank=10)
    night.ok("Ben", "tap", heap=1, mode="bet", amount=5, custom="", stage=night.stage())
    bar = bar_of(night, "Ben", mode="bet", amount="10", custom="")  # 7 chips left: no 10
    assert CHOSEN.findall(bar) == ["max"]
    assert CHOSEN.findall(bar_of(night, "Ben", mode="bet", amount="5", custom="")) == ["5"]


def test_a_withdraw_sends_the_tag_and_is_answered_without_the_unchanged_bar(betting):
    tag = tag_of(bar_of(betting, "Ben", **INTENT))
    betting.ok("Ben", "tap", heap=1, mode="bet", amount=1, custom="", bar=tag)
    (bet,) = betting.state()["hand"]["bets"]
    answer = betting.do("Ben", "withdraw", bet=bet["id"], mode="bet", amount=1, custom="", bar=tag)
    assert answer.status_code == 200
    assert regions(answer) == {"status"}
    assert betting.state()["hand"]["bets"] == []


def test_a_phones_felt_sends_the_intent_with_its_withdraw_buttons(betting):
    betting.ok("Ben", "tap", heap=1, mode="bet", amount=1, custom="")
    page = betting.page("Ben").get_data(as_text=True)
    felt = page[page.index('<section id="felt"') :]
    assert re.search(r'<ol class="heaps[^"]*" hx-include="#intent">', felt)
    assert 'class="chip__withdraw"' in felt


# --- the invariant, over random nights ------------------------------------------------------

MOVES = st.lists(
    st.tuples(
        st.integers(0, 3),
        st.sampled_from(["bet", "against", "withdraw", "stake"]),
        st.integers(1, 8),
        st.integers(1, 3),
    ),  # fmt: skip
    min_size=4,
    max_size=14,
)


def check_tags(night, names, seen: dict[str, tuple[str, str]], stake: str) -> None:
    """Each phone's bar, against the bars that phone showed before under the same tag (a tag
    holds the phone's own CSRF token and rejoin code, so two phones never share one)."""
    for name in names:
        html = bar_of(night, name, amount=stake) if stake else bar_of(night, name)
        tag = tag_of(html)
        if tag is None:
            continue
        drawn = same_but_nonces(html)
        if tag in seen:
            assert seen[tag] == (name, drawn), f"one tag, two bars on {name}'s phone"
        else:
            seen[tag] = (name, drawn)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(moves=MOVES, chips=st.sampled_from([12, 40]))
def test_bars_with_one_tag_are_one_bar_in_montones(app, moves, chips):
    night = Night(app, "Ana", "Ben", "Eva", "Dan", chips=chips)
    night.to_betting("Ana", bank=10)
    punters = ["Ben", "Eva", "Dan"]
    seen: dict[str, tuple[str, str]] = {}
    stake = ""
    for who, kind, amount, heap in moves:
        name = punters[who % 3]
        if kind == "stake":
            stake = str(amount)
        elif kind == "withdraw":
            mine = [b for b in night.state()["hand"]["bets"] if b["player"] == night.seats[name]]
            if mine:
                night.do(name, "withdraw", bet=mine[-1]["id"])
        else:
            night.do(name, "tap", heap=heap, mode=kind, amount=amount, custom="")
        check_tags(night, punters, seen, stake)


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(moves=MOVES)
def test_bars_with_one_tag_are_one_bar_in_monte(app, moves):
    night = MonteNight(app, "Ana", "Ben", "Eva", "Dan", chips=40)
    night.betting(bank=20)
    punters = night.punters
    seen: dict[str, tuple[str, str]] = {}
    stake = ""
    rng = random.Random(len(moves))  # which layout: test data, not cards
    for who, kind, amount, _heap in moves:
        name = punters[who % len(punters)]
        if kind == "stake":
            stake = str(amount)
        elif kind == "withdraw":
            mine = [b for b in night.state()["coup"]["bets"] if b["player"] == night.seats[name]]
            if mine:
                night.do(name, "withdraw", bet=mine[-1]["id"], stage=night.stage())
        else:
            night.tap(name, rng.choice(["top", "bottom"]), amount)
        check_tags(night, punters, seen, stake)


def test_a_fetch_of_my_regions_that_sends_the_tag_of_my_bar_gets_my_status_alone(betting):
    tag = tag_of(bar_of(betting, "Ben", **INTENT))
    betting.ok("Eva", "tap", heap=2, mode="bet", amount=3, custom="")
    client = betting.clients["Ben"]
    same = client.get(f"/t/{betting.code}/p/mine", query_string={**INTENT, "bar": tag}, headers=HX)
    other = client.get(f"/t/{betting.code}/p/mine", query_string=INTENT, headers=HX)
    assert regions(same) == {"status"}
    assert regions(other) == {"status", "bar"}
