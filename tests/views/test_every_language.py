"""Every template, rendered in every language: a night of each game walked through its routes,
every screen of it opened in Spanish, English, German and Russian.

Every template a page asks for is noted, in the language it is drawn in, so a template no page reaches in some language, or one
that fails to render in it, fails here; and no German or Russian page shows a sentence of the
English it was translated from.
"""

from __future__ import annotations

import html
import re

import pytest
from babel.messages.pofile import read_po
from flask_babel import get_locale

from montones.config import Config
from montones.rules.games import GAMES
from tests.helpers.apps import make_app
from tests.helpers.nights import HX, MonteBankNight, MonteNight, Night, shown_text

LANGUAGES = Config.LANGUAGES
ACCEPT = {code: {"Accept-Language": f"{code};q=1.0"} for code in LANGUAGES}
TRANSLATIONS = "montones/translations/{}/LC_MESSAGES/messages.po"


class Watched:
    """What the pages drew: every template loaded, in the language it was drawn in, and the
    text of every page."""

    def __init__(self):
        self.loaded: set[tuple[str, str]] = set()
        self.pages: dict[str, list[tuple[str, str]]] = {code: [] for code in LANGUAGES}


@pytest.fixture(scope="module")
def night_app(tmp_path_factory):
    app = make_app(tmp_path_factory.mktemp("db"))
    watched = Watched()
    # Every template a render asks for (a page, what it extends, includes and imports) is
    # looked up through here, cached or not.
    environment = app.jinja_env
    load = environment._load_template

    def watched_load(name, globals):
        watched.loaded.add((str(get_locale()), name))
        return load(name, globals)

    environment._load_template = watched_load
    app.extensions["watched"] = watched
    return app


def visit(app, client, url, *, status=200, headers=None):
    """Open ``url`` in every language, as the same device would with its browser set to each."""
    watched = app.extensions["watched"]
    for code in LANGUAGES:
        response = client.get(url, headers={**ACCEPT[code], **(headers or {})})
        assert response.status_code == status, (url, code, response.status_code)
        watched.pages[code].append((url, response.get_data(as_text=True)))


def screens(app, night, names, host=True):
    """Every screen of the table as it is now: each phone (page and regions), the TV, the host."""
    code = night.code
    for name in names:
        client = night.clients[name]
        visit(app, client, f"/t/{code}")
        visit(app, client, f"/t/{code}/p/all", headers=HX)
        visit(app, client, f"/t/{code}/history")
    visit(app, night.host, f"/t/{code}/tv")
    visit(app, night.host, f"/t/{code}/tv/p/all", headers=HX)
    visit(app, night.host, f"/t/{code}/watch")
    if host:
        visit(app, night.host, f"/t/{code}/host")
        visit(app, night.host, f"/t/{code}/host/history")


def ok(response):
    assert response.status_code in (200, 303), response.get_data(as_text=True)[:500]


@pytest.fixture(scope="module")
def walked(night_app):
    """The three games from the lobby to the end of the night, every screen opened on the way."""
    app = night_app
    guest = app.test_client()
    visit(app, guest, "/")
    for name in GAMES:
        visit(app, guest, f"/rules/{name}")
    visit(app, guest, "/t/ZZZZ", status=404)
    visit(app, guest, "/go?code=ZZZZ", status=404)

    # Montones: the auction, the cut, the heaps, the bets, the turn of the heaps, a new bank.
    # The TV's demonstration plays while nobody has sat down: each game's, at a table no one
    # has joined (its step is the wall clock's; each game's words are one template).
    for empty in (Night(app), MonteNight(app), MonteBankNight(app)):
        visit(app, empty.host, f"/t/{empty.code}/tv")
    night = Night(app, "Ana", "Ben", "Eva", heaps=(3, 4))
    visit(app, guest, f"/t/{night.code}/join")
    visit(app, guest, f"/t/{night.code}/rejoin")
    visit(app, guest, f"/rules/montones?t={night.code}")
    screens(app, night, ["Ana", "Ben"])
    night.ok("Ana", "offer", amount=30)
    screens(app, night, ["Ana", "Ben"])
    night.ok("Ben", "pass")
    night.ok("Eva", "pass")
    screens(app, night, [night.cutter(), "Ana"])
    night.ok(night.cutter(), "cut", position=10)
    screens(app, night, ["Ana", "Ben"])
    night.ok("Ana", "heaps", count=3)
    screens(app, night, ["Ana", "Ben"])
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Eva", "against", heap=2, amount=5)
    night.ok("Eva", "choose", heap=3)
    screens(app, night, ["Ana", "Ben"])
    night.ok("Ana", "close")
    screens(app, night, ["Ana", "Ben", "Eva"])
    night.ok("Ana", "next")
    screens(app, night, ["Ana", "Ben"])
    verify = f"/t/{night.code}/verify/1"
    visit(app, night.clients["Ben"], verify)
    ok(night.host_do("kick", seat=night.seats["Eva"]))  # a phone the host sent away
    visit(app, night.clients["Eva"], f"/t/{night.code}")
    ok(night.host_do("tv_language", language="ru"))
    visit(app, night.host, f"/t/{night.code}/tv")
    ok(night.host_do("end"))  # an ended table's phones are sent to the standings
    visit(app, night.clients["Ben"], f"/t/{night.code}/standings")
    visit(app, night.host, f"/t/{night.code}/tv")
    visit(app, night.host, f"/t/{night.code}/host")

    # Monte: the draw, the bank, the cut, a bet, the gate, to the last coup of the night.
    monte = MonteNight(app, "Ana", "Ben", "Eva")
    screens(app, monte, ["Ana", "Ben"])
    monte.draw()
    screens(app, monte, ["Ana", "Ben"])
    monte.put_up(50)
    screens(app, monte, ["Ana", "Ben"])
    monte.cut()
    screens(app, monte, monte.punters + [monte.banker])
    punter = monte.punters[0]
    ok(monte.tap(punter, "top", 5))
    screens(app, monte, [punter, monte.banker])
    while monte.state()["phase"] != "finished":
        phase = monte.state()["phase"]
        if phase == "betting":
            ok(monte.do(monte.banker, "gate", stage=monte.stage()))
        elif phase == "coup_over":
            ok(monte.do(monte.banker, "next", stage=monte.stage()))
        elif phase == "bank":
            screens(app, monte, ["Ana", "Ben"], host=False)
            monte.put_up(50)
        elif phase == "cut":
            monte.cut()
    visit(app, monte.host, f"/t/{monte.code}/tv")  # the winner, the ranking and the chart
    visit(app, monte.host, f"/t/{monte.code}/host")
    visit(app, monte.clients["Ana"], f"/t/{monte.code}/standings")
    visit(app, monte.clients["Ana"], f"/t/{monte.code}/verify/1")

    # Monte Bank: the draw, the bank, the cut, a bet, the cards turned, "Aces" to the end.
    monte_bank = MonteBankNight(app, "Ana", "Ben", "Eva")
    visit(app, guest, f"/rules/monte_bank?t={monte_bank.code}")
    screens(app, monte_bank, ["Ana", "Ben"])
    monte_bank.draw()
    screens(app, monte_bank, ["Ana", "Ben"])
    monte_bank.put_up(50)
    screens(app, monte_bank, ["Ana", "Ben"])
    monte_bank.cut()
    screens(app, monte_bank, monte_bank.punters + [monte_bank.banker])
    punter = monte_bank.punters[0]
    ok(monte_bank.tap(punter, "ul", 5))
    screens(app, monte_bank, [punter, monte_bank.banker])
    ok(monte_bank.do(monte_bank.banker, "close", stage=monte_bank.stage()))
    screens(app, monte_bank, [punter, monte_bank.banker])
    while monte_bank.state()["phase"] != "finished":
        phase = monte_bank.state()["phase"]
        if phase == "betting":
            ok(monte_bank.do(monte_bank.banker, "close", stage=monte_bank.stage()))
        elif phase == "deal_over":
            ok(monte_bank.do(monte_bank.banker, "aces", stage=monte_bank.stage()))
        elif phase == "bank":
            screens(app, monte_bank, ["Ana", "Ben"], host=False)
            monte_bank.put_up(50)
        elif phase == "cut":
            monte_bank.cut()
    visit(app, monte_bank.host, f"/t/{monte_bank.code}/tv")
    visit(app, monte_bank.host, f"/t/{monte_bank.code}/host")
    visit(app, monte_bank.clients["Ana"], f"/t/{monte_bank.code}/standings")
    return app.extensions["watched"]


def expected_templates(app, language: str) -> set[str]:
    """Every template there is, but the rules pages of the other languages."""
    names = set(app.jinja_env.list_templates(extensions=["html"]))
    others = {code for code in LANGUAGES if code != language}
    return {
        name
        for name in names
        if not re.fullmatch(rf"games/[^/]+/rules/({'|'.join(others)})\.html", name)
    }


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_template_is_rendered_in_every_language(night_app, walked, language):
    drawn = {name for code, name in walked.loaded if code == language}
    assert sorted(expected_templates(night_app, language) - drawn) == []


def test_every_game_has_its_rules_in_every_language(night_app):
    missing = [
        f"games/{name}/rules/{code}.html"
        for name in GAMES
        for code in LANGUAGES
        if f"games/{name}/rules/{code}.html" not in night_app.jinja_env.list_templates()
    ]
    assert missing == []


@pytest.mark.parametrize("language", ["de", "ru"])
def test_no_german_or_russian_page_shows_a_sentence_of_the_english(walked, language):
    """The English of every message translated differently, long enough to be a sentence
    and without placeholders, appears on none of the pages drawn in that language."""
    with open(TRANSLATIONS.format(language), "rb") as f:
        catalogue = read_po(f)
    english = [
        m.id
        for m in catalogue
        if isinstance(m.id, str) and len(m.id) >= 16 and "%" not in m.id and m.string != m.id
    ]
    assert len(english) > 100
    found = sorted(
        {
            (url, sentence)
            for url, page in walked.pages[language]
            for sentence in english
            if sentence in shown_text(page)
        }
    )
    assert found == []


def test_the_tv_speaks_the_language_the_host_sets_for_the_table(app):
    night = Night(app, "Ana", "Ben")
    tv = app.test_client()
    spanish_tv = {"Accept-Language": "es"}
    assert '<html lang="es">' in tv.get(f"/t/{night.code}/tv", headers=spanish_tv).text
    ok(night.host_do("tv_language", language="de"))
    page = tv.get(f"/t/{night.code}/tv", headers=spanish_tv).text
    assert '<html lang="de">' in page
    assert "QR-Code zum Mitspielen" in page
    region = tv.get(f"/t/{night.code}/tv/p/all", headers={**spanish_tv, **HX}).text
    assert "Jetzt bietet jemand auf seinem Handy auf die Bank." in region  # the TV's lobby
    ok(night.host_do("tv_language", language=""))  # back to the TV's own browser
    assert '<html lang="es">' in tv.get(f"/t/{night.code}/tv", headers=spanish_tv).text


def test_the_tvs_chart_speaks_the_tables_language_and_a_phones_its_own(app):
    night = Night(app, "Ana", "Ben")
    ok(night.host_do("tv_language", language="de"))
    english = {"Accept-Language": "en"}
    viewer = app.test_client()
    tv_chart = viewer.get(f"/t/{night.code}/standings.svg?screen=tv", headers=english).text
    assert "Chips im Lauf des Abends" in tv_chart
    phone_chart = viewer.get(f"/t/{night.code}/standings.svg?screen=phone", headers=english).text
    assert "Chips over the night" in phone_chart


def test_the_host_page_offers_the_tv_every_language_and_refuses_another(app):
    night = Night(app, "Ana")
    page = night.host.get(f"/t/{night.code}/host").text
    for name in ("Español", "English", "Deutsch", "Русский"):
        assert f">{name}</option>" in page
    assert night.host_do("tv_language", language="xx").status_code == 400
    player = night.do("Ana", "tv_language", language="de")  # not a player's action
    assert player.status_code in (403, 404, 422)
    assert night.host_do("tv_language", language="de").status_code == 303


def test_the_switch_names_the_four_languages_in_themselves_and_the_choice_is_kept(client):
    page = client.get("/", headers={"Accept-Language": "de"}).text
    assert '<html lang="de">' in page
    for code, name in (("es", "Español"), ("en", "English"), ("de", "Deutsch"), ("ru", "Русский")):
        assert f'hreflang="{code}" lang="{code}"' in page and f">{name}</a>" in page
    chosen = client.get("/?lang=ru", headers={"Accept-Language": "de"})
    assert '<html lang="ru">' in chosen.text
    cookie = chosen.headers.get("Set-Cookie", "")
    assert "Expires=" in cookie  # kept on the device, not only for the browser's session
    assert '<html lang="ru">' in client.get("/", headers={"Accept-Language": "de"}).text


# --- the rules in the app ---------------------------------------------------------------------


def test_the_rules_page_is_the_games_own_in_the_readers_language(client):
    german = client.get("/rules/montones", headers=ACCEPT["de"]).text
    russian = client.get("/rules/monte", headers=ACCEPT["ru"]).text
    assert "Wer die Bank hält" in german and "So wird gespielt" in german
    assert "Ворота" in russian or "ворота" in russian
    assert "<h1>Монте</h1>" in russian
    assert client.get("/rules/nonsense", headers=ACCEPT["de"]).status_code == 404


def test_the_rules_page_opened_from_a_table_leads_back_to_its_odds(app):
    night = Night(app, "Ana", "Ben")
    phone = night.page("Ana").text
    assert f'href="/rules/montones?t={night.code}"' in phone  # from the help panel
    page = night.clients["Ana"].get(f"/rules/montones?t={night.code}", headers=ACCEPT["de"]).text
    assert f'href="/t/{night.code}#help"' in page
    other = night.clients["Ana"].get(f"/rules/monte?t={night.code}").text  # not this table's game
    assert f'href="/t/{night.code}#help"' not in other


def test_the_phone_whose_turn_it_is_says_what_it_can_do_and_why(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.open_bank("Ana", 30)
    cutter = night.cutter()
    others = [name for name in ("Ana", "Ben", "Eva") if name != cutter]
    turn = night.clients[cutter].get(f"/t/{night.code}", headers=ACCEPT["ru"]).text
    assert 'class="turn"' in turn and "Каждую сдачу снимает другой понтёр" in turn
    for name in others:
        assert 'class="turn"' not in night.page(name).text


def test_the_tv_reminds_the_room_of_the_rule_at_this_step_in_the_tables_language(app):
    night = Night(app, "Ana", "Ben")
    night.to_betting("Ana", bank=30)
    ok(night.host_do("tv_language", language="de"))
    tv = app.test_client().get(f"/t/{night.code}/tv", headers=ACCEPT["en"]).text
    hint = re.search(r'<p class="tv-status__hint">(.*?)</p>', tv, re.S)
    assert hint and "Ein Haufen gewinnt, wenn seine Karte" in html.unescape(hint.group(1))
