"""Computer players: each game's ``play`` acts from its seat's view alone, and only as the rules
allow. Whole all-computer nights are played on the engines, checked with Hypothesis over seeds."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montones.rules import RulesError, computer, monte, monte_bank, montones
from montones.rules.games import GAMES
from montones.rules.plain import copy_state

NAMES = ["Ana", "Ben", "Eva", "Dan", "Lola"]
START = 1_700_000_000.0


def hidden_shuffled(state: dict, rng: Random) -> dict:
    """The table with the cards nobody may know yet (while bets are open) in another order:
    a seat's view, and so its computer player's move, must not change."""
    if state["phase"] != "betting":
        return state
    state = copy_state(state)
    if state["game"] == "montones":
        heaps = state["hand"]["heaps"]
        cards = [card for heap in heaps for card in heap]
        rng.shuffle(cards)
        for heap in heaps:
            heap[:], cards = cards[: len(heap)], cards[len(heap) :]
    else:
        rng.shuffle(state["deck"] if state["game"] == "monte" else state["deal"]["rest"])
    return state


def computer_night(rules, players: int, seed: int, steps: int, settings_: dict | None = None):
    """An all-computer night on the engine alone: each step, the first seat (in an order the
    seed shuffles) whose ``play`` answers acts, as if the table had just moved (idle 0); when
    none does, they are asked again as if the table had stood still. Returns the state, the
    kinds played and whether the night stalled."""
    rng = Random(seed)
    state = rules.new_table(settings_)
    for i in range(players):
        state, _ = rules.join(state, f"p{i + 1}", NAMES[i], 100)
    chips = sum(rules.balances(state).values())
    now = START
    if "draw" in rules.ACTIONS:
        state, _ = rules.ACTIONS["draw"].call(state, "host", {}, now)
    played = []
    for _ in range(steps):
        move = None
        for idle in (0.0, computer.PATIENCE):
            for seat in rng.sample(state["seats"], len(state["seats"])):
                view = rules.view(state, seat, now)
                other = rules.view(hidden_shuffled(state, Random(seed)), seat, now)
                assert other == view, "a seat's view tells the order of cards still hidden"
                move = rules.play(view, rng, idle)
                if move is not None:
                    break
            if move is not None:
                break
        if move is None:
            return state, played, not rules.over(state)
        kind, params = move
        spec = rules.ACTIONS[kind]
        assert not spec.host and kind in view["me"]["can"], (kind, view["me"]["can"])
        try:
            state, _ = spec.call(state, seat, spec.params(state, seat, params), now)
        except RulesError as error:
            pytest.fail(f"{seat} played {kind} {params}, refused: {error}")
        follow = rules.follow_up(state, now)
        if follow is not None:
            state = follow[1]
        assert sum(rules.balances(state).values()) == chips
        played.append(kind)
        now += 2.0
    return state, played, False


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5))
def test_a_computer_montones_player_makes_only_legal_moves_and_never_stalls(seed, players):
    state, played, stalled = computer_night(montones, players, seed, 250)
    assert not stalled
    assert {"offer", "cut", "heaps", "choose", "close"} <= set(played)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5))
def test_a_computer_monte_player_makes_only_legal_moves_and_plays_the_night_out(seed, players):
    state, played, stalled = computer_night(monte, players, seed, 400)
    assert not stalled
    assert state["phase"] == "finished"  # every bank held, the night over by itself
    assert {"bank", "bet", "gate"} <= set(played)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5))
def test_a_computer_monte_bank_player_makes_only_legal_moves_and_never_stalls(seed, players):
    state, played, stalled = computer_night(monte_bank, players, seed, 250)
    assert not stalled
    assert {"bank", "bet", "close"} <= set(played)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(3, 5), sides=st.sampled_from([1, 2]))
def test_a_computer_monte_bank_player_bets_on_side_cards_too(seed, players, sides):
    state, played, stalled = computer_night(monte_bank, players, seed, 250, {"side_cards": sides})
    assert not stalled
    assert {"bank", "bet", "close"} <= set(played)


def test_computer_players_bet_on_side_cards_over_a_few_nights():
    on_side = 0
    for seed in range(6):
        state, _played, _ = computer_night(monte_bank, 4, seed, 250, {"side_cards": 2})
        deal = state["last_deal"] or {"bets": []}
        on_side += sum(1 for b in deal["bets"] if {b.get("on"), b.get("against")} & {"s1", "s2"})
    assert on_side > 0


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_has_a_computer_player(name):
    assert callable(GAMES[name].play)


def test_a_banker_waits_for_the_punters_bets_then_closes_them():
    state, _played, _ = computer_night(monte, 3, 7, 0)
    state, _ = monte.put_up_bank(state, state["banker"], 50, START)
    if state["phase"] == "cut":
        state, _ = monte.cut_deck(state, state["cutter"], 10, START)
    banker = monte.view(state, state["banker"], START)
    assert monte.play(banker, Random(1), 0.0) is None  # nobody has bet yet
    assert monte.play(banker, Random(1), computer.PATIENCE) == ("gate", {})
    for seat in state["seats"]:
        if seat != state["banker"]:
            state, _ = monte.bet(state, seat, "top", 2)
    assert monte.play(monte.view(state, state["banker"], START), Random(1), 0.0) == ("gate", {})


def test_a_careful_stake_is_small_and_within_the_rules():
    rng = Random(3)
    stakes = {computer.stake(rng, 2, 40, 100) for _ in range(200)}
    assert min(stakes) == 2 and max(stakes) == 10  # a tenth of 100 chips at most
    assert computer.stake(rng, 5, 4, 100) is None  # the rules allow no stake
    assert computer.stake(rng, 1, 3, 200) <= 3


def test_a_computer_player_sees_only_its_seats_view():
    """The same view gives the same move, whatever the deck holds: play is given nothing else."""
    state, _played, _ = computer_night(montones, 3, 11, 0)
    for seat in state["seats"]:
        state, _ = (
            montones.offer_bank(state, seat, 20)
            if seat == "p1"
            else montones.pass_bank(state, seat)
        )
    state = montones.follow_up(state, START)[1]
    view = montones.view(state, "p2", START)
    assert "deck" not in str(sorted(view))
    other = {**state, "hand": {**state["hand"], "deck": list(reversed(state["hand"]["deck"]))}}
    assert montones.view(other, "p2", START) == view
    assert montones.play(view, Random(5), 0.0) == montones.play(
        montones.view(other, "p2", START), Random(5), 0.0
    )
