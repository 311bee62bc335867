"""The night remembered on screen: a phone's last hands, the host's history and download, the TV's
corner, the seal on the felt and the page that opens it."""

import hashlib
import json
import re

import pytest

from montones.rules import audit
from tests.helpers.nights import HX, Night

SPANISH = {"Accept-Language": "es-ES,es;q=0.9"}


def played(app, bottoms=None):
    """Ana banks; Ben bets 5 on heap 1, Eva 3 on the banker's card against heap 3; heap 2 is
    the banker's. ``bottoms`` stacks the heaps' cards (test setup)."""
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30, heaps=3)
    if bottoms:
        night.arrange(bottoms)
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Eva", "against", heap=3, amount=3)
    night.ok("Ben", "choose", heap=2)
    night.ok("Ana", "close")
    return night


def text(response):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.get_data(as_text=True)))


def test_the_felt_shows_the_seal_of_the_deck_before_the_first_bet(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana")
    commitment = night.state()["hand"]["shuffle"]["commitment"]
    for name in ("Ben", "Ana"):
        assert f"<code>{commitment[:12]}</code>" in night.page(name).get_data(as_text=True)
    tv = night.host.get(f"/t/{night.code}/tv")
    assert f"<code>{commitment[:12]}</code>" in tv.get_data(as_text=True)
    assert night.state()["hand"]["shuffle"]["salt"] not in tv.get_data(as_text=True)


def test_a_phone_recalls_its_bets_what_they_paid_and_its_chips(app):
    night = played(app, {1: "5o", 2: "3c", 3: "2e"})
    for headers in (HX, {}):
        page = text(night.clients["Ben"].get(f"/t/{night.code}/history", headers=headers))
        assert "Hand 1 · Ana's bank" in page
        assert "5 on heap 1 +5" in page
        assert "Your chips: 100 → 105" in page
    eva = text(night.clients["Eva"].get(f"/t/{night.code}/history", headers=HX))
    assert "3 on the banker's card against heap 3 +3" in eva
    ana = text(night.clients["Ana"].get(f"/t/{night.code}/history", headers=HX))
    assert "You held the bank: 30 → 22" in ana
    spanish = text(night.clients["Ben"].get(f"/t/{night.code}/history", headers=HX | SPANISH))
    assert "Mano 1 · banca de Ana" in spanish and "Tus fichas: 100 → 105" in spanish


def test_the_phone_page_offers_the_last_hands_outside_its_live_regions(app):
    night = played(app)
    page = night.page("Ben").get_data(as_text=True)
    # The drawer itself (the bar follows it, at the foot of the screen) holds no live region.
    start = page.index('<details class="recall-drawer">')
    drawer = page[start : page.index("</details>", start)]
    assert f'hx-get="/t/{night.code}/history"' in drawer
    assert 'id="bar"' not in drawer and 'id="felt"' not in drawer
    # It comes after the felt, and before the bar.
    assert page.index('id="felt"') < start < page.index('id="bar"')


def test_a_done_deck_opens_on_the_verify_page(app):
    night = played(app, {1: "5o", 2: "3c", 3: "2e"})  # no Rey: the cards are gathered
    shuffle = night.state()["hand"]["shuffle"]
    page = night.clients["Eva"].get(f"/t/{night.code}/history", headers=HX)
    assert f'href="/t/{night.code}/verify/1"' in page.get_data(as_text=True)
    body = night.host.get(f"/t/{night.code}/verify/1").get_data(as_text=True)
    salt = re.search(r'<code id="salt">([0-9a-f]+)</code>', body).group(1)
    order = re.findall(r'<li data-code="(\w\w)">', body)
    assert salt == shuffle["salt"] and order == shuffle["order"]
    typed = " ".join([salt, *order]).encode()
    assert f'<code id="commitment">{hashlib.sha256(typed).hexdigest()}</code>' in body
    assert "js/verify.js" in body and "js/js-sha256-0.11.1.min.js" in body


@pytest.mark.parametrize("number", ["0", "2", "2147483648", "9" * 40])
def test_a_hand_that_is_not_there_is_a_404_however_big_its_number(app, number):
    night = played(app, {1: "5o", 2: "3c", 3: "2e"})
    assert night.host.get(f"/t/{night.code}/verify/{number}").status_code == 404


def test_a_deck_in_play_stays_sealed_after_a_rey(app):
    night = played(app, {1: "5o", 2: "Rc", 3: "2e"})  # the heaps may yet be kept
    salt = night.state()["hand"]["shuffle"]["salt"]
    for response in (
        night.clients["Ben"].get(f"/t/{night.code}/history", headers=HX),
        night.host.get(f"/t/{night.code}/verify/1"),
        night.host.get(f"/t/{night.code}/host/history"),
        night.host.get(f"/t/{night.code}/host/export.json"),
    ):
        assert response.status_code == 200
        assert salt not in response.get_data(as_text=True)
    assert "still in play" in text(night.host.get(f"/t/{night.code}/verify/1"))
    assert json.loads(night.host.get(f"/t/{night.code}/host/export.json").data)["held_back"] == 1
    night.ok("Ana", "next")
    assert salt in night.host.get(f"/t/{night.code}/verify/1").get_data(as_text=True)


def test_the_host_sees_every_bet_in_the_order_the_bank_settled_it(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=6, heaps=3)
    night.arrange({1: "7o", 2: "3c", 3: "6e"})
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Eva", "bet", heap=3, amount=4)
    night.ok("Ben", "choose", heap=2)
    night.ok("Ana", "close")
    page = text(night.host.get(f"/t/{night.code}/host/history"))
    assert "The bank ran short: it paid in this order." in page
    assert page.index("Eva 4 on heap 3 +4") < page.index("Ben 5 on heap 1 +2")
    assert "Bank 6 → 0" in page


def test_the_host_downloads_a_table_that_verifies(app):
    night = played(app)
    night.ok("Ana", "next")  # the deck of hand 1 is done, Rey or not
    response = night.host.get(f"/t/{night.code}/host/export.json")
    assert response.mimetype == "application/json"
    assert f"montones-{night.code}-v" in response.headers["Content-Disposition"]
    data = json.loads(response.data)
    assert data["table"]["name"] == "Friday" and set(data["players"].values()) == {
        "Ana",
        "Ben",
        "Eva",
    }
    assert len(data["hands"]) == 1 and audit.verify(data) == []
    assert night.clients["Ben"].get(f"/t/{night.code}/host/export.json").status_code == 403


def test_the_tv_shows_the_last_hands_between_hands_only(app):
    night = played(app, {1: "5o", 2: "3c", 3: "2e"})
    tv = f"/t/{night.code}/tv"
    assert "Last hands" not in text(night.host.get(tv))  # the hand's result is on show
    night.ok("Ana", "next")
    corner = text(night.host.get(tv))
    assert "Last hands" in corner and "Ana bank −8" in corner
    night.ok(night.name_of(night.state()["hand"]["cutter"]), "cut", position=3)
    night.ok("Ana", "heaps", count=3)
    assert "Last hands" not in text(night.host.get(tv))  # bets are open: the felt has the room


def history_macros(app, game):
    return app.jinja_env.get_template(f"games/{game}/_history.html").module


def test_the_tv_numbers_the_last_hands_across_the_night_not_within_a_bank(app):
    """The third hand of the night, the first of Ben's bank, is 3 on the TV, not 1 again."""
    with app.test_request_context():
        line = str(
            history_macros(app, "montones").recent(
                {"meta": {"number": 3, "hand": 1}, "result": {"bank_card": "Ro"}}
            )
        )
        coup = str(
            history_macros(app, "monte").recent(
                {"meta": {"number": 9, "coup": 1}, "result": {"coups": [{"gate": "KS"}]}}
            )
        )
    assert '<span class="recent__n">3</span>' in line
    assert '<span class="recent__n">9</span>' in coup


def test_one_numbering_everywhere_the_nights_count_not_the_banks(app):
    """The seventh deal of the night, the second of Ben's bank, is 7 in the history's title and
    on the TV's last deals of Monte Bank, as in the story, the export and verify; so is every
    game's hand in its title."""
    meta = {"number": 7, "deal": 2, "coup": 2, "hand": 2, "banker": "p2", "names": {"p2": "Ben"}}
    deal = {"meta": meta, "result": {"layout": {"ul": ["KS"]}}}
    with app.test_request_context():
        recent = str(history_macros(app, "monte_bank").recent(deal))
        titles = {
            game: re.sub(r"\s+", " ", str(history_macros(app, game).title(deal)))
            for game in ("montones", "monte", "monte_bank")
        }
    assert '<span class="recent__n">7</span>' in recent
    assert titles == {
        "montones": "Hand 7 · Ben's bank",
        "monte": "Coup 7 · Ben's bank",
        "monte_bank": "Deal 7 · Ben's bank",
    }


def test_a_recorded_coup_lists_the_top_layout_before_the_bottom_like_the_table(app):
    entry = {
        "result": {"coups": [{"top": ["QH"], "bottom": ["7S"], "gate": "2H", "winning": ["top"]}]}
    }
    with app.test_request_context():
        cards = text_of(str(history_macros(app, "monte").cards(entry)))
    assert cards.index("top") < cards.index("bottom") < cards.index("gate")
    assert "top ▲" in cards  # the winning layout is marked by a shape, not by its colour alone


def text_of(html):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.parametrize(
    ("game", "language", "said"),
    [
        ("montones", "en", "Ana won 5 chips in hand 2"),
        ("monte", "en", "Ana won 5 chips in coup 2"),
        ("monte_bank", "en", "Ana won 5 chips in deal 2"),
        ("monte", "de", "Ana gewann 5 Chips in Coup 2"),
        ("monte_bank", "de", "Ana gewann 5 Chips in Runde 2"),
        ("montones", "de", "Ana gewann 5 Chips in Hand 2"),
        ("monte_bank", "ru", "Сдача 2: Ana выигрывает 5 фишек"),
    ],
)
def test_the_nights_story_counts_each_games_own_rounds(app, game, language, said):
    """The end of the night says what the game's rules page calls a round: Monte's coups, Monte
    Bank's deals, Montones' hands (the game's templates name its word and translate it)."""
    told = {"biggest_win": {"player": "p1", "name": "Ana", "hand": 2, "amount": 5}}
    told |= {"boldest_bet": None, "longest_bank": None, "broke_bank": None}
    told["game"] = game
    with app.test_request_context(headers={"Accept-Language": language}):
        story = app.jinja_env.get_template("play/_night.html").module.story(told)
    assert said in text_of(str(story))
