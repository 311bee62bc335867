"""A table played with its own cards (montones.rules.own_deck): each card entered as the game
shows it, refused in words when it cannot be, and settled exactly as the same deck dealt by
the app."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from montones.rules import RulesError, monte, monte_bank, montones
from montones.rules.cards import FRENCH, SPANISH
from montones.rules.montones import uneven_sizes
from tests.helpers.monte_bank_bets import side_spots
from tests.helpers.tables import NOW, MonteBankTable, MonteTable, Table

PUNTERS = ["ana", "ben", "eva", "dan"]


def without_version(result):
    return {k: v for k, v in result.items() if k != "version"}


def undo_as_shown(engine, state, who):
    """Every screen's "undo" (the view's ``entry.undo``, a plain check) is offered exactly
    when the engine's undo_card takes the last card back."""
    try:
        engine.undo_card(state, who)
        took = True
    except RulesError:
        took = False
    entry = engine.view(state)["entry"]
    assert entry is not None and entry["undo"] == took, (state["phase"], took)


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


def rey_hand(count=3):
    """An own-deck hand of ``count`` heaps whose banker turned a Rey (Ana bet 5 on heap 1)."""
    t = own_montones(count)
    t.do(montones.choose_bank_heap, "ana", count)
    t.do(montones.bet, "ana", 1, 5)
    t.do(montones.close_bets, "banker")
    for card in ("7o", "6o", "5c", "4b")[: count - 1] + ("Rc",):
        t.do(montones.enter_card, "banker", card)
    return t


def test_own_deck_heaps_can_be_kept_after_a_rey_as_many_as_the_banker_counts():
    t = rey_hand(3)
    assert t.hand["result"]["bank_card"] == "Rc" and t.chips("ana") == 95
    me = montones.view(t.state, "banker", NOW)["me"]
    assert "keep_entered" in me["can"] and "keep" not in me["can"]
    assert me["most_kept"] == 4  # the three heaps and the new one
    with pytest.raises(RulesError, match="cannot see what is left of the heaps"):
        t.do(montones.keep_heaps, "banker", 1, NOW)
    for count in (1, 5):
        with pytest.raises(RulesError, match="make 2 to 4 heaps"):
            t.do(montones.keep_entered, "banker", count, NOW)
    with pytest.raises(RulesError, match="only the banker"):
        t.do(montones.keep_entered, "ana", 4, NOW)
    t.do(montones.keep_entered, "banker", 4, NOW)
    assert t.state["phase"] == montones.BETTING and t.hand["rey_kept"]
    assert len(t.hand["heaps"]) == 4 and t.hand["bank_heap"] is None and t.hand["bets"] == []
    # The turned cards were taken away: each is seen, greyed, and refused if entered again.
    assert montones.view(t.state)["entry"]["seen"] == ["7o", "6o", "Rc"]
    t.do(montones.choose_bank_heap, "ben", 2)
    t.do(montones.bet, "ana", 4, 5)
    t.do(montones.close_bets, "banker")
    with pytest.raises(RulesError, match="Rc is on the table already"):
        t.do(montones.enter_card, "banker", "Rc")
    for card in ("Cb", "Ae", "3o", "2o"):  # heap 4 (5 chips), heaps 1 and 3, the banker's
        t.do(montones.enter_card, "banker", card)
    assert t.hand["result"]["cards"] == ["Ae", "2o", "3o", "Cb"]
    assert t.chips("ana") == 100


def test_own_deck_heaps_are_gathered_when_no_rey_or_the_bank_closes():
    t = own_montones(3)
    t.do(montones.choose_bank_heap, "ana", 3)
    t.do(montones.close_bets, "banker")
    for card in ("7o", "6o", "5o"):
        t.do(montones.enter_card, "banker", card)
    with pytest.raises(RulesError, match="only after the banker turns a Rey"):
        t.do(montones.keep_entered, "banker", 4, NOW)
    assert "keep_entered" not in montones.view(t.state, "banker", NOW)["me"]["can"]
    closing = rey_hand(3)  # a Rey as the bank's time runs out
    with pytest.raises(RulesError, match="the bank closes after this hand"):
        closing.do(montones.keep_entered, "banker", 4, NOW + 60 * 60)
    assert "keep_entered" not in montones.view(closing.state, "banker", NOW + 60 * 60)["me"]["can"]


def montones_bets(draw, others):
    return [
        (
            draw(st.sampled_from(PUNTERS)),
            draw(st.sampled_from(["bet", "against", "declare"])),
            draw(st.sampled_from(others)),
            draw(st.integers(1, 30)),
        )
        for _ in range(draw(st.integers(0, 8)))
    ]


@st.composite
def montones_nights(draw):
    """A deck, its heaps, a hand's bets; and, when the banker's card is a Rey (one night in
    three is dealt one), how the heaps are kept and the next hand's bets on them."""
    order = draw(st.permutations(SPANISH.codes))
    count = draw(st.integers(2, 8))
    sizes = uneven_sizes(count, 40, draw(st.randoms(use_true_random=False)))
    bank_heap = draw(st.integers(1, count))
    if draw(st.integers(0, 2)) == 0:  # the banker's heap shows a Rey (the deck is cut at 7)
        bottom = (sum(sizes[:bank_heap]) - 1 + 7) % 40
        rey = order.index(draw(st.sampled_from(["Ro", "Rc", "Re", "Rb"])))
        order[bottom], order[rey] = order[rey], order[bottom]
    others = [h for h in range(1, count + 1) if h != bank_heap]
    bets = montones_bets(draw, others)
    kept = (draw(st.integers(0, 99)), draw(st.integers(0, 99)), draw(st.integers(1, 9)))
    again = montones_bets(draw, list(range(1, count + 2)))
    return order, sizes, bank_heap, bets, kept, again


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


def enter_hand(entered, dealt):
    """Each heap's bottom card entered as the banker lifts it, as the app dealt it."""
    undo_as_shown(montones, entered.state, "banker")
    while montones.waiting_for(entered.state) is not None:
        heap = montones.waiting_for(entered.state)
        entered.do(montones.enter_card, "banker", dealt.hand["heaps"][heap - 1][-1])
        undo_as_shown(montones, entered.state, "banker")


def settled_alike(entered, dealt):
    assert without_version(entered.hand["result"]) == without_version(dealt.hand["result"])
    assert montones.balances(entered.state) == montones.balances(dealt.state)


@settings(max_examples=150, deadline=None)
@given(montones_nights())
def test_a_random_montones_deck_entered_card_by_card_settles_as_the_app_deals_it(night):
    """A hand, and after a Rey the next hand on the heaps kept: the banker of the table's own
    cards says how many heaps the kept ones make, and enters what is turned."""
    order, sizes, bank_heap, bets, (split, position, bank_again), again = night
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
    enter_hand(entered, dealt)
    settled_alike(entered, dealt)

    can = montones.view(dealt.state, "banker", NOW)["me"]["can"]
    assert ("keep" in can) == (
        "keep_entered" in montones.view(entered.state, "banker", NOW)["me"]["can"]
    )
    if "keep" not in can:
        return
    splittable = [n for n, heap in enumerate(dealt.hand["heaps"], start=1) if len(heap) >= 3]
    heap = splittable[split % len(splittable)]
    dealt.do(
        montones.keep_heaps,
        "banker",
        heap,
        NOW,
        1 + position % (len(dealt.hand["heaps"][heap - 1]) - 2),
    )
    entered.do(montones.keep_entered, "banker", len(dealt.hand["heaps"]), NOW)
    count = len(dealt.hand["heaps"])
    for t in (dealt, entered):
        play_bets(t, 1 + bank_again % count, [b for b in again if b[2] <= count])
        t.do(montones.close_bets, "banker")
    enter_hand(entered, dealt)
    settled_alike(entered, dealt)


# --- Monte ----------------------------------------------------------------------------------


def own_monte(**settings):
    t = MonteTable(own_deck="banker", **settings)
    banker = t.start()
    assert t.state["phase"] == "entering" and t.state["shuffle"] is None  # no seal, no cut
    return t, banker


def test_monte_layouts_then_the_gate_are_entered_and_the_gate_settles():
    t, banker = own_monte()
    for card in ("2H", "3S", "4D", "5C"):
        assert monte.waiting_for(t.state) == ("bottom" if card in ("2H", "3S") else "top")
        t.do(monte.enter_card, banker, card)
    assert t.state["coup"]["bottom"] == ["2H", "3S"] and t.state["coup"]["top"] == ["4D", "5C"]
    assert t.state["phase"] == monte.BETTING and monte.waiting_for(t.state) == "gate"
    t.do(monte.bet, "ben", "bottom", 10)
    t.do(monte.bet, "cid", "top", 5)
    with pytest.raises(RulesError, match="enter the gate"):
        t.do(monte.turn_gate, banker)
    t.do(monte.enter_card, banker, "7H")
    assert t.state["coup"]["result"]["winning"] == ["bottom"]
    assert t.state["players"]["ben"]["chips"] == 110 and t.state["players"]["cid"]["chips"] == 95


def test_monte_keeps_its_deck_across_coups_until_the_next_banker_shuffles():
    t, banker = own_monte()
    for card in ("2H", "3S", "4D", "5C", "7H"):
        t.do(monte.enter_card, banker, card)
    t.do(monte.next_coup, banker)
    with pytest.raises(RulesError, match="7H is on the table already"):
        t.do(monte.enter_card, banker, "7H")
    assert monte.seen(t.state) == ["2H", "3S", "4D", "5C", "7H"]


def test_monte_takes_a_layout_card_back_until_a_bet_is_on_it():
    t, banker = own_monte()
    for card in ("2H", "3S", "4D", "5C"):
        t.do(monte.enter_card, banker, card)
    t.do(monte.undo_card, banker)
    assert t.state["phase"] == "entering" and t.state["coup"]["top"] == ["4D"]
    t.do(monte.enter_card, banker, "6C")
    t.do(monte.bet, "ben", "bottom", 10)
    with pytest.raises(RulesError, match="bets are on these layouts"):
        t.do(monte.undo_card, banker)


@st.composite
def monte_nights(draw):
    order = draw(st.permutations(FRENCH.codes))
    two_card = draw(st.booleans())
    coups = [
        [
            (
                draw(st.sampled_from(["ben", "cid"])),
                draw(st.sampled_from(monte.LAYOUTS)),
                draw(st.integers(1, 10)),
            )
            for _ in range(draw(st.integers(0, 4)))
        ]
        for _ in range(13)
    ]
    return order, two_card, coups


def monte_bets(t, bets):
    for player, layout, amount in bets:
        try:
            t.do(monte.bet, player, layout, amount)
        except RulesError:
            pass


@settings(max_examples=60, deadline=None)
@given(monte_nights())
def test_a_random_monte_deck_entered_card_by_card_settles_as_the_app_deals_it(night):
    order, two_card, coups = night
    dealt = MonteTable(two_card=two_card)
    banker = dealt.start(deck=order)
    entered = MonteTable(two_card=two_card, own_deck="banker")
    entered.start()
    for bets in coups:
        if dealt.state["banker"] != banker or dealt.state["phase"] == monte.BANK:
            break
        if dealt.state["phase"] == monte.COUP_OVER:
            dealt.do(monte.next_coup, banker)
            entered.do(monte.next_coup, banker)
        coup = dealt.state["coup"]
        undo_as_shown(monte, entered.state, banker)
        for card in coup["bottom"] + coup["top"]:
            entered.do(monte.enter_card, banker, card)
            undo_as_shown(monte, entered.state, banker)
        monte_bets(dealt, bets)
        monte_bets(entered, bets)
        undo_as_shown(monte, entered.state, banker)
        dealt.do(monte.turn_gate, banker)
        entered.do(monte.enter_card, banker, dealt.state["last_coup"]["gate"])
        undo_as_shown(monte, entered.state, banker)
        assert without_version(entered.state["last_coup"]["result"]) == without_version(
            dealt.state["last_coup"]["result"]
        )
        assert monte.balances(entered.state) == monte.balances(dealt.state)
        assert entered.state["phase"] == dealt.state["phase"]


# --- Monte Bank -----------------------------------------------------------------------------


def own_monte_bank(**settings):
    t = MonteBankTable(own_deck="banker", **settings)
    draw = ["KS"] + [c for c in FRENCH.codes if c[0] not in "K"][:10]
    t.do(monte_bank.draw_for_bank, deck=draw + [c for c in FRENCH.codes if c not in draw])
    banker = t.state["banker"]
    t.do(monte_bank.put_up_bank, banker, 50, NOW)
    assert t.state["phase"] == "entering" and t.state["shuffle"] is None
    return t, banker


def test_monte_bank_stacks_a_pair_as_it_comes_then_lays_out_ur_ll_lr():
    t, banker = own_monte_bank()
    for card, position in (("7S", "ul"), ("7H", "ur"), ("JD", "ur"), ("2C", "ll"), ("4C", "lr")):
        assert monte_bank.waiting_for(t.state) == position  # a card of ul's rank stacks on it
        t.do(monte_bank.enter_card, banker, card)
    assert t.state["deal"]["layout"] == {
        "ul": ["7S", "7H"],
        "ur": ["JD"],
        "ll": ["2C"],
        "lr": ["4C"],
    }
    assert t.state["phase"] == monte_bank.BETTING


@pytest.mark.parametrize(
    "cards, why",
    [
        (("7S", "7H", "7D", "7C"), "four of a rank"),
        (("7S", "JD", "7D", "2C"), "lower matches upper"),
        (("7S", "JD", "2D", "2C"), "lower pair"),
        (("7S", "JD", "2C", "2D"), "lower pair"),
        (("7S", "JD", "2C", "JS"), "lower matches upper"),
    ],
)
def test_monte_bank_a_void_deal_is_said_as_its_card_is_entered(cards, why):
    t, banker = own_monte_bank()
    for card in cards:
        t.do(monte_bank.enter_card, banker, card)
    assert t.state["void"]["why"] == why and t.state["last_deal"]["void"] == why
    # Gathered and shuffled: a fresh deal waits for its cards, the void one's seen no more.
    assert t.state["phase"] == "entering" and monte_bank.seen(t.state) == []


def test_monte_bank_turns_cards_until_the_last_bet_is_decided():
    t, banker = own_monte_bank()
    for card in ("7S", "JD", "2C", "4C"):
        t.do(monte_bank.enter_card, banker, card)
    t.do(monte_bank.bet, "ben", {"kind": "round", "on": "ul"}, 10)
    t.do(monte_bank.close_bets, banker)
    assert monte_bank.waiting_for(t.state) == "turned"
    with pytest.raises(RulesError, match="JD is on the table already"):
        t.do(monte_bank.enter_card, banker, "JD")
    t.do(monte_bank.enter_card, banker, "3H")
    t.do(monte_bank.undo_card, banker)
    t.do(monte_bank.enter_card, banker, "5H")
    assert t.state["phase"] == "entering"
    t.do(monte_bank.enter_card, banker, "7H")  # the ul's rank: the round wins, 3 to 1
    assert t.state["phase"] == monte_bank.DEAL_OVER
    assert t.state["last_deal"]["result"]["turned"] == ["5H", "7H"]


def test_monte_bank_with_no_bets_settles_when_bets_close():
    t, banker = own_monte_bank()
    for card in ("7S", "JD", "2C", "4C"):
        t.do(monte_bank.enter_card, banker, card)
    t.do(monte_bank.close_bets, banker)
    assert t.state["phase"] == monte_bank.DEAL_OVER


def test_monte_bank_side_cards_are_entered_after_the_four_a_shown_rank_set_aside():
    t, banker = own_monte_bank(side_cards=2)
    for card in ("7S", "JD", "2C", "4C"):
        t.do(monte_bank.enter_card, banker, card)
    # The four are out: the side cards now, no bet yet.
    assert t.state["phase"] == "entering" and monte_bank.waiting_for(t.state) == "s1"
    assert monte_bank.view(t.state)["layout"]["s1"] == []  # its place shows, empty
    events = t.do(monte_bank.enter_card, banker, "7H")  # ul's rank: set aside, face up
    assert events[0] == {"type": "card_entered", "card": "7H", "for": "set_aside"}
    assert t.state["deal"]["layout"]["set_aside"] == ["7H"]
    assert monte_bank.waiting_for(t.state) == "s1"
    t.do(monte_bank.enter_card, banker, "5D")
    assert monte_bank.waiting_for(t.state) == "s2"
    t.do(monte_bank.enter_card, banker, "5S")  # s1's rank shows now: set aside too
    t.do(monte_bank.enter_card, banker, "QH")
    assert t.state["phase"] == monte_bank.BETTING
    assert t.state["deal"]["layout"] == {
        "ul": ["7S"],
        "ur": ["JD"],
        "ll": ["2C"],
        "lr": ["4C"],
        "s1": ["5D"],
        "s2": ["QH"],
        "set_aside": ["7H", "5S"],
    }
    # Bets on the side cards open with the rest, and pay as at a table that deals them.
    t.do(monte_bank.bet, "ben", {"kind": "round", "on": "s2"}, 10)
    t.do(monte_bank.close_bets, banker)
    with pytest.raises(RulesError, match="5S is on the table already"):
        t.do(monte_bank.enter_card, banker, "5S")  # a card set aside is seen
    before = t.state
    t.do(monte_bank.enter_card, banker, "QD")  # s2's rank first: a round on it, 5 to 1
    (line,) = t.state["last_deal"]["result"]["settled"]
    assert (line["result"], line["net"] + line["levy"]) == ("won", 50)
    record = monte_bank.hand_record(before, t.state)
    assert record["side_cards"] == 2 and record["result"]["set_aside"] == ["7H", "5S"]
    assert monte_bank.replay(record) == record["result"]


def test_monte_bank_side_cards_refuse_the_impossible_in_words_and_change_nothing():
    t, banker = own_monte_bank(side_cards=1)
    with pytest.raises(RulesError, match="the layout is still being entered"):
        t.do(monte_bank.bet, "ben", {"kind": "round", "on": "ul"}, 5)
    for card in ("7S", "JD", "2C", "4C"):
        t.do(monte_bank.enter_card, banker, card)
    before = t.state
    refusals = [
        ((monte_bank.enter_card, banker, "JD"), "JD is on the table already"),
        ((monte_bank.enter_card, banker, "XX"), "unknown card 'XX'"),
        ((monte_bank.enter_card, "ben", "5D"), "only the banker enters the cards"),
        # A turned card before the side card is out: bets are not open, nor can they close.
        ((monte_bank.close_bets, banker), "the side cards are still being entered"),
        ((monte_bank.bet, "ben", {"kind": "round", "on": "s1"}, 5), "side cards are still being"),
        ((monte_bank.bet, "ben", {"kind": "round", "on": "ul"}, 5), "side cards are still being"),
        ((monte_bank.enter_card, "host", "5D"), "only the banker enters the cards"),
    ]
    for (action, *args), words in refusals:
        with pytest.raises(RulesError, match=words):
            t.do(action, *args)
        assert t.state == before
    t.do(monte_bank.enter_card, banker, "7C")  # set aside
    t.do(monte_bank.enter_card, banker, "5D")  # the side card: bets open
    t.do(monte_bank.undo_card, banker)  # the side card back: the set-aside card stays seen
    with pytest.raises(RulesError, match="7C is on the table already"):
        t.do(monte_bank.enter_card, banker, "7C")
    t.do(monte_bank.enter_card, banker, "5D")
    with pytest.raises(RulesError, match="no position 's2'"):
        t.do(monte_bank.bet, "ben", {"kind": "round", "on": "s2"}, 5)


def test_monte_bank_a_side_card_and_a_set_aside_card_are_taken_back_until_a_bet():
    t, banker = own_monte_bank(side_cards=1)
    for card in ("7S", "JD", "2C", "4C", "JS", "5D"):
        t.do(monte_bank.enter_card, banker, card)
    assert t.state["phase"] == monte_bank.BETTING
    assert monte_bank.view(t.state)["entry"]["undo"]
    t.do(monte_bank.undo_card, banker)  # the side card: back to entering it
    assert t.state["phase"] == "entering" and monte_bank.waiting_for(t.state) == "s1"
    assert (
        t.state["deal"]["layout"]["set_aside"] == ["JS"] and "s1" not in t.state["deal"]["layout"]
    )
    t.do(monte_bank.undo_card, banker)  # the card set aside
    assert t.state["deal"]["layout"]["set_aside"] == []
    assert monte_bank.seen(t.state) == ["7S", "JD", "2C", "4C"]
    t.do(monte_bank.enter_card, banker, "6H")
    t.do(monte_bank.bet, "ben", {"kind": "cross", "on": "s1", "against": "ul"}, 5)
    with pytest.raises(RulesError, match="bets are on this layout: the card stays"):
        t.do(monte_bank.undo_card, banker)


@st.composite
def monte_bank_deals(draw):
    order = draw(st.permutations(FRENCH.codes))
    sides = draw(st.sampled_from([0, 1, 2]))
    bets = [
        (draw(st.sampled_from(["ben", "cid"])), spot, draw(st.integers(1, 20)))
        for spot in draw(st.lists(side_spots(sides), max_size=6))
    ]
    return order, sides, bets


def monte_bank_bets(t, bets):
    for player, spot, amount in bets:
        try:
            t.do(monte_bank.bet, player, spot, amount)
        except RulesError:
            pass


def layout_cards(layout):
    return [*layout["ul"], *layout["ur"], *layout["ll"], *layout["lr"]]


def dealt_cards(deal):
    """The cards a dealt deal showed before bets opened, in the order they came: the four,
    then the side cards and the cards set aside, as they came off the top after ``lr``."""
    layout = deal["layout"]
    sides = sum(s in layout for s in monte_bank.SIDE_CARDS) + len(
        layout.get(monte_bank.SET_ASIDE, [])
    )
    return layout_cards(layout) + deal["deck"][2 : 2 + sides]


# A deal whose ur and s1 have no live card left: a cross of them waits for the deck to be out.
NO_LIVE_CARD = ["3C", "KH", "JS", "JH", "JC", "2D", "2S", "2H", "2C"]
NO_LIVE_CARD = NO_LIVE_CARD + [c for c in FRENCH.codes if c not in NO_LIVE_CARD + ["JD", "5S"]]
NO_LIVE_CARD += ["JD", "5S"]
UNDECIDED = ("ben", {"kind": "cross", "on": "ur", "against": "s1"}, 3)


@settings(max_examples=150, deadline=None)
@given(monte_bank_deals(), st.booleans())
@example((NO_LIVE_CARD, 2, [UNDECIDED, ("cid", {"kind": "round", "on": "s2"}, 2)]), True)
def test_a_random_monte_bank_deck_entered_card_by_card_settles_as_the_app_deals_it(deal, levy):
    """With 0, 1 or 2 side cards: the side cards entered after the four, each card whose rank
    shows set aside as it comes, then the turned cards, settle as the app deals that deck."""
    order, sides, bets = deal
    dealt = MonteBankTable(levy=levy, side_cards=sides)
    _, banker = dealt.start(order)
    entered, _ = own_monte_bank(levy=levy, side_cards=sides)
    if dealt.state["void"]:
        for card in layout_cards(dealt.state["void"]["layout"]):
            entered.do(monte_bank.enter_card, banker, card)
        assert without_version(entered.state["void"]) == without_version(dealt.state["void"])
        return
    for card in dealt_cards(dealt.state["deal"]):
        assert entered.state["phase"] == "entering"
        entered.do(monte_bank.enter_card, banker, card)
        undo_as_shown(monte_bank, entered.state, banker)
    assert entered.state["phase"] == monte_bank.BETTING
    assert entered.state["deal"]["layout"] == dealt.state["deal"]["layout"]
    monte_bank_bets(dealt, bets)
    monte_bank_bets(entered, bets)
    assert entered.state["deal"]["bets"] == dealt.state["deal"]["bets"]
    undo_as_shown(monte_bank, entered.state, banker)
    turning = monte_bank.turning_order(dealt.state["deal"]["rest"])
    dealt.do(monte_bank.close_bets, banker)
    entered.do(monte_bank.close_bets, banker)
    for card in turning:
        if entered.state["phase"] != "entering":
            break
        undo_as_shown(monte_bank, entered.state, banker)
        entered.do(monte_bank.enter_card, banker, card)
    mine, theirs = entered.state["last_deal"]["result"], dealt.state["last_deal"]["result"]
    assert without_version(mine) == without_version(theirs)
    assert monte_bank.balances(entered.state) == monte_bank.balances(dealt.state)
