"""A new name is refused when a player could not tell it from one at the table (by its Unicode
TR39 skeleton), when it holds an invisible character, or when it shows no letter or digit."""

import pytest

from montones import service
from tests.helpers.nights import Night


@pytest.fixture
def night(app):
    return Night(app, "Ana", "Bob")


@pytest.mark.parametrize(
    "name",
    [
        "Ana\ufe0f",  # a variation selector
        "A\u034fna",  # a combining grapheme joiner
        "An\u180ba",  # a Mongolian free variation selector
        "Ana\u17b4",  # a Khmer inherent vowel, drawn as nothing
        "\u13aana",  # Cherokee Ꭺ
        "\u0251na",  # Latin ɑ
        "ANA",
        "B\u0585b",  # Armenian օ
    ],
)
def test_a_name_that_looks_like_one_at_the_table_is_refused(app, night, name):
    with app.app_context(), pytest.raises(service.ServiceError) as refused:
        service.join(night.code, name)
    assert "is already at the table" in str(refused.value) or "letters, digits" in str(
        refused.value
    )


@pytest.mark.parametrize("name", ["\u3164\u3164", "\u2800", "...", "😀"])
def test_a_name_with_no_visible_letter_or_digit_is_refused(app, night, name):
    with app.app_context(), pytest.raises(service.ServiceError):
        service.join(night.code, name)


@pytest.mark.parametrize("name", ["Ana María", "Аня", "Eva", "José", "Анна", "Jürgen", "Bobby"])
def test_names_a_player_can_tell_apart_are_seated(app, night, name):
    with app.app_context():
        seat, _token = service.join(night.code, name)
    assert seat.name == name
