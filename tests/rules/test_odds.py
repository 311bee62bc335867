"""The bank's edge per kind of bet, counted by the engines, against figures derived by hand.

Every figure here is worked out in the docstring from docs/rules.md alone, by counting ranks and
suits; each engine gets it by enumerating deals through its own settlement functions.
"""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from montones.rules import RulesError, monte, montones
from montones.rules.cards import FRENCH
from montones.rules.games import game

# --- Montones ----------------------------------------------------------------------------------


def test_a_heap_wins_when_its_card_beats_a_banker_card_that_is_no_rey():
    """Banker's card of rank r (1 = As … 9 = Caballo; a Rey wins everything): 4 cards each, and
    (10 − r) × 4 heap cards beat it. Wins: Σ 16 (10 − r) for r = 1..9 = 16 × 45 = 720 of the
    40 × 39 = 1560 ordered pairs, so 6/13; the bank takes the other 840, 7/13."""
    bet = montones.heap_bet()
    assert bet.win == Fraction(720, 1560) == Fraction(6, 13)
    assert bet.lose == Fraction(840, 1560) == Fraction(7, 13)


def test_the_rey_de_oros_pays_2_to_1_on_a_heap():
    """The Rey de oros beats any banker's card but a Rey: 36 of the 1560 pairs pay 2 to 1."""
    bet = montones.heap_bet()
    assert bet.chance(2) == Fraction(36, 1560) == Fraction(3, 130)
    assert bet.chance(1) == Fraction(720 - 36, 1560)


def test_the_banks_edge_on_a_heap_bet_is_7_in_130():
    """Per chip: 684 pairs pay 1, 36 pay 2, 840 lose 1: (840 − 684 − 72) / 1560 = 84/1560."""
    assert montones.heap_bet().edge == Fraction(84, 1560) == Fraction(7, 130)
    assert f"{float(montones.heap_bet().edge):.1%}" == "5.4%"


def test_a_bet_on_the_bankers_card_wins_when_the_bank_wins_and_is_never_double():
    """It wins the 840 pairs the bank wins and loses the 720 a heap wins, Rey de oros or not:
    (720 − 840) / 1560 = −1/13. The bank gives the punter 1/13 on it: ties go to the bank."""
    bet = montones.banker_card_bet()
    assert bet.chances == ((-1, Fraction(6, 13)), (1, Fraction(7, 13)))
    assert bet.edge == Fraction(-1, 13)


def test_pagando_y_cobrando_is_even_money_never_double():
    """A heap bet without the Rey de oros' double: (840 − 720) / 1560 = 1/13."""
    bet = montones.whole_bank_bet()
    assert bet.chances == ((-1, Fraction(7, 13)), (1, Fraction(6, 13)))
    assert bet.edge == Fraction(1, 13)


def test_each_montones_bet_is_named_as_the_engine_names_it():
    assert set(montones.table_odds(montones.new_table())) == {"heap", "against", "whole_bank"}


# --- Monte, a fresh deck -----------------------------------------------------------------------


def test_a_four_card_layout_wins_when_either_card_has_the_gates_suit():
    """The layout's second card shares the first's suit 9 times in 39; then 8 of the other 38
    cards are gates of that suit. Otherwise two suits: 18 gates of 38.
    P(win) = (9 × 8 + 30 × 18) / (39 × 38) = 612/1482 = 102/247; edge 1 − 2 × 102/247 = 43/247."""
    bet = monte.fresh_layout_bet(two_card=False)
    assert bet.win == Fraction(612, 1482) == Fraction(102, 247)
    assert bet.edge == Fraction(43, 247)
    assert f"{float(bet.edge):.1%}" == "17.4%"


def test_a_two_card_layout_wins_only_on_its_own_suit():
    """One card: 9 of the 39 other cards are gates of its suit. Edge (30 − 9) / 39 = 7/13."""
    bet = monte.fresh_layout_bet(two_card=True)
    assert bet.chances == ((-1, Fraction(30, 39)), (1, Fraction(9, 39)))
    assert bet.edge == Fraction(7, 13)


def test_a_generous_banker_pays_3_to_1_when_both_layouts_and_the_gate_share_a_suit():
    """The top card shares the bottom card's suit 9 times in 39, then 8 gates of 38 make the
    triple: 72 of 1482 deals pay 3. The bottom card's suit still wins 9/39 = 342/1482 in all, so
    270 pay 1, and 1140 lose: edge (1140 − 270 − 216) / 1482 = 654/1482 = 109/247."""
    bet = monte.fresh_layout_bet(two_card=True, generous=True)
    assert bet.chance(3) == Fraction(72, 1482)
    assert bet.chance(1) == Fraction(270, 1482)
    assert bet.lose == Fraction(1140, 1482)
    assert bet.edge == Fraction(109, 247)


def test_a_generous_banker_needs_two_card_monte_for_the_odds_too():
    with pytest.raises(RulesError):
        monte.fresh_layout_bet(two_card=False, generous=True)


# --- Monte, given the cards seen ---------------------------------------------------------------


def test_a_layouts_edge_counts_the_unseen_cards_that_win_it():
    """Layouts 7S 2S and KH QD, nothing else seen: 36 unseen, 8 spades win the bottom, 9 hearts
    + 9 diamonds the top. Bottom (28 − 8)/36 = 5/9; top (18 − 18)/36 = 0."""
    bottom, top = ["7S", "2S"], ["KH", "QD"]
    unseen = [c for c in FRENCH.codes if c not in bottom + top]
    bets = monte.coup_bets(bottom, top, unseen, {"two_card": False})
    assert bets["bottom"].edge == Fraction(5, 9)
    assert bets["top"].edge == 0


def test_a_layout_can_favour_the_punter_late_in_the_deck():
    """Unseen: 3 hearts and a club. The heart layout wins 3 of 4: edge (1 − 3)/4 = −1/2."""
    bets = monte.coup_bets(["AH"], ["2C"], ["3H", "4H", "5H", "6C"], {"two_card": True})
    assert bets["bottom"].edge == Fraction(-1, 2)
    assert bets["top"].edge == Fraction(1, 2)


def test_the_generous_3_to_1_counts_for_both_layouts_of_one_suit():
    """Bottom AH, top 2H, unseen 3H 4C: the 3H gate pays 3 to both, 4C loses: (1 − 3)/2 = −1."""
    options = {"two_card": True, "generous": True}
    bets = monte.coup_bets(["AH"], ["2H"], ["3H", "4C"], options)
    assert (
        bets["bottom"].chances == bets["top"].chances == ((-1, Fraction(1, 2)), (3, Fraction(1, 2)))
    )
    assert bets["bottom"].edge == -1


@given(st.permutations(FRENCH.codes), st.integers(0, 31), st.booleans())
def test_a_layouts_edge_is_lose_minus_win_over_the_unseen(deck, seen, two_card):
    """Without the 3 to 1, a layout's edge is (losing gates − winning gates) / unseen, the
    winning gates being the "18 of 36" count every layout shows."""
    size = 1 if two_card else 2
    bottom, top = deck[:size], deck[size : 2 * size]
    unseen = deck[2 * size + seen :]
    bets = monte.coup_bets(bottom, top, unseen, {"two_card": two_card})
    for name, layout in (("bottom", bottom), ("top", top)):
        win = monte.winning_unseen(layout, unseen)
        assert bets[name].edge == Fraction(len(unseen) - 2 * win, len(unseen))


# --- a table's figures -------------------------------------------------------------------------


def test_a_monte_table_shows_the_coup_odds_only_while_bets_are_open():
    state = monte.new_table({"two_card": True, "generous": True})
    assert monte.table_odds(state) == {"layout": monte.fresh_layout_bet(True, True), "coup": {}}
    state["phase"] = monte.BETTING
    state["coup"] = {"bottom": ["AH"], "top": ["2C"]}
    state["deck"] = ["3H", "4H", "5H", "6C"]
    assert monte.table_odds(state)["coup"]["bottom"].edge == Fraction(-1, 2)


def test_a_table_of_no_known_game_has_no_odds_rather_than_another_games():
    with pytest.raises(RulesError, match="no game called 'poker'"):
        game("poker").table_odds({"game": "poker"})
