"""A player's name, at every table: what the screens show is what was typed, and two seated
players never look alike."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from montones.rules import RulesError
from montones.rules.games import GAMES
from montones.rules.table import table_name

GAME_NAMES = sorted(GAMES)


def seated(game: str, *names: str) -> dict:
    rules = GAMES[game]
    state = rules.new_table({})
    for i, name in enumerate(names, start=1):
        state, _events = rules.join(state, f"p{i}", name, 100)
    return state


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("Ａｎａ", "Ana"),  # fullwidth letters
        ("ﬁona", "fiona"),  # a ligature
        ("  José  ", "José"),
        ("Jose\u0301", "José"),  # a combining accent, composed
        ("Анна", "Анна"),
    ],
)
def test_a_name_is_normalised_nfkc_and_trimmed(game, typed, shown):
    state = seated(game, typed)
    assert state["players"]["p1"]["name"] == shown


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize(
    "typed",
    [
        "Ana\x1b[31m",  # a terminal escape
        "An\u200ba",  # a zero-width space
        "\u202eanA",  # a right-to-left override
        "Ana\u2066",  # a bidi isolate
        "A\nna",  # a line break
        "An\u2028a",  # a line separator
        "Ana\ue000",  # private use
        "Ana\u00ad",  # a soft hyphen (a format character)
    ],
)
def test_a_name_with_a_hidden_character_is_refused(game, typed):
    with pytest.raises(RulesError, match="letters, digits, spaces and punctuation"):
        seated(game, typed)


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Ana", "ANA"),
        ("Ana", "Аna"),  # a Cyrillic А
        ("Ana", "Ａｎａ"),  # fullwidth, the same after NFKC
        ("Ana Luz", "Ana  Luz"),  # two spaces
        ("Pepe", "Реpе"),  # Cyrillic Р and е
        ("Tomas", "Τomas"),  # a Greek Τ
    ],
)
def test_a_name_that_looks_like_a_seated_one_is_refused(game, first, second):
    with pytest.raises(RulesError, match="already at the table"):
        seated(game, first, second)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_names_that_only_differ_by_an_accent_or_a_letter_are_both_seated(game):
    state = seated(game, "José", "Jose", "Анна", "Anna", "Ana")
    assert len(state["players"]) == 5


@given(st.text(max_size=30))
def test_any_name_taken_is_normalised_and_shows_only_itself(typed):
    try:
        state = seated("montones", typed)
    except RulesError:
        return
    name = state["players"]["p1"]["name"]
    assert name == unicodedata.normalize("NFKC", name) == name.strip()
    assert 1 <= len(name) <= 24
    assert not any(unicodedata.category(ch).startswith(("C", "Zl", "Zp")) for ch in name)


# --- what a name may draw (issue 38, item 5) ------------------------------------------------


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize(
    ("typed", "refusal"),
    [
        ("Ana" + "\u0301\u0300\u0302\u0303" * 4 + "\u0304", "at most 3 marks on one letter"),
        ("Z\u0336\u0337\u0338\u0339", "at most 3 marks on one letter"),
        ("\ufdfd", "drawn as wide as a word"),  # the bismillah, one character
        ("Ana\u2e3b", "drawn as wide as a word"),  # a three-em dash
        ("\U0001242b", "drawn as wide as a word"),  # a cuneiform sign
    ],
)
def test_a_name_that_draws_far_more_than_its_letters_is_refused(game, typed, refusal):
    with pytest.raises(RulesError, match=refusal):
        seated(game, typed)


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("typed", ["Nguyễn", "Hoàng", "क्षत्रिय", "กิ่ง", "Zoë", "ピエール"])
def test_names_of_living_languages_with_their_marks_are_seated(game, typed):
    assert seated(game, typed)["players"]["p1"]["name"] == unicodedata.normalize("NFKC", typed)


@pytest.mark.parametrize(
    "typed",
    ["Fri\u202eday", "Fri\u200bday", "Friday\nnight", "Fri\x1bday", "Fri\u2028day"],
)
def test_a_tables_name_is_held_to_a_players_names_checks(typed):
    with pytest.raises(RulesError, match="letters, digits, spaces and punctuation"):
        table_name(typed)
    with pytest.raises(RulesError, match="at most 3 marks"):
        table_name("Friday" + "\u0301" * 17)
    with pytest.raises(RulesError, match="at most 60 characters"):
        table_name("F" * 61)
    assert table_name("  Ｆriday night  ") == "Friday night"
    assert table_name(None) == table_name("   ") == ""
