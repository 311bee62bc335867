"""A Monte table driven only through the HTTP routes: every refusal says why and changes nothing.

``MonteNight(app, "Ana", "Ben", "Eva")`` creates a Monte table through POST /tables (the host's
client keeps the host rights) and seats each player with a test client of their own;
``do(name, kind, **fields)`` is a tap on that player's phone, as htmx sends it.
"""

from __future__ import annotations

import html
import re

import pytest
from sqlalchemy import func, select

from montones import service
from montones.data.models import GameTable
from montones.extensions import db
from montones.rules import monte
from tests.helpers.nights import MonteNight, csrf_of, monte_form, notice


@pytest.fixture
def night(app):
    return MonteNight(app, "Ana", "Ben", "Eva")


def assert_refused(night, response, message, status=422):
    assert response.status_code == status
    assert message in (notice(response) or ""), notice(response)


def refused_without_change(night, action, message, status=422):
    before = night.snapshot()
    response = action()
    assert_refused(night, response, message, status)
    assert night.snapshot() == before


# --- refusals --------------------------------------------------------------------------------


def test_a_bet_over_the_room_left_under_the_bank_is_refused(app):
    night = MonteNight(app, "Ana", "Ben", "Eva", max_bet=20)
    night.betting(bank=25)
    first, second = night.punters
    assert night.tap(first, "top", 20).status_code == 200
    refused_without_change(
        night,
        lambda: night.tap(second, "bottom", 10),
        "The bank holds 25 and 20 is already bet: the most you can bet is 5.",
    )


def test_a_bet_under_the_table_minimum_is_refused(app):
    night = MonteNight(app, "Ana", "Ben", min_bet=2)
    night.betting()
    refused_without_change(
        night, lambda: night.tap(night.punters[0], "top", 1), "The table minimum is 2."
    )


def test_a_bet_over_the_table_maximum_is_refused(night):
    night.betting()
    refused_without_change(
        night,
        lambda: night.tap(night.punters[0], "top", 11),
        "The table maximum is 10: a bet of 11 is over it.",
    )


def test_a_bet_over_the_players_chips_is_refused(app):
    night = MonteNight(app, "Ana", "Ben", chips=60, max_bet=100)
    night.draw()
    assert night.host_do("top_up", seat=night.seats[night.banker], amount=100).status_code == 303
    night.put_up(150)
    night.cut()
    punter = night.punters[0]
    refused_without_change(
        night,
        lambda: night.do(punter, "tap", layout="top", custom=61, amount=1, stage=night.stage()),
        "You have 60 chips: a bet of 61 is over them.",
    )


def test_a_bet_on_an_unknown_layout_is_refused(night):
    night.betting()
    refused_without_change(
        night,
        lambda: night.tap(night.punters[0], "middle", 5),
        "There is no layout 'middle': bet on the bottom or the top layout.",
    )
    refused_without_change(
        night,
        lambda: night.tap(night.punters[0], "", 5),
        "The layout is missing.",
    )


def test_an_amount_that_is_not_a_number_is_refused(night):
    night.betting()
    refused_without_change(
        night,
        lambda: night.tap(night.punters[0], "top", "lots"),
        "The amount must be a whole number.",
    )


def test_the_all_in_chip_of_montones_is_refused_at_monte(night):
    # Monte's bar offers its most as a number; "max" is not a number here.
    night.betting()
    refused_without_change(
        night,
        lambda: night.tap(night.punters[0], "top", "max"),
        "The amount must be a whole number.",
    )


def test_the_banker_cannot_bet(night):
    night.betting()
    refused_without_change(
        night,
        lambda: night.tap(night.banker, "top", 5),
        "The banker does not bet against the bank.",
    )


def test_only_the_banker_turns_the_gate(night):
    night.betting()
    refused_without_change(
        night,
        lambda: night.do(night.punters[0], "gate", stage=night.stage()),
        "Only the banker can do that.",
    )


def test_only_the_banker_deals_the_next_coup(night):
    night.draw()
    night.put_up()
    night.stack(top=["7H", "KC"], bottom=["3S", "2S"], gate="QH")  # the bank keeps its chips
    night.cut()
    night.do(night.banker, "gate", stage=night.stage())
    assert night.state()["phase"] == monte.COUP_OVER
    refused_without_change(
        night,
        lambda: night.do(night.punters[0], "next", stage=night.stage()),
        "Only the banker can do that.",
    )


def test_only_the_cutter_cuts(night):
    night.draw()
    night.put_up()
    cutter = night.name_of(night.state()["cutter"])
    other = next(name for name in night.seats if name != cutter)
    refused_without_change(
        night,
        lambda: night.do(other, "cut", position=10, stage=night.stage()),
        "It is not your turn to cut.",
    )


def test_a_cut_must_leave_cards_on_both_sides(night):
    night.draw()
    night.put_up()
    cutter = night.name_of(night.state()["cutter"])
    refused_without_change(
        night,
        lambda: night.do(cutter, "cut", position=40, stage=night.stage()),
        "A cut must leave cards on both sides: 1 to 39.",
    )


def test_only_the_banker_puts_up_the_bank_and_not_over_their_chips(night):
    night.draw()
    refused_without_change(
        night,
        lambda: night.do(night.punters[0], "bank", amount=50, stage=night.stage()),
        "Only the banker can do that.",
    )
    refused_without_change(
        night,
        lambda: night.do(night.banker, "bank", amount=101, stage=night.stage()),
        "You have 100 chips: a bank of 101 is over them.",
    )


def test_a_player_cannot_withdraw_someone_elses_bet(night):
    night.betting()
    first, second = night.punters
    night.tap(first, "top", 5)
    (placed,) = night.state()["coup"]["bets"]
    refused_without_change(
        night,
        lambda: night.do(second, "withdraw", bet=placed["id"]),
        "That bet is not yours.",
    )


def test_a_tap_made_for_an_earlier_stage_is_stale(night):
    night.betting()
    old = night.stage()
    night.do(night.banker, "gate", stage=old)
    refused_without_change(
        night,
        lambda: night.do(night.punters[0], "tap", layout="top", amount=5, stage=old),
        "The table moved on before your tap arrived: here it is now.",
        status=409,
    )


@pytest.mark.parametrize("kind", ["bank", "cut", "bet", "tap", "withdraw", "gate", "next"])
def test_each_action_sent_from_an_earlier_stage_is_stale(night, kind):
    """A tap from a screen that still shows an earlier stage is refused, whatever it is."""
    earlier = night.stage()  # players seated, no banker yet
    night.draw()
    if kind != "bank":
        earlier = night.stage()  # the banker is to put up the bank
        night.put_up()
    if kind not in ("bank", "cut"):
        earlier = night.stage()  # the deck is to be cut
        night.cut()
    punter = night.punters[0]
    if kind == "withdraw":
        night.tap(punter, "top", 5)
    if kind == "next":
        earlier = night.stage()  # bets were open
        night.do(night.banker, "gate", stage=earlier)
    cutter = night.name_of(night.state()["cutter"]) if kind == "cut" else None
    who, fields = {
        "bank": (night.banker, {"amount": 50}),
        "cut": (cutter, {"position": 20}),
        "bet": (punter, {"layout": "top", "amount": 5}),
        "tap": (punter, {"layout": "bottom", "amount": 5}),
        "withdraw": (punter, {"bet": 1}),
        "gate": (night.banker, {}),
        "next": (night.banker, {}),
    }[kind]
    refused_without_change(
        night,
        lambda: night.do(who, kind, stage=earlier, **fields),
        "The table moved on before your tap arrived: here it is now.",
        status=409,
    )


def test_a_bet_after_the_gate_is_refused(night):
    night.betting()
    night.do(night.banker, "gate", stage=night.stage())
    refused_without_change(
        night, lambda: night.do(night.punters[0], "bet", layout="top", amount=5), "Bets are closed."
    )


def test_a_double_click_places_one_bet(night):
    night.betting()
    punter = night.punters[0]
    first = night.tap(punter, "top", 5, nonce="tap-1")
    assert first.status_code == 200
    after_first = night.snapshot()
    second = night.tap(punter, "top", 5, nonce="tap-1")
    assert second.status_code == 200 and notice(second) is None
    assert night.snapshot() == after_first
    assert len(night.state()["coup"]["bets"]) == 1


def test_the_draw_is_the_hosts_and_needs_two_players(app):
    night = MonteNight(app, "Ana")
    before = night.snapshot()
    response = night.host_do("draw")
    assert response.status_code == 303
    page = night.host.get(response.location).get_data(as_text=True)
    assert "Monte needs at least two players." in page
    assert night.snapshot() == before
    night2 = MonteNight(app, "Ana", "Ben")
    before = night2.snapshot()
    response = night2.clients["Ana"].post(
        f"/t/{night2.code}/host/draw", data={"csrf_token": night2.tokens["Ana"]}
    )
    assert response.status_code == 403
    assert night2.snapshot() == before


def test_a_refusal_in_spanish_keeps_the_same_reason(night):
    night.betting()
    night.clients[night.punters[0]].get("/?lang=es")
    response = night.tap(night.punters[0], "top", 11)
    assert response.status_code == 422 and "10" in notice(response)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"generous": True}, "A generous banker pays 3 to 1 only in two-card Monte."),
        ({"min_bet": 5, "max_bet": 3}, "The largest bet cannot be below the smallest."),
        ({"short_bank": 0}, "A short bank is a number of coups, at least 1."),
        ({"short_bank": "two"}, "A short bank must be a whole number."),
    ],
    ids=["generous-without-two-card", "maximum-below-minimum", "short-bank-0", "short-bank-word"],
)
def test_a_monte_table_that_cannot_be_played_is_not_created(app, settings, message):
    """The host sees why on the lobby page, with the form still filled in; no table is made."""
    host = app.test_client()
    form = monte_form(csrf_of(host.get("/")), **settings)
    before = tables_made(app)
    response = host.post("/tables", data=form)
    assert response.status_code == 422
    assert notice(response) == message
    assert 'value="monte" checked' in response.get_data(as_text=True)
    assert tables_made(app) == before


@pytest.mark.parametrize("amount", ["12.5", "fifty"])
def test_a_bank_that_is_not_a_whole_number_is_refused(night, amount):
    night.draw()
    refused_without_change(
        night,
        lambda: night.do(night.banker, "bank", amount=amount, stage=night.stage()),
        "The bank must be a whole number.",
    )


@pytest.mark.parametrize("position", ["half", "2.5"])
def test_a_cut_that_is_not_a_number_is_refused(night, position):
    night.draw()
    night.put_up()
    cutter = night.name_of(night.state()["cutter"])
    refused_without_change(
        night,
        lambda: night.do(cutter, "cut", position=position, stage=night.stage()),
        "The cut must be a whole number.",
    )


def test_a_bet_no_longer_on_the_table_cannot_be_withdrawn(night):
    night.betting()
    punter = night.punters[0]
    night.tap(punter, "top", 5)
    (placed,) = night.state()["coup"]["bets"]
    assert night.do(punter, "withdraw", bet=placed["id"]).status_code == 200
    refused_without_change(
        night,
        lambda: night.do(punter, "withdraw", bet=placed["id"]),
        "That bet is no longer on the table.",
    )


@pytest.mark.parametrize("amount", [0, -5])
def test_a_bet_of_no_chips_is_refused(night, amount):
    night.betting()
    refused_without_change(
        night,
        lambda: night.tap(night.punters[0], "top", amount),
        f"A bet must be a whole number of chips, at least 1, not {amount}.",
    )


# --- what is allowed ---------------------------------------------------------------------------


def test_bets_on_both_layouts_reach_every_screen(night):
    night.betting()
    first, second = night.punters
    assert night.tap(first, "top", 5).status_code == 200
    assert night.tap(first, "bottom", 3).status_code == 200
    assert night.tap(second, "top", 10).status_code == 200
    bets = [(b["layout"], b["amount"]) for b in night.state()["coup"]["bets"]]
    assert bets == [("top", 5), ("bottom", 3), ("top", 10)]
    tv = night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)
    assert tv.count('class="chip__name">' + first) == 2
    assert "room for 32 more" in tv
    phone = night.clients[second].get(f"/t/{night.code}").get_data(as_text=True)
    assert f"{first}</span>" in phone


def test_a_withdrawal_is_one_tap_and_gives_the_chips_back(night):
    night.betting()
    punter = night.punters[0]
    night.tap(punter, "top", 5)
    (placed,) = night.state()["coup"]["bets"]
    response = night.do(punter, "withdraw", bet=placed["id"])
    assert response.status_code == 200 and notice(response) is None
    state = night.state()
    assert state["coup"]["bets"] == [] and state["players"][night.seats[punter]]["chips"] == 100


def test_tapping_the_bank_is_one_bet_equal_to_the_bank(app):
    night = MonteNight(app, "Ana", "Ben", max_bet=50)
    night.betting(bank=30)
    phone = night.clients[night.punters[0]].get(f"/t/{night.code}").get_data(as_text=True)
    assert "tap the bank 30" in phone
    assert night.tap(night.punters[0], "top", 30).status_code == 200
    assert night.state()["coup"]["bets"][0]["amount"] == 30


def test_the_gate_settles_and_the_ledger_balances(night):
    night.betting()
    first, second = night.punters
    night.tap(first, "top", 5)
    night.tap(second, "bottom", 7)
    response = night.do(night.banker, "gate", stage=night.stage())
    assert response.status_code == 200
    state = night.state()
    result = state["last_coup"]["result"]
    assert len(result["settled"]) == 2
    with app_context(night):
        ledger = service.ledger_totals(service.get_table(night.code))
    assert sum(ledger.values()) == 0
    assert sum(p["chips"] for p in state["players"].values()) + state["bank"] == 300


def test_the_phone_offers_only_what_the_rules_allow_now(night):
    night.draw()
    banker, (punter, _other) = night.banker, night.punters
    page = night.clients[banker].get(f"/t/{night.code}").get_data(as_text=True)
    assert "Put up the bank" in page and 'value="50"' in page
    page = night.clients[punter].get(f"/t/{night.code}").get_data(as_text=True)
    assert "Put up the bank" not in page and f"Waiting for {banker} to put up the bank." in page
    night.put_up()
    night.cut()
    page = night.clients[banker].get(f"/t/{night.code}").get_data(as_text=True)
    # The felt is the same on every phone; the banker's is marked so that its layouts are inert.
    assert "Turn the gate" in page and 'data-banker="true"' in page
    # No bet yet: the banker is told to wait for the punters, not that the bets are in.
    assert "No bet is on the table yet: wait for the punters" in html.unescape(page)
    assert "The bets are in" not in page
    night.tap(punter, "top", 5)
    page = night.clients[banker].get(f"/t/{night.code}").get_data(as_text=True)
    assert "The bets are in: turn the gate" in page and "On the table: 5 of your bank" in page
    page = night.clients[punter].get(f"/t/{night.code}").get_data(as_text=True)
    assert "Bet here" in page and "Turn the gate" not in page and 'data-banker="false"' in page
    assert re.search(r"\d+ of 36 win", page)


def test_the_game_ends_when_every_player_has_held_the_bank_and_names_the_winner(app):
    night = MonteNight(app, "Ana", "Ben", short_bank=1)
    night.betting()
    night.do(night.banker, "gate", stage=night.stage())
    night.put_up(50)
    night.cut()
    night.do(night.banker, "gate", stage=night.stage())
    with app_context(night):
        table = service.get_table(night.code)
        assert table.state["phase"] == monte.FINISHED and table.ended_at is not None
    # The phone stays on its live page, whose felt shows the end of the night: each ends as it
    # began, so nobody wins.
    page = night.clients["Ana"].get(f"/t/{night.code}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Nobody ends the night up." in html and 'class="finale finale--phone"' in html
    assert html.count('<span class="final__place">1.</span>') == 2


def test_the_host_can_end_a_monte_night_and_the_bank_goes_home(night):
    night.betting()
    night.tap(night.punters[0], "top", 5)
    response = night.host_do("end")
    assert response.status_code == 303 and response.location.endswith("/standings")
    state = night.state()
    assert state["phase"] == monte.FINISHED and state["bank"] == 0
    assert sorted(p["chips"] for p in state["players"].values()) == [100, 100, 100]


def test_sending_the_banker_away_after_the_gate_passes_the_bank_and_keeps_every_chip(night):
    night.betting()
    first, second = night.punters
    night.tap(first, "top", 5)
    night.tap(second, "bottom", 5)
    night.do(night.banker, "gate", stage=night.stage())
    banker = night.seats[night.banker]
    assert night.host_do("kick", seat=banker).status_code == 303
    state = night.state()
    assert state["players"][banker]["left"] and state["banker"] != banker
    with app_context(night):
        assert sum(service.ledger_totals(service.get_table(night.code)).values()) == 0
    assert sum(p["chips"] for p in state["players"].values()) == 300


def test_the_table_speaks_spanish_with_its_plurals(night):
    night.betting()
    punter = night.punters[0]
    night.clients[punter].get("/?lang=es")
    page = html.unescape(night.clients[punter].get(f"/t/{night.code}").get_data(as_text=True))
    assert "La puerta" in page and "quedan 36 cartas" in page and "Cartas de arriba" in page
    assert re.search(r"ganan \d+ de 36", page)


def test_names_are_escaped_on_the_tv(app):
    night = MonteNight(app, "<b>Ana</b>", "Ben")
    night.draw()
    tv = night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)
    assert "<b>Ana</b>" not in tv and "&lt;b&gt;Ana&lt;/b&gt;" in tv


def test_a_broken_bank_passes_at_once_to_the_next_player(app):
    """A punter taps the whole bank of 10 on the top layout (7H KC) and the gate is the QH: the
    bank is broken after one coup, and the next player to the left is asked to put up a bank."""
    night = MonteNight(app, "Ana", "Ben", "Eva")
    night.draw()
    night.put_up(10)
    night.stack(top=["7H", "KC"], bottom=["3S", "2S"], gate="QH")
    night.cut()
    broken, punter = night.banker, night.punters[0]
    assert night.tap(punter, "top", 10).status_code == 200
    response = night.do(broken, "gate", stage=night.stage())
    assert response.status_code == 200, notice(response)
    state = night.state()
    seats = state["seats"]
    assert state["banker"] == seats[(seats.index(night.seats[broken]) + 1) % len(seats)]
    assert state["phase"] == monte.BANK and state["bank"] == 0 and state["coups"] == 1
    assert state["passed"]["why"] == "broken" and state["banks"][night.seats[broken]] == 1
    assert state["players"][night.seats[broken]]["chips"] == 90
    assert state["players"][night.seats[punter]]["chips"] == 110
    tv = html.unescape(night.host.get(f"/t/{night.code}/tv").get_data(as_text=True))
    assert f"{broken}'s bank is broken: the bank passes at once" in tv
    page = night.clients[night.banker].get(f"/t/{night.code}").get_data(as_text=True)
    assert "Put up the bank" in page


# --- a whole bank through the routes -------------------------------------------------------------


@pytest.mark.parametrize(("two_card", "coups"), [(False, 8), (True, 13)])
def test_a_40_card_deck_gives_exactly_the_coups_of_one_bank_before_it_passes(app, two_card, coups):
    # Bets of 1 against a bank of 100 can never break it: the deck alone ends the bank.
    night = MonteNight(app, "Ana", "Ben", "Eva", chips=200, two_card=two_card)
    night.betting(bank=100)
    first_banker = night.banker
    dealt = 0
    while night.state()["banker"] == night.seats[first_banker]:
        state = night.state()
        assert state["phase"] == monte.BETTING
        dealt += 1
        assert state["coup"]["number"] == dealt
        for punter in night.punters:
            assert night.tap(punter, "top", 1).status_code == 200
            assert night.tap(punter, "bottom", 1).status_code == 200
        response = night.do(first_banker, "gate", stage=night.stage())
        assert response.status_code == 200, notice(response)
        if night.state()["phase"] == monte.COUP_OVER:
            assert night.do(first_banker, "next", stage=night.stage()).status_code == 200
    state = night.state()
    assert dealt == coups
    assert state["phase"] == monte.BANK and state["banks"][night.seats[first_banker]] == 1
    assert len(state["discards"]) == (39 if two_card else 40)
    tv = html.unescape(night.host.get(f"/t/{night.code}/tv").get_data(as_text=True))
    assert f"{first_banker}'s bank has dealt its {coups} coups: the bank passes" in tv
    assert sum(p["chips"] for p in state["players"].values()) == 600


def app_context(night):
    return night.app.app_context()


def tables_made(app):
    with app.app_context():
        return db.session.execute(select(func.count(GameTable.id))).scalar_one()
