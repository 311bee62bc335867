"""Monte Bank's side cards (docs/rules.md, "Side cards"): the rules one by one, and Hypothesis
properties: with side cards off every deal settles exactly as before them; with one or two,
no chip appears or vanishes and every bet is decided or void."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from montones.rules import monte_bank
from montones.rules.cards import FRENCH
from montones.rules.errors import RulesError
from tests.helpers.monte_bank_bets import PLAYERS, deals, side_spots
from tests.rules import monte_bank_before_side_cards as before

ALL = list(FRENCH.codes)


def _deck(ul, ur, ll, lr, top, turned):
    """A deck (top card first) dealing ``ul`` (its stack), ``ur``, ``ll``, ``lr``, then ``top``
    from the top (side cards, set-aside cards), and turning ``turned`` first from the bottom."""
    used = set(ul) | {ur, ll, lr} | set(top) | set(turned)
    filler = [c for c in ALL if c not in used]
    return [ll, lr, *top, *filler, *turned[::-1], ur, *ul[::-1]]


# --- the rules, one test each --------------------------------------------------------------


def test_a_side_card_whose_rank_shows_is_set_aside_and_the_next_dealt():
    dealt = monte_bank.deal_layout(_deck(["5S"], "JD", "3C", "KH", ["5H", "KD", "2S"], []), 1)
    assert dealt["layout"]["s1"] == ["2S"]
    assert dealt["layout"]["set_aside"] == ["5H", "KD"]
    assert "5H" not in dealt["rest"] and "2S" not in dealt["rest"]
    assert len(dealt["rest"]) == 40 - 4 - 3


def test_the_second_side_card_is_not_of_the_first_ones_rank():
    dealt = monte_bank.deal_layout(_deck(["5S"], "JD", "3C", "KH", ["2S", "2H", "QC"], []), 2)
    assert (dealt["layout"]["s1"], dealt["layout"]["s2"]) == (["2S"], ["QC"])
    assert dealt["layout"]["set_aside"] == ["2H"]


def test_a_void_deal_deals_no_side_card():
    dealt = monte_bank.deal_layout(_deck(["5S"], "JD", "3C", "3H", ["2S"], []), 2)
    assert dealt["void"] == monte_bank.LOWER_PAIR
    assert "s1" not in dealt["layout"]


def test_a_side_card_with_a_pair_at_ul_is_matched_by_its_rank_in_the_other_colour():
    layout = monte_bank.deal_layout(_deck(["7S", "7C"], "AD", "3C", "KH", ["5H"], []), 1)["layout"]
    assert sorted(monte_bank.matching(layout, "s1")) == ["5C", "5S"]


def test_a_side_card_with_a_triple_at_ul_is_matched_by_its_rank_in_the_same_colour():
    layout = monte_bank.deal_layout(_deck(["7S", "7C", "7H"], "AD", "3C", "KH", ["5H"], []), 1)[
        "layout"
    ]
    assert monte_bank.matching(layout, "s1") == ["5D"]


def test_a_cross_of_a_side_card_and_a_single_goes_by_plain_rank():
    layout = monte_bank.deal_layout(_deck(["7S", "7C"], "AD", "3C", "KH", ["5H"], []), 1)["layout"]
    win, lose = monte_bank.deciding(layout, {"part": "cross", "on": "s1", "against": "ur"})
    assert win == {"5S", "5D", "5C"} and lose == {"AS", "AH", "AC"}


def test_a_round_on_a_side_card_is_against_every_other_position_and_pays_n_minus_one():
    layout = monte_bank.deal_layout(_deck(["5S"], "JD", "3C", "KH", ["2S", "QC"], []), 2)["layout"]
    part = {"part": "round", "on": "s1"}
    win, lose = monte_bank.deciding(layout, part)
    assert win == {"2H", "2D", "2C"}
    assert {"QS", "QH", "QD", "5H", "JS", "3S", "KS"} <= lose
    assert monte_bank.pays(layout, part) == 5
    one = monte_bank.deal_layout(_deck(["5S"], "JD", "3C", "KH", ["2S"], []), 1)["layout"]
    assert monte_bank.pays(one, part) == 4


def test_a_round_on_the_layout_is_still_against_its_other_three_and_pays_3_to_1():
    layout = monte_bank.deal_layout(_deck(["5S"], "JD", "3C", "KH", ["2S", "QC"], []), 2)["layout"]
    part = {"part": "round", "on": "ul"}
    win, lose = monte_bank.deciding(layout, part)
    assert not lose & {"2H", "QS"}
    assert monte_bank.pays(layout, part) == 3


def test_a_bet_undecided_when_the_deck_runs_out_is_void_its_stake_returned():
    deck = _deck(["5S"], "JD", "3C", "KH", ["JS", "JH", "JC", "2D", "2S", "2H", "2C", "4D"], [])
    dealt = monte_bank.deal_layout(deck, 2)
    bets = [{"player": "ana", "kind": "cross", "on": "ur", "against": "s1", "amount": 5}]
    outcome = monte_bank.play_deal(50, dealt["layout"], dealt["rest"], bets, True)
    assert outcome["settled"][0]["result"] == "void" and outcome["settled"][0]["net"] == 0
    assert outcome["bank"] == 50
    assert len(outcome["turned"]) == len(dealt["rest"])


def test_a_bet_on_a_side_card_the_table_does_not_deal_is_refused():
    with pytest.raises(RulesError, match="no position 's1'"):
        monte_bank.check_bet({"kind": "round", "on": "s1"}, 0)
    with pytest.raises(RulesError, match="no position 's2'"):
        monte_bank.check_bet({"kind": "cross", "on": "s2", "against": "ul"}, 1)
    monte_bank.check_bet({"kind": "cross", "on": "s2", "against": "s1"}, 2)


@pytest.mark.parametrize("count", [-1, 3, "1", True, None])
def test_a_table_deals_0_1_or_2_side_cards(count):
    with pytest.raises(RulesError, match="0, 1 or 2 side cards"):
        monte_bank.new_table({"side_cards": count})


@pytest.mark.parametrize("enterer", ["banker", "host"])
def test_a_table_with_its_own_cards_has_side_cards_entered(enterer):
    for count in (1, 2):
        table = monte_bank.new_table({"side_cards": count, "own_deck": enterer})
        assert table["settings"]["side_cards"] == count
    assert monte_bank.new_table({"own_deck": enterer})["settings"]["side_cards"] == 0


def test_a_table_deals_no_side_card_by_default():
    assert monte_bank.new_table()["settings"]["side_cards"] == 0


# --- properties -------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(deals())
def test_with_side_cards_off_every_deal_settles_exactly_as_before_them(deal):
    deck, bank, bets, levy = deal
    dealt = monte_bank.deal_layout(deck, 0)
    assert dealt == before.deal_layout(deck)
    if dealt["void"]:
        return
    now = monte_bank.play_deal(bank, dealt["layout"], dealt["rest"], bets, levy)
    then = before.play_deal(bank, dealt["layout"], dealt["rest"], bets, levy)
    assert now == then


@st.composite
def side_deals(draw):
    count = draw(st.sampled_from([1, 2]))
    deck = draw(st.permutations(FRENCH.codes))
    bank = draw(st.integers(1, 100))
    bets = [
        {"player": draw(st.sampled_from(PLAYERS)), **spot, "amount": draw(st.integers(1, bank))}
        for spot in draw(st.lists(side_spots(count), max_size=12))
    ]
    return count, deck, bank, bets, draw(st.booleans())


# A deal whose ur and s1 have no live card left (rare at random): a cross of them is void.
NO_LIVE_CARD = _deck(["5S"], "JD", "3C", "KH", ["JS", "JH", "JC", "2D", "2S", "2H", "2C"], [])
UNDECIDED = {"player": "ana", "kind": "cross", "on": "ur", "against": "s1", "amount": 3}


@settings(max_examples=400, deadline=None)
@given(side_deals())
@example((2, NO_LIVE_CARD, 50, [UNDECIDED, {**UNDECIDED, "kind": "round", "on": "s1"}], True))
def test_with_side_cards_every_deal_conserves_chips_and_settles_every_bet(deal):
    count, deck, bank, bets, levy = deal
    dealt = monte_bank.deal_layout(deck, count)
    if dealt["void"]:
        return
    layout = dealt["layout"]
    # Every card is in exactly one place: the layout, set aside, or the rest.
    placed = [c for cards in layout.values() for c in cards] + dealt["rest"]
    assert sorted(placed) == sorted(deck)
    shown = [layout[p][0][0] for p in monte_bank.positions(layout)]
    assert len(set(shown)) == len(shown) == 4 + count
    for bet in bets:
        monte_bank.check_bet(bet, count)
    outcome = monte_bank.play_deal(bank, layout, dealt["rest"], bets, levy)
    expected = sorted((i, p["part"]) for i, b in enumerate(bets) for p in monte_bank.parts(b))
    assert sorted((line["bet"], line["part"]) for line in outcome["settled"]) == expected
    assert bank == outcome["bank"] + outcome["levy"] + sum(
        line["net"] for line in outcome["settled"]
    )
    assert outcome["bank"] >= 0
    for line in outcome["settled"]:
        bet = bets[line["bet"]]
        part = next(p for p in monte_bank.parts(bet) if p["part"] == line["part"])
        assert -bet["amount"] <= line["net"] <= monte_bank.pays(layout, part) * bet["amount"]
        win, lose = monte_bank.deciding(layout, part)
        assert (line["result"] == "void") == (line["net"] == 0)
        if line.get("undecided"):
            # Void only when no card is left that could decide it.
            assert not (win | lose) & set(dealt["rest"])
        elif line["result"] != "void":
            card = outcome["turned"][line["card"]]
            assert card in (win if line["result"] == "won" else lose)


def test_a_table_stored_before_the_option_deals_no_side_card_and_records_none():
    from tests.helpers.tables import MonteBankTable

    table = MonteBankTable()
    del table.state["settings"]["side_cards"]  # a table made before side cards
    table.start(_deck(["5S"], "JD", "3C", "KH", ["2S"], []))
    assert "s1" not in table.state["deal"]["layout"]
    punter = next(p for p in table.state["seats"] if p != table.state["banker"])
    with pytest.raises(RulesError, match="no position 's1'"):
        table.do(monte_bank.bet, punter, "round s1", 1)


def test_a_table_with_side_cards_deals_them_and_takes_bets_on_them():
    from tests.helpers.tables import MonteBankTable

    table = MonteBankTable(side_cards=1)
    table.start(_deck(["5S"], "JD", "3C", "KH", ["5H", "2S"], ["2H"]))
    layout = table.state["deal"]["layout"]
    assert layout["s1"] == ["2S"] and layout["set_aside"] == ["5H"]
    punter = next(p for p in table.state["seats"] if p != table.state["banker"])
    table.do(monte_bank.bet, punter, "round s1", 2)
    table.do(monte_bank.close_bets, table.state["banker"])
    (line,) = table.state["last_deal"]["result"]["settled"]
    assert (line["result"], line["net"], line["levy"]) == ("won", 6, 2)  # 4 to 1, the levy 2
