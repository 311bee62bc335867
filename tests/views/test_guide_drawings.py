"""A first hand's guide draws what the rules need a picture for, behind "Show me": Montones'
heaps (only the bottom card counts, the banker's heap, the Rey), Monte's layouts and gate, Monte
Bank's taps on its layout; a step the words say enough for has no drawing. The drawing's words
are its text, in the player's language. (Shown, hidden and fitted at 360 px: the browser tests.)
"""

from __future__ import annotations

import re

from tests.helpers.nights import MonteBankNight, MonteNight, Night


def guide(night, name: str) -> str:
    """The #guide aside of the table page a player's phone opens, whole."""
    page = night.clients[name].get(f"/t/{night.code}").get_data(as_text=True)
    found = re.search(r'<aside id="guide".*?</aside>', page, re.S)
    assert found, "no guide on the page"
    return found.group(0)


def step(aside: str) -> str:
    return re.search(r'data-step="(\w+)"', aside).group(1)


def cards(aside: str) -> list[str]:
    return re.findall(r'data-card="(\w+)"', aside)


def drawing(aside: str) -> str:
    """The figure behind "Show me", hidden until asked for; its step is the guide's."""
    assert "data-guide-show" in aside and 'aria-controls="guide-pic"' in aside
    found = re.search(r'<figure id="guide-pic" class="guide__pic" data-step="(\w+)" hidden>', aside)
    assert found and found.group(1) == step(aside)
    return aside[found.start() :]


def test_montones_draws_the_heaps_for_the_punters_bets_and_the_bankers_close(app):
    night = Night(app, "Ana", "Ben", "Eva")
    auction = guide(night, "Ben")
    assert step(auction) == "offer"
    assert "data-guide-show" not in auction and "guide-pic" not in auction
    night.to_betting("Ana", bank=30)
    punter = guide(night, "Ben")
    assert step(punter) == "bet"
    pic = drawing(punter)
    # Three heaps turned over (their bottom cards before two backs), the middle the banker's;
    # and the Rey that beats them all.
    assert cards(pic) == ["7o", "5c", "3e", "Rb"]
    assert pic.count('class="gpic__backs" aria-hidden="true"') == 3
    assert re.search("Banker(&#39;|')s heap", pic) and "wins" in pic and "loses" in pic
    assert "beats every heap" in pic and "<figcaption>" in pic
    banker = guide(night, "Ana")
    assert step(banker) == "close" and cards(drawing(banker)) == ["7o", "5c", "3e", "Rb"]


def test_montones_drawing_in_spanish(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    night.clients["Ben"].get(f"/t/{night.code}?lang=es")
    pic = guide(night, "Ben")
    assert "Muéstramelo" in pic and "Montón del banquero" in pic and "pierde" in pic


def test_monte_draws_the_layouts_and_the_gate_for_the_bets_and_the_gate(app):
    night = MonteNight(app, "Ana", "Ben", "Eva", chips=40)
    night.betting(bank=20)
    punter = guide(night, night.punters[0])
    assert step(punter) == "bet"
    pic = drawing(punter)
    # The top layout holds a heart and wins; the bottom none; the gate a heart off the deck.
    assert cards(pic) == ["3H", "QS", "7C", "AD", "5H"]
    assert "Top layout" in pic and "Bottom layout" in pic and "The gate" in pic
    assert "the bank takes it" in pic
    banker = guide(night, night.banker)
    assert step(banker) == "gate" and cards(drawing(banker)) == cards(pic)


def test_monte_bank_draws_the_rules_pages_layout_small_for_each_tap(app):
    night = MonteBankNight(app, "Ana", "Ben", "Eva", chips=40)
    night.betting(bank=20)
    punter = guide(night, night.punters[0])
    assert step(punter) == "bet"
    pic = drawing(punter)
    assert pic.count('<figure class="mb-pic mb-pic--small"') == 3
    assert cards(pic) == ["7S", "AD", "3C", "KH"] * 3
    for caption in ("Round: the same card twice", "Cross: a card, then another", "Double: a side"):
        assert caption in pic
    # Small: no position named, only the double's side.
    assert "mb-pic__name" not in pic and pic.count("mb-pic__side--") == 1
    banker = guide(night, night.banker)
    assert step(banker) == "close" and "mb-pic--small" in drawing(banker)


def test_a_step_drawn_once_is_drawn_in_each_phones_language(app):
    # The guide of a step is drawn once per game, step and language: a phone in English and
    # one in Spanish at the same step each read their own words, in either order.
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    english = guide(night, "Ben")
    night.clients["Eva"].get(f"/t/{night.code}?lang=es")
    spanish = guide(night, "Eva")
    assert step(english) == step(spanish) == "bet"
    assert "Show me" in english and "Muéstramelo" not in english
    assert "Muéstramelo" in spanish and "Show me" not in spanish
    assert "Show me" in guide(night, "Ben")
