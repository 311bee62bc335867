"""One test per rule of docs/rules.md, "Monte Bank"."""

import random

import pytest

from montones.rules import RulesError, chance, monte_bank
from montones.rules.cards import FRENCH
from montones.rules.fairness import commitment
from montones.rules.scenario import replay
from tests.helpers.tables import NOW, MonteBankTable, monte_bank_deck

# The worked example's layout: a pair of 7s at ul, AD, 3C, KH.
EXAMPLE = monte_bank_deck(["7S", "7C"], "AD", "3C", "KH", ["JC", "AH", "7H", "6C", "KD"])
PLAIN = monte_bank_deck(["5S"], "JD", "3C", "KH", ["2S", "5H", "KD"])


def layout_of(ul, ur, ll, lr):
    return {"ul": list(ul), "ur": [ur], "ll": [ll], "lr": [lr]}


def total(state):
    return sum(monte_bank.balances(state).values())


def betting(deck=PLAIN, bank=50, players=("anna", "ben", "cid"), **settings):
    t = MonteBankTable(players=players, **settings)
    t.start(deck, bank=bank)
    return t


# --- Bank, banker, deal ----------------------------------------------------------------------


def test_first_banker_draws_the_highest_card_king_high_ace_low():
    t = MonteBankTable()
    order = ["QS", "KH", "AD"] + [c for c in FRENCH.codes if c not in ("QS", "KH", "AD")]
    t.do(monte_bank.draw_for_bank, deck=order)
    assert t.state["banker"] == "ben"


def test_equal_highest_draws_draw_again():
    t = MonteBankTable()
    order = ["KS", "2H", "KD", "3C", "5C"]
    t.do(monte_bank.draw_for_bank, deck=order + [c for c in FRENCH.codes if c not in order])
    assert t.state["draws"][-1] == {"anna": "3C", "cid": "5C"}
    assert t.state["banker"] == "cid"


def test_the_banker_puts_up_a_bank_of_any_size_up_to_their_chips():
    t = MonteBankTable()
    t.do(monte_bank.draw_for_bank, deck=["KS"] + [c for c in FRENCH.codes if c != "KS"])
    with pytest.raises(RulesError, match="over them"):
        t.do(monte_bank.put_up_bank, "anna", 101, NOW)
    t.do(monte_bank.put_up_bank, "anna", 100, NOW)
    assert t.state["bank"] == 100 and t.chips("anna") == 0


@pytest.mark.parametrize(
    ("amount", "words"),
    [
        (0, "a bank must be a whole number of chips, at least 1"),
        (2.5, "a bank must be a whole number of chips, at least 1"),
        (4, "a bank must hold at least the table minimum of 5"),
    ],
)
def test_a_bank_is_whole_chips_and_at_least_the_table_minimum(amount, words):
    t = MonteBankTable(min_bet=5)
    t.do(monte_bank.draw_for_bank, deck=["KS"] + [c for c in FRENCH.codes if c != "KS"])
    before = t.state
    with pytest.raises(RulesError) as refused:
        t.do(monte_bank.put_up_bank, "anna", amount, NOW)
    assert str(refused.value) == words
    assert t.state is before and t.state["bank"] == 0 and t.chips("anna") == 100
    t.do(monte_bank.put_up_bank, "anna", 5, NOW)
    assert t.state["bank"] == 5 and t.chips("anna") == 95


def test_each_bet_is_at_least_the_minimum_and_at_most_the_bank():
    t = betting(bank=10, min_bet=2)
    with pytest.raises(RulesError, match="minimum is 2"):
        t.do(monte_bank.bet, "ben", "round ul", 1)
    with pytest.raises(RulesError, match="the bank holds 10"):
        t.do(monte_bank.bet, "ben", "round ul", 11)
    t.do(monte_bank.bet, "ben", "round ul", 10)


def test_the_sum_of_the_bets_may_exceed_the_bank():
    t = betting(bank=10)
    t.do(monte_bank.bet, "ben", "round ul", 10)
    t.do(monte_bank.bet, "cid", "round ur", 10)
    t.do(monte_bank.bet, "ben", "double upper", 10)
    assert monte_bank.balances(t.state)["stakes"] == 30


def test_the_banker_may_say_aces_between_deals_and_not_while_bets_are_open():
    t = betting()
    with pytest.raises(RulesError):
        t.do(monte_bank.aces, "anna")
    t.do(monte_bank.close_bets, "anna")
    with pytest.raises(RulesError, match="only the banker"):
        t.do(monte_bank.aces, "ben")
    t.do(monte_bank.aces, "anna")
    assert t.state["passed"]["why"] == "aces" and t.state["banker"] == "ben"
    assert t.chips("anna") == 100


def test_a_broken_bank_passes_at_once():
    t = betting(bank=4)
    t.do(monte_bank.bet, "ben", "round ul", 4)  # 5H matches ul: owed 12, paid the 4 there are
    t.do(monte_bank.close_bets, "anna")
    assert t.state["bank"] == 0
    assert t.state["passed"]["why"] == "broken"
    assert t.state["phase"] == monte_bank.BANK and t.state["banker"] == "ben"


def test_a_table_limit_of_deals_per_bank_passes_the_bank_after_the_last():
    t = betting(deals_per_bank=2)
    t.do(monte_bank.close_bets, "anna")
    assert t.state["phase"] == monte_bank.DEAL_OVER
    t.do(monte_bank.next_deal, "anna", NOW, deck=PLAIN[-1:] + PLAIN[:-1])
    t.cut()
    t.do(monte_bank.close_bets, "anna")
    assert t.state["passed"]["why"] == "deals done" and t.state["passed"]["deals"] == 2
    assert t.state["banker"] == "ben"


def test_no_limit_of_deals_by_default():
    assert monte_bank.new_table()["settings"]["deals_per_bank"] is None


def test_the_bank_always_passes_to_the_left_and_the_night_ends_when_all_have_banked():
    t = betting()
    order = []
    while t.state["phase"] != monte_bank.FINISHED:
        order.append(t.state["banker"])
        if t.state["phase"] == monte_bank.BANK:
            t.do(monte_bank.put_up_bank, t.state["banker"], 10, NOW)
            while t.state["phase"] == monte_bank.CUT:  # a void deal is cut again
                t.cut()
        t.do(monte_bank.close_bets, t.state["banker"])
        t.do(monte_bank.aces, t.state["banker"])
    assert order == ["anna", "ben", "cid"]


def test_the_punter_on_the_bankers_right_cuts():
    t = MonteBankTable(players=("anna", "ben", "cid", "dan"))
    t.do(
        monte_bank.draw_for_bank,
        deck=["2S", "KS"] + [c for c in FRENCH.codes if c not in ("2S", "KS")],
    )
    assert t.state["banker"] == "ben"
    t.do(monte_bank.put_up_bank, "ben", 20, NOW)
    assert t.state["cutter"] == "anna"  # the previous seat in joining order
    with pytest.raises(RulesError, match="not your turn to cut"):
        t.do(monte_bank.cut_deck, "cid", 5, NOW)


def test_each_deal_is_a_fresh_shuffle_sealed_before_its_cut():
    t = MonteBankTable()
    t.do(monte_bank.draw_for_bank, deck=["KS"] + [c for c in FRENCH.codes if c != "KS"])
    t.do(monte_bank.put_up_bank, "anna", 20, NOW)
    sealed = t.state["shuffle"]
    assert monte_bank.live_commitment(t.state) == sealed["commitment"]
    assert commitment(sealed["order"], sealed["salt"]) == sealed["commitment"]
    t.do(monte_bank.cut_deck, "cid", 7, NOW)
    while t.state["phase"] == monte_bank.CUT:  # a void deal: shuffled and sealed again
        t.do(monte_bank.cut_deck, "cid", 7, NOW)
    t.do(monte_bank.close_bets, "anna")
    assert monte_bank.live_commitment(t.state) is None  # the deal is done: its seal is opened
    t.do(monte_bank.next_deal, "anna", NOW)
    assert t.state["shuffle"]["commitment"] != sealed["commitment"]


def test_ul_is_the_bottom_card_ur_the_next_ll_the_top_card_lr_the_next():
    dealt = monte_bank.deal_layout(PLAIN)
    assert dealt["layout"] == layout_of(["5S"], "JD", "3C", "KH")
    assert dealt["void"] is None and len(dealt["rest"]) == 36


def test_a_card_of_uls_rank_goes_onto_its_stack_a_pair_then_a_triple():
    pair = monte_bank.deal_layout(monte_bank_deck(["7S", "7C"], "AD", "3C", "KH"))
    assert pair["layout"]["ul"] == ["7S", "7C"] and pair["layout"]["ur"] == ["AD"]
    triple = monte_bank.deal_layout(monte_bank_deck(["7S", "7C", "7H"], "AD", "3C", "KH"))
    assert triple["layout"]["ul"] == ["7S", "7C", "7H"] and triple["layout"]["ur"] == ["AD"]
    assert len(triple["rest"]) == 34


def test_a_fourth_card_of_the_stacks_rank_makes_the_deal_void():
    dealt = monte_bank.deal_layout(monte_bank_deck(["7S", "7C", "7H", "7D"], None, None, None))
    assert dealt["void"] == monte_bank.FOUR_OF_A_RANK


@pytest.mark.parametrize(
    ("ll", "lr", "why", "cards"),
    [
        ("3C", "3H", monte_bank.LOWER_PAIR, ["3C", "3H"]),
        ("5H", "QC", monte_bank.LOWER_MATCHES_UPPER, ["5H", "5S"]),
        ("QC", "JS", monte_bank.LOWER_MATCHES_UPPER, ["JS", "JD"]),
    ],
)
def test_a_deal_is_void_when_the_lower_cards_pair_or_match_an_upper_card(ll, lr, why, cards):
    dealt = monte_bank.deal_layout(monte_bank_deck(["5S"], "JD", ll, lr))
    assert dealt["void"] == why
    assert monte_bank.void_cards(dealt["layout"], why) == cards  # what the screens name


def test_the_cards_of_a_void_stack_are_the_four_of_its_rank():
    dealt = monte_bank.deal_layout(monte_bank_deck(["7S", "7C", "7H", "7D"], None, None, None))
    assert monte_bank.void_cards(dealt["layout"], dealt["void"]) == ["7S", "7C", "7H", "7D"]


def test_a_void_deal_is_gathered_shuffled_sealed_and_cut_again_and_says_why():
    t = MonteBankTable()
    void = monte_bank_deck(["5S"], "JD", "3C", "3H")
    t.do(monte_bank.draw_for_bank, deck=["KS"] + [c for c in FRENCH.codes if c != "KS"])
    t.do(monte_bank.put_up_bank, "anna", 20, NOW, deck=void[-1:] + void[:-1])
    first = t.state["shuffle"]["commitment"]
    events = t.cut()
    assert [e["type"] for e in events] == ["cut", monte_bank.SETTLES, "shuffled"]
    assert t.state["phase"] == monte_bank.CUT and t.state["cutter"] == "cid"
    assert t.state["shuffle"]["commitment"] != first
    assert monte_bank.view(t.state)["void"]["why"] == monte_bank.LOWER_PAIR
    assert monte_bank.view(t.state)["void"]["cards"] == ["3C", "3H"]
    assert t.state["deals"] == 0  # a void deal is no deal of the bank
    with pytest.raises(RulesError, match="bets are closed"):
        t.do(monte_bank.bet, "ben", "round ul", 1)


def test_after_the_bets_the_cards_are_turned_from_the_bottom_until_the_last_bet_is_decided():
    t = betting(EXAMPLE)
    t.do(monte_bank.bet, "ben", "cross ll lr", 5)
    t.do(monte_bank.close_bets, "anna")
    assert t.state["last_deal"]["result"]["turned"] == ["JC", "AH", "7H", "6C", "KD"]


# --- When a position is matched --------------------------------------------------------------


def test_no_stack_a_position_is_matched_by_any_card_of_its_rank():
    layout = layout_of(["5S"], "JD", "3C", "KH")
    assert sorted(monte_bank.matching(layout, "ul")) == ["5C", "5D", "5H"]
    assert sorted(monte_bank.matching(layout, "ur")) == ["JC", "JH", "JS"]


def test_a_pair_at_ul_is_matched_by_either_card_left_a_single_only_in_the_other_colour():
    layout = layout_of(["7S", "7C"], "AD", "3C", "KH")
    assert sorted(monte_bank.matching(layout, "ul")) == ["7D", "7H"]
    assert sorted(monte_bank.matching(layout, "ur")) == ["AC", "AS"]  # AD red: black aces
    assert sorted(monte_bank.matching(layout, "ll")) == ["3D", "3H"]  # 3C black: red threes


def test_a_triple_at_ul_is_matched_by_the_last_card_a_single_only_in_the_same_colour():
    layout = layout_of(["7S", "7C", "7H"], "AD", "3C", "KH")
    assert monte_bank.matching(layout, "ul") == ["7D"]
    assert monte_bank.matching(layout, "ur") == ["AH"]
    assert monte_bank.matching(layout, "ll") == ["3S"]
    assert monte_bank.matching(layout, "lr") == ["KD"]


def test_a_cross_between_two_singles_goes_by_plain_rank_and_decides_that_bet_only():
    layout = layout_of(["7S", "7C"], "AD", "3C", "KH")
    # AH: red like AD, so ur is not matched, except for the cross of two singles lr against ur.
    assert monte_bank.decide(layout, ["AH"], {"part": "cross", "on": "lr", "against": "ur"}) == (
        False,
        0,
    )
    won, at = monte_bank.decide(layout, ["AH", "AS"], {"part": "round", "on": "ur"})
    assert (won, at) == (True, 1)
    # A cross with the stack is not of two singles: the colour rule holds.
    assert monte_bank.decide(
        layout, ["AH", "7D"], {"part": "cross", "on": "ur", "against": "ul"}
    ) == (
        False,
        1,
    )


# --- Bets ------------------------------------------------------------------------------------


def settle(deck, *bets, bank=50, levy=True):
    dealt = monte_bank.deal_layout(deck)
    placed = [dict(b, amount=b.get("amount", 2)) for b in bets]
    return monte_bank.play_deal(bank, dealt["layout"], dealt["rest"], placed, levy)


def results(outcome):
    return {
        (line["bet"], line["part"]): (line["result"], line["net"]) for line in outcome["settled"]
    }


def test_a_round_pays_3_to_1_when_its_position_is_matched_before_the_other_three():
    outcome = settle(
        PLAIN,
        {"player": "ben", "kind": "round", "on": "ul"},
        {"player": "cid", "kind": "round", "on": "ur"},
        levy=False,
    )
    assert results(outcome) == {(0, "round"): ("won", 6), (1, "round"): ("lost", -2)}


def test_a_cross_pays_1_to_1_when_its_position_is_matched_before_the_other():
    outcome = settle(
        PLAIN,
        {"player": "ben", "kind": "cross", "on": "ul", "against": "ur"},
        {"player": "cid", "kind": "cross", "on": "lr", "against": "ul"},
    )
    assert results(outcome) == {(0, "cross"): ("won", 2), (1, "cross"): ("lost", -2)}


@pytest.mark.parametrize(
    ("side", "won"), [("upper", True), ("lower", False), ("left", True), ("right", False)]
)
def test_a_double_wins_when_a_card_of_its_side_is_matched_before_the_opposite_side(side, won):
    # 5H matches ul: the upper and the left sides hold ul.
    outcome = settle(PLAIN, {"player": "ben", "kind": "double", "side": side})
    assert results(outcome)[(0, "double")] == (("won", 2) if won else ("lost", -2))


def test_a_monte_carlo_is_a_round_a_cross_and_a_double_of_one_stake_each_settled_as_three():
    t = betting(EXAMPLE)
    t.do(monte_bank.bet, "ben", "monte_carlo ul ll left", 3)
    assert t.chips("ben") == 91  # three bets of 3
    t.do(monte_bank.close_bets, "anna")
    lines = t.state["last_deal"]["result"]["settled"]
    assert [(line["part"], line["result"], line["net"]) for line in lines] == [
        ("round", "won", 9),
        ("cross", "won", 3),
        ("double", "won", 3),
    ]
    assert t.chips("ben") == 115


def test_a_monte_carlos_side_must_hold_its_position():
    t = betting()
    with pytest.raises(RulesError, match="choose a side the card you tap lies on"):
        t.do(monte_bank.bet, "ben", "monte_carlo ul ll right", 1)


@pytest.mark.parametrize(
    ("spot", "refusal"),
    [
        ("cross ul ul", "another one"),
        ("round middle", "no position"),
        ("double diagonal", "no side"),
        ("split ul", "no bet"),
        ("round", "no bet"),
    ],
)
def test_a_bet_the_layout_has_no_place_for_is_refused(spot, refusal):
    t = betting()
    before = t.state
    with pytest.raises(RulesError, match=refusal):
        t.do(monte_bank.bet, "ben", spot, 1)
    assert t.state is before


def test_a_bet_loses_as_soon_as_what_it_bets_against_comes_first():
    outcome = settle(EXAMPLE, {"player": "ben", "kind": "cross", "on": "lr", "against": "ur"})
    assert outcome["settled"][0]["card"] == 1 and outcome["turned"] == ["JC", "AH"]


def test_the_worked_example_bet_by_bet_through_the_table():
    t = betting(EXAMPLE, players=("anna", "ben", "carl", "dan"))
    spots = [
        ("ben", "round ul", 1),
        ("carl", "round ur", 2),
        ("dan", "cross ul ll", 3),
        ("ben", "cross lr ur", 4),
        ("carl", "cross ll lr", 5),
        ("dan", "cross ur ul", 6),
        ("ben", "double left", 7),
        ("carl", "double lower", 8),
    ]
    for pid, spot, amount in spots:
        t.do(monte_bank.bet, pid, spot, amount)
    t.do(monte_bank.close_bets, "anna")
    result = t.state["last_deal"]["result"]
    assert [(line["bet"], line["result"], line["net"]) for line in result["settled"]] == [
        (1, "lost", -2),
        (3, "lost", -4),
        (4, "lost", -5),
        (5, "lost", -6),
        (7, "lost", -8),
        (6, "won", 7),
        (2, "won", 3),
        (0, "won", 3),
    ]
    assert result["turned"] == ["JC", "AH", "7H", "6C", "KD"]
    assert t.state["bank"] == 62
    assert (t.chips("ben"), t.chips("carl"), t.chips("dan")) == (106, 85, 97)


# --- Placing, changing, withdrawing ------------------------------------------------------------


def test_a_bet_can_be_changed_or_withdrawn_until_the_banker_closes_bets():
    t = betting()
    t.do(monte_bank.bet, "ben", "round ul", 5)
    bet_id = t.state["deal"]["bets"][0]["id"]
    t.do(monte_bank.change, "ben", bet_id, 8)
    assert t.chips("ben") == 92
    with pytest.raises(RulesError, match="not yours"):
        t.do(monte_bank.withdraw, "cid", bet_id)
    t.do(monte_bank.withdraw, "ben", bet_id)
    assert t.chips("ben") == 100
    t.do(monte_bank.bet, "ben", "round ul", 5)
    t.do(monte_bank.close_bets, "anna")
    with pytest.raises(RulesError, match="bets are closed"):
        t.do(monte_bank.withdraw, "ben", t.state["last_deal"]["bets"][0]["id"])


def test_the_banker_does_not_bet_and_only_the_banker_closes_bets():
    t = betting()
    with pytest.raises(RulesError, match="banker does not bet"):
        t.do(monte_bank.bet, "anna", "round ul", 1)
    with pytest.raises(RulesError, match="only the banker"):
        t.do(monte_bank.close_bets, "ben")


def test_a_bet_over_the_players_chips_is_refused_a_monte_carlo_counting_three_stakes():
    t = betting(bank=100)
    with pytest.raises(RulesError, match="a bet of 102 is over them"):
        t.do(monte_bank.bet, "ben", "monte_carlo ul ll left", 34)
    t.do(monte_bank.bet, "ben", "monte_carlo ul ll left", 33)


# --- Money, at the end of the deal ------------------------------------------------------------


def test_the_bank_takes_every_losing_stake_then_pays_the_largest_stake_first():
    outcome = settle(
        PLAIN,
        {"player": "a", "kind": "round", "on": "ul", "amount": 4},
        {"player": "b", "kind": "double", "side": "left", "amount": 4},
        {"player": "c", "kind": "cross", "on": "ul", "against": "ur", "amount": 6},
        {"player": "d", "kind": "round", "on": "lr", "amount": 3},
        bank=10,
    )
    assert [(line["bet"], line["result"], line["net"]) for line in outcome["settled"]] == [
        (3, "lost", -3),  # the bank takes it first: 13
        (2, "won", 6),  # the largest stake: 7 left
        (0, "won", 7),  # equal stakes, the higher payout first: owed 12, paid 7
        (1, "void", 0),  # the bank is empty: the stake goes back
    ]
    assert outcome["bank"] == 0


def test_equal_stakes_and_payouts_are_paid_earlier_bet_first():
    outcome = settle(
        PLAIN,
        {"player": "a", "kind": "double", "side": "upper", "amount": 5},
        {"player": "b", "kind": "cross", "on": "ul", "against": "ll", "amount": 5},
        bank=8,
    )
    assert [(line["bet"], line["result"], line["net"]) for line in outcome["settled"]] == [
        (0, "won", 5),
        (1, "won", 3),
    ]


def test_the_levy_takes_a_quarter_rounded_down_of_a_win_at_the_very_first_card():
    deck = monte_bank_deck(["5S"], "JD", "3C", "KH", ["5H", "KD"])
    outcome = settle(
        deck,
        {"player": "a", "kind": "round", "on": "ul", "amount": 3},  # paid 9: levy 2
        {"player": "b", "kind": "cross", "on": "ul", "against": "ll", "amount": 3},  # 3: levy 0
        {"player": "c", "kind": "cross", "on": "lr", "against": "ll", "amount": 4},  # second card
    )
    lines = {line["bet"]: line for line in outcome["settled"]}
    assert (lines[0]["net"], lines[0]["levy"]) == (7, 2)
    assert (lines[1]["net"], lines[1]["levy"]) == (3, 0)
    assert (lines[2]["net"], lines[2]["levy"]) == (4, 0)
    assert outcome["levy"] == 2 and outcome["bank"] == 50 - 9 - 3 - 4


def test_each_monte_carlo_part_gives_its_own_levy():
    deck = monte_bank_deck(["5S"], "JD", "3C", "KH", ["5H"])
    outcome = settle(
        deck,
        {
            "player": "a",
            "kind": "monte_carlo",
            "on": "ul",
            "against": "ur",
            "side": "upper",
            "amount": 8,
        },
    )
    assert [(line["part"], line["net"], line["levy"]) for line in outcome["settled"]] == [
        ("round", 18, 6),
        ("cross", 6, 2),
        ("double", 6, 2),
    ]


def test_with_the_levy_off_a_first_card_win_is_paid_in_full():
    deck = monte_bank_deck(["5S"], "JD", "3C", "KH", ["5H"])
    outcome = settle(deck, {"player": "a", "kind": "round", "on": "ul", "amount": 3}, levy=False)
    assert outcome["settled"][0]["net"] == 9 and outcome["levy"] == 0


def test_when_the_bank_passes_half_the_pot_goes_to_the_banker_and_the_rest_to_the_house():
    deck = monte_bank_deck(["5S"], "JD", "3C", "KH", ["5H"])
    t = betting(deck)
    t.do(monte_bank.bet, "ben", "round ul", 3)  # levy 2
    t.do(monte_bank.bet, "cid", "double upper", 5)  # levy 1
    start = total(t.state)
    t.do(monte_bank.close_bets, "anna")
    assert t.state["pot"] == 3
    assert total(t.state) == start
    t.do(monte_bank.aces, "anna")
    assert t.state["pot"] == 0 and t.state["house"] == 2
    assert t.state["passed"]["split"] == {"pot": 3, "banker": 1, "house": 2}
    assert t.chips("anna") == 100 - 9 - 5 + 1
    assert monte_bank.balances(t.state)["house"] == 2 and total(t.state) == start


def test_the_pot_is_split_when_the_night_ends_with_a_bank_running():
    deck = monte_bank_deck(["5S"], "JD", "3C", "KH", ["5H"])
    t = betting(deck)
    t.do(monte_bank.bet, "ben", "round ul", 4)  # paid 12, levy 3
    t.do(monte_bank.close_bets, "anna")
    t.do(monte_bank.finish)
    assert t.state["pot"] == 0 and t.state["house"] == 2
    assert t.chips("anna") == 50 - 12 + 50 + 1


def test_a_refused_action_changes_nothing():
    t = betting()
    before = t.state
    for action, args in [
        (monte_bank.bet, ("ben", "round ul", 0)),
        (monte_bank.close_bets, ("ben",)),
        (monte_bank.next_deal, ("anna", NOW)),
        (monte_bank.cut_deck, ("cid", 3, NOW)),
    ]:
        with pytest.raises(RulesError):
            t.do(action, *args)
        assert t.state is before


def test_the_settings_are_checked():
    with pytest.raises(RulesError, match="deals per bank"):
        monte_bank.new_table({"deals_per_bank": 0})
    with pytest.raises(RulesError, match="levy"):
        monte_bank.new_table({"levy": "yes"})
    with pytest.raises(RulesError, match="unknown setting"):
        monte_bank.new_table({"max_bet": 10})
    with pytest.raises(RulesError, match="at least the table minimum of 4"):
        monte_bank.new_table({"bank_size": 3, "min_bet": 4})


def test_a_deal_record_replays_to_its_recorded_result_and_opens_its_seal():
    t = betting(EXAMPLE)
    t.do(monte_bank.bet, "ben", "round ul", 2)
    t.do(monte_bank.bet, "cid", "monte_carlo ur ul upper", 1)
    before = t.state
    t.do(monte_bank.close_bets, "anna")
    entry = monte_bank.hand_record(before, t.state)
    assert (
        replay({k: v for k, v in entry.items() if k not in ("result", "meta", "shuffle")})
        == (entry["result"])
    )
    shuffle = entry["shuffle"]
    assert commitment(shuffle["order"], shuffle["salt"]) == shuffle["commitment"]


def test_a_void_deal_is_recorded_with_its_reason_and_replays():
    t = MonteBankTable()
    void = monte_bank_deck(["5S"], "JD", "3C", "3H")
    t.do(monte_bank.draw_for_bank, deck=["KS"] + [c for c in FRENCH.codes if c != "KS"])
    t.do(monte_bank.put_up_bank, "anna", 20, NOW, deck=void[-1:] + void[:-1])
    before = t.state
    t.cut()
    entry = monte_bank.hand_record(before, t.state)
    assert entry["result"]["void"] == monte_bank.LOWER_PAIR and entry["bets"] == []
    scenario = {k: v for k, v in entry.items() if k not in ("result", "meta", "shuffle")}
    assert replay(scenario) == entry["result"]


def test_cards_come_from_a_system_random_shuffle():
    assert isinstance(chance.SYSTEM, random.SystemRandom)


@pytest.mark.parametrize(
    ("at", "first", "kind", "made"),
    [
        ("upper", None, "layout", {"kind": "double", "side": "upper"}),
        ("upper", "ul", "layout", {"kind": "double", "side": "upper"}),
        ("ul", None, "layout", {"kind": "round", "on": "ul"}),
        ("ul", "ul", "layout", {"kind": "round", "on": "ul"}),
        ("lr", "ul", "layout", {"kind": "cross", "on": "ul", "against": "lr"}),
        (
            "ll",
            None,
            "monte_carlo",
            {"kind": "monte_carlo", "on": "ll", "against": "lr", "side": "left"},
        ),
    ],
)
def test_a_tap_on_the_layout_makes_the_bet_the_phone_has_chosen(at, first, kind, made):
    """A side is a double; a position tapped twice a round on it; a position then another a
    cross, the first against the second; a Monte Carlo is on the position tapped."""
    given = {"at": at, "bet_kind": kind, "against": "lr", "side": "left"}
    assert monte_bank.tapped({**given, **({"first": first} if first else {})}) == made


def test_a_tap_for_a_kind_the_phone_does_not_offer_is_refused():
    with pytest.raises(RulesError, match="there is no bet 'cross'"):
        monte_bank.tapped({"at": "ul", "bet_kind": "cross", "against": "lr", "side": "left"})


def test_the_felt_shows_a_monte_carlo_as_three_bets_where_each_lies():
    t = betting(EXAMPLE)
    t.do(monte_bank.bet, "ben", "monte_carlo ul ll left", 2)
    spots = monte_bank.view(t.state)["spots"]
    assert [chip["part"] for chip in spots["ul"]] == ["round"]
    assert [(chip["on"], chip["against"]) for chip in spots["cross"]] == [("ul", "ll")]
    assert [chip["part"] for chip in spots["left"]] == ["double"]


def test_a_cutter_who_leaves_has_the_deck_cut_at_random_and_a_banker_who_leaves_passes_the_bank():
    t = MonteBankTable()
    t.do(monte_bank.draw_for_bank, deck=["KS"] + [c for c in FRENCH.codes if c != "KS"])
    t.do(monte_bank.put_up_bank, "anna", 20, NOW)
    events = t.do(monte_bank.leave, "cid")
    assert [e["how"] for e in events if e["type"] == "cut"][:1] == ["cutter left"]
    assert t.state["cut_started"] == NOW  # a void deal's next cutter still gets the time
    t = betting()
    t.do(monte_bank.bet, "ben", "round ul", 5)
    t.do(monte_bank.leave, "anna")
    assert t.chips("ben") == 100 and t.chips("anna") == 100
    assert t.state["passed"]["why"] == "banker left" and t.state["banker"] == "ben"


def test_a_monte_carlo_recorded_line_sums_its_parts():
    t = betting(EXAMPLE)
    t.do(monte_bank.bet, "ben", "monte_carlo ur ul upper", 2)  # round and cross lost, double won
    before = t.state
    t.do(monte_bank.close_bets, "anna")
    entry = monte_bank.hand_record(before, t.state)
    _bets, (line,) = monte_bank.record_lines(entry)
    assert (line["result"], line["net"]) == ("lost", -2)
