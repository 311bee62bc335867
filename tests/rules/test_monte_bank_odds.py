"""The odds of Monte Bank's bets, counted from the engine's own deciding cards."""

from fractions import Fraction

import pytest

from montones.rules import monte_bank


@pytest.mark.parametrize("size", [1, 2, 3])
def test_without_the_levy_no_bet_has_an_edge_the_four_positions_being_equal(size):
    bets = monte_bank.layout_odds(monte_bank.ODDS_LAYOUTS[size], levy=False)
    assert bets["round"].win == Fraction(1, 4)
    assert all(bet.edge == 0 for bet in bets.values())
    assert all(bets[kind].win == Fraction(1, 2) for kind in bets if kind != "round")


@pytest.mark.parametrize(
    ("size", "round_edge", "double_edge"),
    [
        # No stack: 3 live cards of 36 unseen; a round wins at the first card 3 times in 36 and
        # gives a quarter of its 3 to 1: 3/36 × 3/4 = 1/16. A double, 6 cards: 6/36 × 1/4.
        (1, Fraction(1, 16), Fraction(1, 24)),
        # A pair: 2 live cards of 35 unseen. 2/35 × 3/4 and 4/35 × 1/4.
        (2, Fraction(3, 70), Fraction(1, 35)),
        # A triple: 1 live card of 34 unseen. 1/34 × 3/4 and 2/34 × 1/4.
        (3, Fraction(3, 136), Fraction(1, 68)),
    ],
)
def test_with_the_levy_the_edge_is_the_levy_on_first_card_wins(size, round_edge, double_edge):
    bets = monte_bank.layout_odds(monte_bank.ODDS_LAYOUTS[size], levy=True)
    assert bets["round"].edge == round_edge
    assert bets["double"].edge == double_edge


def test_a_cross_of_two_singles_goes_by_plain_rank_in_its_odds_too():
    # With a pair at ul, a cross of singles is decided by 6 cards (3 of each rank), and won at the
    # first card by 3 of the 35 unseen; a cross of the stack against a single by 2 of 35.
    bets = monte_bank.layout_odds(monte_bank.ODDS_LAYOUTS[2], levy=True)
    assert bets["cross"].edge == Fraction(3, 35) / 4
    assert bets["cross_stack"].edge == Fraction(2, 35) / 4


def test_the_odds_of_the_deal_in_play_follow_its_layout():
    state = monte_bank.new_table()
    assert monte_bank.table_odds(state)["deal"] == {}
    state = {
        **state,
        "phase": monte_bank.BETTING,
        "deal": {"layout": monte_bank.ODDS_LAYOUTS[3], "bets": []},
    }
    shown = monte_bank.table_odds(state)
    assert shown["stack"] == 3 and shown["deal"]["round"].edge == Fraction(3, 136)
