"""The help panel on a phone: the bank's edge on each kind of bet, as the rules engine counts it,
in English and in Spanish. Expected figures are the hand-derived ones of tests/rules/test_odds.py.
"""

from __future__ import annotations

import copy
import html
import re

import pytest

from montones import service
from montones.rules.cards import FRENCH
from tests.helpers.nights import HX, MonteNight, Night, put_state

SPANISH = {"Accept-Language": "es-ES,es;q=0.9"}
ENGLISH = {"Accept-Language": "en"}
NBSP = "\xa0"


def edges(response) -> dict[str, str]:
    """The figure of each kind of bet in the panel, as text, by its data-edge name."""
    text = response.get_data(as_text=True)
    return {
        name: re.sub(r"[ \t\r\n]+", " ", html.unescape(re.sub(r"<[^>]+>", "", body))).strip()
        for name, body in re.findall(r'data-edge="([^"]+)">(.*?)</dd>', text, re.S)
    }


def between(text: str, start: str, end: str) -> str:
    return text[text.index(start) : text.index(end, text.index(start))]


# --- Montones ----------------------------------------------------------------------------------


@pytest.fixture
def montones_night(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=20)
    return night


def test_the_montones_panel_gives_the_banks_edge_on_each_bet_in_english(montones_night):
    page = montones_night.clients["Ben"].get(f"/t/{montones_night.code}", headers=ENGLISH)
    assert "How to play · the odds" in page.get_data(as_text=True)
    assert edges(page) == {
        "heap": "the bank's edge 5.4% · wins 6 times in 13, 2 to 1 on the Rey de oros",
        "against": "the punter's edge 7.7% · wins 7 times in 13: equal cards and a Rey win it",
        "whole_bank": "the bank's edge 7.7% · wins 6 times in 13, never double",
    }


def test_the_montones_panel_is_in_spanish_with_a_decimal_comma(montones_night):
    page = montones_night.clients["Ben"].get(f"/t/{montones_night.code}", headers=SPANISH)
    assert "Cómo se juega · las probabilidades" in page.get_data(as_text=True)
    assert edges(page) == {
        "heap": f"ventaja de la banca: 5,4{NBSP}% · gana 6 veces de cada 13, "
        "el Rey de oros paga 2 a 1",
        "against": f"ventaja del punto: 7,7{NBSP}% · gana 7 veces de cada 13: "
        "la ganan las cartas iguales y el Rey",
        "whole_bank": f"ventaja de la banca: 7,7{NBSP}% · gana 6 veces de cada 13, nunca doble",
    }


def test_the_panel_is_no_live_region_so_an_update_never_closes_it(montones_night):
    """It sits between the felt and the bar, and no fragment a phone fetches carries it."""
    client, url = montones_night.clients["Ben"], f"/t/{montones_night.code}"
    text = client.get(url).get_data(as_text=True)
    assert (
        text.index('id="felt"')
        < text.index('<details class="help" id="help">')
        < text.index('id="bar"')
    )
    assert "</section>" in between(text, 'id="felt"', '<details class="help" id="help">')
    for region in ("all", "seat", "felt", "odds"):
        fragment = client.get(f"{url}/p/{region}", headers=HX).get_data(as_text=True)
        assert '<details class="help" id="help">' not in fragment
        assert "data-edge" not in fragment  # Montones' odds never change: nothing to push


def test_a_montones_tap_answers_without_the_panel(montones_night):
    response = montones_night.do("Ben", "bet", heap=1, amount=5)
    assert response.status_code == 200
    assert "How to play" not in response.get_data(as_text=True)


# --- Monte -------------------------------------------------------------------------------------


def stack_for_cut(night, bottom, top, position=20):
    """Stack the shuffled deck so that the cut at ``position`` deals these layouts (test setup,
    before any page of the coup is drawn): the cut puts ``order[position:]`` on top."""
    with night.app.app_context():
        table = service.get_table(night.code)
        state = copy.deepcopy(table.state)
        rest = [c for c in FRENCH.codes if c not in bottom + top]
        state["deck"] = rest[: position - 2] + bottom[::-1] + top + rest[position - 2 :]
        put_state(table, state)


@pytest.fixture
def monte_night(app):
    """Four-card Monte, betting on 7S 2S (bottom) and KH QD (top), 36 cards unseen."""
    night = MonteNight(app, "Ana", "Ben", "Eva")
    night.draw()
    night.put_up(50)
    stack_for_cut(night, ["7S", "2S"], ["KH", "QD"])
    night.cut(position=20)
    coup = night.state()["coup"]
    assert (coup["bottom"], coup["top"]) == (["7S", "2S"], ["KH", "QD"])
    return night


def test_the_monte_panel_gives_each_layouts_edge_given_the_cards_seen(monte_night):
    """8 spades of 36 win the bottom: (28 − 8)/36 = 55.6%; 18 hearts and diamonds the top: 0."""
    punter = monte_night.punters[0]
    page = monte_night.clients[punter].get(f"/t/{monte_night.code}", headers=ENGLISH)
    assert edges(page) == {
        "layout": "the bank's edge 17.4% · wins 102 times in 247",
        "top": "no edge either way · 18 of 36 win",
        "bottom": "the bank's edge 55.6% · 8 of 36 win",
    }
    assert "This coup, with the cards seen now" in page.get_data(as_text=True)


def test_the_monte_panel_is_in_spanish(monte_night):
    punter = monte_night.punters[0]
    page = monte_night.clients[punter].get(f"/t/{monte_night.code}", headers=SPANISH)
    assert edges(page) == {
        "layout": f"ventaja de la banca: 17,4{NBSP}% · gana 102 veces de cada 247",
        "top": "sin ventaja para nadie · ganan 18 de 36",
        "bottom": f"ventaja de la banca: 55,6{NBSP}% · ganan 8 de 36",
    }


def test_the_coup_odds_are_a_fragment_for_htmx_and_the_page_otherwise(monte_night):
    punter = monte_night.punters[0]
    url = f"/t/{monte_night.code}/p/odds"
    fragment = monte_night.clients[punter].get(url, headers={**HX, **ENGLISH})
    text = fragment.get_data(as_text=True)
    assert text.lstrip().startswith('<div id="odds"')
    assert "<details" not in text
    assert set(edges(fragment)) == {"top", "bottom"}
    assert "HX-Request" in fragment.headers["Vary"]
    page = monte_night.clients[punter].get(url, headers=ENGLISH)
    assert "<details" in page.get_data(as_text=True)
    assert set(edges(page)) == {"layout", "top", "bottom"}


def test_a_monte_tap_answers_with_my_regions_and_the_stream_brings_the_odds(monte_night):
    """The odds and the felt are the same on every phone: the tapping phone gets them from its
    stream, rendered once for all, and the answer to its tap holds its own regions only."""
    punter = monte_night.punters[0]
    response = monte_night.tap(punter, "top", 5)
    assert response.status_code == 200
    text = response.get_data(as_text=True)
    assert 'id="status"' in text and 'id="bar"' in text
    assert 'id="odds"' not in text and 'id="felt"' not in text
    update = first_update(monte_night, punter)
    assert "no edge either way · 18 of 36 win" in update


def test_the_coup_odds_wait_for_the_bets(app):
    night = MonteNight(app, "Ana", "Ben")
    night.draw()
    page = night.clients["Ana"].get(f"/t/{night.code}", headers=ENGLISH)
    assert set(edges(page)) == {"layout"}
    assert "While bets are open, each layout's edge" in page.get_data(as_text=True)


def test_two_card_monte_with_a_generous_banker_counts_the_3_to_1(app):
    night = MonteNight(app, "Ana", "Ben", two_card=True, generous=True)
    night.draw()
    english = night.clients["Ana"].get(f"/t/{night.code}", headers=ENGLISH)
    spanish = night.clients["Ana"].get(f"/t/{night.code}", headers=SPANISH)
    assert edges(english)["layout"] == (
        "the bank's edge 44.1% · wins 3 times in 13, 3 to 1 12 times in 247"
    )
    assert edges(spanish)["layout"] == (
        f"ventaja de la banca: 44,1{NBSP}% · gana 3 veces de cada 13, 3 a 1 12 veces de cada 247"
    )


def test_two_card_monte_without_the_3_to_1(app):
    night = MonteNight(app, "Ana", "Ben", two_card=True)
    night.draw()
    page = night.clients["Ana"].get(f"/t/{night.code}", headers=ENGLISH)
    assert edges(page)["layout"] == "the bank's edge 53.8% · wins 3 times in 13"


# --- the live stream ----------------------------------------------------------------------------


def first_update(night, name) -> str:
    """What a phone's stream sends first to a page that showed version 0: the shared blocks."""
    response = night.clients[name].get(
        f"/t/{night.code}/stream?screen=phone&v=0", headers=ENGLISH, buffered=False
    )
    try:
        for chunk in response.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if "event: update" in text:
                return text
    finally:
        response.close()
    raise AssertionError("the stream sent no felt")


def test_the_stream_pushes_the_coup_odds_to_every_monte_phone(monte_night):
    update = first_update(monte_night, monte_night.punters[0])
    assert '<div hx-swap-oob="morph" id="odds"' in update
    assert "edge 55.6% · 8 of 36 win" in update


def test_the_stream_pushes_no_odds_to_a_montones_phone(montones_night):
    update = first_update(montones_night, "Ben")
    assert 'id="felt"' in update and 'id="odds"' not in update
