"""The betting time (issue 40): a table that sets one gives the punters that long once bets open,
then the clock closes bets exactly as the banker's close does, in every game."""

from __future__ import annotations

import json
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montones.rules import RulesError, chance
from montones.rules.games import GAMES, game
from montones.rules.table import BETTING_SINCE

PUNTERS = ("ana", "ben", "eva")
OPENED = 1000.0  # the clock's time when bets open
CLOSE = {"montones": "close", "monte": "gate", "monte_bank": "close"}  # the banker's close


def banker_of(state) -> str:
    return state["bank"]["banker"] if state["game"] == "montones" else state["banker"]


def do(rules, state, who, kind, now=0.0, **params):
    """``kind`` as the service runs it: through the game's actions, which start the clock."""
    return rules.ACTIONS[kind].call(state, who, params, now)[0]


def to_betting(name: str, seed: int, seconds: int | None = 30):
    """A table of ``name`` with a betting time of ``seconds``, its bets opened at ``OPENED``
    by whatever opens them in that game (heaps made, a cut that deals)."""
    rules = game(name)
    with chance.rehearsal(seed):
        state = rules.new_table({"betting_time": seconds})
        for pid in ("bank", *PUNTERS):
            state, _ = rules.join(state, pid, pid, 100)
        if name == "montones":
            state = do(rules, state, "bank", "offer", amount=60)
            state = do(rules, state, "host", "close_auction")
            state = do(rules, state, state["hand"]["cutter"], "cut", position=7)
            return rules, do(rules, state, "bank", "heaps", OPENED, count=4)
        state = do(rules, state, "host", "draw")
        state = do(rules, state, state["banker"], "bank", amount=60)
        while state["phase"] != "betting":  # Monte Bank's void deal is shuffled and cut again
            state = do(rules, state, state["cutter"], "cut", OPENED, position=11)
        return rules, state


def punters_bet(rules, state, rng: Random, moves: int):
    """The punters' moves as a computer player makes them (bets, the banker's heap chosen):
    whatever each game allows its punters while bets are open."""
    for _ in range(moves):
        seat = rng.choice([p for p in PUNTERS if p != banker_of(state)])
        move = rules.play(rules.view(state, seat, OPENED), rng, 0.0)
        if move is None or move[0] == CLOSE[state["game"]]:
            continue
        kind, params = move
        try:
            state = do(rules, state, seat, kind, OPENED, **params)
        except RulesError:
            continue
    return state


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 12), late=st.floats(0, 500))
def test_bets_closed_by_the_clock_settle_exactly_as_the_bankers_close(name, seed, moves, late):
    rules, state = to_betting(name, seed)
    state = punters_bet(rules, state, Random(seed), moves)
    due = rules.betting_deadline(state)
    if due is None:  # Montones: no banker's heap chosen, and bets cannot close without it
        assert name == "montones" and state["hand"]["bank_heap"] is None
        return
    assert due == OPENED + 30
    now = due + late
    by_clock, clock_events = rules.bets_timed_out(state, now)
    by_banker, banker_events = rules.ACTIONS[CLOSE[name]].call(state, banker_of(state), {}, now)
    assert json.dumps(by_clock, sort_keys=True) == json.dumps(by_banker, sort_keys=True)
    assert clock_events == banker_events
    assert sum(rules.balances(by_clock).values()) == sum(rules.balances(state).values())
    assert rules.betting_deadline(by_clock) is None  # closed: nothing more for the clock


@pytest.mark.parametrize("name", sorted(GAMES))
def test_bets_stay_open_until_the_betting_time_has_run_out(name):
    rules, state = ready_to_close(name)
    due = rules.betting_deadline(state)
    assert due == OPENED + 30
    assert rules.view(state)["betting_until"] == due
    with pytest.raises(RulesError, match="still have time to bet"):
        rules.bets_timed_out(state, due - 0.5)
    closed, _events = rules.bets_timed_out(state, due)
    assert closed["phase"] != "betting"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_table_without_a_betting_time_is_closed_by_its_banker_alone(name):
    rules, state = to_betting(name, 7, seconds=None)
    assert BETTING_SINCE not in state  # nothing of it in the state of a table that has none
    assert rules.betting_deadline(state) is None and rules.view(state)["betting_until"] is None
    with pytest.raises(RulesError):
        rules.bets_timed_out(state, OPENED + 10_000)


def ready_to_close(name):
    """A table at ``name``'s betting with what its banker's close needs (Montones: the
    banker's heap chosen)."""
    rules, state = to_betting(name, 3)
    if name == "montones":
        state = do(rules, state, "ana", "choose", OPENED, heap=2)
    return rules, state


def test_montones_bets_wait_for_the_bankers_heap_then_close_at_once():
    """Bets cannot close without the banker's heap: past its time the clock waits for the
    punters' choice, and closes as soon as it is made; the screens count to the time."""
    rules, state = to_betting("montones", 5)
    assert rules.betting_deadline(state) is None
    assert rules.view(state)["betting_until"] == OPENED + 30
    state = do(rules, state, "ben", "choose", OPENED + 90, heap=3)
    assert rules.betting_deadline(state) == OPENED + 30  # long past: the clock closes now
    closed, _events = rules.bets_timed_out(state, OPENED + 90)
    assert closed["phase"] == "settled"


@pytest.mark.parametrize("name", ["monte", "monte_bank"])
def test_a_cut_the_clock_made_opens_bets_and_starts_the_betting_time(name):
    rules = game(name)
    with chance.rehearsal(11):
        state = rules.new_table({"betting_time": 20})
        for pid in ("bank", *PUNTERS):
            state, _ = rules.join(state, pid, pid, 100)
        state = do(rules, state, "host", "draw")
        state = do(rules, state, state["banker"], "bank", amount=60)
        while state["phase"] != "betting":
            deadline = rules.cut_deadline(state)
            state, _events = rules.cut_timed_out(state, deadline)
    assert state[BETTING_SINCE] == deadline
    assert rules.betting_deadline(state) == deadline + 20


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_pause_gives_bets_open_the_whole_betting_time_again(name):
    rules, state = ready_to_close(name)
    resumed = rules.after_pause(state, OPENED + 25, 600.0)
    assert rules.betting_deadline(resumed) == OPENED + 25 + 30


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_host_sets_the_betting_time_while_bets_are_open_and_it_runs_from_then(name):
    rules, state = ready_to_close(name)
    state = do(rules, state, "host", "betting_time", OPENED + 100, seconds=60)
    assert rules.betting_deadline(state) == OPENED + 100 + 60
    state = do(rules, state, "host", "betting_time", OPENED + 110)  # none: the banker closes
    assert rules.betting_deadline(state) is None and BETTING_SINCE not in state
    with pytest.raises(RulesError, match="that already"):
        do(rules, state, "host", "betting_time", OPENED + 120)


@pytest.mark.parametrize("seconds", [0, 9, 601, True, "30"])
def test_a_betting_time_out_of_bounds_is_refused(seconds):
    for rules in GAMES.values():
        with pytest.raises(RulesError, match="from 10 to 600 seconds"):
            rules.new_table({"betting_time": seconds})
        _rules, state = to_betting(rules.NAME, 1)
        with pytest.raises(RulesError, match="from 10 to 600 seconds"):
            do(rules, state, "host", "betting_time", OPENED, seconds=seconds)
