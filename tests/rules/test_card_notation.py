"""docs/rules.md, "Card codes": the two 40-card decks and their codes."""

import pytest

from montones.rules.cards import FRENCH, SPANISH, cut
from montones.rules.errors import RulesError


def test_card_notation_spanish_deck_ranks_low_to_high_and_four_suits():
    assert len(SPANISH.codes) == len(set(SPANISH.codes)) == 40
    assert [SPANISH.rank(c) for c in ("Ao", "7e", "Sc", "Cb", "Ro")] == [1, 7, 8, 9, 10]
    assert {code[1] for code in SPANISH.codes} == set("oceb")
    assert SPANISH.parse("Ro") == "Ro" and SPANISH.parse("7e") == "7e"


def test_card_notation_french_deck_ranks_low_to_high_and_four_suits():
    assert len(FRENCH.codes) == len(set(FRENCH.codes)) == 40
    assert [FRENCH.rank(c) for c in ("AS", "7S", "JH", "QH", "KC")] == [1, 7, 8, 9, 10]
    assert {code[1] for code in FRENCH.codes} == set("SHDC")
    assert not {"8S", "9S", "TS", "10S"} & set(FRENCH.codes)  # a 40-card deck: no 8, 9, 10


@pytest.mark.parametrize(
    ("deck", "code", "says"),
    [
        (SPANISH, "QH", "unknown card 'QH'"),  # a French card in a Spanish deck
        (SPANISH, "8o", "unknown card '8o'"),  # the Spanish 40-card deck has no 8
        (FRENCH, "Ro", "unknown card 'Ro'"),
        (FRENCH, "10S", "is not a card code of the French deck"),
        (SPANISH, 7, "is not a card code of the Spanish deck"),
    ],
)
def test_card_notation_refuses_what_is_not_a_card_of_the_deck(deck, code, says):
    with pytest.raises(RulesError, match=says):
        deck.parse(code)


def test_card_notation_a_deck_order_is_a_list_top_card_first_with_every_card_once():
    order = list(SPANISH.codes)
    assert SPANISH.parse_order(order) == order
    assert cut(order, 3)[:2] == order[3:5]  # lifting 3 off the top brings the 4th to the top
    with pytest.raises(RulesError, match="repeated card 'Ao'"):
        SPANISH.parse_order(["Ao", *order[:-1]])
    with pytest.raises(RulesError, match="missing Rb"):
        SPANISH.parse_order(order[:-1])
