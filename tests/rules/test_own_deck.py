"""A table played with its own cards (montones.rules.own_deck): each card entered as the game
shows it, refused in words when it cannot be, and settled exactly as the same deck dealt by
the app."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montones.rules import RulesError, montones
from montones.rules.cards import SPANISH
from montones.rules.montones import uneven_sizes
from tests.helpers.tables import NOW, Table

PUNTERS = ["ana", "ben", "eva", "dan"]


def without_version(result):
    return {k: v for k, v in result.items() if k != "version"}


# --- Montones -----------------------------------------------------------------------------


def own_montones(count, enters="banker"):
    t = Table(own_deck=enters)
    t.open_bank(20)
    assert t.state["phase"] == montones.HEAPS  # no shuffle, no seal, no cut: the deck is real
    t.do(montones.make_heaps, "banker", count)
    return t


def test_an_own_deck_hand_is_not_shuffled_sealed_nor_cut():
    t = own_montones(3)
    assert t.hand["shuffle"] is None and t.hand["cut"] is None
    assert len(t.hand["heaps"]) == 3 and montones.live_commitment(t.state) is None


def test_montones_heaps_are_entered_as_lifted_the_bankers_last_and_it_settles():
    t = own_montones(4)
    t.do(montones.choose_bank_heap, "ana", 4)
    t.do(montones.bet, "ana", 2, 5)
    t.do(montones.bet, "ben", 1, 3)
    t.do(montones.close_bets, "banker")
    assert t.state["phase"] == "entering"
    assert t.hand["turning"] == [1, 2, 3, 4]  # 3 chips, then 5, then the free heap, the bank's
    assert montones.waiting_for(t.state) == 1
    for card in ("7o", "2c", "As"):
        t.do(montones.enter_card, "banker", card.replace("As", "Ae"))
    assert t.state["phase"] == "entering" and t.state["hand"]["result"] is None
    t.do(montones.enter_card, "banker", "5b")
    result = t.hand["result"]
    assert t.state["phase"] == montones.SETTLED
    assert result["cards"] == ["7o", "2c", "Ae", "5b"] and result["bank_card"] == "5b"
    assert t.chips("ben") == 103 and t.chips("ana") == 95


def test_a_card_seen_in_this_hand_is_refused_and_changes_nothing():
    t = own_montones(3)
    t.do(montones.choose_bank_heap, "ana", 3)
    t.do(montones.bet, "ana", 1, 5)
    t.do(montones.close_bets, "banker")
    t.do(montones.enter_card, "banker", "7o")
    before = t.state
    with pytest.raises(RulesError, match="7o is on the table already"):
        t.do(montones.enter_card, "banker", "7o")
    with pytest.raises(RulesError, match="not a card code"):
        t.do(montones.enter_card, "banker", "Zz9")
    with pytest.raises(RulesError, match="unknown card"):
        t.do(montones.enter_card, "banker", "QH")  # a French card in a Spanish deck
    assert t.state is before


def test_the_last_card_is_taken_back_until_the_next_is_entered():
    t = own_montones(3)
    t.do(montones.choose_bank_heap, "ana", 3)
    t.do(montones.close_bets, "banker")
    with pytest.raises(RulesError, match="no card to take back"):
        t.do(montones.undo_card, "banker")
    t.do(montones.enter_card, "banker", "7o")
    t.do(montones.undo_card, "banker")
    assert t.hand["entered"] == [] and montones.waiting_for(t.state) == 1
    t.do(montones.enter_card, "banker", "6o")
    t.do(montones.enter_card, "banker", "5o")
    t.do(montones.enter_card, "banker", "4o")  # the banker's card settles: nothing to take back
    with pytest.raises(RulesError, match="no card is awaited"):
        t.do(montones.undo_card, "banker")


def test_only_the_one_the_table_names_enters_the_cards():
    t = own_montones(3)
    t.do(montones.choose_bank_heap, "ana", 3)
    t.do(montones.close_bets, "banker")
    with pytest.raises(RulesError, match="only the banker enters"):
        t.do(montones.enter_card, "ana", "7o")
    with pytest.raises(RulesError, match="only the banker enters"):
        t.do(montones.enter_card, "host", "7o")
    h = own_montones(3, enters="host")
    h.do(montones.choose_bank_heap, "ana", 3)
    h.do(montones.close_bets, "banker")
    with pytest.raises(RulesError, match="the host enters"):
        h.do(montones.enter_card, "banker", "7o")
    h.do(montones.enter_card, "host", "7o")


def test_a_card_before_bets_close_and_at_a_dealing_table_is_refused():
    t = own_montones(3)
    with pytest.raises(RulesError, match="no card is awaited"):
        t.do(montones.enter_card, "banker", "7o")
    dealt = Table()
    dealt.deal("5o", "3c", "2e")
    with pytest.raises(RulesError, match="deals its own cards"):
        dealt.do(montones.enter_card, "banker", "7o")


def test_an_own_deck_setting_names_the_banker_or_the_host():
    with pytest.raises(RulesError, match="banker or by the host"):
        montones.new_table({"own_deck": "anyone"})


def test_own_deck_heaps_are_gathered_after_a_rey():
    t = own_montones(3)
    t.do(montones.choose_bank_heap, "ana", 3)
    t.do(montones.close_bets, "banker")
    for card in ("7o", "6o", "Ro"):
        t.do(montones.enter_card, "banker", card)
    with pytest.raises(RulesError, match="cannot see what is left of the heaps"):
        t.do(montones.keep_heaps, "banker", 1, NOW)


@st.composite
def montones_nights(draw):
    order = draw(st.permutations(SPANISH.codes))
    count = draw(st.integers(2, 8))
    sizes = uneven_sizes(count, 40, draw(st.randoms(use_true_random=False)))
    bank_heap = draw(st.integers(1, count))
    others = [h for h in range(1, count + 1) if h != bank_heap]
    bets = [
        (
            draw(st.sampled_from(PUNTERS)),
            draw(st.sampled_from(["bet", "against", "declare"])),
            draw(st.sampled_from(others)),
            draw(st.integers(1, 30)),
        )
        for _ in range(draw(st.integers(0, 8)))
    ]
    return order, sizes, bank_heap, bets


def play_bets(t, bank_heap, bets):
    t.do(montones.choose_bank_heap, PUNTERS[0], bank_heap)
    for player, kind, heap, amount in bets:
        try:
            if kind == "declare":
                t.do(montones.declare, player, heap)
            else:
                t.do(
                    getattr(montones, "bet" if kind == "bet" else "bet_against"),
                    player,
                    heap,
                    amount,
                )
        except RulesError:
            pass  # the same refusals at both tables: the property is about what is settled


@settings(max_examples=150, deadline=None)
@given(montones_nights())
def test_a_random_montones_deck_entered_card_by_card_settles_as_the_app_deals_it(night):
    order, sizes, bank_heap, bets = night
    dealt = Table(heap_counts=[2, 8])
    dealt.open_bank(40, deck=order)
    dealt.do(montones.cut_deck, dealt.hand["cutter"], 7, NOW)
    dealt.do(montones.make_heaps, "banker", len(sizes), sizes=sizes)
    play_bets(dealt, bank_heap, bets)
    dealt.do(montones.close_bets, "banker")

    entered = Table(own_deck="banker", heap_counts=[2, 8])
    entered.open_bank(40)
    entered.do(montones.make_heaps, "banker", len(sizes))
    play_bets(entered, bank_heap, bets)
    entered.do(montones.close_bets, "banker")
    while montones.waiting_for(entered.state) is not None:
        heap = montones.waiting_for(entered.state)
        entered.do(montones.enter_card, "banker", dealt.hand["heaps"][heap - 1][-1])

    assert without_version(entered.hand["result"]) == without_version(dealt.hand["result"])
    assert montones.balances(entered.state) == montones.balances(dealt.state)
