"""A Monte Bank table driven only through the HTTP routes: the lobby's settings, every bet
placed by a tap, the screens of a deal, void deals, the ledger with the levy pot, the history,
the export and its verification."""

from __future__ import annotations

import html
import json
import re

import pytest

from montones import service
from montones.rules import monte_bank
from montones.rules.audit import verify
from montones.rules.scenario import replay
from tests.helpers.nights import MONTE_BANK_EXAMPLE, MonteBankNight, notice
from tests.helpers.nights import monte_bank_betting as betting
from tests.helpers.nights import page_text as text
from tests.helpers.tables import monte_bank_deck

# The worked example's layout: a pair of 7s at ul, AD, 3C, KH; JC AH 7H 6C KD turned.
EXAMPLE = MONTE_BANK_EXAMPLE
FIRST_CARD = monte_bank_deck(["5S"], "JD", "3C", "KH", ["5H", "KD"])
VOID = monte_bank_deck(["5S"], "JD", "3C", "3H")


def ledger_matches_state(night):
    with night.app.app_context():
        table = service.get_table(night.code)
        totals = {k: v for k, v in service.ledger_totals(table).items() if k != "house" and v}
        balances = {k: v for k, v in monte_bank.balances(table.state).items() if k != "house" and v}
        house = service.ledger_totals(table).get("house", 0)
        return totals == balances, house


def test_the_lobby_makes_a_table_with_its_settings(app):
    night = MonteBankNight(app, "Ana", "Ben", min_bet=2, mb_deals_per_bank=3, mb_levy=False)
    settings = night.state()["settings"]
    assert settings["min_bet"] == 2 and settings["deals_per_bank"] == 3
    assert settings["levy"] is False and settings["banks_each"] == 1
    night = MonteBankNight(app, "Ana", "Ben")
    assert night.state()["settings"]["levy"] is True
    assert night.state()["settings"]["deals_per_bank"] is None


def test_the_lobby_offers_the_game_with_the_levy_ticked(client):
    page = client.get("/").get_data(as_text=True)
    assert 'value="monte_bank"' in page
    assert re.search(r'name="mb_levy"\s+checked', page)


def test_every_kind_of_bet_is_placed_by_a_tap_on_the_layout(app):
    night = betting(app)
    ana, ben = night.punters
    assert night.tap(ana, "ul", 2).status_code == 200
    assert night.tap(ben, "ul", 3, first="ur").status_code == 200
    assert night.tap(ana, "left", 4).status_code == 200
    assert night.tap(ben, "ll", 1, kind="monte_carlo", against="lr", side="left").status_code == 200
    bets = [monte_bank.scenario_bet(b) for b in night.state()["deal"]["bets"]]
    assert bets == [
        {"player": night.seats[ana], "kind": "round", "on": "ul", "amount": 2},
        {"player": night.seats[ben], "kind": "cross", "on": "ur", "against": "ul", "amount": 3},
        {"player": night.seats[ana], "kind": "double", "side": "left", "amount": 4},
        {
            "player": night.seats[ben],
            "kind": "monte_carlo",
            "on": "ll",
            "against": "lr",
            "side": "left",
            "amount": 1,
        },
    ]
    assert night.state()["players"][night.seats[ben]]["chips"] == 100 - 3 - 3


def test_the_stake_typed_in_other_wins_over_the_quick_chip(app):
    night = betting(app)
    punter = night.punters[0]
    assert night.tap(punter, "ul", 1, custom=7).status_code == 200
    assert night.state()["deal"]["bets"][0]["amount"] == 7


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"at": "ul", "amount": 5, "kind": "cross"}, "There is no bet 'cross'"),
        ({"at": "ul", "amount": 51}, "The bank holds 50: the most you can bet is 50."),
        ({"at": "ul", "amount": 5, "first": "middle"}, "There is no position 'middle'"),
        (
            {"at": "ul", "amount": 5, "kind": "monte_carlo", "against": "ll", "side": "right"},
            "For a Monte Carlo, choose a side the card you tap lies on: the upper left card "
            "lies on the upper side and on the left side.",
        ),
        ({"at": "middle", "amount": 5}, "There is no position 'middle'"),
        ({"at": "ul", "amount": 34, "kind": "monte_carlo", "side": "left"}, "a bet of 102"),
    ],
)
def test_a_bet_the_rules_refuse_says_why_and_changes_nothing(app, fields, message):
    night = betting(app)
    punter = night.punters[0]
    before = night.snapshot()
    response = night.tap(punter, **fields)
    assert response.status_code == 422
    assert message in (notice(response) or ""), notice(response)
    assert night.snapshot() == before


def test_a_bet_is_changed_or_withdrawn_until_the_banker_says_bets_are_done(app):
    night = betting(app)
    punter = night.punters[0]
    night.tap(punter, "ul", 5)
    (placed,) = night.state()["deal"]["bets"]
    assert "Change" in text(night.clients[punter].get(f"/t/{night.code}"))
    assert night.do(punter, "change", bet=placed["id"], amount=9).status_code == 200
    assert night.state()["deal"]["bets"][0]["amount"] == 9
    assert night.do(punter, "withdraw", bet=placed["id"]).status_code == 200
    assert night.state()["deal"]["bets"] == []
    night.tap(punter, "ul", 5)
    assert night.do(night.banker, "close", stage=night.stage()).status_code == 200
    bet_id = night.state()["last_deal"]["bets"][0]["id"]
    response = night.do(punter, "withdraw", bet=bet_id)
    assert response.status_code == 422 and "Bets are closed." in notice(response)


def test_the_phone_shows_the_bets_kinds_the_layout_as_buttons_and_the_live_cards(app):
    night = betting(app)
    page = night.clients[night.punters[0]].get(f"/t/{night.code}").get_data(as_text=True)
    for kind in ("layout", "monte_carlo"):
        assert f'name="bet_kind" value="{kind}"' in page
    for at in ("ul", "ur", "ll", "lr", "upper", "lower", "left", "right"):
        assert f'name="at" value="{at}"' in page
    assert "7s: any 7 · A♦: only A♠ or A♣ · 3♣: only 3♥ or 3♦ · K♥: only K♠ or K♣" in html.unescape(
        page
    )
    # and on the cards themselves
    assert re.search(r"mb__pos--ur.*?mb__here\">only A♠ or A♣<", page, re.S)
    assert re.search(r"mb__pos--ul.*?mb__here\">any 7<", page, re.S)
    banker = night.clients[night.banker].get(f"/t/{night.code}").get_data(as_text=True)
    assert "Bets are done: turn the cards" in banker


def test_the_tv_draws_each_bet_where_it_lies_and_the_payments_in_the_bank_s_order(app):
    night = betting(app)
    ana, ben = night.punters
    night.tap(ana, "ul", 1)  # round ul: wins 3
    night.tap(ben, "ur", 4, first="lr")  # lost at AH, a cross of singles
    night.tap(ana, "left", 7)  # double left: wins 7
    night.tap(ben, "lower", 8)  # double lower: loses
    tv = night.host.get(f"/t/{night.code}/tv")
    felt = tv.get_data(as_text=True)
    assert felt.count('class="chip ') >= 4
    assert re.search(r"mb__crosses.*?↘ › ↗", felt, re.S)  # a cross between its two cards
    assert re.search(r'mb__side--left.*?data-bet="3"', felt, re.S)  # a double on its side
    night.do(night.banker, "close", stage=night.stage())
    shown = text(night.host.get(f"/t/{night.code}/tv"))
    payments = shown[shown.index("Payments") :]
    order = [
        payments.index(f"{ben} · cross lower right against upper right · ▼ -4"),
        payments.index(f"{ben} · double lower · ▼ -8"),
        payments.index(f"{ana} · double left · ▲ +7"),
        payments.index(f"{ana} · round on upper left · ▲ +3"),
    ]
    assert order == sorted(order)
    assert "The deal is decided: 3 cards turned" in shown  # 7H decides every bet


def test_a_short_bank_pays_the_largest_stake_first_and_the_tv_says_so(app):
    night = betting(app, deck=FIRST_CARD, bank=10)
    ana, ben = night.punters
    night.tap(ana, "ul", 2)  # owed 6
    night.tap(ben, "upper", 10)  # owed 10: the largest stake, paid first
    night.do(night.banker, "close", stage=night.stage())
    result = night.state()["last_deal"]["result"]
    assert [(line["stake"], line["result"], line["net"]) for line in result["settled"]] == [
        (10, "won", 8),  # 10 paid, a quarter (2) to the levy pot
        (2, "void", 0),
    ]
    state = night.state()
    assert state["passed"]["why"] == "broken"
    shown = text(night.host.get(f"/t/{night.code}/tv"))
    assert "The bank ran short: it paid the largest stakes first" in shown


def test_the_ledger_carries_the_levy_pot_and_its_split_when_the_bank_passes(app):
    night = betting(app, deck=FIRST_CARD)
    ana, ben = night.punters
    banker = night.banker
    night.tap(ana, "ul", 4)  # 12 at the first card: 3 to the pot
    night.tap(ben, "upper", 5)  # 5 at the first card: 1 to the pot
    night.do(banker, "close", stage=night.stage())
    same, house = ledger_matches_state(night)
    assert same and night.state()["pot"] == 4
    status = text(night.clients[ana].get(f"/t/{night.code}"))
    assert "3 to the levy pot: won at the very first card" in status
    night.do(banker, "aces", stage=night.stage())
    with app.app_context():
        totals = service.ledger_totals(service.get_table(night.code))
    assert totals.get("levy", 0) == 0
    state = night.state()
    assert state["house"] == 2 and state["passed"]["split"] == {"pot": 4, "banker": 2, "house": 2}
    # The house account: minus every chip it issued at the seats, plus the 2 the levy gave it.
    assert totals["house"] == -300 + 2
    assert sum(totals.values()) == 0
    shown = text(night.host.get(f"/t/{night.code}/tv"))
    assert f"levy pot 4: 2 to {banker}, 2 to the house" in shown


def test_a_void_deal_is_said_on_every_screen_and_cut_again(app):
    night = MonteBankNight(app, "Ana", "Ben", "Eva")
    night.draw()
    night.put_up(30)
    night.stack_deal(VOID)
    sealed = night.state()["shuffle"]["commitment"]
    cutter = night.name_of(night.state()["cutter"])
    assert night.do(cutter, "cut", position=20, stage=night.stage()).status_code == 200
    state = night.state()
    assert state["phase"] == monte_bank.CUT and state["shuffle"]["commitment"] != sealed
    why = "Void deal: the two lower cards are of one rank"
    # Which cards: 3C and 3H, the two lower cards (VOID's layout), named and ringed.
    which = "The two lower cards, 3 of clubs and 3 of hearts, are of one rank."
    tv = night.host.get(f"/t/{night.code}/tv")
    assert why in text(tv) and which in text(tv)
    assert tv.get_data(as_text=True).count('class="mb-void__culprit"') == 2
    for name in night.seats:
        assert why in text(night.clients[name].get(f"/t/{night.code}"))
        assert which in text(night.clients[name].get(f"/t/{night.code}"))
    # The void deal's seal is opened at once, in the history.
    with app.app_context():
        table = service.get_table(night.code)
        from montones.data import history

        (entry,) = history.hands(table)
    assert entry["opened"] and entry["result"]["void"] == monte_bank.LOWER_PAIR
    night.cut()
    assert night.state()["phase"] == monte_bank.BETTING


def test_a_void_deal_is_a_short_title_on_the_tv_and_the_felt_says_why(app):
    """Issue 36: the TV's title carried the whole why of a void deal and took four lines of the
    screen; the felt under it says the why in large type, so the title stays short."""
    night = MonteBankNight(app, "Ana", "Ben", "Eva")
    night.draw()
    night.put_up(30)
    night.stack_deal(VOID)
    cutter = night.name_of(night.state()["cutter"])
    assert night.do(cutter, "cut", position=20, stage=night.stage()).status_code == 200
    for lang, title, why in (
        ("en", "Void deal · shuffled and sealed again", "the two lower cards are of one rank"),
        ("de", "Ungültige Runde · neu gemischt und versiegelt", "denselben Rang"),
    ):
        page = night.host.get(f"/t/{night.code}/tv?lang={lang}").get_data(as_text=True)
        line = re.search(r'<h1 class="tv-status__line">(.*?)</h1>', page, re.S).group(1)
        assert (
            re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", line)))
            .strip()
            .startswith(title)
        )
        assert why not in line
        felt = page[page.index('id="felt"') :]
        assert why in html.unescape(felt)


def test_the_history_the_export_and_verify_tell_the_same_deals(app):
    night = betting(app)
    ana, ben = night.punters
    night.tap(ana, "ul", 1)
    night.tap(ben, "ll", 2, kind="monte_carlo", against="lr", side="left")
    night.do(night.banker, "close", stage=night.stage())
    mine = text(night.clients[ben].get(f"/t/{night.code}/history"))
    assert "2 on each part of a Monte Carlo on lower left against lower right, left side" in mine
    hosted = text(night.host.get(f"/t/{night.code}/host/history"))
    assert "1: round on upper left" in hosted
    export = json.loads(night.host.get(f"/t/{night.code}/host/export.json").get_data(as_text=True))
    (hand,) = export["hands"]
    assert hand["game"] == "monte_bank"
    assert verify(export) == []
    scenario = {k: v for k, v in hand.items() if k not in ("result", "meta", "shuffle")}
    assert replay(scenario) == hand["result"]
    # A result changed in the file is caught.
    hand["result"]["bank"] += 1
    assert any("recorded result" in problem for problem in verify(export))


def test_a_deal_still_in_play_is_held_back_from_the_export(app):
    night = betting(app)
    night.do(night.banker, "close", stage=night.stage())
    night.do(night.banker, "next", stage=night.stage())
    export = json.loads(night.host.get(f"/t/{night.code}/host/export.json").get_data(as_text=True))
    assert len(export["hands"]) == 1 and export["held_back"] == 0


def test_the_banker_passes_the_bank_with_aces_and_the_next_seat_banks(app):
    night = betting(app)
    banker = night.banker
    night.do(banker, "close", stage=night.stage())
    page = text(night.clients[banker].get(f"/t/{night.code}"))
    assert "Next deal" in page and "“Aces”: pass the bank" in page
    # Said where it is offered: what "Aces" does.
    assert "“Aces” ends your bank now: what it holds goes back to your chips" in page
    assert night.do(banker, "aces", stage=night.stage()).status_code == 200
    state = night.state()
    assert state["phase"] == monte_bank.BANK and state["banker"] != night.seats[banker]
    assert f"{banker} said “Aces”: the bank passes" in text(night.host.get(f"/t/{night.code}/tv"))


def test_the_help_has_the_rules_and_each_bets_chance_and_edge(app):
    night = betting(app)
    page = text(night.clients[night.punters[0]].get(f"/t/{night.code}"))
    assert "Round: your card is matched before the other three. Pays 3 to 1." in page
    assert "This deal" in page
    assert re.search(r"Round wins 1 time in 4 · the bank's edge 4\.3\s?%", page)


def test_the_screens_speak_spanish(app):
    night = betting(app)
    client = night.clients[night.punters[0]]
    page = text(client.get(f"/t/{night.code}", headers={"Accept-Language": "es"}))
    assert "Hagan sus apuestas" in page
    assert "Redonda" in page or "arriba a la izquierda" in page


def test_verify_finds_a_deck_that_is_not_the_committed_one(app):
    night = betting(app)
    night.do(night.banker, "close", stage=night.stage())
    export = json.loads(night.host.get(f"/t/{night.code}/host/export.json").get_data(as_text=True))
    (hand,) = export["hands"]
    hand["deck"] = hand["deck"][1:] + hand["deck"][:1]
    problems = verify(export)
    assert problems and any(
        "deck" in problem or "recorded result" in problem for problem in problems
    )


def test_a_cross_is_two_taps_on_the_layout_and_the_bar_says_what_the_next_tap_does(app):
    """Each card first chooses (a label for the bar's radio), then places; the bar holds a line
    for every choice, so the screen always says what the next tap will do."""
    night = betting(app)
    punter = night.punters[0]
    page = night.clients[punter].get(f"/t/{night.code}").get_data(as_text=True)
    for p in ("ul", "ur", "ll", "lr"):
        assert f'<label class="mb__cards mb__pick" for="first-{p}">' in page
        assert f'id="first-{p}"' in page
    said = html.unescape(page)
    assert "Tap a card to choose it; then tap it again for a round (3 to 1)" in said
    assert "upper left chosen." in said
    assert (
        "Next tap: upper left again for a round on it (3 to 1), or another card for a cross" in said
    )
    assert night.tap(punter, "lr", 5, first="ul").status_code == 200
    assert night.tap(punter, "ll", 5, first="ll").status_code == 200
    bets = [monte_bank.scenario_bet(b) for b in night.state()["deal"]["bets"]]
    assert [(b["kind"], b["on"], b.get("against")) for b in bets] == [
        ("cross", "ul", "lr"),
        ("round", "ll", None),
    ]


def test_a_win_the_short_bank_paid_in_part_is_said_on_the_tv_and_to_its_punter(app):
    """Bank 10: Ben's double of 6 is paid first (the largest stake), leaving 4 for Ana's round of
    4, owed 12."""
    night = betting(app, deck=FIRST_CARD, bank=10)
    ana, ben = night.punters
    night.tap(ana, "ul", 4)
    night.tap(ben, "upper", 6)
    night.do(night.banker, "close", stage=night.stage())
    shown = text(night.host.get(f"/t/{night.code}/tv"))
    assert "round on upper left · ▲ +3 (levy 1) won 12, but the bank held only 4: paid 4" in shown
    assert "double upper · ▲ +5 (levy 1) won" not in shown  # paid in full
    mine = text(night.clients[ana].get(f"/t/{night.code}"))
    assert "round on upper left: you won 12, but the bank held only 4: paid 4" in mine


def test_a_phone_s_chips_and_the_bank_are_written_as_its_language_writes_numbers(app):
    """As in the other games: grouped digits, and the word for chips in its plural form."""
    night = MonteBankNight(app, "Ana", "Ben", chips=25_000)
    night.draw()
    night.put_up(12_500)
    pages = {
        name: text(night.clients[name].get(f"/t/{night.code}?lang=ru")) for name in ("Ana", "Ben")
    }
    punter = next(name for name in pages if name != night.name_of(night.state()["banker"]))
    assert "25 000 фишек" in pages[punter].replace("\u202f", " ").replace("\xa0", " ")
    assert "12 500" in pages[punter].replace("\u202f", " ").replace("\xa0", " ")


def test_when_the_cut_clock_runs_out_the_phones_and_the_tv_say_so(app, clock):
    """As in the other games: a punter who let their time to cut run out is named, on the
    phones and the TV, while the deal that cut laid out is on the table."""
    night = MonteBankNight(app, "Ana", "Ben", "Eva", cut_timeout=30)
    night.draw()
    night.put_up(50)
    cutter = night.name_of(night.state()["cutter"])
    for _ in range(20):  # a void deal is shuffled again, for the same punter to cut
        clock.advance(31)
        with app.app_context():
            service.tick(night.code)  # what the live fan-out does when the clock falls due
        if night.state()["phase"] != "cut":
            break
    assert night.state()["phase"] == "betting"
    said = f"{cutter}'s time to cut ran out: the deck was cut for them at random."
    own = "Your time to cut ran out: the deck was cut for you at random."
    other = next(name for name in ("Ana", "Ben", "Eva") if name != cutter)

    def phone(name):
        return html.unescape(night.clients[name].get(f"/t/{night.code}").get_data(as_text=True))

    assert said in phone(other)
    assert said in html.unescape(night.host.get(f"/t/{night.code}/tv").get_data(as_text=True))
    assert own in phone(cutter) and said not in phone(cutter)  # said to the cutter as "you"
    banker = night.name_of(night.state()["banker"])
    punter = next(name for name in ("Ana", "Ben", "Eva") if name != banker)
    assert night.tap(punter, "ul", 5).status_code == 200  # a bet changes nothing of it
    assert said in phone(other) and own in phone(cutter)


def test_an_amount_typed_that_is_not_a_number_is_refused_in_words_not_bet_as_the_chip(app):
    night = betting(app)
    punter = night.punters[0]
    page = night.clients[punter].get(f"/t/{night.code}").get_data(as_text=True)
    # Typed as text (a number field would send nothing for "abc", and the chip would be bet),
    # judged by the server: no field on the phone is a browser's number field.
    assert 'name="custom" type="text" inputmode="numeric"' in page
    assert 'type="number"' not in page
    before = night.snapshot()
    response = night.tap(punter, "ul", 1, custom="abc")
    assert response.status_code == 422
    assert "must be a whole number" in (notice(response) or ""), notice(response)
    assert night.snapshot() == before
