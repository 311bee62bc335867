"""One test per rule of docs/rules.md, "Monte"."""

import pytest

from montones.rules import RulesError, monte
from montones.rules.cards import FRENCH
from montones.rules.monte import settle_coup
from tests.helpers.tables import NOW, MonteTable, monte_deck

FOSTER = {"two_card": False, "generous": False}


def chips(table, pid):
    return table.state["players"][pid]["chips"]


def bets(*items):
    return [{"player": p, "layout": layout, "amount": a} for p, layout, a in items]


def test_anna_and_ben_example_of_the_foster_text():
    # Top 7H KC, bottom 3S 2S; Anna 4 on the top, Ben 2 on the bottom; the gate QH.
    deck = monte_deck(["7H", "KC"], ["3S", "2S", "QH"])
    bottom, top, rest = monte.deal_layouts(deck, two_card=False)
    assert (bottom, top, rest[-1]) == (["3S", "2S"], ["7H", "KC"], "QH")
    outcome = settle_coup(
        50, bottom, top, "QH", bets(("anna", "top", 4), ("ben", "bottom", 2)), FOSTER
    )
    assert outcome["winning"] == ["top"]
    assert [(s["player"], s["result"], s["net"]) for s in outcome["settled"]] == [
        ("ben", "lost", -2),
        ("anna", "won", 4),
    ]
    assert outcome["bank"] == 48
    # "Had the gate been the 5S, Ben would have won and Anna lost."
    other = settle_coup(
        50, bottom, top, "5S", bets(("anna", "top", 4), ("ben", "bottom", 2)), FOSTER
    )
    assert other["winning"] == ["bottom"]
    assert [s["net"] for s in other["settled"]] == [2, -4]


def test_tips_count_winning_unseen_cards_18_of_36_and_8_of_36():
    deck = monte_deck(["7H", "KC"], ["3S", "2S"])
    bottom, top, rest = monte.deal_layouts(deck, two_card=False)
    assert len(rest) == 36
    assert monte.winning_unseen(top, rest) == 18
    assert monte.winning_unseen(bottom, rest) == 8


def test_first_banker_draws_the_highest_card_king_high_ace_low():
    t = MonteTable(players=("anna", "ben", "cid"))
    t.do(
        monte.draw_for_bank,
        deck=["QS", "KH", "AD"] + [c for c in FRENCH.codes if c not in ("QS", "KH", "AD")],
    )
    assert t.state["banker"] == "ben"


def test_equal_highest_draws_draw_again():
    t = MonteTable(players=("anna", "ben", "cid"))
    order = ["KS", "2H", "KD", "3C", "5C"]
    t.do(monte.draw_for_bank, deck=order + [c for c in FRENCH.codes if c not in order])
    assert t.state["draws"] == [
        {"anna": "KS", "ben": "2H", "cid": "KD"},
        {"anna": "3C", "cid": "5C"},
    ]
    assert t.state["banker"] == "cid"


def test_a_coup_lays_out_two_from_the_bottom_and_two_from_the_top_then_the_gate():
    t = MonteTable()
    deck = monte_deck(["7H", "KC"], ["3S", "2S", "QH"])
    banker = t.start(deck=deck)
    coup = t.state["coup"]
    assert coup["bottom"] == ["3S", "2S"] and coup["top"] == ["7H", "KC"]
    t.do(monte.turn_gate, banker)
    assert t.state["last_coup"]["gate"] == "QH"
    assert t.state["discards"] == ["3S", "2S", "7H", "KC", "QH"]


def test_a_layout_with_both_cards_of_the_gates_suit_wins_once():
    outcome = settle_coup(50, ["3S", "2S"], ["7H", "KC"], "5S", bets(("ben", "bottom", 5)), FOSTER)
    assert outcome["settled"][0]["net"] == 5


def test_the_bank_can_win_or_lose_both_layouts_with_one_gate():
    both = settle_coup(
        50, ["3S", "2H"], ["7H", "KC"], "QH", bets(("a", "bottom", 3), ("b", "top", 4)), FOSTER
    )
    assert both["winning"] == ["bottom", "top"] and both["bank"] == 43
    none = settle_coup(
        50, ["3S", "2H"], ["7H", "KC"], "QD", bets(("a", "bottom", 3), ("b", "top", 4)), FOSTER
    )
    assert none["winning"] == [] and none["bank"] == 57


def test_the_sum_of_all_bets_may_never_exceed_the_bank():
    t = MonteTable(min_bet=1, max_bet=50)
    banker = t.start(bank=20)
    players = [p for p in t.state["seats"] if p != banker]
    t.do(monte.bet, players[0], "top", 15)
    with pytest.raises(
        RulesError, match="the bank holds 20 and 15 is already bet: the most you can bet is 5"
    ):
        t.do(monte.bet, players[1], "bottom", 6)
    t.do(monte.bet, players[1], "bottom", 5)


def test_tapping_the_bank_is_one_bet_equal_to_the_bank():
    t = MonteTable(min_bet=1, max_bet=50)
    banker = t.start(bank=20)
    punter = next(p for p in t.state["seats"] if p != banker)
    t.do(monte.bet, punter, "top", 20)
    assert sum(b["amount"] for b in t.state["coup"]["bets"]) == 20


def test_bets_respect_the_table_minimum_and_maximum():
    t = MonteTable(min_bet=2, max_bet=10)
    banker = t.start(bank=50)
    punter = next(p for p in t.state["seats"] if p != banker)
    with pytest.raises(RulesError, match="the table minimum is 2"):
        t.do(monte.bet, punter, "top", 1)
    with pytest.raises(RulesError, match="the table maximum is 10"):
        t.do(monte.bet, punter, "top", 11)
    with pytest.raises(RulesError, match="no layout"):
        t.do(monte.bet, punter, "middle", 5)


def test_no_shuffle_between_coups_a_40_card_deck_gives_exactly_8_coups_then_the_bank_passes():
    t = MonteTable()
    deck = FRENCH.shuffled()
    banker = t.start(deck=deck)
    seen = []
    for number in range(1, 9):
        coup = t.state["coup"]
        assert coup["number"] == number
        t.do(monte.turn_gate, banker)
        seen += t.state["last_coup"]["bottom"] + t.state["last_coup"]["top"]
        seen.append(t.state["last_coup"]["gate"])
        if number < 8:
            t.do(monte.next_coup, banker)
    assert sorted(seen) == sorted(deck)
    assert t.state["phase"] == monte.BANK
    assert t.state["banker"] != banker and t.state["banks"][banker] == 1


def test_the_bank_passes_to_the_left_and_the_new_bankers_deck_is_shuffled():
    t = MonteTable(players=("anna", "ben", "cid"), short_bank=1)
    t.start()  # anna draws the King
    assert t.state["banker"] == "anna"
    t.do(monte.turn_gate, "anna")
    assert t.state["banker"] == "ben" and t.state["phase"] == monte.BANK
    t.do(monte.put_up_bank, "ben", 40, NOW)
    assert t.state["phase"] == monte.CUT and t.state["cutter"] == "cid"
    fresh = list(t.state["deck"])
    assert sorted(fresh) == sorted(FRENCH.codes)
    t.do(monte.cut_deck, "cid", 10, NOW)
    assert t.state["coup"]["top"] == fresh[10:12] and t.state["coups"] == 1


@pytest.mark.parametrize(
    ("amount", "words"),
    [
        (0, "a bank must be a whole number of chips, at least 1"),
        (True, "a bank must be a whole number of chips, at least 1"),
        (101, "you have 100 chips: a bank of 101 is over them"),
    ],
)
def test_a_bank_is_whole_chips_up_to_the_bankers_own(amount, words):
    t = MonteTable()
    t.do(monte.draw_for_bank, deck=["KS"] + [c for c in FRENCH.codes if c != "KS"])
    before = t.state
    with pytest.raises(RulesError) as refused:
        t.do(monte.put_up_bank, "anna", amount, NOW)
    assert str(refused.value) == words
    assert t.state is before and t.state["bank"] == 0 and chips(t, "anna") == 100
    t.do(monte.put_up_bank, "anna", 1, NOW)
    assert t.state["bank"] == 1 and chips(t, "anna") == 99


def test_a_broken_bank_passes_at_once():
    t = MonteTable(max_bet=10)
    banker = t.start(bank=10, deck=monte_deck(["7H", "KC"], ["3S", "2S", "QH"]))
    punter = next(p for p in t.state["seats"] if p != banker)
    t.do(monte.bet, punter, "top", 10)
    events = t.do(monte.turn_gate, banker)
    assert events[-1]["type"] == "bank_passed" and events[-1]["why"] == "broken"
    assert t.state["banker"] != banker


def test_the_game_ends_when_everyone_has_banked_the_agreed_times_most_chips_wins():
    t = MonteTable(players=("anna", "ben"), banks_each=2, short_bank=1)
    t.start(bank=10)
    turns = []
    while t.state["phase"] != monte.FINISHED:
        banker = t.state["banker"]
        if t.state["phase"] == monte.BANK:
            t.do(monte.put_up_bank, banker, 10, NOW)
            if t.state["phase"] == monte.CUT:
                t.do(monte.cut_deck, t.state["cutter"], 3, NOW)
        turns.append(banker)
        punter = next(p for p in t.state["seats"] if p != banker)
        t.do(monte.bet, punter, "top", 5)
        t.do(monte.turn_gate, banker)
    assert turns == ["anna", "ben", "anna", "ben"]
    rows = monte.standings(t.state)
    assert rows[0]["chips"] == max(p["chips"] for p in t.state["players"].values())
    assert sum(r["chips"] for r in rows) == 200


def test_two_card_monte_one_card_each_13_coups_the_last_card_unused():
    t = MonteTable(two_card=True)
    deck = FRENCH.shuffled()
    banker = t.start(deck=deck)
    coup = t.state["coup"]
    assert coup["bottom"] == [deck[-1]] and coup["top"] == [deck[0]]
    for number in range(1, 14):
        t.do(monte.turn_gate, banker)
        if number < 13:
            assert t.state["last_coup"]["gate"] == deck[-2 * number]
            t.do(monte.next_coup, banker)
    assert t.state["phase"] == monte.BANK
    assert len(t.state["discards"]) == 39
    assert set(deck) - set(t.state["discards"]) == {deck[13]}  # the last card, unused


def test_generous_banker_pays_three_to_one_when_both_layouts_and_the_gate_share_a_suit():
    options = {"two_card": True, "generous": True}
    outcome = settle_coup(
        50, ["3S"], ["KS"], "7S", bets(("a", "bottom", 2), ("b", "top", 4)), options
    )
    assert [s["net"] for s in outcome["settled"]] == [6, 12]
    plain = settle_coup(50, ["3S"], ["KH"], "7S", bets(("a", "bottom", 2)), options)
    assert plain["settled"][0]["net"] == 2


def test_generous_banker_only_in_two_card_monte():
    with pytest.raises(RulesError, match="two-card"):
        monte.new_table({"generous": True})


def test_a_generous_bank_short_pays_the_smallest_stake_first_covered_by_what_it_holds():
    options = {"two_card": True, "generous": True}
    placed = bets(("a", "top", 5), ("b", "bottom", 3), ("c", "top", 2))
    outcome = settle_coup(10, ["3S"], ["KS"], "7S", placed, options)
    assert [(s["bet"], s["result"], s["net"]) for s in outcome["settled"]] == [
        (2, "won", 6),
        (1, "won", 4),
        (0, "void", 0),
    ]
    assert outcome["bank"] == 0


def test_short_bank_passes_after_n_coups():
    assert monte.max_coups({"short_bank": 5}) == 5
    assert monte.max_coups({"short_bank": 20}) == 8


def test_private_circle_deals_at_most_six_coups_so_ten_cards_stay_unseen():
    assert monte.max_coups({"private_circle": True}) == 6


def test_a_private_circle_bank_plays_its_sixth_coup_then_passes_with_ten_cards_unseen():
    t = MonteTable(private_circle=True)
    deck = FRENCH.shuffled()
    banker = t.start(deck=deck)
    for number in range(1, 7):
        assert t.state["coup"]["number"] == number
        t.do(monte.turn_gate, banker)
        if number < 6:
            assert t.state["phase"] == monte.COUP_OVER and t.state["banker"] == banker
            t.do(monte.next_coup, banker)
    assert t.state["phase"] == monte.BANK and t.state["banker"] != banker
    assert t.state["passed"]["why"] == "deck done" and t.state["passed"]["coups"] == 6
    assert set(deck) - set(t.state["discards"]) == set(deck[12:22])  # ten cards never seen


@pytest.mark.parametrize(
    ("short_bank", "two_card"), [(1, False), (3, False), (7, False), (10, True)]
)
def test_a_short_bank_of_n_coups_plays_n_coups_then_passes(short_bank, two_card):
    t = MonteTable(short_bank=short_bank, two_card=two_card)
    banker = t.start()
    for number in range(1, short_bank + 1):
        assert t.state["coup"]["number"] == number
        t.do(monte.turn_gate, banker)
        if number < short_bank:
            assert t.state["phase"] == monte.COUP_OVER and t.state["banker"] == banker
            t.do(monte.next_coup, banker)
    assert t.state["phase"] == monte.BANK and t.state["banker"] != banker
    assert t.state["passed"]["why"] == "deck done"
    assert t.state["passed"]["coups"] == short_bank


def test_the_banker_does_not_bet_and_only_the_banker_turns_the_gate():
    t = MonteTable()
    banker = t.start()
    punter = next(p for p in t.state["seats"] if p != banker)
    with pytest.raises(RulesError, match="banker does not bet"):
        t.do(monte.bet, banker, "top", 5)
    with pytest.raises(RulesError, match="only the banker"):
        t.do(monte.turn_gate, punter)


# --- leaving, finishing ------------------------------------------------------------------------


def test_a_banker_leaving_after_the_gate_keeps_the_settled_bets_settled():
    t = MonteTable(max_bet=10)
    banker = t.start(deck=monte_deck(["7H", "KC"], ["3S", "2S", "QH"]))
    t.do(monte.bet, "ben", "top", 4)
    t.do(monte.bet, "cid", "bottom", 2)
    t.do(monte.turn_gate, banker)
    before = sum(p["chips"] for p in t.state["players"].values()) + t.state["bank"]
    t.do(monte.leave, banker)
    after = sum(p["chips"] for p in t.state["players"].values()) + t.state["bank"]
    assert after == before == 300
    assert chips(t, "ben") == 104 and chips(t, "cid") == 98
    assert t.state["banker"] == "ben" and t.state["phase"] == monte.BANK


def test_a_cutter_who_leaves_is_skipped_and_the_deck_is_cut_at_random():
    t = MonteTable(players=("anna", "ben", "cid"), short_bank=1)
    t.start()
    t.do(monte.turn_gate, "anna")
    t.do(monte.put_up_bank, "ben", 10, NOW)
    assert t.state["cutter"] == "cid"
    events = t.do(monte.leave, "cid")
    assert [e["type"] for e in events] == ["cut", "coup_dealt", "left"]
    assert events[0]["how"] == "cutter left"
    assert t.state["phase"] == monte.BETTING


def test_finishing_returns_open_bets_and_the_running_bank():
    t = MonteTable()
    banker = t.start(bank=50)
    t.do(monte.bet, "ben", "top", 5)
    t.do(monte.finish)
    assert t.state["phase"] == monte.FINISHED and t.state["bank"] == 0
    assert chips(t, banker) == 100 and chips(t, "ben") == 100
    assert monte.standings(t.state)[0]["chips"] == 100


def test_a_bank_that_dealt_counts_as_held_when_the_night_ends_mid_bank():
    """Anna runs two coups and the night ends: the TV's "banks held" says 1, not 0."""
    t = MonteTable(players=("anna", "ben"), banks_each=1)
    banker = t.start(bank=50)
    t.do(monte.turn_gate, banker)
    t.do(monte.next_coup, banker)
    assert t.state["coups"] == 2 and t.state["banker"] == banker
    t.do(monte.finish)
    assert {p["id"]: p["banks"] for p in monte.view(t.state)["players"]} == {
        banker: 1,
        "ben" if banker == "anna" else "anna": 0,
    }


def test_a_bank_not_yet_put_up_when_the_night_ends_is_nobodys():
    """The bank passed to Ben, who has put nothing up: only Anna held one."""
    t = MonteTable(players=("anna", "ben", "cid"), short_bank=1, banks_each=2)
    t.start()
    t.do(monte.turn_gate, "anna")
    assert t.state["phase"] == monte.BANK and t.state["banker"] == "ben"
    t.do(monte.finish)
    assert t.state["banks"] == {"anna": 1, "ben": 0, "cid": 0}


# --- what a seat may see -----------------------------------------------------------------------


def test_the_view_shows_both_layouts_with_their_winning_unseen_cards_but_never_the_deck():
    t = MonteTable()
    t.start(deck=monte_deck(["7H", "KC"], ["3S", "2S"]))
    shown = monte.view(t.state)
    assert [(lay["name"], lay["cards"]) for lay in shown["layouts"]] == [
        ("bottom", ["3S", "2S"]),
        ("top", ["7H", "KC"]),
    ]
    assert [(lay["winning"], lay["unseen"]) for lay in shown["layouts"]] == [(8, 36), (18, 36)]
    assert shown["deck"] == 36 and shown["gate"] is None
    for card in t.state["deck"]:
        assert card not in repr(shown)


def test_the_view_keeps_the_counts_as_they_were_while_betting_after_the_gate():
    t = MonteTable()
    banker = t.start(deck=monte_deck(["7H", "KC"], ["3S", "2S", "QH"]))
    t.do(monte.turn_gate, banker)
    shown = monte.view(t.state)
    assert [(lay["winning"], lay["unseen"], lay["wins"]) for lay in shown["layouts"]] == [
        (8, 36, False),
        (18, 36, True),
    ]
    assert shown["gate"] == "QH" and shown["discards"] == ["3S", "2S", "7H", "KC", "QH"]
    assert shown["result"]["version"] == shown["version"]  # fresh: the flip plays once


def test_the_view_names_each_bet_and_marks_my_own():
    t = MonteTable()
    t.start()
    t.do(monte.bet, "ben", "top", 5)
    t.do(monte.bet, "cid", "bottom", 3)
    shown = monte.view(t.state, "ben")
    top = shown["layouts"][1]
    assert [(b["name"], b["amount"], b["mine"]) for b in top["bets"]] == [("Ben", 5, True)]
    assert shown["on_table"] == 8 and shown["room"] == 42
    assert shown["me"]["bets"] == [{"id": 1, "player": "ben", "layout": "top", "amount": 5}]


def test_each_seat_is_offered_only_what_the_rules_allow_now():
    t = MonteTable(players=("anna", "ben", "cid"), max_bet=10)
    t.do(
        monte.draw_for_bank,
        deck=["KS", "2H", "3D"] + [c for c in FRENCH.codes if c not in ("KS", "2H", "3D")],
    )
    assert monte.view(t.state, "anna")["me"]["can"] == ["bank", "decline"]
    assert monte.view(t.state, "ben")["me"]["can"] == []
    t.do(monte.put_up_bank, "anna", 50, NOW)
    assert monte.view(t.state, "ben")["me"]["can"] == ["cut"]
    assert monte.view(t.state, "cid")["me"]["can"] == []
    t.do(monte.cut_deck, "ben", 5, NOW)
    assert monte.view(t.state, "anna")["me"]["can"] == ["gate"]
    assert monte.view(t.state, "ben")["me"]["can"] == ["bet"]
    t.do(monte.bet, "ben", "top", 10)
    assert monte.view(t.state, "ben")["me"]["can"] == ["bet", "withdraw"]
    t.do(monte.turn_gate, "anna")
    assert monte.view(t.state, "anna")["me"]["can"] == ["next"]
    assert monte.view(t.state, "ben")["me"]["can"] == []


def test_a_punter_is_not_offered_a_bet_when_the_bank_is_covered():
    t = MonteTable(max_bet=50)
    t.start(bank=20)
    t.do(monte.bet, "ben", "top", 20)
    me = monte.view(t.state, "cid")["me"]
    assert me["most"] == 0 and "bet" not in me["can"]


def test_the_largest_bet_offered_is_the_smallest_of_the_maximum_the_room_and_my_chips():
    t = MonteTable(max_bet=10, chips=100)
    t.start(bank=12)
    t.do(monte.bet, "ben", "top", 5)
    assert monte.view(t.state, "cid")["me"]["most"] == 7


def test_the_draw_for_the_first_banker_is_shown_until_the_first_coup_is_dealt():
    t = MonteTable(players=("anna", "ben"))
    order = ["QS", "KH"]
    t.do(monte.draw_for_bank, deck=order + [c for c in FRENCH.codes if c not in order])
    assert monte.view(t.state)["draws"] == [
        [
            {"player": "anna", "name": "Anna", "card": "QS"},
            {"player": "ben", "name": "Ben", "card": "KH"},
        ]
    ]
    t.do(monte.put_up_bank, "ben", 50, NOW)
    assert monte.view(t.state)["draws"]
    t.do(monte.cut_deck, "anna", 3, NOW)
    assert monte.view(t.state)["draws"] == []


def test_a_passed_bank_still_shows_its_last_coup_and_why_it_passed():
    t = MonteTable(max_bet=10)
    banker = t.start(bank=10, deck=monte_deck(["7H", "KC"], ["3S", "2S", "QH"]))
    t.do(monte.bet, "ben", "top", 10)
    t.do(monte.turn_gate, banker)
    shown = monte.view(t.state)
    assert shown["phase"] == monte.BANK and shown["banker_name"] == "Ben"
    assert shown["passed"]["why"] == "broken" and shown["passed"]["name"] == "Anna"
    assert shown["gate"] == "QH" and shown["layouts"][1]["wins"] is True
    assert shown["result"]["settled"][0]["name"] == "Ben"


def test_the_view_counts_the_banks_each_player_has_held():
    t = MonteTable(players=("anna", "ben"), short_bank=1)
    t.start()
    t.do(monte.turn_gate, "anna")
    banks = {p["id"]: p["banks"] for p in monte.view(t.state)["players"]}
    assert banks == {"anna": 1, "ben": 0}


def test_a_bank_passed_by_a_leaving_banker_does_not_show_an_older_coup_as_its_last():
    t = MonteTable(players=("anna", "ben", "cid"), short_bank=1)
    t.start()
    t.do(monte.turn_gate, "anna")
    assert monte.view(t.state)["layouts"]  # anna's last coup, still on show
    t.do(monte.leave, "ben")  # ben leaves before putting up his bank
    shown = monte.view(t.state)
    assert shown["passed"]["why"] == "banker left" and shown["layouts"] == []
    assert shown["banker"] == "cid"


def test_a_pause_gives_the_cutter_the_whole_cut_time_and_moves_no_bank():
    t = MonteTable()
    t.do(monte.draw_for_bank)
    t.do(monte.put_up_bank, t.state["banker"], 50, NOW)
    assert t.state["phase"] == monte.CUT
    after = monte.after_pause(t.state, NOW + 700, paused_for=600)
    assert after["cut_started"] == NOW + 700 and t.state["cut_started"] == NOW
    assert after["bank"] == t.state["bank"] and after["coups"] == t.state["coups"]


def test_standings_count_an_open_bank_as_its_bankers():
    t = MonteTable(players=("anna", "ben"))
    banker = t.start(bank=50)
    assert t.state["bank"] == 50 and chips(t, banker) == 50
    rows = {row["player"]: row["chips"] for row in monte.standings(t.state)}
    assert rows == {"anna": 100, "ben": 100}
