"""The card faces of templates/cards/_macros.html, rendered inside the app."""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from flask import render_template_string
from jinja2.exceptions import UndefinedError

from montones.rules.cards import FRENCH, SPANISH

SPRITE = Path(__file__).resolve().parents[2] / "static" / "img" / "suits.svg"
SVG = "{http://www.w3.org/2000/svg}"


def render(app, source, lang="en", **context):
    """A card as drawn, its sprite's address without the version (``?v=``, montones/web/assets.py)."""
    with app.test_request_context(headers={"Accept-Language": lang}):
        html = render_template_string(
            '{% from "cards/_macros.html" import card, card_back, card_name %}' + source, **context
        )
    return re.sub(r"suits\.svg\?v=[0-9a-f]{12}#", "suits.svg#", html)


def aria_label(html):
    return re.search(r'aria-label="([^"]*)"', html).group(1)


@pytest.mark.parametrize("code", SPANISH.codes + FRENCH.codes)
def test_every_card_renders_as_one_accessible_svg(app, code):
    html = render(app, "{{ card(code) }}", code=code)
    root = ET.fromstring(html)
    assert root.tag == SVG + "svg"
    assert root.get("role") == "img"
    assert root.get("class") == "card card--m"
    assert root.get("data-card") == code
    assert root.get("viewBox") == "0 0 100 150"
    suit = code[1]
    hrefs = [use.get("href") for use in root.iter(SVG + "use")]
    assert f"/static/img/suits.svg#{suit}" in hrefs
    # Never only the code: the label is words, the face draws the suit.
    assert aria_label(html) not in ("", code)


def test_all_eighty_labels_are_distinct_in_both_languages(app):
    codes = SPANISH.codes + FRENCH.codes
    for lang in ("en", "es"):
        labels = {render(app, "{{ card_name(code) }}", lang, code=code) for code in codes}
        assert len(labels) == 80


@pytest.mark.parametrize(
    ("code", "english", "spanish"),
    [
        ("Ro", "Rey of oros", "Rey de oros"),
        ("Ao", "As of oros", "As de oros"),
        ("7e", "7 of espadas", "7 de espadas"),
        ("Sc", "Sota of copas", "Sota de copas"),
        ("Cb", "Caballo of bastos", "Caballo de bastos"),
        ("QH", "Queen of hearts", "Reina de corazones"),
        ("KS", "King of spades", "Rey de picas"),
        ("JD", "Jack of diamonds", "Jota de diamantes"),
        ("AC", "Ace of clubs", "As de tréboles"),
        ("7C", "7 of clubs", "7 de tréboles"),
    ],
)
def test_aria_label_says_the_card_in_words(app, code, english, spanish):
    assert aria_label(render(app, "{{ card(code) }}", "en", code=code)) == english
    assert aria_label(render(app, "{{ card(code) }}", "es", code=code)) == spanish
    assert render(app, "{{ card_name(code) }}", "es", code=code) == spanish


@pytest.mark.parametrize(
    ("code", "index"),
    [("Ao", "1"), ("7c", "7"), ("Se", "10"), ("Cb", "11"), ("Ro", "12"), ("AS", "A"), ("QH", "Q")],
)
def test_corners_print_the_traditional_index(app, code, index):
    root = ET.fromstring(render(app, "{{ card(code) }}", code=code))
    assert [t.text for t in root.iter(SVG + "text")] == [index, index]


def test_court_cards_get_a_figure_and_number_cards_pips(app):
    figures = {"S": "fig-jack", "C": "fig-knight", "R": "fig-king", "Q": "fig-queen"}
    for code in ("So", "Cc", "Re", "QH"):
        html = render(app, "{{ card(code) }}", code=code)
        assert f"suits.svg#{figures[code[0]]}" in html
    html = render(app, "{{ card('5c') }}")
    assert html.count("suits.svg#c") == 2 + 5 + 1  # corners, pips, the single sign for size s


@pytest.mark.parametrize(("size", "css"), [("s", "card--s"), ("l", "card--l"), ("xl", "card--xl")])
def test_sizes_are_css_classes(app, size, css):
    assert f'class="card {css}"' in render(app, "{{ card('Ro', size) }}", size=size)


def test_label_replaces_the_accessible_name(app):
    html = render(app, "{{ card('Ro', label='The banker <holds> Rey de oros') }}")
    assert 'aria-label="The banker &lt;holds&gt; Rey de oros"' in html


def test_flip_wraps_back_and_face_face_down(app):
    html = render(app, "{{ card('QH', 'xl', flip=true) }}", "es")
    root = ET.fromstring(html)
    assert root.tag == "div"
    assert root.get("class") == "flip card--xl"
    (inner,) = root
    back, front = inner
    assert back.get("class") == "card card--xl flip__back"
    assert back.get("aria-hidden") == "true"
    assert front.get("class") == "card card--xl flip__front"
    assert front.get("aria-label") == "Reina de corazones"
    assert "is-turned" not in html


def test_card_back(app):
    html = render(app, "{{ card_back('s') }}", "es")
    root = ET.fromstring(html)
    assert root.get("class") == "card card--s"
    assert root.get("aria-label") == "Carta boca abajo"
    # Drawn from the page's own symbol (base.html), never from the sprite file.
    assert 'href="#card-back"' in html and "suits.svg" not in html
    assert aria_label(render(app, "{{ card_back() }}")) == "Card face down"


@pytest.mark.parametrize("code", ["", "Z", "Xo", "Jo", "So ", "Sh", "1S", "ro", None, 7])
def test_unknown_code_raises(app, code):
    with pytest.raises(UndefinedError, match="unknown card code"):
        render(app, "{{ card(code) }}", code=code)


def test_unknown_size_raises(app):
    with pytest.raises(UndefinedError, match="unknown card size"):
        render(app, "{{ card('Ro', 'xxl') }}")


def test_sprite_has_every_symbol_and_no_raster():
    root = ET.parse(SPRITE).getroot()
    ids = {symbol.get("id") for symbol in root.iter(SVG + "symbol")}
    assert set("ocebSHDC") <= ids
    back = (SPRITE.parents[2] / "templates" / "cards" / "_back.html").read_text()
    assert '<symbol id="card-back"' in back and "<image" not in back  # the back, in each page
    text = SPRITE.read_text()
    assert "<image" not in text and "data:" not in text and "@font-face" not in text
    assert len(text.encode()) < 12_000
