"""A table played with its own cards, through the routes (issue 42): the lobby's option, the
card picker on the entering phone (or the host's page), the TV's line while it waits for a
card, and a refused card said in words and changing nothing."""

from __future__ import annotations

import html
import re

from tests.helpers.nights import MonteBankNight, MonteNight, notice


def text(response) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", response.get_data(as_text=True)))


def awaited(response) -> str:
    """What the picker asks for, as its head says it."""
    page = response.get_data(as_text=True)
    return html.unescape(re.search(r'picker__what">([^<]*)<', page).group(1)).strip()


def picked(response) -> list[tuple[str, bool]]:
    """The picker's cards as (code, greyed)."""
    page = response.get_data(as_text=True)
    return [
        (code, "disabled" in rest)
        for code, rest in re.findall(
            r'class="picker__card[^"]*" type="submit" value="(\w\w)"([^>]*)>', page
        )
    ]


def own_monte(app):
    night = MonteNight(app, "Ana", "Ben", own_deck="banker")
    night.draw()
    night.put_up()
    assert night.state()["phase"] == "entering"
    return night


def test_the_banker_has_a_picker_of_the_decks_40_cards_and_the_others_wait(app):
    night = own_monte(app)
    banker, punter = night.banker, night.punters[0]
    cards = picked(night.clients[banker].get(f"/t/{night.code}"))
    assert len(cards) == 40 and not any(greyed for _, greyed in cards)
    assert "A card of the bottom layout" in text(night.clients[banker].get(f"/t/{night.code}"))
    assert picked(night.clients[punter].get(f"/t/{night.code}")) == []
    assert f"{banker} enters the cards as they are shown." in text(
        night.clients[punter].get(f"/t/{night.code}")
    )
    tv = text(night.host.get(f"/t/{night.code}/tv"))
    assert "Waiting for the card: A card of the bottom layout" in tv


def test_a_card_tapped_is_entered_greyed_and_can_be_taken_back(app):
    night = own_monte(app)
    banker = night.banker
    response = night.do(banker, "card", card="KH", stage=night.stage())
    assert response.status_code == 200 and notice(response) is None
    assert night.state()["coup"]["entered"] == ["KH"]
    cards = dict(picked(night.clients[banker].get(f"/t/{night.code}")))
    assert cards["KH"] is True and cards["QH"] is False
    page = night.clients[banker].get(f"/t/{night.code}").get_data(as_text=True)
    assert 'aria-label="Take back the last card"' in page and "↶ Undo" in page
    assert night.do(banker, "undo_card", stage=night.stage()).status_code == 200
    assert night.state()["coup"]["entered"] == []


def test_a_card_seen_already_or_from_a_punter_is_refused_in_words(app):
    night = own_monte(app)
    banker, punter = night.banker, night.punters[0]
    night.do(banker, "card", card="KH", stage=night.stage())
    before = night.snapshot()
    response = night.do(banker, "card", card="KH")
    assert response.status_code == 422
    assert "KH is on the table already" in notice(response)
    response = night.do(punter, "card", card="QH")
    assert "Only the banker enters the cards." in notice(response)
    assert night.snapshot() == before


def test_the_host_enters_the_cards_on_the_hosts_page_at_a_table_that_says_so(app):
    night = MonteBankNight(app, "Ana", "Ben", own_deck="host")
    night.draw()
    night.put_up()
    page = night.host.get(f"/t/{night.code}/host")
    assert len(picked(page)) == 40
    assert "The upper left card" in text(page)
    assert picked(night.clients[night.banker].get(f"/t/{night.code}")) == []
    assert night.host_do("host_card", card="7S").status_code == 303
    assert night.state()["deal"]["layout"]["ul"] == ["7S"]
    # Paused: the host's page has no picker, and a card sent anyway is refused in words.
    assert night.host_do("pause").status_code == 303
    page = night.host.get(f"/t/{night.code}/host")
    assert picked(page) == []
    night.host_do("host_card", card="6S")
    assert "The host has paused the table." in text(night.host.get(f"/t/{night.code}/host"))
    assert night.state()["deal"]["layout"]["ur"] == []


def test_the_lobby_offers_our_own_deck(app):
    page = app.test_client().get("/").get_data(as_text=True)
    assert 'name="own_deck"' in page and "Our own deck: the banker enters each card" in page


def test_the_history_says_an_own_deck_hand_had_no_sealed_shuffle(app):
    night = own_monte(app)
    banker, punter = night.banker, night.punters[0]
    for card in ("2H", "3S", "4D", "5C"):
        night.do(banker, "card", card=card, stage=night.stage())
    night.tap(punter, "top", 5)
    night.do(banker, "card", card="7D", stage=night.stage())
    assert night.state()["phase"] == "coup_over"
    history = text(night.clients[punter].get(f"/t/{night.code}/history"))
    assert "Played with the table's own cards: no shuffle was sealed" in history
    assert night.clients[punter].get(f"/t/{night.code}/verify/1").status_code == 404


def own_montones(app):
    """A Montones table of Ana (banker), Ben and Eva with its own cards: its heaps wait."""
    night = MonteNight.__new__(MonteNight)
    night.form = lambda token, chips, **settings: {
        "csrf_token": token,
        "game": "montones",
        "name": "Ours",
        "chips": str(chips),
        "min_bet": "1",
        "heaps_min": "3",
        "heaps_max": "8",
        "tenure": "60",
        "cut_timeout": "30",
        **settings,
    }
    MonteNight.__init__(night, app, "Ana", "Ben", "Eva", own_deck="banker")
    assert night.do("Ana", "offer", amount=50).status_code == 200
    night.do("Ben", "pass")
    night.do("Eva", "pass")
    return night


def test_a_montones_hand_of_its_own_cards_through_the_phones_and_the_tv(app):
    night = own_montones(app)
    assert night.state()["phase"] == "heaps"  # no cut: the deck on the table is cut by hand
    night.do("Ana", "heaps", count=3, stage=night.stage())
    night.do("Ben", "choose", heap=3, stage=night.stage())
    night.do("Ben", "bet", heap=1, amount=10, stage=night.stage())
    for name in ("Ana", "Ben"):
        assert night.clients[name].get(f"/t/{night.code}").status_code == 200
    assert night.host.get(f"/t/{night.code}/tv").status_code == 200
    night.do("Ana", "close", stage=night.stage())
    page = night.clients["Ana"].get(f"/t/{night.code}")
    assert "The bottom card of heap 1" in text(page) and len(picked(page)) == 40
    night.do("Ana", "card", card="6o", stage=night.stage())
    tv = night.host.get(f"/t/{night.code}/tv")
    assert "Waiting for the card: The bottom card of heap 2" in text(tv)
    heap = tv.get_data(as_text=True).split('id="heap-1"')[1].split("</li>")[0]
    assert 'data-card="6o"' in heap  # the TV shows the card as it is entered
    for card in ("2c", "4e"):
        night.do("Ana", "card", card=card, stage=night.stage())
    assert night.state()["phase"] == "settled"
    assert night.state()["players"][night.seats["Ben"]]["chips"] == 110
    tv = night.host.get(f"/t/{night.code}/tv")
    assert tv.status_code == 200
    # The TV's line says at once what the table does: no heap is turned by the app.
    line = tv.get_data(as_text=True).split('class="tv-status__line"')[1].split("</h1>")[0]
    assert "Turning the heaps" not in line and "reveal-" not in line
    assert "The heaps are turned" in line
    # The cards were the reveal, shown as they were entered: none turns again on the TV or a
    # phone; the verdicts and the payments come at once after the banker's card is named.
    for page in (tv, night.clients["Ben"].get(f"/t/{night.code}")):
        felt = page.get_data(as_text=True).split('id="felt"')[1]
        assert 'data-reveal="' in felt and "heap__turn" not in felt and "flip" not in felt
        assert all(f'data-card="{card}"' in felt for card in ("6o", "2c", "4e"))
        assert max(int(at) for at in re.findall(r'data-at="(\d+)"', felt)) <= 2000


def test_two_quick_taps_enter_two_cards_and_two_quick_undos_take_back_one(app):
    night = own_monte(app)
    banker = night.banker
    page = night.clients[banker].get(f"/t/{night.code}").get_data(as_text=True)
    picker = page.split('id="picker"')[1].split("</form>")[0]
    assert 'name="stage"' not in picker
    stage = night.stage()
    assert night.do(banker, "card", card="KH").status_code == 200
    assert night.do(banker, "card", card="QH").status_code == 200  # drawn before the first
    assert night.state()["coup"]["entered"] == ["KH", "QH"]
    stage = night.stage()
    assert night.do(banker, "undo_card", stage=stage).status_code == 200
    assert night.do(banker, "undo_card", stage=stage).status_code == 409
    assert night.state()["coup"]["entered"] == ["KH"]


def test_after_a_rey_the_banker_keeps_the_heaps_of_their_own_cards_by_counting_them(app):
    night = own_montones(app)
    night.do("Ana", "heaps", count=3, stage=night.stage())
    night.do("Ben", "choose", heap=3, stage=night.stage())
    night.do("Ben", "bet", heap=1, amount=10, stage=night.stage())
    night.do("Ana", "close", stage=night.stage())
    for card in ("6o", "2c", "Re"):
        night.do("Ana", "card", card=card, stage=night.stage())
    bar = text(night.clients["Ana"].get(f"/t/{night.code}")).split("how many are there now?")
    assert len(bar) == 2 and bar[1].split()[:3] == ["2", "3", "4"]  # the three and a new one
    assert "how many are there now?" not in text(night.clients["Ben"].get(f"/t/{night.code}"))
    response = night.do("Ana", "keep_entered", count=5, stage=night.stage())
    assert "make 2 to 4 heaps" in notice(response) and night.state()["phase"] == "settled"
    assert night.do("Ana", "keep_entered", count=4, stage=night.stage()).status_code == 200
    hand = night.state()["hand"]
    assert night.state()["phase"] == "betting" and len(hand["heaps"]) == 4 and hand["rey_kept"]
    night.do("Eva", "choose", heap=4, stage=night.stage())
    night.do("Ana", "close", stage=night.stage())
    cards = dict(picked(night.clients["Ana"].get(f"/t/{night.code}")))
    assert [code for code, greyed in cards.items() if greyed] == ["6o", "2c", "Re"]


KEPT = {
    "en": "The banker keeps the heaps after the Rey: the turned cards go aside and one heap is "
    "split in two, 4 heaps now. Bets start afresh.",
    "es": "El banquero deja los montones tras el Rey: las cartas vueltas se apartan y un montón "
    "se parte en dos; ahora hay 4 montones. Las apuestas empiezan de nuevo.",
    "de": "Der Bankhalter lässt die Haufen nach dem Rey liegen: Die aufgedeckten Karten kommen "
    "weg und ein Haufen wird geteilt, jetzt sind es 4 Haufen. Alle setzen neu.",
    "ru": "Банкомёт оставляет стопки после Rey: открытые карты убираются, одна стопка делится "
    "надвое — теперь 4 стопки. Ставки делаются заново.",
}


def test_the_heaps_kept_after_a_rey_are_said_on_the_tv_the_phones_and_the_host_page(app):
    """Once the banker keeps the heaps, every screen says so in words while the new bets are
    made, in its language; not before the banker has (the hand's result is on the screens)."""
    night = own_montones(app)
    night.do("Ana", "heaps", count=3, stage=night.stage())
    night.do("Ben", "choose", heap=3, stage=night.stage())
    night.do("Ben", "bet", heap=1, amount=10, stage=night.stage())
    night.do("Ana", "close", stage=night.stage())
    for card in ("6o", "2c", "Re"):
        night.do("Ana", "card", card=card, stage=night.stage())
    screens = {
        "tv": lambda lang: night.host.get(f"/t/{night.code}/tv", headers={"Accept-Language": lang}),
        "host": lambda lang: night.host.get(
            f"/t/{night.code}/host", headers={"Accept-Language": lang}
        ),
        "phone": lambda lang: night.clients["Ben"].get(
            f"/t/{night.code}", headers={"Accept-Language": lang}
        ),
    }
    for screen in screens.values():
        assert "keeps the heaps" not in text(screen("en"))
    # The banker's first-hand guide says what keeping them takes with real cards, in a line.
    guide = night.clients["Ana"].get(f"/t/{night.code}").get_data(as_text=True)
    guide = guide.split('id="guide"')[1].split("</aside>")[0]
    assert 'data-step="keep_entered"' in guide
    assert "split one heap in two, lay the new one last and tap how many heaps" in guide
    assert night.do("Ana", "keep_entered", count=4, stage=night.stage()).status_code == 200
    for name, screen in screens.items():
        for lang, said in KEPT.items():
            assert said in " ".join(text(screen(lang)).split()), (name, lang)
    night.do("Eva", "choose", heap=4, stage=night.stage())
    night.do("Ana", "close", stage=night.stage())
    assert KEPT["en"] not in " ".join(text(screens["tv"]("en")).split())  # the cards come


def test_monte_bank_screens_show_the_positions_entered_so_far_not_the_draw(app):
    night = MonteBankNight(app, "Ana", "Ben", own_deck="banker")
    night.draw()
    night.put_up()
    banker, punter = night.banker, night.punters[0]
    for card in ("7S", "7H", "AD", "3C"):  # a pair at ul, then ur and ll: lr is awaited
        assert night.do(banker, "card", card=card, stage=night.stage()).status_code == 200
    for page in (
        night.host.get(f"/t/{night.code}/tv"),
        night.clients[punter].get(f"/t/{night.code}"),
        night.clients[banker].get(f"/t/{night.code}"),
    ):
        felt = page.get_data(as_text=True).split('id="felt"')[1].split("</section>")[0]
        assert "The draw for the first bank" not in felt
        for position, cards in (("ul", ["7S", "7H"]), ("ur", ["AD"]), ("ll", ["3C"])):
            place = felt.split(f'id="pos-{position}"')[1].split("</div>")[0]
            assert re.findall(r'data-card="(\w\w)"', place) == cards
        waiting = felt.split('id="pos-lr"')[1].split("</div>")[0]
        assert "mb__slot--next" in waiting and "data-card" not in waiting
        assert "Live cards" not in text_of(felt)
    night.do(banker, "card", card="KH", stage=night.stage())
    felt = night.clients[punter].get(f"/t/{night.code}").get_data(as_text=True)
    assert night.state()["phase"] == "betting" and "mb__slot" not in felt and "Live cards" in felt


def text_of(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", markup))


def test_a_void_deal_of_the_tables_own_cards_is_said_on_every_screen_until_the_next_card(app):
    night = MonteBankNight(app, "Ana", "Ben", own_deck="banker")
    night.draw()
    night.put_up()
    banker, punter = night.banker, night.punters[0]
    for card in ("7S", "JD", "2C", "2D"):  # the two lower cards of one rank: void
        night.do(banker, "card", card=card, stage=night.stage())
    assert night.state()["void"]["why"] == "lower pair"
    for page in (
        night.host.get(f"/t/{night.code}/tv"),
        night.clients[punter].get(f"/t/{night.code}"),
    ):
        felt = text_of(page.get_data(as_text=True).split('id="felt"')[1].split("</section>")[0])
        assert "Void deal: the two lower cards are of one rank" in felt
        assert "laid out again, each entered as it comes" in felt and "cuts" not in felt
    night.do(banker, "card", card="7S", stage=night.stage())  # the new deal's first card
    felt = (
        night.clients[punter].get(f"/t/{night.code}").get_data(as_text=True).split('id="felt"')[1]
    )
    assert "Void deal" not in text_of(felt.split("</section>")[0])
    assert 'data-card="7S"' in felt.split('id="pos-ul"')[1].split("</div>")[0]


def test_monte_bank_side_cards_are_asked_for_by_name_shown_as_entered_and_refused_in_words(app):
    # Made on the lobby's form: our own deck and a side card, together.
    night = MonteBankNight(app, "Ana", "Ben", own_deck="banker", mb_side_cards=1)
    assert night.state()["settings"]["side_cards"] == 1
    night.draw()
    night.put_up()
    banker, punter = night.banker, night.punters[0]
    for card in ("7S", "JD", "2C", "4C"):
        assert night.do(banker, "card", card=card, stage=night.stage()).status_code == 200
    # The picker asks for the side card, in words; every screen shows its place, empty.
    page = night.clients[banker].get(f"/t/{night.code}")
    assert awaited(page) == "A side card"
    assert "Waiting for the card: A side card" in text(night.host.get(f"/t/{night.code}/tv"))
    for page in (
        night.host.get(f"/t/{night.code}/tv"),
        night.clients[punter].get(f"/t/{night.code}"),
    ):
        felt = page.get_data(as_text=True).split('id="felt"')[1].split("</section>")[0]
        place = felt.split('id="pos-s1"')[1].split("</div>")[0]
        assert "mb__slot--next" in place and "data-card" not in place
        assert "Live cards" not in text_of(felt)
        assert "is set aside face up (it is entered too)" in text_of(felt)
    # A card of a rank on show is set aside, face up, on every screen, and greyed.
    night.do(banker, "card", card="JS", stage=night.stage())
    cards = dict(picked(night.clients[banker].get(f"/t/{night.code}")))
    assert sorted(code for code, greyed in cards.items() if greyed) == [
        "2C",
        "4C",
        "7S",
        "JD",
        "JS",
    ]
    tv = night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)
    aside = tv.split('class="mb__aside"')[1].split("</p>")[0]
    assert re.findall(r'data-card="(\w\w)"', aside) == ["JS"]
    # Refused in words, changing nothing: a card seen, a bet or the close before it is out.
    before = night.snapshot()
    assert "JS is on the table already" in notice(night.do(banker, "card", card="JS"))
    response = night.do(banker, "close")
    assert "The side cards are still being entered" in notice(response)
    assert night.snapshot() == before
    night.do(banker, "card", card="5D", stage=night.stage())
    felt = night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)
    assert night.state()["phase"] == "betting" and "mb__slot" not in felt
    place = felt.split('id="pos-s1"')[1].split("</div>")[0]
    assert re.findall(r'data-card="(\w\w)"', place) == ["5D"] and "Live cards" in felt


def test_the_hosts_picker_asks_for_each_side_card_in_turn(app):
    night = MonteBankNight(app, "Ana", "Ben", own_deck="host", mb_side_cards=2)
    night.draw()
    night.put_up()
    for card in ("7S", "JD", "2C", "4C"):
        assert night.host_do("host_card", card=card).status_code == 303
    assert awaited(night.host.get(f"/t/{night.code}/host")) == "A side card"
    night.host_do("host_card", card="5D")
    page = night.host.get(f"/t/{night.code}/host")
    assert awaited(page) == "The second side card"
    assert dict(picked(page))["5D"] is True
    night.host_do("host_undo_card")
    assert awaited(night.host.get(f"/t/{night.code}/host")) == "A side card"
