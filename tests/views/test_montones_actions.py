"""What a phone and the host may do at a Montones table, through the real routes and database.

Every refusal is checked to change nothing at all (``Night.snapshot()``: the state, the ledger,
the action log, the host's switches and the seats' secrets), and every scene that is refused
for one person is then done by the right one, so a test cannot pass on a scene that was never
possible to begin with.
"""

from __future__ import annotations

import html
import json
import re
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from sqlalchemy import func, select

from montones.data.models import Action, GameTable
from montones.extensions import db
from montones.rules import montones as engine
from montones.rules.games import game
from tests.helpers.nights import (
    HX,
    REJOIN,
    Night,
    csrf_of,
    flashed,
    forms,
    fresh_token,
    notice,
    tap_fields,
)

JOIN_FIRST = "Join the table first."
GONE = "You are no longer at this table."  # a seat the host kicked
ONLY_BANKER = "Only the banker can do that."
BANKER_NO_BET = "The banker does not bet against the bank."
BANKER_NO_CHOICE = "The punters choose the banker's heap, never the banker."
STALE = "The table moved on before your tap arrived: here it is now."


def stranger(app):
    """A phone that opened the site but never sat down."""
    client = app.test_client()
    return client, fresh_token(client)


# --- the scenes: a table where one action is possible for one player ----------------------


@dataclass
class Scene:
    night: Night
    kind: str  # the route: /a/<kind>
    right: str  # who may do it now
    fields: dict
    effect: Callable[[dict, dict], None]  # (state before, state after) -> assertions
    wrong: str | None = None  # who may not, though seated
    wrong_status: int = 422
    wrong_message: str | None = None


def betting(app, **kwargs) -> Night:
    """Ana holds a bank of 30, the deck is cut into 3 heaps; Ben and Eva are the punters."""
    night = Night(app, "Ana", "Ben", "Eva", **kwargs)
    night.to_betting("Ana", 30, 3)
    return night


def settled(app, bottoms=None, stake=5) -> Night:
    """Ben bets ``stake`` on heap 1, Eva gives the banker heap 3, the cards are as arranged,
    and Ana turns the heaps."""
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=stake)
    night.ok("Eva", "choose", heap=3)
    night.arrange(bottoms or {3: "4o", 1: "6c"})
    night.ok("Ana", "close")
    assert night.state()["phase"] == "settled"
    return night


def broken(app) -> Night:
    """Ben took all 30 of the bank: it is broken."""
    night = settled(app, {3: "4o", 1: "6c"}, stake=30)
    assert night.state()["bank"]["amount"] == 0
    return night


def p(night, name):
    return night.seats[name]


def scene_offer(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.ok("Eva", "sit_out")

    def effect(before, after):
        assert after["auction"]["offers"] == {"p2": 40}
        assert after["phase"] == "auction"  # Ana has not answered yet
        assert after["players"]["p2"]["chips"] == 100  # an offer leaves the stack only if it wins

    return Scene(
        night,
        "offer",
        "Ben",
        {"amount": 40},
        effect,
        wrong="Eva",
        wrong_message="You are sitting out: sit in to offer for the bank.",
    )


def scene_pass(app):
    night = Night(app, "Ana", "Ben", "Eva", "Dan")
    night.ok("Ana", "offer", amount=30)
    night.host_do("kick", seat=p(night, "Dan"))

    def effect(before, after):
        assert after["auction"]["passed"] == ["p2"]
        assert after["phase"] == "auction"  # Eva has not answered yet

    return Scene(
        night, "pass", "Ben", {}, effect, wrong="Dan", wrong_status=403, wrong_message=GONE
    )


def scene_pass_closes_auction(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.ok("Ana", "offer", amount=30)
    night.ok("Ben", "pass")

    def effect(before, after):
        assert after["phase"] == "cut"
        assert after["bank"]["banker"] == "p1" and after["bank"]["amount"] == 30
        assert after["players"]["p1"]["chips"] == 70
        assert after["hand"]["cutter"] == "p2"

    return Scene(night, "pass", "Eva", {}, effect)


def scene_cut(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.open_bank("Ana", 30)
    assert night.cutter() == "Ben"

    def effect(before, after):
        assert after["phase"] == "heaps"
        assert after["hand"]["cut"] == {"position": 10, "how": "punter"}
        deck = before["hand"]["deck"]
        assert after["hand"]["deck"] == deck[10:] + deck[:10]

    return Scene(
        night,
        "cut",
        "Ben",
        {"position": 10},
        effect,
        wrong="Eva",
        wrong_message="It is not your turn to cut.",
    )


def scene_heaps(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.open_bank("Ana", 30)
    night.ok("Ben", "cut", position=7)

    def effect(before, after):
        heaps = after["hand"]["heaps"]
        assert after["phase"] == "betting"
        assert len(heaps) == 4 and all(len(h) >= 3 for h in heaps)
        assert sum(heaps, []) == before["hand"]["deck"]

    return Scene(
        night,
        "heaps",
        "Ana",
        {"count": 4},
        effect,
        wrong="Ben",
        wrong_message=ONLY_BANKER,
    )


def _placed(kind, heap, amount, chips_after):
    def effect(before, after):
        assert after["hand"]["bets"] == [
            {"id": 1, "player": "p2", "kind": kind, "heap": heap, "amount": amount}
        ]
        assert after["players"]["p2"]["chips"] == chips_after
        assert after["hand"]["declared"] is (kind == "whole_bank")

    return effect


def scene_bet(app):
    return Scene(
        betting(app),
        "bet",
        "Ben",
        {"heap": 1, "amount": 5},
        _placed("heap", 1, 5, 95),
        wrong="Ana",
        wrong_message=BANKER_NO_BET,
    )


def scene_against(app):
    return Scene(
        betting(app),
        "against",
        "Ben",
        {"heap": 2, "amount": 7},
        _placed("against", 2, 7, 93),
        wrong="Ana",
        wrong_message=BANKER_NO_BET,
    )


def scene_declare(app):
    return Scene(
        betting(app),
        "declare",
        "Ben",
        {"heap": 2},
        _placed("whole_bank", 2, None, 100),
        wrong="Ana",
        wrong_message=BANKER_NO_BET,
    )


def _chosen(heap):
    def effect(before, after):
        assert before["hand"]["bank_heap"] is None
        assert after["hand"]["bank_heap"] == heap
        assert after["hand"]["bets"] == []

    return effect


def scene_choose(app):
    return Scene(
        betting(app),
        "choose",
        "Ben",
        {"heap": 3},
        _chosen(3),
        wrong="Ana",
        wrong_message=BANKER_NO_CHOICE,  # the banker never chooses the banker's heap
    )


def scene_tap(mode, fields, effect):
    def build(app):
        return Scene(
            betting(app),
            "tap",
            "Ben",
            {"mode": mode, **fields},
            effect,
            wrong="Ana",
            wrong_message=BANKER_NO_CHOICE if mode == "choose" else BANKER_NO_BET,
        )

    return build


def scene_withdraw(app):
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Eva", "bet", heap=2, amount=7)

    def effect(before, after):
        assert [b["id"] for b in after["hand"]["bets"]] == [2]
        assert after["players"]["p2"]["chips"] == 100
        assert after["players"]["p3"]["chips"] == 93

    return Scene(
        night,
        "withdraw",
        "Ben",
        {"bet": 1},
        effect,
        wrong="Eva",
        wrong_message="That bet is not yours.",
    )


def scene_close(app):
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Eva", "choose", heap=3)
    night.arrange({3: "4o", 1: "6c"})

    def effect(before, after):
        assert after["phase"] == "settled"
        result = after["hand"]["result"]
        assert result["bank_card"] == "4o" and result["cards"][0] == "6c"
        assert [(line["player"], line["result"], line["net"]) for line in result["settled"]] == [
            ("p2", "won", 5)
        ]
        assert after["players"]["p2"]["chips"] == 105
        assert after["bank"]["amount"] == 25

    return Scene(night, "close", "Ana", {}, effect, wrong="Ben", wrong_message=ONLY_BANKER)


def scene_next(app):
    night = settled(app)

    def effect(before, after):
        assert after["phase"] == "cut"
        assert after["hands"] == 2
        assert after["hand"]["cutter"] == "p3"  # each hand a different punter cuts
        assert after["bank"]["amount"] == 25

    return Scene(night, "next", "Ana", {}, effect, wrong="Ben", wrong_message=ONLY_BANKER)


def scene_keep(app):
    night = settled(app, {3: "Rc", 1: "6c"})
    turned = night.state()["hand"]["result"]["cards"]

    def effect(before, after):
        hand = after["hand"]
        assert after["phase"] == "betting" and after["hands"] == 2
        assert hand["rey_kept"] is True
        assert hand["discards"] == turned
        assert len(hand["heaps"]) == 4
        assert hand["bets"] == [] and hand["bank_heap"] is None
        assert sorted(sum(hand["heaps"], []) + turned) == sorted(sum(before["hand"]["heaps"], []))

    return Scene(night, "keep", "Ana", {"heap": 1}, effect, wrong="Ben", wrong_message=ONLY_BANKER)


def scene_abona(app):
    night = broken(app)

    def effect(before, after):
        assert after["bank"]["amount"] == 20
        assert after["players"]["p1"]["chips"] == 50
        assert after["phase"] == "settled"

    return Scene(
        night, "abona", "Ana", {"amount": 20}, effect, wrong="Ben", wrong_message=ONLY_BANKER
    )


def scene_close_bank(app):
    night = broken(app)

    def effect(before, after):
        assert after["bank"] is None and after["phase"] == "auction"
        assert after["players"]["p1"]["chips"] == 70
        assert after["players"]["p2"]["chips"] == 130

    return Scene(night, "close_bank", "Ana", {}, effect, wrong="Ben", wrong_message=ONLY_BANKER)


def scene_tres(app):
    def effect(before, after):
        assert before["bank"]["last_hands"] is None
        assert after["bank"]["last_hands"] == 3

    # Answered yes: the question it asks first is tested with the bar.
    fields = {"confirm": "yes"}
    return Scene(
        betting(app), "tres", "Ana", fields, effect, wrong="Ben", wrong_message=ONLY_BANKER
    )


def scene_sit_out(app):
    def effect(before, after):
        assert after["players"]["p3"]["sitting_out"] is True

    return Scene(
        betting(app),
        "sit_out",
        "Eva",
        {},
        effect,
        wrong="Ana",
        wrong_message="The banker cannot sit out: close the bank first.",
    )


def scene_sit_in(app):
    night = betting(app)
    night.ok("Eva", "sit_out")
    night.host_do("kick", seat=p(night, "Ben"))

    def effect(before, after):
        assert before["players"]["p3"]["sitting_out"] is True
        assert after["players"]["p3"]["sitting_out"] is False

    return Scene(
        night, "sit_in", "Eva", {}, effect, wrong="Ben", wrong_status=403, wrong_message=GONE
    )


SCENES = {
    "offer": scene_offer,
    "pass": scene_pass,
    "pass-closes-auction": scene_pass_closes_auction,
    "cut": scene_cut,
    "heaps": scene_heaps,
    "tap-bet": scene_tap("bet", {"heap": 1, "amount": 5}, _placed("heap", 1, 5, 95)),
    "tap-against": scene_tap("against", {"heap": 2, "amount": 7}, _placed("against", 2, 7, 93)),
    "tap-declare": scene_tap("declare", {"heap": 2}, _placed("whole_bank", 2, None, 100)),
    "tap-choose": scene_tap("choose", {"heap": 3}, _chosen(3)),
    "bet": scene_bet,
    "against": scene_against,
    "declare": scene_declare,
    "choose": scene_choose,
    "withdraw": scene_withdraw,
    "close": scene_close,
    "next": scene_next,
    "keep": scene_keep,
    "abona": scene_abona,
    "close_bank": scene_close_bank,
    "tres": scene_tres,
    "sit_out": scene_sit_out,
    "sit_in": scene_sit_in,
}


def post_as_stranger(app, night, kind, fields, hx=True):
    client, token = stranger(app)
    return client.post(
        f"/t/{night.code}/a/{kind}",
        data={"csrf_token": token, **{k: str(v) for k, v in fields.items()}},
        headers=HX if hx else {},
    )


# --- 1. each action: the right player in the right phase, and nobody else -----------------


@pytest.mark.parametrize("scene", SCENES)
def test_action_is_for_the_right_player_only(app, scene):
    s = SCENES[scene](app)
    night = s.night
    before = night.snapshot()

    if s.wrong:
        response = night.do(s.wrong, s.kind, stage=night.stage(), **s.fields)
        assert response.status_code == s.wrong_status
        assert notice(response) == s.wrong_message
        assert night.snapshot() == before

    response = post_as_stranger(app, night, s.kind, s.fields)
    assert response.status_code == 403
    assert notice(response) == JOIN_FIRST
    assert night.snapshot() == before

    state, actions = night.state(), len(night.actions())
    response = night.do(s.right, s.kind, stage=night.stage(), **s.fields)
    assert response.status_code == 200
    assert notice(response) is None
    s.effect(state, night.state())
    logged = night.actions()[actions:]
    kind = s.fields["mode"] if s.kind == "tap" else s.kind
    assert logged[0] == (state["version"] + 1, p(night, s.right), kind)


@pytest.mark.parametrize("scene", SCENES)
def test_action_refused_when_stale(app, scene):
    """The right player's tap, sent from a screen of an earlier stage of the table: refused with
    the table as it is now in the answer, and nothing changed."""
    s = SCENES[scene](app)
    night = s.night
    before, stage = night.snapshot(), night.stage()
    hands, phase = stage.split("-", 1)
    for old in (f"{int(hands) - 1}-{phase}", f"{hands}-heaps" if phase != "heaps" else "0-cut"):
        response = night.do(s.right, s.kind, stage=old, **s.fields)
        assert response.status_code == 409, (old, notice(response))
        assert notice(response) == STALE
        body = response.get_data(as_text=True)
        assert 'id="status"' in body and 'id="bar"' in body  # the fresh regions, out of band
        assert night.snapshot() == before


# Each action tried in a phase (or a situation) where the rules do not allow it.
def auction(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.ok("Ana", "offer", amount=30)
    return night


def cut_phase(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.open_bank("Ana", 30)
    return night


def heaps_phase(app):
    night = cut_phase(app)
    night.ok("Ben", "cut", position=5)
    return night


def bet_on_1(app):
    night = betting(app)
    night.ok("Ben", "declare", heap=1)
    return night


def two_heaps_taken(app):
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Eva", "against", heap=2, amount=5)
    return night


def tres_said(app):
    night = betting(app)
    night.ok("Ana", "tres", confirm="yes")
    return night


WRONG_PHASE = [
    (betting, "Ben", "offer", {"amount": 10}, "The bank is not up for auction now."),
    (betting, "Ben", "pass", {}, "The bank is not up for auction now."),
    (auction, "Ben", "cut", {"position": 10}, "The deck is not waiting for a cut."),
    (betting, "Ben", "cut", {"position": 10}, "The deck is not waiting for a cut."),
    (betting, "Ana", "heaps", {"count": 3}, "The heaps are not being made now."),
    (cut_phase, "Ana", "heaps", {"count": 3}, "The heaps are not being made now."),
    (heaps_phase, "Ben", "bet", {"heap": 1, "amount": 5}, "Bets are closed."),
    (settled, "Eva", "against", {"heap": 2, "amount": 5}, "Bets are closed."),
    (cut_phase, "Ben", "declare", {"heap": 1}, "Bets are closed."),
    (cut_phase, "Eva", "tap", {"mode": "bet", "heap": 1, "amount": "max"}, "Bets are closed."),
    (auction, "Eva", "tap", {"mode": "bet", "heap": 1, "amount": "max"}, "Bets are closed."),
    (settled, "Eva", "choose", {"heap": 2}, "Bets are closed."),
    (settled, "Ben", "withdraw", {"bet": 1}, "Bets are closed."),
    (heaps_phase, "Ana", "close", {}, "Bets are closed."),
    (betting, "Ana", "close", {}, "The punters have not chosen the banker's heap yet."),
    (betting, "Ana", "next", {}, "The hand is still in play."),
    (broken, "Ana", "next", {}, "The bank is broken: se abona or close it."),
    (settled, "Ana", "keep", {"heap": 1}, "The heaps stay only after the banker turns a Rey."),
    (settled, "Ana", "abona", {"amount": 10}, "Se abona is only for a broken bank."),
    (
        settled,
        "Ana",
        "close_bank",
        {},
        "A running bank closes only by time or after the three last hands.",
    ),
    (auction, "Ana", "tres", {}, ONLY_BANKER),
    (tres_said, "Ana", "tres", {}, "The three last hands are already announced."),
    (
        bet_on_1,
        "Eva",
        "declare",
        {"heap": 2},
        "Someone already plays for the whole bank this hand.",
    ),
    (
        two_heaps_taken,
        "Ben",
        "bet",
        {"heap": 3, "amount": 5},
        "One heap must stay free for the banker: choose the banker's heap first.",
    ),
    (auction, "Ana", "kick", {"seat": "p2"}, "Only the host can do that."),
    (auction, "Ana", "close_auction", {}, "Only the host can do that."),
    (auction, "Ana", "fold", {}, "That is not something you can do at this table."),
]


@pytest.mark.parametrize(
    ("setup", "who", "kind", "fields", "message"),
    WRONG_PHASE,
    ids=[f"{row[0].__name__}-{row[2]}" for row in WRONG_PHASE],
)
def test_action_refused_when_the_rules_do_not_allow_it(app, setup, who, kind, fields, message):
    night = setup(app)
    before = night.snapshot()
    response = night.do(who, kind, **fields)
    assert notice(response) == message
    assert response.status_code == (403 if message.startswith("Only the host") else 422)
    assert night.snapshot() == before


def kept_hand_with(app, sizes):
    """A hand played on kept heaps (the banker turned a Rey), restacked into heaps of
    ``sizes`` cards and one more heap of the rest with a Rey at its bottom: the punters give
    it to the banker, the heaps are turned, and the banker may keep the heaps once more."""
    night = settled(app, {3: "Rc", 1: "6c"})
    night.ok("Ana", "keep", heap=1)

    def restack(hand):
        cards = sum(hand["heaps"], [])
        rey = next(c for c in cards if c[0] == "R")
        cards.remove(rey)
        heaps, start = [], 0
        for size in sizes:
            heaps.append(cards[start : start + size])
            start += size
        hand["heaps"] = [*heaps, cards[start:] + [rey]]

    night.edit_hand(restack)
    bank_heap = len(sizes) + 1
    night.ok("Eva", "choose", heap=bank_heap)
    night.ok("Ana", "close")
    state = night.state()
    assert state["hand"]["result"]["bank_card"][0] == "R"
    assert [len(h) for h in state["hand"]["heaps"]][:-1] == sizes
    return night


def keep_buttons(night):
    return [int(form["heap"]) for form in forms(night.page("Ana"), "keep")]


def test_keep_splits_the_heap_the_banker_tapped(app):
    night = kept_hand_with(app, [1, 5, 3])
    heaps = night.state()["hand"]["heaps"]
    assert 2 in keep_buttons(night)  # heap 2, of 5 cards, as the felt shows it
    night.ok("Ana", "keep", heap=2)
    new_heap = night.state()["hand"]["heaps"][-1]
    assert set(new_heap) <= set(heaps[1][:-1])


def test_a_keep_button_the_banker_is_shown_is_accepted(app):
    night = kept_hand_with(app, [5, 2, 3])
    assert keep_buttons(night) == [1, 3, 4]  # heap 2 keeps one card: nothing to split
    response = night.do("Ana", "keep", heap=3)
    assert response.status_code == 200, notice(response)


# --- 2. stale screens and double clicks ---------------------------------------------------


@pytest.mark.parametrize("seen", ["0-auction", "1-cut", "1-heaps", "1-settled", "2-betting", "x"])
def test_a_tap_from_an_older_stage_is_refused_with_the_fresh_regions(app, seen):
    night = betting(app)
    before = night.snapshot()
    response = night.do("Ben", "bet", heap=1, amount=5, stage=seen)
    assert response.status_code == 409
    assert notice(response) == STALE
    assert night.snapshot() == before
    html = response.get_data(as_text=True)
    for region in ("status", "tap", "felt", "guide", "bar"):
        assert f'id="{region}"' in html
    # The five and #seat_version (the drawing's version and nonce).
    assert html.count('hx-swap-oob="morph"') == 6
    # The fresh regions carry the stage the table is at now, and the heaps to tap.
    assert 'name="stage" value="1-betting"' in html
    assert 'name="heap" value="3"' in html
    # The same tap from the screen of the stage the table is at goes through.
    assert night.do("Ben", "bet", heap=1, amount=5, stage="1-betting").status_code == 200
    assert night.chips_of("Ben") == 95


def test_a_tap_from_the_previous_hand_is_stale(app):
    night = settled(app)
    old = night.stage()
    night.ok("Ana", "next")
    cutter = night.cutter()
    before = night.snapshot()
    response = night.do(cutter, "cut", position=5, stage=old)
    assert response.status_code == 409 and notice(response) == STALE
    assert night.snapshot() == before


def withdraw_buttons(response) -> list[dict]:
    """The values each withdraw button (✕ on a chip of the felt) posts, as the page has them."""
    page = response.get_data(True)
    found = re.findall(r"class=\"chip__withdraw\"[^>]*hx-vals='([^']*)'", page)
    return [{**tap_fields(page), **json.loads(html.unescape(vals))} for vals in found]


def test_a_withdraw_from_the_previous_hand_is_stale(app):
    """Bet numbers start again each hand: Ben's ✕ from hand 1, tapped late, must not take back
    his bet of hand 2 that has the same number."""
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=5)
    (old,) = withdraw_buttons(night.page("Ben"))
    night.ok("Eva", "choose", heap=3)
    night.ok("Ana", "close")
    night.ok("Ana", "next")
    night.ok(night.cutter(), "cut", position=10)
    night.ok("Ana", "heaps", count=3)
    night.ok("Ben", "bet", heap=1, amount=5)
    assert [b["id"] for b in night.state()["hand"]["bets"]] == [old["bet"]]
    before = night.snapshot()
    response = night.do("Ben", "withdraw", **old)
    assert response.status_code == 409 and notice(response) == STALE
    assert night.snapshot() == before
    (fresh,) = withdraw_buttons(night.page("Ben"))
    night.ok("Ben", "withdraw", **fresh)  # the ✕ on his screen now takes it back
    assert night.state()["hand"]["bets"] == []


def test_a_double_click_places_one_bet(app):
    night = betting(app)
    first = night.do("Ben", "bet", heap=1, amount=5, nonce="n1-1", stage=night.stage())
    second = night.do("Ben", "bet", heap=1, amount=5, nonce="n1-1", stage=night.stage())
    assert (first.status_code, second.status_code) == (200, 200)
    assert notice(second) is None
    state = night.state()
    assert len(state["hand"]["bets"]) == 1
    assert state["players"]["p2"]["chips"] == 95
    assert [a for a in night.actions() if a[2] == "bet"] == [(state["version"], "p2", "bet")]
    # Another tap (another nonce) is another bet.
    night.ok("Ben", "bet", heap=1, amount=5, nonce="n2-1")
    assert len(night.state()["hand"]["bets"]) == 2
    assert night.chips_of("Ben") == 90


def test_a_double_click_on_a_heap_tap_places_one_bet(app):
    night = betting(app)
    for _ in range(2):
        night.ok("Ben", "tap", mode="bet", heap=2, amount=10, nonce="n-2", stage="1-betting")
    assert night.chips_of("Ben") == 90
    assert len(night.state()["hand"]["bets"]) == 1


def test_a_double_click_on_close_is_not_reported_stale(app):
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Eva", "choose", heap=3)
    night.ok("Ana", "close", nonce="c-close", stage="1-betting")
    after = night.snapshot()
    response = night.do("Ana", "close", nonce="c-close", stage="1-betting")
    assert response.status_code == 200
    assert notice(response) is None
    assert night.snapshot() == after


def test_a_tap_on_the_felt_sends_the_version_it_was_made_at_from_one_place(app):
    # The felt is rendered once per version for every phone, and its forms name only what they
    # tap: the version they were made at comes from #tap, so that a new version changes that
    # element and not every form. A tap resent before the table moved on is a double click,
    # and one after it is not.
    night = betting(app)
    first = forms(night.clients["Ben"].get(f"/t/{night.code}/p/all", headers=HX), "tap")
    again = forms(night.clients["Ben"].get(f"/t/{night.code}/p/all", headers=HX), "tap")
    night.ok("Eva", "bet", heap=1, amount=5)
    later = forms(night.clients["Ben"].get(f"/t/{night.code}/p/all", headers=HX), "tap")
    assert [f["heap"] for f in first] == [f["key"] for f in first] == ["1", "2", "3"]

    # Without #seat_version's fields: each drawing of the phone's regions has its own.
    def tapped(taps):
        return [{k: v for k, v in f.items() if k not in ("drawing_nonce",)} for f in taps]

    assert tapped(first) == tapped(again) and [f["key"] for f in later] == ["1", "2", "3"]
    assert {f["seen"] for f in first} == {str(night.state()["version"] - 1)}
    assert {f["seen"] for f in later} == {str(night.state()["version"])}
    for _ in range(2):
        night.ok("Ben", "tap", mode="bet", amount=5, **later[1])
    night.ok("Ben", "tap", mode="bet", amount=5, **forms(night.page("Ben"), "tap")[1])
    assert [b["amount"] for b in night.state()["hand"]["bets"] if b["player"] == "p2"] == [5, 5]


def test_two_phones_fresh_from_a_page_load_both_bet_on_heap_1(app):
    night = betting(app)
    taps = {}
    for name in ("Ben", "Eva"):
        (tap,) = [f for f in forms(night.page(name), "tap") if f["heap"] == "1"]
        taps[name] = tap
    for name, tap in taps.items():
        # As htmx sends it: the body's hx-headers carry the session's CSRF token.
        headers = {**HX, "X-CSRF-Token": night.tokens[name]}
        response = night.clients[name].post(
            f"/t/{night.code}/a/tap", data={**tap, "mode": "bet", "amount": "5"}, headers=headers
        )
        assert response.status_code == 200 and notice(response) is None
    # Every phone gets the same felt, nonces included: the service tells them apart by seat.
    assert [b["player"] for b in night.state()["hand"]["bets"]] == ["p2", "p3"]


# --- 3. bad input -------------------------------------------------------------------------

HUGE = "9" * 30


def rich_betting(app) -> Night:
    """Ana's bank is 100; Ben has 60 on heap 1 (bet 1) and 40 left; Eva gave the banker heap 3."""
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", 100, 3)
    night.ok("Ben", "bet", heap=1, amount=60)
    night.ok("Eva", "choose", heap=3)
    return night


def min_five(app) -> Night:
    return betting(app, min_bet=5)


def rey(app) -> Night:
    return settled(app, {3: "Rc", 1: "6c"})


def no_heap(n):
    return f"There is no heap {n}: the heaps are 1 to 3."


STAKES = [
    ("-5", "A bet must be at least 1 chip."),
    ("0", "A bet must be at least 1 chip."),
    ("abc", "The amount must be a whole number."),
    ("2.5", "The amount must be a whole number."),
    ("", "The amount is missing."),
    (None, "The amount is missing."),
    (HUGE, "The amount is far too large."),
    ("101", "The bank holds 100: the most you can bet is 100."),
    ("50", "You have 40 chips: a bet of 50 is over them."),
]
HEAPS = [
    ("3", "Heap 3 is the banker's heap: no bet can go on it."),
    ("0", no_heap(0)),
    ("4", no_heap(4)),
    ("-1", no_heap(-1)),
    (HUGE, "The heap is far too large."),
    ("x", "The heap must be a whole number."),
    ("", "The heap is missing."),
    (None, "The heap is missing."),
]
CHOICES = [
    ("1", "Heap 1 has bets on it: the banker's heap must have none."),
    ("0", no_heap(0)),
    ("4", no_heap(4)),
    ("x", "The heap must be a whole number."),
    ("", "The heap is missing."),
]

BAD = []
for route, extra in [
    ("bet", {}),
    ("against", {}),
    ("tap", {"mode": "bet"}),
    ("tap", {"mode": "against"}),
]:
    name = route + (f"-{extra['mode']}" if extra else "")
    for amount, message in STAKES:
        BAD.append((rich_betting, "Ben", route, {**extra, "heap": "2", "amount": amount}, message))
    for heap, message in HEAPS:
        BAD.append((rich_betting, "Ben", route, {**extra, "heap": heap, "amount": "5"}, message))
for route, extra in [("declare", {}), ("tap", {"mode": "declare"})]:
    for heap, message in HEAPS:
        BAD.append((rich_betting, "Eva", route, {**extra, "heap": heap}, message))
for route, extra in [("choose", {}), ("tap", {"mode": "choose"})]:
    for heap, message in CHOICES:
        BAD.append((rich_betting, "Eva", route, {**extra, "heap": heap}, message))
BAD += [
    (
        rich_betting,
        "Ben",
        "tap",
        {"mode": "steal", "heap": "2"},
        "Choose what a tap on a heap does.",
    ),
    (min_five, "Ben", "bet", {"heap": "1", "amount": "4"}, "The table minimum is 5."),
    # A typed amount ("custom") wins over the quick chip still selected.
    (
        rich_betting,
        "Ben",
        "tap",
        {"mode": "bet", "heap": "2", "amount": "5", "custom": "abc"},
        "The amount must be a whole number.",
    ),
    (
        rich_betting,
        "Ben",
        "tap",
        {"mode": "bet", "heap": "2", "amount": "5", "custom": "50"},
        "You have 40 chips: a bet of 50 is over them.",
    ),
    (
        rich_betting,
        "Ben",
        "tap",
        {"mode": "against", "heap": "2", "amount": "5", "custom": "-3"},
        "A bet must be at least 1 chip.",
    ),
    (
        min_five,
        "Ben",
        "tap",
        {"mode": "against", "heap": "1", "amount": "1"},
        "The table minimum is 5.",
    ),
]
for bet, message in [
    ("99", "That bet is no longer on the table."),
    ("0", "That bet is no longer on the table."),
    ("-1", "That bet is no longer on the table."),
    (HUGE, "The bet is far too large."),
    ("abc", "The bet must be a whole number."),
    ("", "The bet is missing."),
]:
    BAD.append((rich_betting, "Ben", "withdraw", {"bet": bet}, message))
for amount, message in [
    ("-5", "An offer must be at least 1 chip."),
    ("0", "An offer must be at least 1 chip."),
    ("abc", "The offer must be a whole number."),
    ("", "The offer is missing."),
    ("101", "You have 100 chips: an offer of 101 is over them."),
    (HUGE, "The offer is far too large."),
]:
    BAD.append((auction, "Ben", "offer", {"amount": amount}, message))
for position, message in [
    ("0", "A cut must leave cards on both sides: 1 to 39."),
    ("40", "A cut must leave cards on both sides: 1 to 39."),
    ("-3", "A cut must leave cards on both sides: 1 to 39."),
    (HUGE, "The cut is far too large."),
    ("x", "The cut must be a whole number."),
    ("", "The cut is missing."),
]:
    BAD.append((cut_phase, "Ben", "cut", {"position": position}, message))
for count, message in [
    ("2", "This table plays with 3 to 8 heaps."),
    ("9", "This table plays with 3 to 8 heaps."),
    ("0", "This table plays with 3 to 8 heaps."),
    ("-4", "This table plays with 3 to 8 heaps."),
    (HUGE, "The number of heaps is far too large."),
    ("x", "The number of heaps must be a whole number."),
    ("", "The number of heaps is missing."),
]:
    BAD.append((heaps_phase, "Ana", "heaps", {"count": count}, message))
for amount, message in [
    ("0", "The new bank must be at least 1 chip."),
    ("-5", "The new bank must be at least 1 chip."),
    ("x", "The new bank must be a whole number."),
    ("", "The new bank is missing."),
    ("71", "You have 70 chips: a bank of 71 is over them."),
    (HUGE, "The new bank is far too large."),
]:
    BAD.append((broken, "Ana", "abona", {"amount": amount}, message))
for heap, message in [
    ("0", no_heap(0)),
    ("9", no_heap(9)),
    ("-1", no_heap(-1)),
    (HUGE, "The heap is far too large."),
    ("x", "The heap must be a whole number."),
    ("", "The heap is missing."),
]:
    BAD.append((rey, "Ana", "keep", {"heap": heap}, message))


@pytest.fixture(scope="module")
def tables(app):
    """One table per setup for the bad-input cases: each refusal is checked to change nothing,
    so the next case meets the table exactly as the setup left it."""
    made = {}

    def get(setup):
        if setup not in made:
            made[setup] = setup(app)
        return made[setup]

    return get


def _case_id(row):
    setup, _who, kind, fields, _message = row
    shown = "-".join(f"{k}={'huge' if v == HUGE else v!r}" for k, v in fields.items())
    return f"{setup.__name__}-{kind}-{shown}"


@pytest.mark.parametrize(
    ("setup", "who", "kind", "fields", "message"), BAD, ids=[_case_id(row) for row in BAD]
)
def test_bad_input_is_refused_with_a_message_naming_it(tables, setup, who, kind, fields, message):
    night = tables(setup)
    before = night.snapshot()
    sent = {k: v for k, v in fields.items() if v is not None}
    response = night.do(who, kind, stage=night.stage(), **sent)
    assert response.status_code == 422
    assert notice(response) == message
    assert night.snapshot() == before


def test_a_typed_amount_wins_over_the_quick_chip(app):
    night = betting(app)
    night.ok("Ben", "tap", mode="bet", heap=1, amount=5, custom=" 7 ")
    night.ok("Ben", "tap", mode="against", heap=2, amount=5, custom="")
    assert [b["amount"] for b in night.state()["hand"]["bets"]] == [7, 5]
    assert night.chips_of("Ben") == 88


def test_the_bad_input_tables_still_take_good_input(app):
    """Tables set up as the bad-input cases' are were really open for that input. Tables of
    their own, not the cases' (which this would change for the cases that run after it, in
    whatever order the test processes take them)."""
    night = rich_betting(app)
    night.ok("Ben", "bet", heap=2, amount=40)
    night.ok("Eva", "declare", heap=2)
    night.ok("Ben", "withdraw", bet=1)
    auction(app).ok("Ben", "offer", amount=100)
    cut_phase(app).ok("Ben", "cut", position=39)
    heaps_phase(app).ok("Ana", "heaps", count=8)
    broken(app).ok("Ana", "abona", amount=70)
    rey(app).ok("Ana", "keep", heap=3)
    min_five(app).ok("Ben", "bet", heap=1, amount=5)


TOP_UPS = [
    ("p2", "0", "A top-up must be at least 1 chip."),
    ("p2", "-5", "A top-up must be at least 1 chip."),
    ("p2", "x", "The top-up must be a whole number."),
    ("p2", "", "The top-up is missing."),
    ("p9", "10", "That player is not at the table."),
    ("", "10", "The player is missing."),
]


@pytest.mark.parametrize(("seat", "amount", "message"), TOP_UPS)
def test_bad_top_up_is_refused_with_a_message(tables, seat, amount, message):
    night = tables(rich_betting)
    before = night.snapshot()
    response = night.host_do("top_up", seat=seat, amount=amount)
    assert response.status_code == 303
    assert response.location == f"/t/{night.code}/host"
    assert flashed(night.host.get(response.location)) == message
    assert night.snapshot() == before


def test_a_huge_top_up_is_refused_not_a_server_error(app):
    night = betting(app)
    before = night.snapshot()
    response = night.host_do("top_up", seat="p2", amount=HUGE)
    assert response.status_code == 303
    message = flashed(night.host.get(response.location))
    assert message and "top-up" in message.lower()
    assert night.snapshot() == before


# --- 4. without htmx: a redirect and a flashed message; with htmx: Vary -------------------


REFUSALS = [
    ("banker-bets", lambda n: ("Ana", "bet", {"heap": 1, "amount": 5}), 422, BANKER_NO_BET),
    ("stale", lambda n: ("Ben", "bet", {"heap": 1, "amount": 5, "stage": "0-auction"}), 409, STALE),
    (
        "bad-amount",
        lambda n: ("Ben", "bet", {"heap": 1, "amount": "x"}),
        422,
        "The amount must be a whole number.",
    ),
    ("not-yours", lambda n: ("Eva", "withdraw", {"bet": 1}), 422, "That bet is not yours."),
]


@pytest.mark.parametrize(("case", "status", "message"), [(r[0], r[2], r[3]) for r in REFUSALS])
def test_refusal_without_htmx_is_a_redirect_with_the_message_flashed(app, case, status, message):
    make = dict((r[0], r[1]) for r in REFUSALS)[case]
    night = betting(app)
    night.ok("Ben", "bet", heap=2, amount=5)
    who, kind, fields = make(night)
    before = night.snapshot()

    response = night.do(who, kind, hx=False, **fields)
    assert response.status_code == 303
    assert response.location == f"/t/{night.code}"
    assert night.snapshot() == before
    page = night.clients[who].get(response.location)
    assert page.status_code == 200
    assert flashed(page) == message
    # Flashed once: the next page is clean.
    assert flashed(night.clients[who].get(response.location)) is None

    response = night.do(who, kind, **fields)
    assert response.status_code == status
    assert notice(response) == message
    assert "HX-Request" in [v.strip() for v in response.headers.get("Vary", "").split(",")]
    assert night.snapshot() == before


def vary(response):
    return [v.strip() for v in response.headers.get("Vary", "").split(",")]


def test_success_without_htmx_is_a_redirect_and_with_htmx_varies(app):
    night = betting(app)
    response = night.do("Ben", "bet", hx=False, heap=1, amount=5)
    assert response.status_code == 303 and response.location == f"/t/{night.code}"
    assert flashed(night.page("Ben")) is None
    assert night.chips_of("Ben") == 95
    response = night.do("Ben", "bet", heap=1, amount=5)
    assert response.status_code == 200 and "HX-Request" in vary(response)
    for path in ("/p/all", "/p/bar", "/tv/p/all", "/tv/p/players"):
        response = night.clients["Ben"].get(f"/t/{night.code}{path}", headers=HX)
        assert response.status_code == 200
        assert "HX-Request" in vary(response), path


def test_a_stranger_without_htmx_is_sent_to_join_with_the_message(app):
    night = betting(app)
    client, token = stranger(app)
    before = night.snapshot()
    response = client.post(
        f"/t/{night.code}/a/bet", data={"csrf_token": token, "heap": "1", "amount": "5"}
    )
    assert response.status_code == 303 and response.location == f"/t/{night.code}"
    response = client.get(response.location)
    assert response.status_code == 303 and response.location == f"/t/{night.code}/join"
    assert flashed(client.get(response.location)) == JOIN_FIRST
    assert night.snapshot() == before


def test_the_403_for_a_stranger_also_varies_on_htmx(app):
    night = betting(app)
    response = post_as_stranger(app, night, "bet", {"heap": 1, "amount": 5})
    assert response.status_code == 403
    assert "HX-Request" in vary(response)


# --- 5. CSRF ------------------------------------------------------------------------------


@pytest.mark.parametrize("scene", SCENES)
def test_every_action_needs_the_csrf_token(app, scene):
    s = SCENES[scene](app)
    night = s.night
    client = night.clients[s.right]
    url = f"/t/{night.code}/a/{s.kind}"
    fields = {k: str(v) for k, v in s.fields.items()}
    before = night.snapshot()
    for data, headers in [
        (fields, HX),  # no token at all
        ({**fields, "csrf_token": ""}, HX),
        ({**fields, "csrf_token": "wrong"}, HX),
        (fields, {**HX, "X-CSRF-Token": "wrong"}),
        ({**fields, "csrf_token": night.host_token}, HX),  # another session's token
        ({**fields, "csrf_token": "wrong"}, {}),  # without htmx too
    ]:
        response = client.post(url, data=data, headers=headers)
        assert response.status_code == 400, (data, headers)
        assert night.snapshot() == before
    # The right token in the header (as htmx sends it) does it.
    response = client.post(url, data=fields, headers={**HX, "X-CSRF-Token": night.tokens[s.right]})
    assert response.status_code == 200 and notice(response) is None
    assert night.snapshot() != before


def test_the_csrf_token_of_another_session_is_refused(app):
    night = betting(app)
    before = night.snapshot()
    response = night.do("Ben", "bet", token=night.tokens["Eva"], heap=1, amount=5)
    assert response.status_code == 400
    response = night.clients["Ben"].post(
        f"/t/{night.code}/a/bet",
        data={"heap": "1", "amount": "5", "csrf_token": night.tokens["Ben"]},
        headers={**HX, "X-CSRF-Token": "wrong"},
    )
    assert response.status_code == 400
    assert night.snapshot() == before


def test_a_non_ascii_csrf_token_is_refused(app):
    night = betting(app)
    before = night.snapshot()
    response = night.do("Ben", "bet", token="jalapeño", heap=1, amount=5)
    assert response.status_code == 400
    assert night.snapshot() == before


def count_tables(app):
    with app.app_context():
        return db.session.execute(select(func.count(GameTable.id))).scalar_one()


@pytest.mark.parametrize("token", [None, "wrong"])
def test_creating_a_table_needs_the_csrf_token(app, token):
    client = app.test_client()
    good = fresh_token(client)
    form = {
        "game": "montones",
        "name": "x",
        "chips": "100",
        "min_bet": "1",
        "heaps_min": "3",
        "heaps_max": "8",
        "tenure": "60",
        "cut_timeout": "30",
    }
    tables = count_tables(app)
    data = form if token is None else {**form, "csrf_token": token}
    assert client.post("/tables", data=data).status_code == 400
    assert count_tables(app) == tables
    assert client.post("/tables", data={**form, "csrf_token": good}).status_code == 303
    assert count_tables(app) == tables + 1


def test_a_double_tap_on_sit_down_seats_one_player(app):
    night = Night(app, "Ana")
    client = app.test_client()
    token = csrf_of(client.get(f"/t/{night.code}/join"))
    for _ in range(2):
        response = client.post(f"/t/{night.code}/join", data={"name": "Ben", "csrf_token": token})
        assert response.status_code == 303 and response.location == f"/t/{night.code}"
    assert [p["name"] for p in night.state()["players"].values()] == ["Ana", "Ben"]
    assert night.ledger()["house"] == -200


@pytest.mark.parametrize("token", [None, "wrong"])
def test_joining_needs_the_csrf_token(app, token):
    night = Night(app, "Ana")
    client = app.test_client()
    good = csrf_of(client.get(f"/t/{night.code}/join"))
    before = night.snapshot()
    data = {"name": "Ben"} if token is None else {"name": "Ben", "csrf_token": token}
    assert client.post(f"/t/{night.code}/join", data=data).status_code == 400
    assert night.snapshot() == before
    response = client.post(f"/t/{night.code}/join", data={"name": "Ben", "csrf_token": good})
    assert response.status_code == 303
    assert [p["name"] for p in night.state()["players"].values()] == ["Ana", "Ben"]


@pytest.mark.parametrize("token", [None, "wrong"])
def test_rejoining_needs_the_csrf_token(app, token):
    night = betting(app)
    code = night.rejoin_code("Ben")
    client = app.test_client()
    good = csrf_of(client.get(f"/t/{night.code}/rejoin"))
    before = night.snapshot()
    data = {"rejoin": code} if token is None else {"rejoin": code, "csrf_token": token}
    assert client.post(f"/t/{night.code}/rejoin", data=data).status_code == 400
    assert night.snapshot() == before
    assert night.page("Ben").status_code == 200  # the old phone keeps its seat
    response = client.post(f"/t/{night.code}/rejoin", data={"rejoin": code, "csrf_token": good})
    assert response.status_code == 303
    assert night.snapshot() != before


def host_scene(app, kind):
    """A table where the host's ``kind`` changes something, and its form fields."""
    if kind == "close_auction":
        night = Night(app, "Ana", "Ben", "Eva")
        night.ok("Ana", "offer", amount=30)
        return night, {}
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=5)
    if kind == "resume":
        assert night.host_do("pause").status_code == 303
    fields = {"kick": {"seat": "p2"}, "top_up": {"seat": "p2", "amount": "50"}}.get(kind, {})
    return night, fields


HOST_KINDS = ["close_auction", "kick", "top_up", "pause", "resume", "end"]


@pytest.mark.parametrize("kind", HOST_KINDS)
def test_every_host_switch_needs_the_csrf_token(app, kind):
    night, fields = host_scene(app, kind)
    before = night.snapshot()
    assert night.host_do(kind, token="", **fields).status_code == 400
    assert night.host_do(kind, token="wrong", **fields).status_code == 400
    assert night.snapshot() == before
    assert night.host_do(kind, **fields).status_code == 303
    assert night.snapshot() != before


# --- 6. the host ----------------------------------------------------------------------------


def test_host_closes_the_auction_before_everyone_answered(app):
    night, _ = host_scene(app, "close_auction")
    assert night.state()["phase"] == "auction"
    response = night.host_do("close_auction")
    # A move of the game, as a card is: the host's page comes back at its picker, where it has one.
    assert response.status_code == 303
    assert response.location in (f"/t/{night.code}/host", f"/t/{night.code}/host#picker")
    state = night.state()
    assert state["phase"] == "cut"
    assert state["bank"]["banker"] == "p1" and state["bank"]["amount"] == 30
    assert night.actions()[-1][1:] == ("host", "close_auction")


def test_host_kick_returns_open_bets_and_the_chips_stay_on_the_ledger(app):
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Ben", "against", heap=2, amount=10)
    night.ok("Eva", "bet", heap=1, amount=3)
    assert night.chips_of("Ben") == 85
    response = night.host_do("kick", seat="p2")
    assert response.status_code == 303
    state = night.state()
    assert state["players"]["p2"]["left"] is True
    assert state["players"]["p2"]["chips"] == 100
    assert [(b["player"], b["amount"]) for b in state["hand"]["bets"]] == [("p3", 3)]
    ledger = night.ledger()
    assert ledger["player:p2"] == 100
    assert ledger["stakes"] == 3
    assert sum(ledger.values()) == 0
    # Ben's phone has lost its seat, and says why; the host page lists him as sent away.
    page = night.page("Ben")
    assert page.status_code == 200 and "The host sent you away" in page.get_data(as_text=True)
    response = night.do("Ben", "bet", heap=2, amount=5)
    assert response.status_code == 403 and notice(response) == GONE
    host_page = night.host.get(f"/t/{night.code}/host").get_data(as_text=True)
    players, sent_away = host_page.split("<h2>Players</h2>")[1].split("<h2>Sent away</h2>")
    assert "<strong>Ben</strong>" not in players and "<strong>Eva</strong>" in players
    assert "<strong>Ben</strong>" in sent_away and "Let Ben back in" in sent_away
    # Nor can his rejoin code bring him back.
    client = app.test_client()
    token = csrf_of(client.get(f"/t/{night.code}/rejoin"))
    response = client.post(
        f"/t/{night.code}/rejoin", data={"rejoin": night.rejoin_code("Ben"), "csrf_token": token}
    )
    assert response.status_code == 422


def test_a_host_whose_seat_is_gone_does_nothing_from_the_phone_but_all_from_the_host_page(app):
    """The host sat down on the phone that made the table, then was sent away (from the host
    page): a host's switch tapped on that phone is refused as every tap of a gone seat is, and
    changes nothing; the host page still closes the doors."""
    night = betting(app)
    night.clients["Host"], night.tokens["Host"] = night.host, night.host_token
    page = night.host.get(f"/t/{night.code}/join")
    response = night.host.post(
        f"/t/{night.code}/join", data={"csrf_token": csrf_of(page), "name": "Host"}
    )
    assert response.status_code == 303
    seat = next(s for s, p in night.state()["players"].items() if p["name"] == "Host")
    assert night.host_do("kick", seat=seat).status_code == 303
    before = night.snapshot()
    response = night.do("Host", "close_doors")
    assert response.status_code == 403 and notice(response) == GONE
    assert night.snapshot() == before and not night.state().get("closed")
    assert night.host_do("close_doors").status_code == 303
    assert night.state()["closed"] is True


def test_host_kicking_the_banker_calls_the_hand_off(app):
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Eva", "declare", heap=2)
    assert night.host_do("kick", seat="p1").status_code == 303
    state = night.state()
    assert state["phase"] == "auction" and state["bank"] is None and state["hand"] is None
    assert [state["players"][s]["chips"] for s in ("p1", "p2", "p3")] == [100, 100, 100]
    assert state["players"]["p1"]["left"] is True
    ledger = night.ledger()
    assert (ledger["bank"], ledger["stakes"], ledger["player:p1"]) == (0, 0, 100)
    # A new auction, without Ana.
    night.open_bank("Ben", 20)
    assert night.cutter() == "Eva"


def test_host_top_up_is_a_ledger_entry_against_the_house(app):
    night = betting(app)
    house = night.ledger()["house"]
    assert house == -300
    response = night.host_do("top_up", seat="p2", amount="50")
    assert response.status_code == 303
    state = night.state()
    assert state["players"]["p2"]["chips"] == 150
    assert night.ledger()["house"] == house - 50
    version = state["version"]
    assert sorted(e for e in night.entries() if e[0] == version) == [
        (version, "house", -50),
        (version, "player:p2", 50),
    ]
    assert night.actions()[-1] == (version, "host", "top_up")
    page = night.host.get(f"/t/{night.code}/host")
    assert 'data-chips="150"' in page.get_data(as_text=True)
    assert flashed(page) == "Ben has 150 chips now."  # the host sees the top-up answered


def test_host_pause_stops_the_players_until_resume(app):
    night = betting(app)
    assert night.host_do("pause").status_code == 303
    page = night.host.get(f"/t/{night.code}/host").get_data(as_text=True)
    assert ">Resume</button>" in page and ">Pause</button>" not in page
    assert "Paused by the host" in night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)
    tv = night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)
    assert 'class="tv-status__paused"' in tv  # the TV's banner
    paused = "Paused by the host: nothing can be played until they resume."
    for name in ("Ana", "Ben", "Eva"):  # every phone's header says so, its bar offers nothing
        page = night.page(name).get_data(as_text=True)
        status = page.split('id="status"')[1].split("</section>")[0]
        assert "Paused by the host" in status  # short: the header stays small
        bar = page.split('id="bar"')[1].split("</section>")[0]
        assert paused in bar and 'hx-post="' not in bar, name
        assert 'class="intent' not in bar and "Choose" not in page.split('id="felt"')[1]
    mine = night.clients["Ben"].get(f"/t/{night.code}/p/seat", headers=HX).get_data(as_text=True)
    assert "Paused by the host" in mine.split('id="bar"')[0]
    assert paused in mine and 'hx-post="' not in mine.split('id="bar"')[1]
    before = night.snapshot()
    for who, kind, fields in [
        ("Ben", "bet", {"heap": 1, "amount": 5}),
        ("Eva", "choose", {"heap": 3}),
        ("Ana", "tres", {}),
        ("Eva", "sit_out", {}),
    ]:
        response = night.do(who, kind, **fields)
        assert response.status_code == 422
        assert notice(response) == "The host has paused the table."
    assert night.snapshot() == before
    assert night.host_do("resume").status_code == 303
    night.ok("Ben", "bet", heap=1, amount=5)
    assert night.chips_of("Ben") == 95
    assert ">Pause</button>" in night.host.get(f"/t/{night.code}/host").get_data(as_text=True)
    assert "Paused by the host" not in night.page("Ben").get_data(as_text=True)
    assert 'name="custom"' in night.page("Eva").get_data(as_text=True)  # bets offered again


def test_host_end_shows_the_standings_net_of_buy_ins(app):
    night = betting(app)
    night.host_do("top_up", seat="p3", amount="40")  # Eva 140, Ben 100, Ana 70 + bank 30
    night.ok("Ben", "bet", heap=1, amount=5)
    response = night.host_do("end")
    assert response.status_code == 303
    assert response.location == f"/t/{night.code}/standings"
    state = night.state()
    assert state["phase"] == "finished" and state["bank"] is None
    assert [state["players"][s]["chips"] for s in ("p1", "p2", "p3")] == [100, 100, 140]
    html = night.host.get(response.location).get_data(as_text=True)
    # Eva's 40 more chips were bought: net of buy-ins, everyone ends where they began.
    assert "Nobody ends the night up." in html
    assert "140 chips · bought in 140" in html
    assert html.count('<span class="final__place">1.</span>') == 3
    # The phones show the end on their live page; nothing more can be done.
    assert "Nobody ends the night up." in night.page("Ben").get_data(as_text=True)
    before = night.snapshot()
    response = night.do("Eva", "sit_out")
    assert response.status_code == 422 and notice(response) == "This table has ended."
    response = night.host_do("pause")
    assert response.status_code == 303
    assert flashed(night.host.get(response.location)) == "This table has ended."
    assert night.snapshot() == before


@pytest.mark.parametrize("kind", HOST_KINDS)
def test_a_non_host_gets_403_on_host_routes(app, kind):
    night, fields = host_scene(app, kind)
    client, client_token = stranger(app)
    before = night.snapshot()
    for who, token in [(night.clients["Ben"], night.tokens["Ben"]), (client, client_token)]:
        response = who.post(f"/t/{night.code}/host/{kind}", data={"csrf_token": token, **fields})
        assert response.status_code == 403
        assert who.get(f"/t/{night.code}/host").status_code == 403
    assert night.snapshot() == before


def test_a_wrong_host_link_gets_403_and_the_right_one_gives_the_rights(app):
    night = betting(app)
    client = app.test_client()
    assert client.get(f"/t/{night.code}/host/claim/not-the-secret").status_code == 403
    assert client.get(f"/t/{night.code}/host").status_code == 403
    assert night.host.get(f"/t/{night.code}/host").status_code == 200


def test_the_host_link_is_shown_once_and_gives_another_device_the_rights(app):
    client = app.test_client()
    token = fresh_token(client)
    response = client.post(
        "/tables",
        data={
            "csrf_token": token,
            "game": "montones",
            "chips": "100",
            "min_bet": "1",
            "heaps_min": "3",
            "heaps_max": "8",
            "tenure": "60",
            "cut_timeout": "30",
        },
    )
    host_page = client.get(response.location).get_data(as_text=True)
    link = host_page.split('<p class="mono">')[1].split("</p>")[0]
    assert "/host/claim/" in link
    assert "Your host link" not in client.get(response.location).get_data(as_text=True)
    other = app.test_client()
    path = link[link.index("/t/") :]
    assert other.get(path).status_code == 303
    assert other.get(response.location).status_code == 200


# --- 7. names are escaped everywhere ------------------------------------------------------

SCRIPT = "<script>alert(1)</script"  # 24 characters, the most a name may have
SCRIPT_ESCAPED = "&lt;script&gt;alert(1)&lt;/script"
TABLE = "<b>x</b>"
TABLE_ESCAPED = "&lt;b&gt;x&lt;/b&gt;"


def test_a_name_over_24_characters_is_refused_and_shown_escaped(app):
    night = Night(app, "Ana")
    client = app.test_client()
    token = csrf_of(client.get(f"/t/{night.code}/join"))
    before = night.snapshot()
    response = client.post(
        f"/t/{night.code}/join",
        data={"name": "<script>alert(1)</script>", "csrf_token": token},
    )
    assert response.status_code == 422
    assert "at most 24 characters" in notice(response)
    html = response.get_data(as_text=True)
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert night.snapshot() == before


def test_names_are_escaped_on_every_screen(app):
    night = Night(app, "Ana", SCRIPT, table_name=TABLE)
    code = night.code
    tv = app.test_client()

    def screens():
        yield "phone", night.page(SCRIPT)
        yield "other phone", night.page("Ana")
        yield "phone regions", night.clients[SCRIPT].get(f"/t/{code}/p/all", headers=HX)
        yield "other phone regions", night.clients["Ana"].get(f"/t/{code}/p/all", headers=HX)
        yield "tv", tv.get(f"/t/{code}/tv")
        yield "tv regions", tv.get(f"/t/{code}/tv/p/all", headers=HX)
        yield "host", night.host.get(f"/t/{code}/host")

    def check(stage):
        for screen, response in screens():
            assert response.status_code == 200, (stage, screen)
            html = response.get_data(as_text=True)
            assert SCRIPT_ESCAPED in html, (stage, screen)
            assert "<script>alert" not in html, (stage, screen)
            assert "<b>x</b>" not in html, (stage, screen)
            if "regions" not in screen:
                assert TABLE_ESCAPED in html, (stage, screen)

    # The auction: the name on the offers, the players, the phone's status.
    night.ok(SCRIPT, "offer", amount=30)
    check("auction")
    # The name inside translated sentences: "%(name)s makes the heaps".
    night.ok("Ana", "pass")
    night.ok("Ana", "cut", position=3)
    check("heaps")
    night.ok(SCRIPT, "heaps", count=3)
    night.ok("Ana", "bet", heap=1, amount=5)
    check("betting")
    # A refusal that quotes the name, and the standings.
    other = app.test_client()
    token = csrf_of(other.get(f"/t/{code}/join"))
    response = other.post(f"/t/{code}/join", data={"name": SCRIPT, "csrf_token": token})
    assert response.status_code == 422
    assert f"{SCRIPT} is already at the table: choose another name" in notice(response)
    html = response.get_data(as_text=True)
    assert f"{SCRIPT_ESCAPED} is already at the table" in html and "<script>alert" not in html
    night.host_do("end")
    html = night.host.get(f"/t/{code}/standings").get_data(as_text=True)
    assert SCRIPT_ESCAPED in html and TABLE_ESCAPED in html
    assert "<script>alert" not in html and "<b>x</b>" not in html


JOIN_REFUSALS = [
    ("", "A player needs a name."),
    ("x" * 25, "A name can have at most 24 characters."),
    ("ANA", "ANA is already at the table: choose another name."),
    ("Аna", "Аna is already at the table: choose another name."),  # a Cyrillic А
    ("\u202eanA", "A name can only have letters, digits, spaces and punctuation."),
]


@pytest.mark.parametrize(("name", "message"), JOIN_REFUSALS)
def test_join_refusals_are_worded_as_sentences(app, name, message):
    night = Night(app, "Ana")
    client = app.test_client()
    token = csrf_of(client.get(f"/t/{night.code}/join"))
    before = night.snapshot()
    response = client.post(f"/t/{night.code}/join", data={"name": name, "csrf_token": token})
    assert response.status_code == 422
    assert night.snapshot() == before
    assert notice(response) == message


def test_create_table_refusals_are_worded_as_sentences(app):
    client = app.test_client()
    token = fresh_token(client)
    tables = count_tables(app)
    response = client.post(
        "/tables",
        data={
            "csrf_token": token,
            "game": "montones",
            "chips": "100",
            "min_bet": "1",
            "heaps_min": "1",
            "heaps_max": "8",
            "tenure": "60",
            "cut_timeout": "30",
        },
    )
    assert response.status_code == 422
    assert count_tables(app) == tables
    assert notice(response) == "Heap counts must run from 2 up to 13."


# --- 8. rejoin ----------------------------------------------------------------------------


def test_the_rejoin_code_moves_the_seat_to_a_new_phone(app):
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=5)
    shown = REJOIN.search(night.page("Ben").get_data(as_text=True)).group(1)
    assert shown == night.rejoin_code("Ben")

    phone = app.test_client()
    token = csrf_of(phone.get(f"/t/{night.code}/rejoin"))
    response = phone.post(
        f"/t/{night.code}/rejoin", data={"rejoin": f"  {shown.lower()} ", "csrf_token": token}
    )
    assert response.status_code == 303 and response.location == f"/t/{night.code}"
    html = phone.get(f"/t/{night.code}").get_data(as_text=True)
    assert re.search(r'<span class="status__name"><svg class="face [^>]*>.*?</svg>Ben', html)
    assert 'data-chips="95"' in html
    # The code worked once: the seat has a new one, and the new phone shows it.
    fresh = night.rejoin_code("Ben")
    assert fresh != shown and REJOIN.search(html).group(1) == fresh
    again = app.test_client()
    typed = {"rejoin": shown, "csrf_token": csrf_of(again.get(f"/t/{night.code}/rejoin"))}
    response = again.post(f"/t/{night.code}/rejoin", data=typed)
    assert response.status_code == 422
    assert notice(response) == "That rejoin code does not match a seat at this table."

    # The new phone plays Ben's seat; the old one has lost it.
    response = phone.post(
        f"/t/{night.code}/a/bet",
        data={"heap": "2", "amount": "5", "csrf_token": token},
        headers=HX,
    )
    assert response.status_code == 200 and notice(response) is None
    assert night.chips_of("Ben") == 90
    before = night.snapshot()
    # The old phone is told where its seat went, on its page and on its next tap.
    assert "Your seat moved to another device" in night.page("Ben").get_data(as_text=True)
    response = night.do("Ben", "bet", heap=2, amount=5)
    assert response.status_code == 403
    assert notice(response) == "Your seat is played from another device now."
    assert night.snapshot() == before


@pytest.mark.parametrize("code", ["", "ZZZZZZ", "WRONG1", "p2"])
def test_a_wrong_rejoin_code_is_refused(app, code):
    night = betting(app)
    other = Night(app, "Zoe")  # a code of another table does not work here either
    codes = {"WRONG1": other.rejoin_code("Zoe")}
    phone = app.test_client()
    token = csrf_of(phone.get(f"/t/{night.code}/rejoin"))
    before = night.snapshot()
    response = phone.post(
        f"/t/{night.code}/rejoin", data={"rejoin": codes.get(code, code), "csrf_token": token}
    )
    assert response.status_code == 422
    assert notice(response) == "That rejoin code does not match a seat at this table."
    assert night.snapshot() == before
    assert phone.get(f"/t/{night.code}").location == f"/t/{night.code}/join"
    assert night.page("Ben").status_code == 200


def test_a_player_sent_away_who_types_their_rejoin_code_is_told_to_ask_the_host(app):
    night = betting(app)
    code = night.rejoin_code("Ben")
    night.host_do("kick", seat=p(night, "Ben"))
    phone = app.test_client()
    token = csrf_of(phone.get(f"/t/{night.code}/rejoin"))
    before = night.snapshot()
    response = phone.post(f"/t/{night.code}/rejoin", data={"rejoin": code, "csrf_token": token})
    assert response.status_code == 422
    assert notice(response) == (
        "Ben was sent away by the host: only the host can let them back in."
    )
    assert night.snapshot() == before


# --- 9. the ledger after a whole hand -----------------------------------------------------


def test_ledger_balances_after_a_whole_hand(app):
    night = Night(app, "Ana", "Ben", "Eva", "Dan")
    assert night.host_do("top_up", seat="p3", amount="25").status_code == 303
    night.to_betting("Ana", 50, 4)
    night.ok("Ben", "bet", heap=1, amount=7)
    night.ok("Ben", "withdraw", bet=1)
    night.ok("Ben", "tap", mode="bet", heap=1, amount=10)
    night.ok("Eva", "against", heap=2, amount=5)
    night.ok("Dan", "declare", heap=4)
    night.ok("Eva", "choose", heap=3)
    night.arrange({3: "5o", 1: "Ro", 2: "2c", 4: "Cb"})
    night.ok("Ana", "close")
    # Lifted by money: heap 2 (Eva's 5 against it: the bank wins it, she is paid 5), heap 1
    # (Ben's 10 on the Rey de oros: paid 20), then Dan's whole bank on heap 4: the 25 left.
    state = night.state()
    assert state["bank"]["amount"] == 0
    assert [state["players"][s]["chips"] for s in ("p1", "p2", "p3", "p4")] == [50, 120, 130, 125]
    night.ok("Ana", "abona", amount=10)
    night.ok("Ana", "next")
    assert night.host_do("top_up", seat="p4", amount="5").status_code == 303

    topups = 25 + 5
    total = 100 * 4 + topups
    kinds = {version: kind for version, _actor, kind in night.actions()}
    by_version = defaultdict(dict)
    for version, account, amount in night.entries():
        assert account not in by_version[version]
        by_version[version][account] = amount
    assert set(by_version) <= set(kinds)
    for version, moves in by_version.items():
        assert sum(moves.values()) == 0, (version, kinds[version], moves)
        if kinds[version] in ("join", "top_up"):
            assert moves["house"] == -sum(a for acc, a in moves.items() if acc != "house")
            assert moves["house"] < 0
        else:
            assert "house" not in moves, (version, kinds[version], moves)
    # Every kind that moves chips wrote its entries.
    moved = {kinds[v] for v in by_version}
    assert {
        "join",
        "top_up",
        "close_auction",
        "bet",
        "withdraw",
        "against",
        "close",
        "abona",
    } <= moved

    state = night.state()
    balances = game(state["game"]).balances(state)
    assert sum(balances.values()) == total
    ledger = night.ledger()
    assert ledger.pop("house") == -total
    assert {k: v for k, v in ledger.items() if v} == {k: v for k, v in balances.items() if v}


def test_a_resent_top_up_gives_the_chips_once(app):
    night = betting(app)
    before = night.state()["players"]["p2"]["chips"]
    for _ in range(2):
        response = night.host_do("top_up", seat="p2", amount=7, nonce="host-form-1")
        assert response.status_code == 303
    assert night.state()["players"]["p2"]["chips"] == before + 7


def offered(night: Night, name: str) -> set[str]:
    """What ``name``'s phone offers to do now: the bar's forms and buttons, and the tap modes.

    The felt is the same on every phone (its heap taps and ✕ buttons; app.js leaves only mine
    and keeps the banker's heaps inert), so it is not counted here.
    """
    page = night.page(name).get_data(as_text=True)
    bar = page[page.index('id="bar"') :]
    kinds = set(re.findall(r'action="/t/[A-Z]{4}/a/(\w+)"', bar))
    return kinds | set(re.findall(r'<input type="radio" name="mode" value="(\w+)"', bar))


def allowed(night: Night, name: str) -> set[str]:
    """What the rules let ``name`` do now (a withdrawal is a ✕ on the felt)."""
    with night.app.app_context():
        view = engine.view(night.table().state, night.seats[name], time.time())
    can = set(view["me"]["can"]) - {"withdraw"}
    if "close" in can and not view["bank_heap"]:
        can.remove("close")  # the banker waits for the punters to choose the heap first
    return can


def test_each_phone_offers_exactly_what_the_rules_allow_now(app):
    night = Night(app, "Ana", "Ben", "Eva")
    stages = []

    def look(stage):
        for name in ("Ana", "Ben", "Eva"):
            stages.append((stage, name, offered(night, name), allowed(night, name)))

    look("auction")
    night.ok("Eva", "sit_out")
    look("auction, Eva sitting out")
    night.ok("Eva", "sit_in")
    night.open_bank("Ana", 30)
    look("cut")
    night.ok(night.cutter(), "cut", position=10)
    look("heaps")
    night.ok("Ana", "heaps", count=3)
    look("betting")
    night.ok("Ben", "bet", heap=1, amount=30)
    look("betting, Ben has staked all the bank")
    night.ok("Eva", "choose", heap=3)
    look("betting, banker's heap chosen")
    night.arrange({3: "4o", 1: "6c"})
    night.ok("Ana", "close")
    look("settled, bank broken")
    night.ok("Ana", "abona", amount=20)
    look("settled, se abona")
    wrong = [(stage, name, shown, rules) for stage, name, shown, rules in stages if shown != rules]
    assert wrong == []
    assert {kind for *_, rules in stages for kind in rules} >= {
        "offer", "pass", "cut", "heaps", "bet", "against", "choose", "declare", "close",
        "abona", "close_bank", "next", "tres", "sit_out", "sit_in",
    }  # fmt: skip


def test_a_pause_stops_the_cut_clock_on_every_screen(app):
    """While the host has the table paused no clock runs down, for the cut or the bank, on the
    phones or the TV."""
    night = Night(app, "Ana", "Ben", "Eva")
    night.open_bank("Ana", 30)
    cut_clock = 'aria-label="time left to cut"'
    bank_clock = 'aria-label="time left for this bank"'
    assert cut_clock in night.page("Eva").get_data(as_text=True)
    assert night.host_do("pause").status_code == 303
    paused = night.page("Eva").get_data(as_text=True)
    assert cut_clock not in paused and bank_clock not in paused
    tv = night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)
    assert cut_clock not in tv and bank_clock not in tv
    assert night.host_do("resume").status_code == 303
    for page in (night.page("Eva"), night.host.get(f"/t/{night.code}/tv")):
        assert cut_clock in page.get_data(as_text=True)
        assert bank_clock in page.get_data(as_text=True)


# --- the all-in chip -------------------------------------------------------------------------


def logged_params(night) -> list[dict]:
    with night.app.app_context():
        table = night.table()
        return list(
            db.session.execute(
                select(Action.params).where(Action.table_id == table.id).order_by(Action.id)
            ).scalars()
        )


@pytest.mark.parametrize("mode", ["bet", "against"])
def test_the_all_in_chip_stakes_what_the_bank_holds_when_it_holds_less(app, mode):
    night = betting(app)  # Ben has 100 chips, the bank holds 30
    night.ok("Ben", "tap", mode=mode, heap=1, amount="max", custom="", stage=night.stage())
    (placed,) = night.state()["hand"]["bets"]
    assert (placed["player"], placed["amount"]) == (p(night, "Ben"), 30)
    assert night.chips_of("Ben") == 70
    # The action log keeps the stake as it was worked out, not the chip's name.
    assert logged_params(night)[-1] == {"heap": 1, "amount": 30}


def test_the_all_in_chip_stakes_my_chips_when_i_have_fewer_than_the_bank(app):
    night = Night(app, "Ana", "Ben", "Eva", chips=12)
    night.to_betting("Ana", bank=10)
    night.ok("Ben", "bet", heap=1, amount=5)  # 7 left
    night.ok("Ben", "tap", mode="bet", heap=2, amount="max", custom="", stage=night.stage())
    assert [b["amount"] for b in night.state()["hand"]["bets"]] == [5, 7]
    assert night.chips_of("Ben") == 0


def test_a_typed_amount_wins_over_the_all_in_chip(app):
    night = betting(app)
    night.ok("Ben", "tap", mode="bet", heap=1, amount="max", custom="4", stage=night.stage())
    assert [b["amount"] for b in night.state()["hand"]["bets"]] == [4]


def test_the_all_in_chip_with_no_chips_left_is_refused(app):
    night = Night(app, "Ana", "Ben", "Eva", chips=12)
    night.to_betting("Ana", bank=12)
    night.ok("Ben", "bet", heap=1, amount=12)
    before = night.snapshot()
    response = night.do("Ben", "tap", mode="bet", heap=2, amount="max", stage=night.stage())
    assert notice(response) == "You have no chips left to bet."
    assert night.snapshot() == before


@pytest.mark.parametrize("kind", ["offer", "abona"])
def test_max_is_no_amount_for_anything_but_a_stake(app, kind):
    night = Night(app, "Ana", "Ben", "Eva") if kind == "offer" else broken(app)
    before = night.snapshot()
    response = night.do("Ana", kind, amount="max")
    label = "The offer" if kind == "offer" else "The new bank"
    assert notice(response) == f"{label} must be a whole number."
    assert night.snapshot() == before


def test_each_of_a_punters_bets_is_said_and_the_banker_is_told_what_the_bank_won(app):
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Ben", "bet", heap=2, amount=4)
    night.ok("Eva", "choose", heap=3)
    night.arrange({3: "4o", 1: "2e", 2: "3b"})  # both of Ben's heaps under the banker's 4
    night.ok("Ana", "close")
    ben = text_of(night.page("Ben"))
    assert "You lost 9" in ben
    assert "Heap 1 did not beat the banker's card: you lost 5." in ben
    assert "Heap 2 did not beat the banker's card: you lost 4." in ben
    ana = night.clients["Ana"].get(f"/t/{night.code}/p/seat", headers=HX)
    assert "The bank won 9" in text_of(ana)


def test_after_the_bank_broke_the_punters_wait_for_the_banker_to_abona_or_close_it(app):
    night = broken(app)
    waiting = "Ana's bank is broken: waiting for Ana to put up a new bank (se abona) or close it."
    for name in ("Ben", "Eva"):
        said = text_of(night.page(name))
        assert waiting in said and "to deal again" not in said
    assert "The bank paid 30" in text_of(night.page("Ana"))


def text_of(response) -> str:
    page = response.get_data(as_text=True)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def test_the_cutter_and_the_banker_are_told_it_is_their_turn_not_their_own_name(app):
    """A practice table's player is called "You": "You cuts the deck" was what its phone said."""
    night = Night(app, "Ana", "Ben", "Eva", heaps=(3, 4))
    night.ok("Ana", "offer", amount=30)
    night.ok("Ben", "pass")
    night.ok("Eva", "pass")
    cutter = night.name_of(night.state()["hand"]["cutter"])
    other = next(name for name in ("Ben", "Eva") if name != cutter)

    def status(name):
        page = night.page(name).get_data(as_text=True)
        return re.search(r'<section id="status".*?</section>', page, re.S)[0]

    assert "Your turn to cut the deck" in status(cutter)
    assert f"{cutter} cuts the deck" in status(other)
    night.ok(cutter, "cut", position=3)
    assert "Your turn to make the heaps" in status("Ana")
    assert "Ana makes the heaps" in status(cutter)
