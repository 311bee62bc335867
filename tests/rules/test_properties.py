"""Invariants that hold for every hand and every coup, checked with Hypothesis."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montones.rules import RulesError, monte, montones
from montones.rules.cards import FRENCH, SPANISH
from montones.rules.montones import heap_payout, settle_hand

PLAYERS = ["ana", "ben", "eva", "dan"]


@st.composite
def montones_hands(draw):
    count = draw(st.integers(2, 8))
    cards = draw(st.permutations(SPANISH.codes))[:count]
    bank_heap = draw(st.integers(1, count))
    bank = draw(st.integers(1, 200))
    chips = {p: draw(st.integers(0, 300)) for p in PLAYERS}
    free = dict(chips)
    bets = []
    declared = False
    others = [h for h in range(1, count + 1) if h != bank_heap]
    for _ in range(draw(st.integers(0, 10))):
        player = draw(st.sampled_from(PLAYERS))
        heap = draw(st.sampled_from(others))
        kind = draw(st.sampled_from(["heap", "heap", "against", "whole_bank"]))
        if kind == "whole_bank":
            if declared:
                continue
            declared = True
            bets.append({"player": player, "kind": kind, "heap": heap, "amount": None})
            continue
        if free[player] < 1:
            continue
        amount = draw(st.integers(1, min(bank, free[player])))
        free[player] -= amount
        bets.append({"player": player, "kind": kind, "heap": heap, "amount": amount})
    return bank, cards, bank_heap, bets, chips


@settings(max_examples=500)
@given(montones_hands())
def test_every_montones_settlement_conserves_chips_and_bounds_each_bet(hand):
    bank, cards, bank_heap, bets, chips = hand
    outcome = settle_hand(bank, cards, bank_heap, bets, chips)
    assert outcome["bank"] >= 0
    assert bank - outcome["bank"] == sum(line["net"] for line in outcome["settled"])
    assert sorted(line["bet"] for line in outcome["settled"]) == list(range(len(bets)))
    final, bank_now = dict(chips), bank
    for line in outcome["settled"]:
        placed = bets[line["bet"]]
        final[line["player"]] += line["net"]
        if placed["kind"] == "whole_bank":
            assert line["stake"] <= min(bank_now, final[line["player"]] - line["net"])
            assert abs(line["net"]) <= line["stake"]
        else:
            stake = placed["amount"]
            most = (
                heap_payout(cards[placed["heap"] - 1], stake) if placed["kind"] == "heap" else stake
            )
            assert -stake <= line["net"] <= most
        bank_now -= line["net"]
        assert bank_now >= 0
    assert sum(final.values()) + outcome["bank"] == sum(chips.values()) + bank
    assert all(v >= 0 for v in final.values())


@st.composite
def monte_coups(draw):
    two_card = draw(st.booleans())
    options = {"two_card": two_card, "generous": two_card and draw(st.booleans())}
    bank = draw(st.integers(1, 100))
    size = 1 if two_card else 2
    cards = draw(st.permutations(FRENCH.codes))
    bottom, top, gate = cards[:size], cards[size : 2 * size], cards[2 * size]
    bets, on_table = [], 0
    for _ in range(draw(st.integers(0, 8))):
        if on_table >= bank:
            break
        amount = draw(st.integers(1, bank - on_table))
        on_table += amount
        bets.append(
            {
                "player": draw(st.sampled_from(PLAYERS)),
                "layout": draw(st.sampled_from(monte.LAYOUTS)),
                "amount": amount,
            }
        )
    return bank, bottom, top, gate, bets, options


@settings(max_examples=500)
@given(monte_coups())
def test_every_monte_coup_conserves_chips_and_never_overdraws_the_bank(coup):
    bank, bottom, top, gate, bets, options = coup
    outcome = monte.settle_coup(bank, bottom, top, gate, bets, options)
    assert outcome["bank"] >= 0
    assert bank - outcome["bank"] == sum(line["net"] for line in outcome["settled"])
    for line in outcome["settled"]:
        stake = bets[line["bet"]]["amount"]
        assert -stake <= line["net"] <= outcome["odds"] * stake
        if outcome["odds"] == 1:
            assert line["result"] != "void"  # the sum rule means 1 to 1 is always covered


@settings(max_examples=100, deadline=None)
@given(st.booleans(), st.permutations(FRENCH.codes))
def test_a_40_card_monte_deck_gives_exactly_8_coups_13_in_two_card(two_card, deck):
    state = monte.new_table({"two_card": two_card, "bank_size": 10})
    for pid in ("anna", "ben"):
        state, _ = monte.join(state, pid, pid, 100)
    state, _ = monte.draw_for_bank(state)
    banker = state["banker"]
    state, _ = monte.put_up_bank(state, banker, 10, 0.0, deck=deck)
    state, _ = monte.cut_deck(state, state["cutter"], 20, 0.0)
    coups = 0
    while state["banker"] == banker:
        state, _ = monte.turn_gate(state, banker)
        coups += 1
        if state["phase"] == monte.COUP_OVER:
            state, _ = monte.next_coup(state, banker)
    assert coups == (13 if two_card else 8)


def unmarked(value):
    """A view without the marks of which bets are the seat's own."""
    if isinstance(value, dict):
        return {k: unmarked(v) for k, v in value.items() if k != "mine"}
    if isinstance(value, list):
        return [unmarked(v) for v in value]
    return value


def assert_seat_views_compose(engine, state, seats, now=0.0):
    """A seat's view is the view of no seat with the seat's own part (its ``"me"``) added, but
    for which bets are marked as its own: the live path builds it that way (``shared``)."""
    shared = engine.view(state, None, now)
    for seat in seats:
        built = engine.view(state, seat, now, shared=shared)
        assert unmarked(engine.view(state, seat, now)) == unmarked(built)


ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["bet", "against", "declare", "choose", "withdraw", "close", "next"]),
        st.sampled_from(["ana", "ben", "eva"]),
        st.integers(1, 5),
        st.integers(-3, 40),
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(ACTIONS)
def test_montones_states_round_trip_through_json_and_chips_are_conserved(actions):
    """Also: every seat's view composes from the view of no seat (assert_seat_views_compose)."""
    state = montones.new_table({"heap_counts": [3, 5]})
    for pid in ("banker", "ana", "ben", "eva"):
        state, _ = montones.join(state, pid, pid, 100)
    state, _ = montones.offer_bank(state, "banker", 50)
    state, _ = montones.close_auction(state, 0.0)
    state, _ = montones.cut_deck(state, state["hand"]["cutter"], 5, 0.0)
    state, _ = montones.make_heaps(state, "banker", 5)
    issued = 400
    for kind, pid, heap, amount in actions:
        calls = {
            "bet": (montones.bet, pid, heap, amount),
            "against": (montones.bet_against, pid, heap, amount),
            "declare": (montones.declare, pid, heap),
            "choose": (montones.choose_bank_heap, pid, heap),
            "withdraw": (montones.withdraw, pid, amount),
            "close": (montones.close_bets, "banker"),
            "next": (montones.next_hand, "banker", 0.0),
        }
        func, *args = calls[kind]
        before = json.dumps(state, sort_keys=True)
        try:
            state, _ = func(state, *args)
        except RulesError:
            assert json.dumps(state, sort_keys=True) == before
        if state["phase"] == montones.CUT:
            state, _ = montones.cut_deck(state, state["hand"]["cutter"], 5, 0.0)
            state, _ = montones.make_heaps(state, "banker", 3)
        assert json.loads(json.dumps(state)) == state
        assert_seat_views_compose(montones, state, ("banker", "ana", "ben", "eva", "nobody"))
        players = sum(p["chips"] for p in state["players"].values())
        bank = state["bank"]["amount"] if state["bank"] else 0
        stakes = (
            sum(b["amount"] or 0 for b in state["hand"]["bets"])
            if state["hand"] and state["phase"] == montones.BETTING
            else 0
        )
        assert players + bank + stakes == issued
        assert all(p["chips"] >= 0 for p in state["players"].values())


MONTE_OPTIONS = [
    {},
    {"two_card": True},
    {"two_card": True, "generous": True},
    {"short_bank": 2},
    {"private_circle": True},
    {"two_card": True, "generous": True, "short_bank": 9, "private_circle": True},
]
MONTE_PLAYERS = ["ana", "ben", "eva"]


def monte_move(data, state):
    """A move random play could make now: mostly one the rules allow, now and then a refusal."""
    banker = state["banker"]
    if state["phase"] == monte.BANK:
        amount = data.draw(st.integers(0, 60), label="bank")
        deck = data.draw(st.permutations(FRENCH.codes), label="deck")
        return monte.put_up_bank, banker, amount, 0.0, deck
    if state["phase"] == monte.CUT:
        return monte.cut_deck, state["cutter"], data.draw(st.integers(0, 40), label="cut"), 0.0
    if state["phase"] == monte.COUP_OVER:
        return (monte.next_coup, banker)
    pid = data.draw(st.sampled_from(MONTE_PLAYERS), label="player")
    kind = data.draw(st.sampled_from(["bet", "bet", "bet", "withdraw", "gate"]), label="move")
    if kind == "bet":
        layout = data.draw(st.sampled_from(["bottom", "top", "middle"]), label="layout")
        return monte.bet, pid, layout, data.draw(st.integers(-1, 12), label="amount")
    if kind == "withdraw":
        bet_id = data.draw(st.integers(0, state["coup"]["next_bet"]), label="bet")
        return monte.withdraw, pid, bet_id
    return (monte.turn_gate, banker)


@pytest.mark.parametrize("options", MONTE_OPTIONS, ids=lambda o: "+".join(o) or "foster")
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_monte_states_round_trip_through_json_and_chips_are_conserved(options, data):
    """Every state that random play reaches is stored as JSON and read back whole: the next
    move is played on what was read back. Every seat's view composes from the view of no seat."""
    state = monte.new_table(options)
    for pid in MONTE_PLAYERS:
        state, _ = monte.join(state, pid, pid, 100)
    state, _ = monte.draw_for_bank(state, deck=data.draw(st.permutations(FRENCH.codes)))
    for _ in range(data.draw(st.integers(1, 150), label="moves")):
        if state["phase"] == monte.FINISHED:
            break
        func, *args = monte_move(data, state)
        before = json.dumps(state, sort_keys=True)
        try:
            state, _ = func(state, *args)
        except RulesError:
            assert json.dumps(state, sort_keys=True) == before
        stored = json.loads(json.dumps(state))
        assert stored == state
        state = stored
        assert_seat_views_compose(monte, state, (*MONTE_PLAYERS, "nobody"))
        players = sum(p["chips"] for p in state["players"].values())
        stakes = (
            sum(b["amount"] for b in state["coup"]["bets"]) if state["phase"] == "betting" else 0
        )
        assert players + state["bank"] + stakes == 300
        assert all(p["chips"] >= 0 for p in state["players"].values())
