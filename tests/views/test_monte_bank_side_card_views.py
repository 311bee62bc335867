"""Monte Bank's side cards through the routes (issue 41): the lobby's option, a side card tapped
like a position, the felt, the odds, the TV's words, the export and verify."""

from __future__ import annotations

import json
import re

from montones.rules.audit import verify
from montones.rules.cards import FRENCH
from montones.rules.scenario import replay
from tests.helpers.nights import monte_bank_betting as betting
from tests.helpers.nights import page_text as text


def _deck(ul, ur, ll, lr, top, turned):
    """A deck (top card first): ``ul`` (its stack), ``ur``, ``ll``, ``lr``, then ``top`` from
    the top (side cards and cards set aside), ``turned`` turned first from the bottom."""
    used = set(ul) | {ur, ll, lr} | set(top) | set(turned)
    filler = [c for c in FRENCH.codes if c not in used]
    return [ll, lr, *top, *filler, *turned[::-1], ur, *ul[::-1]]


# The worked example's layout; AS and AC set aside (the rank of ur), 2S is s1, QH s2.
SIDES = _deck(["7S", "7C"], "AD", "3C", "KH", ["AS", "AC", "2S", "QH"], ["JC", "AH", "7H"])


def test_the_lobby_makes_a_table_with_side_cards_and_none_by_default(app):
    night = betting(app, deck=SIDES, mb_side_cards=2)
    assert night.state()["settings"]["side_cards"] == 2
    layout = night.state()["deal"]["layout"]
    assert (layout["s1"], layout["s2"], layout["set_aside"]) == (["2S"], ["QH"], ["AS", "AC"])
    plain = betting(app)
    assert plain.state()["settings"]["side_cards"] == 0
    assert "s1" not in plain.state()["deal"]["layout"]


def test_a_side_card_is_tapped_like_a_position(app):
    night = betting(app, deck=SIDES, mb_side_cards=2)
    ana, ben = night.punters
    page = night.clients[ana].get(f"/t/{night.code}").get_data(as_text=True)
    assert 'name="at" value="s1"' in page and 'id="first-s2"' in page
    assert "side card 1 again for a round on it (5 to 1, against every other card)" in page
    # The first hand's guide: its line and its drawing say a side card is tapped as a card.
    assert "A side card is a card like the others: twice for a round (5 to 1" in page
    assert "A side card: tapped as a card, its round 5 to 1" in page
    assert night.tap(ana, "s1", 2, first="s1").status_code == 200  # twice: a round on it
    assert night.tap(ben, "ul", 3, first="s2").status_code == 200  # then another: a cross
    bets = night.state()["deal"]["bets"]
    assert [(b["kind"], b["on"], b.get("against")) for b in bets] == [
        ("round", "s1", None),
        ("cross", "s2", "ul"),
    ]


def test_a_side_card_a_table_does_not_deal_is_refused_in_words(app):
    night = betting(app, deck=SIDES, mb_side_cards=1)
    answer = night.tap(night.punters[0], "s2", 2)
    assert answer.status_code == 422
    assert "the side cards s1" in answer.get_data(as_text=True)
    assert night.state()["deal"]["bets"] == []


def test_the_tv_draws_the_side_cards_their_round_and_the_cards_set_aside(app):
    night = betting(app, deck=SIDES, mb_side_cards=2)
    night.tap(night.punters[0], "s1", 2, first="s1")
    shown = text(night.host.get(f"/t/{night.code}/tv"))
    assert "① side card 1 · round 5 to 1" in shown
    assert "② side card 2 · round 5 to 1" in shown
    assert "Set aside:" in shown
    assert "on a side card 5 to 1 (against every other card)" in shown
    spanish = text(night.host.get(f"/t/{night.code}/tv?lang=es"))
    assert "carta lateral 1" in spanish


def test_the_odds_show_each_side_card_bet_from_the_unseen_cards(app):
    night = betting(app, deck=SIDES, mb_side_cards=2)
    page = night.clients[night.punters[0]].get(f"/t/{night.code}").get_data(as_text=True)
    assert 'data-side="s1"' in page and 'data-side="s2"' in page
    # ur (A♦, with a pair at ul) has no live card left: AS and AC were set aside. A cross of
    # s1 against it is of two singles, by plain rank: AH against 2H 2D 2C, 3 in 4.
    cross = re.search(r'data-edge="cross-s1-ur">([^<]+)<', page).group(1)
    assert "wins 3 times in 4" in cross


def test_the_export_carries_the_side_cards_and_verifies(app):
    night = betting(app, deck=SIDES, mb_side_cards=2)
    ana, ben = night.punters
    night.tap(ana, "s1", 2, first="s1")  # lost at 7H, ul matched
    night.tap(ben, "ur", 3, first="s2")  # a cross of singles: AH decides it, lost
    night.do(night.banker, "close", stage=night.stage())
    export = json.loads(night.host.get(f"/t/{night.code}/host/export.json").get_data(as_text=True))
    (hand,) = export["hands"]
    assert hand["side_cards"] == 2
    assert hand["result"]["set_aside"] == ["AS", "AC"]
    assert hand["result"]["layout"]["s2"] == ["QH"]
    assert verify(export) == []
    scenario = {k: v for k, v in hand.items() if k not in ("result", "meta", "shuffle")}
    assert replay(scenario) == hand["result"]
    history = text(night.clients[ben].get(f"/t/{night.code}/history"))
    assert "cross side card 2 against upper right" in history
