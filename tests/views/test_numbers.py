"""Counts as each language writes them: ``number`` agrees with Babel for every whole number."""

from __future__ import annotations

from decimal import Decimal

import pytest
from babel.numbers import format_decimal
from flask_babel import force_locale
from hypothesis import given
from hypothesis import strategies as st

from montones.config import Config
from montones.web.common import number

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
