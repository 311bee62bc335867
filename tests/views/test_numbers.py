"""Counts as each language writes them: ``number`` agrees with Babel for every whole number."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from babel.numbers import format_decimal
from flask_babel import force_locale
from hypothesis import given
from hypothesis import strategies as st

from montones.config import Config
from montones.web.common import number
from tests.helpers.nights import Night, shown_text

COUNTS = st.integers(min_value=-(10**15), max_value=10**15)


@pytest.mark.parametrize("language", Config.LANGUAGES)
@given(value=COUNTS)
def test_a_whole_number_is_written_as_babel_writes_it(app, language, value):
    with app.test_request_context(), force_locale(language):
        assert number(value) == format_decimal(value, locale=language)


@pytest.mark.parametrize(
    ("language", "written"),
    [("en", "12,345"), ("de", "12.345"), ("es", "12.345"), ("ru", "12\xa0345")],
)
def test_a_count_is_grouped_in_the_languages_way(app, language, written):
    with app.test_request_context(), force_locale(language):
        assert number(12345) == written
        assert number(-12345) == "-" + written
        assert number(999) == "999"


def test_what_is_not_a_whole_number_goes_through_babel(app):
    with app.test_request_context(), force_locale("de"):
        assert number(Decimal("1234.5")) == "1.234,5"


# Four digits or more, standing alone (a hash's digits come with its letters).
UNGROUPED = re.compile(r"(?<![\w.,\xa0])\d{4,}(?![\w])")


def test_every_screen_writes_chips_one_way(app):
    """Bets, results, payments (a bank that ran short: what it held of a stake, what came back)
    and the last hands write thousands as the screen's language does, as the chips in the header
    do: never "1500" beside "1.500"."""
    night = Night(app, "Ana", "Ben", "Eva", chips=5000)
    night.to_betting("Ana", 2000, 3)
    night.ok("Ben", "bet", heap=1, amount=1500)
    night.ok("Eva", "bet", heap=2, amount=1200)
    night.ok("Eva", "choose", heap=3)
    night.arrange({3: "4o", 1: "6c", 2: "7e"})  # both win: the bank runs short
    night.ok("Ana", "close")
    for client in [night.host, *night.clients.values()]:
        client.get(f"/t/{night.code}?lang=de")
    pages = {name: night.page(name).get_data(as_text=True) for name in ("Ana", "Ben", "Eva")}
    pages["tv"] = night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)
    for name, page in pages.items():
        text = shown_text(page)
        assert "1.500" in text or name == "Eva", name
        if name == "Ben":  # paid last, by what was left: 800 of the 1,500 he won
            assert "Du hast 1.500 gewonnen, aber die Bank hielt nur 800" in text, text
        assert not UNGROUPED.findall(text), (name, UNGROUPED.findall(text))
