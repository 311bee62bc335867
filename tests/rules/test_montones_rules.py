"""One test per rule of docs/rules.md, "Montones", in the order the page gives them."""

import json
import secrets

import pytest

from montones.rules import RulesError, chance, montones
from montones.rules.cards import SPANISH
from montones.rules.montones import settle_hand
from tests.helpers.tables import NOW, Table


def heap_bets(*bets):
    return [{"player": p, "kind": "heap", "heap": h, "amount": a} for p, h, a in bets]


def nets(outcome):
    return [(line["player"], line["result"], line["net"]) for line in outcome["settled"]]


# --- the bank ----------------------------------------------------------------------------


def test_auction_highest_offer_takes_the_bank_and_leaves_the_winners_stack():
    t = Table()
    t.do(montones.offer_bank, "ana", 30)
    t.do(montones.offer_bank, "ben", 45)
    t.do(montones.offer_bank, "eva", 10)
    t.do(montones.close_auction, NOW)
    assert t.state["bank"]["banker"] == "ben"
    assert t.state["bank"]["amount"] == 45
    assert t.chips("ben") == 55
    assert t.chips("ana") == 100 and t.chips("eva") == 100


def test_auction_equal_highest_offers_are_drawn_by_lot():
    winners = set()
    for _ in range(40):
        t = Table()
        t.do(montones.offer_bank, "ana", 30)
        t.do(montones.offer_bank, "ben", 30)
        t.do(montones.offer_bank, "eva", 5)
        events = t.do(montones.close_auction, NOW)
        assert events[0]["tied"] == ["ana", "ben"]
        winners.add(t.state["bank"]["banker"])
    assert winners == {"ana", "ben"}  # 40 fair draws miss one side with odds 2**-39


def test_auction_lot_can_only_fall_on_a_highest_offer():
    t = Table()
    t.do(montones.offer_bank, "ana", 30)
    t.do(montones.offer_bank, "eva", 5)
    with pytest.raises(RulesError, match="highest"):
        t.do(montones.close_auction, NOW, winner="eva")


def test_an_offer_cannot_exceed_the_players_chips():
    t = Table()
    with pytest.raises(RulesError, match="you have 100 chips: an offer of 101 is over them"):
        t.do(montones.offer_bank, "ana", 101)


def test_tenure_the_bank_closes_after_the_hand_in_play_when_the_time_is_up():
    t = Table(heap_counts=[2, 8], tenure_minutes=60)
    t.deal("5o", "3c", "2e", bank=20)
    t.do(montones.choose_bank_heap, "ana", 2)
    t.do(montones.close_bets, "banker")
    later = NOW + 60 * 60
    events = t.do(montones.next_hand, "banker", later)
    assert events[0] == {
        "type": "bank_closed",
        "banker": "banker",
        "amount": 20,
        "why": "time",
    }
    assert t.state["phase"] == montones.AUCTION
    assert t.chips("banker") == 100


def test_tenure_the_bank_goes_on_before_its_time():
    t = Table(heap_counts=[2, 8], tenure_minutes=60)
    t.deal("5o", "3c", "2e")
    t.do(montones.choose_bank_heap, "ana", 2)
    t.do(montones.close_bets, "banker")
    t.do(montones.next_hand, "banker", NOW + 59 * 60)
    assert t.state["phase"] == montones.CUT


def test_tres_ultimas_manos_deals_exactly_three_more_hands_then_closes():
    t = Table(heap_counts=[2, 8])
    t.deal("5o", "3c", "2e")
    t.do(montones.tres_ultimas_manos, "banker")
    t.do(montones.choose_bank_heap, "ana", 2)
    t.do(montones.close_bets, "banker")
    for _ in range(3):
        t.deal("5o", "3c", "2e")
        t.do(montones.choose_bank_heap, "ana", 2)
        t.do(montones.close_bets, "banker")
    t.do(montones.next_hand, "banker", NOW)
    assert t.state["phase"] == montones.AUCTION
    assert t.state["hands"] == 4


def test_se_abona_a_broken_bank_goes_on_with_a_new_amount():
    t = Table(heap_counts=[2, 8])
    t.deal("5o", "3c", "2e", bank=10)
    t.do(montones.bet, "ana", 1, 10)
    t.do(montones.choose_bank_heap, "ben", 2)
    t.do(montones.close_bets, "banker")
    assert t.state["bank"]["amount"] == 0
    with pytest.raises(RulesError, match="broken"):
        t.do(montones.next_hand, "banker", NOW)
    t.do(montones.se_abona, "banker", 25, NOW + 60)
    assert t.state["bank"]["amount"] == 25
    assert t.chips("banker") == 65
    t.do(montones.next_hand, "banker", NOW + 60)
    assert t.state["phase"] == montones.CUT


def test_se_abona_only_before_the_time_is_up():
    t = Table(heap_counts=[2, 8])
    t.deal("5o", "3c", "2e", bank=10)
    t.do(montones.bet, "ana", 1, 10)
    t.do(montones.choose_bank_heap, "ben", 2)
    t.do(montones.close_bets, "banker")
    with pytest.raises(RulesError, match="time is up"):
        t.do(montones.se_abona, "banker", 25, NOW + 3600)


def test_a_broken_bank_without_se_abona_closes():
    t = Table(heap_counts=[2, 8])
    t.deal("5o", "3c", "2e", bank=10)
    t.do(montones.bet, "ana", 1, 10)
    t.do(montones.choose_bank_heap, "ben", 2)
    t.do(montones.close_bets, "banker")
    t.do(montones.close_bank, "banker")
    assert t.state["phase"] == montones.AUCTION and t.state["bank"] is None


def test_the_banker_can_never_take_money_out_of_a_running_bank():
    t = Table(heap_counts=[2, 8])
    t.deal("5o", "3c", "2e", bank=20)
    t.do(montones.choose_bank_heap, "ana", 2)
    t.do(montones.close_bets, "banker")
    with pytest.raises(RulesError, match="closes only by time"):
        t.do(montones.close_bank, "banker")
    with pytest.raises(RulesError, match="only for a broken bank"):
        t.do(montones.se_abona, "banker", 5, NOW)


# --- a hand ------------------------------------------------------------------------------


def test_the_deck_is_shuffled_with_a_cspring():
    assert isinstance(chance.SYSTEM, secrets.SystemRandom)
    orders = {tuple(SPANISH.shuffled()) for _ in range(5)}
    assert len(orders) == 5
    assert all(sorted(o) == sorted(SPANISH.codes) for o in orders)


def test_the_next_punter_in_rotation_cuts_a_different_one_each_hand():
    t = Table(heap_counts=[2, 8])
    cutters = []
    for _ in range(5):
        t.deal("5o", "3c", "2e")
        cutters.append(t.hand["cutter"])
        t.do(montones.choose_bank_heap, "ana", 2)
        t.do(montones.close_bets, "banker")
    assert cutters == ["ana", "ben", "eva", "dan", "ana"]


def test_only_the_punter_in_turn_cuts():
    t = Table()
    t.open_bank()
    with pytest.raises(RulesError, match="not your turn to cut"):
        t.do(montones.cut_deck, "ben", 5, NOW)


def test_a_punter_who_does_not_cut_in_time_is_skipped_and_the_deck_cut_at_random():
    t = Table(cut_timeout=30)
    t.open_bank()
    before = list(t.hand["deck"])
    with pytest.raises(RulesError, match="still has time"):
        t.do(montones.cut_timed_out, NOW + 29)
    events = t.do(montones.cut_timed_out, NOW + 30)
    assert events[0]["how"] == "random"
    position = events[0]["position"]
    assert t.hand["deck"] == before[position:] + before[:position]
    assert t.state["phase"] == montones.HEAPS


def test_heaps_in_the_number_the_banker_chooses_uneven_and_at_least_three_cards():
    for count in range(3, 9):
        t = Table(heap_counts=[3, 8])
        t.open_bank()
        t.do(montones.cut_deck, "ana", 7, NOW)
        t.do(montones.make_heaps, "banker", count)
        sizes = [len(h) for h in t.hand["heaps"]]
        assert len(sizes) == count and sum(sizes) == 40 and min(sizes) >= 3
    t = Table(heap_counts=[3, 8])
    t.open_bank()
    t.do(montones.cut_deck, "ana", 7, NOW)
    with pytest.raises(RulesError, match="3 to 8 heaps"):
        t.do(montones.make_heaps, "banker", 9)
    with pytest.raises(RulesError, match="only the banker"):
        t.do(montones.make_heaps, "ana", 4)


def test_only_the_bottom_card_of_each_heap_counts():
    t = Table()
    t.deal("5o", "3c", "2e")
    t.do(montones.choose_bank_heap, "ana", 2)
    t.do(montones.close_bets, "banker")
    assert t.hand["result"]["cards"] == [h[-1] for h in t.hand["heaps"]] == ["5o", "3c", "2e"]


def test_any_player_but_the_banker_bets_any_heaps_any_amounts():
    t = Table()
    t.deal("5o", "3c", "2e", "7b")
    t.do(montones.bet, "ana", 1, 3)
    t.do(montones.bet, "ana", 3, 7)
    t.do(montones.bet, "ben", 1, 20)
    with pytest.raises(RulesError, match="banker does not bet"):
        t.do(montones.bet, "banker", 1, 5)
    assert t.chips("ana") == 90 and t.chips("ben") == 80


def test_a_bet_respects_the_table_minimum_and_no_single_bet_above_the_bank():
    t = Table(min_bet=2, heap_counts=[2, 8])
    t.deal("5o", "3c", "2e", bank=20)
    with pytest.raises(RulesError, match="the table minimum is 2"):
        t.do(montones.bet, "ana", 1, 1)
    with pytest.raises(RulesError, match="the bank holds 20: the most you can bet is 20"):
        t.do(montones.bet, "ana", 1, 21)
    t.do(montones.bet, "ana", 1, 20)
    t.do(montones.bet, "ben", 3, 20)  # bets together may exceed the bank in Montones


@pytest.mark.parametrize("amount", [0, -5, 2.5, "7", None, True])
def test_a_bet_is_a_whole_positive_number_of_chips(amount):
    t = Table()
    t.deal("5o", "3c", "2e")
    before = t.state
    with pytest.raises(RulesError):
        t.do(montones.bet, "ana", 1, amount)
    assert t.state is before


def test_a_bet_cannot_exceed_the_players_chips():
    t = Table(chips=15)
    t.deal("5o", "3c", "2e", bank=15)
    t.do(montones.bet, "ana", 1, 10)
    with pytest.raises(RulesError, match="you have 5 chips: a bet of 6 is over them"):
        t.do(montones.bet, "ana", 3, 6)


def test_bets_can_be_withdrawn_until_bets_close():
    t = Table()
    t.deal("5o", "3c", "2e")
    t.do(montones.bet, "ana", 1, 5)
    bet_id = t.hand["bets"][0]["id"]
    assert t.chips("ana") == 95
    with pytest.raises(RulesError, match="not yours"):
        t.do(montones.withdraw, "ben", bet_id)
    t.do(montones.withdraw, "ana", bet_id)
    assert t.chips("ana") == 100 and t.hand["bets"] == []
    t.do(montones.bet, "ana", 1, 5)
    t.do(montones.choose_bank_heap, "ben", 2)
    t.do(montones.close_bets, "banker")
    with pytest.raises(RulesError, match="bets are closed"):
        t.do(montones.withdraw, "ana", t.hand["bets"][0]["id"])


def test_the_punters_never_the_banker_choose_the_bankers_heap():
    t = Table()
    t.deal("5o", "3c", "2e")
    with pytest.raises(RulesError, match="never the banker"):
        t.do(montones.choose_bank_heap, "banker", 2)
    t.do(montones.choose_bank_heap, "ana", 2)
    assert t.hand["bank_heap"] == 2


def test_the_bankers_heap_has_no_bet_of_any_kind_tied_to_it():
    t = Table()
    t.deal("5o", "3c", "2e", "7b")
    t.do(montones.bet_against, "ana", 2, 5)
    with pytest.raises(RulesError, match="heap 2 has bets"):
        t.do(montones.choose_bank_heap, "ben", 2)
    t.do(montones.choose_bank_heap, "ben", 3)
    with pytest.raises(RulesError, match="heap 3 is the banker's heap"):
        t.do(montones.bet, "eva", 3, 5)
    with pytest.raises(RulesError, match="heap 3 is the banker's heap"):
        t.do(montones.bet_against, "eva", 3, 5)
    with pytest.raises(RulesError, match="heap 3 is the banker's heap"):
        t.do(montones.declare, "eva", 3)


def test_the_punters_can_change_the_bankers_heap_until_bets_close():
    t = Table()
    t.deal("5o", "3c", "2e")
    t.do(montones.choose_bank_heap, "ana", 2)
    t.do(montones.choose_bank_heap, "ben", 3)
    assert t.hand["bank_heap"] == 3
    t.do(montones.close_bets, "banker")
    with pytest.raises(RulesError, match="bets are closed"):
        t.do(montones.choose_bank_heap, "ana", 1)


def test_bets_cannot_close_without_the_bankers_heap():
    t = Table()
    t.deal("5o", "3c", "2e")
    with pytest.raises(RulesError, match="not chosen the banker's heap"):
        t.do(montones.close_bets, "banker")


def test_a_bet_that_would_leave_no_heap_free_for_the_banker_is_refused():
    t = Table()
    t.deal("5o", "3c", "2e")
    t.do(montones.bet, "ana", 1, 5)
    t.do(montones.bet_against, "ben", 2, 5)
    with pytest.raises(RulesError, match="one heap must stay free for the banker"):
        t.do(montones.bet, "eva", 3, 5)
    t.do(montones.bet, "eva", 2, 5)  # a heap already tied can take more bets


def test_only_the_banker_closes_bets_and_every_heap_is_turned():
    t = Table()
    t.deal("5o", "3c", "2e")
    t.do(montones.choose_bank_heap, "ana", 2)
    with pytest.raises(RulesError, match="only the banker"):
        t.do(montones.close_bets, "ana")
    events = t.do(montones.close_bets, "banker")
    assert events[0]["cards"] == ["5o", "3c", "2e"]
    assert t.state["phase"] == montones.SETTLED


# --- who wins against whom -----------------------------------------------------------------


def test_a_banker_rey_wins_against_every_heap_even_the_rey_de_oros():
    outcome = settle_hand(
        100,
        ["Ro", "Rc", "7e", "Cb"],
        2,
        heap_bets(("ana", 1, 10), ("ben", 4, 5)),
        {"ana": 50, "ben": 50},
    )
    assert nets(outcome) == [("ben", "lost", -5), ("ana", "lost", -10)]
    assert outcome["bank"] == 115


def test_a_heap_higher_than_the_bankers_card_wins_one_to_one():
    outcome = settle_hand(100, ["Ce", "Sc"], 2, heap_bets(("ana", 1, 10)), {"ana": 50})
    assert nets(outcome) == [("ana", "won", 10)]


def test_the_rey_de_oros_heap_pays_two_to_one():
    outcome = settle_hand(100, ["Ro", "Sc"], 2, heap_bets(("ana", 1, 10)), {"ana": 50})
    assert nets(outcome) == [("ana", "won", 20)]
    assert outcome["bank"] == 80


def test_a_rey_other_than_oros_pays_one_to_one():
    outcome = settle_hand(100, ["Rc", "Sc"], 2, heap_bets(("ana", 1, 10)), {"ana": 50})
    assert nets(outcome) == [("ana", "won", 10)]


@pytest.mark.parametrize("card", ["Se", "4b", "Ab"])
def test_a_heap_equal_to_or_lower_than_the_bankers_card_loses_to_the_bank(card):
    outcome = settle_hand(100, [card, "Sc"], 2, heap_bets(("ana", 1, 10)), {"ana": 50})
    assert nets(outcome) == [("ana", "lost", -10)]


def test_ranks_not_suits_count_as_and_the_lowest_rey_the_highest():
    assert [SPANISH.rank(c) for c in ["Ao", "7c", "Se", "Cb", "Ro"]] == [1, 7, 8, 9, 10]


# --- the two special bets -----------------------------------------------------------------


def test_a_bet_on_the_bankers_card_wins_one_to_one_when_the_bank_wins_against_its_heap():
    bets = [{"player": "ana", "kind": "against", "heap": 1, "amount": 10}]
    outcome = settle_hand(100, ["4o", "Sc"], 2, bets, {"ana": 50})
    assert nets(outcome) == [("ana", "won", 10)]


def test_a_bet_on_the_bankers_card_loses_its_stake_when_the_heap_wins_never_double():
    bets = [{"player": "ana", "kind": "against", "heap": 1, "amount": 10}]
    outcome = settle_hand(100, ["Ro", "Sc"], 2, bets, {"ana": 50})
    assert nets(outcome) == [("ana", "lost", -10)]


def test_a_bet_on_the_bankers_card_wins_when_the_banker_turns_a_rey():
    bets = [{"player": "ana", "kind": "against", "heap": 1, "amount": 10}]
    outcome = settle_hand(100, ["Ro", "Rb"], 2, bets, {"ana": 50})
    assert nets(outcome) == [("ana", "won", 10)]


def test_pagando_y_cobrando_wins_what_the_bank_holds_never_double():
    bets = [{"player": "ana", "kind": "whole_bank", "heap": 1, "amount": None}]
    outcome = settle_hand(30, ["Ro", "Sc"], 2, bets, {"ana": 100})
    assert nets(outcome) == [("ana", "won", 30)]
    assert outcome["bank"] == 0


def test_pagando_y_cobrando_pays_what_the_bank_holds_when_it_loses():
    bets = [{"player": "ana", "kind": "whole_bank", "heap": 1, "amount": None}]
    outcome = settle_hand(30, ["2o", "Sc"], 2, bets, {"ana": 100})
    assert nets(outcome) == [("ana", "lost", -30)]
    assert outcome["bank"] == 60


def test_pagando_y_cobrando_stake_is_capped_at_the_declarers_own_chips():
    bets = [{"player": "ana", "kind": "whole_bank", "heap": 1, "amount": None}]
    outcome = settle_hand(30, ["2o", "Sc"], 2, bets, {"ana": 12})
    assert nets(outcome) == [("ana", "lost", -12)]


def test_pagando_y_cobrando_is_the_stake_when_its_heap_is_lifted_last():
    # Heap 1 (money 5) wins 5 first, the bank is 25 when the declarer's heap 3 is lifted
    # last, though heap 3 holds more money than heap 1; on heap 3, Ben plays with him first.
    bets = [
        {"player": "ana", "kind": "whole_bank", "heap": 3, "amount": None},
        {"player": "ben", "kind": "heap", "heap": 3, "amount": 1},
        {"player": "eva", "kind": "heap", "heap": 1, "amount": 5},
    ]
    outcome = settle_hand(30, ["Ce", "Sc", "Cb"], 2, bets, {"ana": 100, "ben": 10, "eva": 10})
    assert outcome["order"] == [1, 3]
    assert nets(outcome) == [("eva", "won", 5), ("ben", "won", 1), ("ana", "won", 24)]
    assert outcome["bank"] == 0


def test_the_declarer_does_not_lose_if_the_bank_broke_before_his_heap():
    bets = [
        {"player": "ana", "kind": "whole_bank", "heap": 3, "amount": None},
        {"player": "eva", "kind": "heap", "heap": 1, "amount": 30},
    ]
    outcome = settle_hand(30, ["Ce", "Sc", "2b"], 2, bets, {"ana": 100, "eva": 30})
    assert nets(outcome) == [("eva", "won", 30), ("ana", "void", 0)]


def test_only_one_punter_a_hand_declares_pagando_y_cobrando():
    t = Table()
    t.deal("5o", "3c", "2e", "7b")
    t.do(montones.declare, "ana", 1)
    with pytest.raises(RulesError, match="already plays for the whole bank"):
        t.do(montones.declare, "ben", 3)
    t.do(montones.bet, "ben", 1, 5)  # others may play with him


# --- settling: the order when money is short ------------------------------------------------


class Scripted:
    """A stand-in for the CSPRNG that answers ``randint`` from a script."""

    def __init__(self, *values):
        self.values = list(values)

    def randint(self, low, high):
        value = self.values.pop(0)
        assert low <= value <= high
        return value


def test_heaps_of_equal_size_are_cut_again_so_they_are_uneven():
    # 40 cards in 4 heaps: cuts at 7, 14 and 21 of the 28 spare cards give 10, 10, 10, 10.
    assert montones.uneven_sizes(4, 40, Scripted(7, 14, 21, 1, 2, 3)) == [4, 4, 4, 28]
    assert montones.uneven_sizes(3, 9, Scripted(0, 0)) == [3, 3, 3]  # nothing else is possible


def test_heaps_are_lifted_in_ascending_order_of_the_money_tied_to_them():
    bets = heap_bets(("ana", 1, 9), ("ben", 3, 4)) + [
        {"player": "eva", "kind": "against", "heap": 3, "amount": 3},
        {"player": "dan", "kind": "heap", "heap": 4, "amount": 6},
    ]
    outcome = settle_hand(
        100, ["5o", "3c", "7e", "Ab"], 2, bets, dict.fromkeys("ana ben eva dan".split(), 50)
    )
    assert outcome["order"] == [4, 3, 1]


def test_equal_money_lifts_the_lower_heap_first():
    bets = heap_bets(("ana", 4, 5), ("ben", 1, 5))
    outcome = settle_hand(100, ["5o", "3c", "7e", "Ab"], 2, bets, {"ana": 50, "ben": 50})
    assert outcome["order"] == [1, 4]


def test_within_a_heap_bets_settle_smallest_stake_first_equal_stakes_earlier_first():
    bets = heap_bets(("ana", 1, 9), ("ben", 1, 4), ("eva", 1, 4), ("dan", 1, 1))
    outcome = settle_hand(100, ["5o", "3c"], 2, bets, dict.fromkeys("ana ben eva dan".split(), 50))
    assert [line["bet"] for line in outcome["settled"]] == [3, 1, 2, 0]


def test_cover_a_winning_bet_is_paid_only_what_the_bank_holds():
    outcome = settle_hand(
        7, ["5o", "3c"], 2, heap_bets(("ana", 1, 7), ("ben", 1, 7)), {"ana": 9, "ben": 9}
    )
    assert nets(outcome) == [("ana", "won", 7), ("ben", "void", 0)]


def test_cover_a_losing_bet_pays_the_bank_only_what_the_bank_holds():
    # Heap 1 (money 6) wins and leaves 4 in the bank; heap 3 (money 10) then loses only 4.
    bets = heap_bets(("ana", 1, 6), ("ben", 3, 10))
    outcome = settle_hand(10, ["5o", "3c", "2e"], 2, bets, {"ana": 50, "ben": 50})
    assert nets(outcome) == [("ana", "won", 6), ("ben", "lost", -4)]
    assert outcome["bank"] == 8


def test_settlement_worked_example_of_rules_md():
    bets = heap_bets(("ana", 3, 8), ("ben", 4, 20), ("eva", 3, 4), ("dan", 1, 6))
    chips = dict.fromkeys(["ana", "ben", "eva", "dan"], 100)
    outcome = settle_hand(20, ["5o", "3c", "Ro", "2e"], 2, bets, chips)
    assert outcome["order"] == [1, 3, 4]
    assert [(line["bet"], line["result"], line["net"]) for line in outcome["settled"]] == [
        (3, "won", 6),
        (2, "won", 8),
        (0, "won", 6),
        (1, "void", 0),
    ]
    assert outcome["bank"] == 0


def test_settlement_worked_example_through_the_table():
    t = Table(players=("banker", "ana", "ben", "eva", "dan"))
    t.deal("5o", "3c", "Ro", "2e", bank=20)
    t.do(montones.choose_bank_heap, "ana", 2)
    t.do(montones.bet, "ana", 3, 8)
    t.do(montones.bet, "ben", 4, 20)
    t.do(montones.bet, "eva", 3, 4)
    t.do(montones.bet, "dan", 1, 6)
    t.do(montones.close_bets, "banker")
    assert {p: t.chips(p) for p in ("ana", "ben", "eva", "dan")} == {
        "ana": 106,
        "ben": 100,
        "eva": 108,
        "dan": 106,
    }
    assert t.state["bank"]["amount"] == 0
    assert t.hand["result"]["short"] is True


# --- after the hand ------------------------------------------------------------------------


def test_after_a_banker_rey_the_banker_may_gather_and_shuffle():
    t = Table()
    t.deal("5o", "Rc", "2e")
    t.do(montones.choose_bank_heap, "ana", 2)
    t.do(montones.close_bets, "banker")
    t.do(montones.next_hand, "banker", NOW)
    assert t.state["phase"] == montones.CUT and len(t.hand["deck"]) == 40


def test_after_a_banker_rey_the_heaps_stay_their_shown_cards_discarded_and_one_split():
    t = Table()
    t.deal("5o", "Rc", "2e")
    old = [list(h) for h in t.hand["heaps"]]
    t.do(montones.bet, "ben", 1, 5)
    t.do(montones.choose_bank_heap, "ana", 2)
    t.do(montones.close_bets, "banker")
    t.do(montones.keep_heaps, "banker", 3, NOW, position=10)
    dealt = t.hand["heaps"]
    assert dealt[0] == old[0][:-1] and dealt[1] == old[1][:-1]
    assert dealt[2] == old[2][10:-1] and dealt[3] == old[2][:10]
    assert t.hand["bank_heap"] is None and t.hand["bets"] == []
    assert t.hand["discards"] == ["5o", "Rc", "2e"]
    assert t.state["phase"] == montones.BETTING
    t.do(montones.bet, "ben", 2, 5)  # the punters bet and choose the banker's heap afresh
    t.do(montones.choose_bank_heap, "ana", 4)


def test_keeping_the_heaps_only_after_a_rey():
    t = Table()
    t.deal("5o", "7c", "2e")
    t.do(montones.choose_bank_heap, "ana", 2)
    t.do(montones.close_bets, "banker")
    with pytest.raises(RulesError, match="only after the banker turns a Rey"):
        t.do(montones.keep_heaps, "banker", 1, NOW)


def test_a_heap_with_no_cards_left_is_gone_and_fewer_than_two_heaps_gather():
    t = Table()
    t.deal("5o", "Rc", "2e")
    t.hand["heaps"][0] = ["5o"]  # a one-card heap: nothing is left of it once its card goes
    t.do(montones.choose_bank_heap, "ana", 2)
    t.do(montones.close_bets, "banker")
    t.do(montones.keep_heaps, "banker", 3, NOW, position=1)  # heap 3 as the table shows it
    assert [len(h) for h in t.hand["heaps"]] == [2, 32, 1]  # heap 1 is gone
    t2 = Table()
    t2.deal("5o", "Rc", "2e")
    t2.hand["heaps"][0], t2.hand["heaps"][1] = ["5o"], ["Rc"]
    t2.hand["heaps"][2] = ["3o", "2e"]
    t2.do(montones.choose_bank_heap, "ana", 2)
    t2.do(montones.close_bets, "banker")
    with pytest.raises(RulesError, match="too few cards are left"):
        t2.do(montones.keep_heaps, "banker", 1, NOW)


def test_otherwise_all_cards_are_gathered_and_shuffled():
    t = Table()
    t.deal("5o", "3c", "2e")
    t.do(montones.choose_bank_heap, "ana", 2)
    t.do(montones.close_bets, "banker")
    t.do(montones.next_hand, "banker", NOW)
    assert sorted(t.hand["deck"]) == sorted(SPANISH.codes)


# --- the table's bookkeeping ----------------------------------------------------------------


def test_an_illegal_action_leaves_the_state_unchanged_and_reads_well():
    t = Table(heap_counts=[2, 8])
    t.deal("5o", "3c", "2e", bank=20)
    snapshot = json.dumps(t.state, sort_keys=True)
    with pytest.raises(ValueError, match="the bank holds 20: the most you can bet is 20"):
        t.do(montones.bet, "ana", 1, 25)
    assert json.dumps(t.state, sort_keys=True) == snapshot


def test_a_player_leaving_gets_open_bets_back():
    t = Table()
    t.deal("5o", "3c", "2e")
    t.do(montones.bet, "ana", 1, 5)
    t.do(montones.leave, "ana")
    assert t.chips("ana") == 100 and t.hand["bets"] == []


def test_a_banker_leaving_mid_hand_calls_the_hand_off():
    t = Table()
    t.deal("5o", "3c", "2e", bank=20)
    t.do(montones.bet, "ana", 1, 5)
    t.do(montones.leave, "banker")
    assert t.chips("ana") == 100 and t.chips("banker") == 100
    assert t.state["phase"] == montones.AUCTION


def test_players_join_between_hands_and_sit_out():
    t = Table()
    t.deal("5o", "3c", "2e")
    t.do(montones.join, "fay", "Fay", 50)
    t.do(montones.sit_out, "ben")
    with pytest.raises(RulesError, match="sitting out"):
        t.do(montones.bet, "ben", 1, 5)
    t.do(montones.bet, "fay", 1, 5)
    with pytest.raises(RulesError, match="already at the table"):
        t.do(montones.join, "x", "fay", 50)


def test_the_auction_is_complete_when_everyone_has_offered_or_passed():
    t = Table(players=("ana", "ben"))
    t.do(montones.offer_bank, "ana", 10)
    assert not montones.auction_complete(t.state)
    t.do(montones.pass_bank, "ben")
    assert montones.auction_complete(t.state)
    t.do(montones.pass_bank, "ana")  # passing withdraws an offer
    assert not montones.auction_complete(t.state)


def test_a_player_passes_once_and_may_still_offer():
    """A second pass would change nothing but the table's version (and each new version keeps
    the computer players waiting): it is refused, and not offered."""
    t = Table(players=("ana", "ben"))
    t.do(montones.pass_bank, "ben")
    can = montones.view(t.state, "ben", NOW)["me"]["can"]
    assert "offer" in can and "pass" not in can
    before = json.dumps(t.state, sort_keys=True)
    with pytest.raises(RulesError, match="already passed"):
        t.do(montones.pass_bank, "ben")
    assert json.dumps(t.state, sort_keys=True) == before
    t.do(montones.offer_bank, "ben", 10)
    assert {"offer", "pass"} <= set(montones.view(t.state, "ben", NOW)["me"]["can"])


def test_a_cutter_who_leaves_is_skipped_and_the_deck_cut_at_random():
    t = Table()
    t.open_bank()
    cutter = t.hand["cutter"]
    events = t.do(montones.leave, cutter)
    assert events[-1]["how"] == "cutter left"
    assert t.state["phase"] == montones.HEAPS


def test_a_punter_without_chips_for_the_minimum_is_not_offered_a_bet():
    t = Table(chips=100, min_bet=5)
    t.deal("5o", "3c", "2e")
    t.do(montones.bet, "ana", 1, 20)  # the bank holds 20
    t.do(montones.top_up, "ben", 1)
    t.state["players"]["eva"]["chips"] = 4  # fewer than the minimum
    assert "bet" in montones.view(t.state, "ben", NOW)["me"]["can"]
    assert "bet" not in montones.view(t.state, "eva", NOW)["me"]["can"]


def test_the_view_piles_a_players_bets_of_one_kind_on_a_heap_and_withdraw_takes_the_newest():
    t = Table()
    t.deal("5o", "3c", "2e")
    t.do(montones.bet, "ana", 1, 5)
    t.do(montones.bet, "eva", 1, 2)
    t.do(montones.bet, "ana", 1, 3)
    t.do(montones.bet_against, "ana", 1, 4)
    heap = montones.view(t.state)["heaps"][0]
    assert len(heap["bets"]) == 4
    piles = [(s["player"], s["kind"], s["amount"], s["count"]) for s in heap["stacks"]]
    assert piles == [("ana", "heap", 8, 2), ("eva", "heap", 2, 1), ("ana", "against", 4, 1)]
    newest = heap["stacks"][0]["id"]
    assert newest == max(
        b["id"] for b in heap["bets"] if b["kind"] == "heap" and b["player"] == "ana"
    )
    t.do(montones.withdraw, "ana", newest)
    assert montones.view(t.state)["heaps"][0]["stacks"][0]["amount"] == 5
    assert t.chips("ana") == 100 - 5 - 4


def test_a_pause_moves_the_banks_time_on_and_gives_the_cutter_the_whole_cut_time():
    t = Table()
    t.open_bank(now=NOW)
    assert t.state["phase"] == montones.CUT
    before = json.dumps(t.state, sort_keys=True)
    after = montones.after_pause(t.state, NOW + 700, paused_for=600)
    assert after["bank"]["opened_at"] == NOW + 600  # the hour runs on from where it stopped
    assert after["hand"]["cut_started"] == NOW + 700
    assert json.dumps(t.state, sort_keys=True) == before  # the state given is left as it was


def test_standings_count_an_open_bank_as_its_bankers():
    t = Table(players=("ana", "ben"))
    t.do(montones.offer_bank, "ana", 60)
    t.do(montones.close_auction, NOW)
    assert t.chips("ana") == 40
    rows = {row["player"]: row for row in montones.standings(t.state)}
    assert rows["ana"]["chips"] == 100 and rows["ana"]["place"] == 1
    assert rows["ben"]["chips"] == 100 and rows["ben"]["place"] == 1


def test_the_feat_of_a_hand_is_a_stake_on_the_rey_de_oros_paid_double_not_a_bet_against_it():
    # A record's heap stake (heap and amount), its bet against the banker (against) and a
    # whole bank (heap alone): only the first, won on a heap of the Rey de oros, is paid double.
    entry = {
        "heaps": ["Ro", "3c"],
        "bets": [
            {"player": "p1", "against": 1, "amount": 5},
            {"player": "p2", "heap": 1, "whole_bank": True},
            {"player": "p3", "heap": 1, "amount": 4},
        ],
        "result": {
            "settled": [
                {"bet": 0, "player": "p1", "result": "won", "net": 5},
                {"bet": 1, "player": "p2", "result": "won", "net": 10},
                {"bet": 2, "player": "p3", "result": "won", "net": 8},
            ]
        },
    }
    assert montones.feat(entry) == ("rey_de_oros", "p3", 8)
    entry["bets"][2]["heap"] = 2  # the stake on the other heap: no feat
    assert montones.feat(entry) is None
