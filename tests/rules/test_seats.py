"""How many sit at a table, at every game: a limit the host sets, and doors the host closes."""

from __future__ import annotations

import pytest

from montones.rules import RulesError
from montones.rules.games import GAMES
from montones.rules.table import MOST_PLAYERS, MOST_SEATS

GAME_NAMES = sorted(GAMES)


def joined(rules, state, *names):
    for name in names:
        state, _events = rules.join(state, f"p{len(state['players']) + 1}", name, 100)
    return state


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_table_seats_forty_unless_the_host_says_otherwise(game):
    rules = GAMES[game]
    assert rules.new_table({})["settings"]["most_players"] == 40
    state = joined(rules, rules.new_table({"most_players": 3}), "Ana", "Ben", "Eva")
    with pytest.raises(RulesError, match="the table is full: it seats 3 players"):
        joined(rules, state, "Dan")


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_seat_left_empty_by_a_player_sent_away_can_be_taken(game):
    rules = GAMES[game]
    state = joined(rules, rules.new_table({"most_players": 2}), "Ana", "Ben")
    state, _events = rules.ACTIONS["kick"].call(state, "host", {"seat": "p2"}, 0.0)
    assert joined(rules, state, "Dan")["players"]["p3"]["name"] == "Dan"


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("most", [0, 1, 41, 500, "40", 2.5, True])
def test_a_limit_that_is_no_table_is_refused(game, most):
    with pytest.raises(RulesError, match="a table seats from 2 to 40 players"):
        GAMES[game].new_table({"most_players": most})


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_host_closes_the_doors_and_opens_them_again(game):
    rules = GAMES[game]
    state = joined(rules, rules.new_table({}), "Ana")
    closed, events = rules.ACTIONS["close_doors"].call(state, "host", {}, 0.0)
    assert closed["closed"] and events == [{"type": "doors_closed"}]
    with pytest.raises(RulesError, match="closed this table to new players"):
        joined(rules, closed, "Ben")
    with pytest.raises(RulesError, match="closed to new players already"):
        rules.ACTIONS["close_doors"].call(closed, "host", {}, 0.0)
    opened, events = rules.ACTIONS["open_doors"].call(closed, "host", {}, 0.0)
    assert events == [{"type": "doors_opened"}]
    assert joined(rules, opened, "Ben")["players"]["p2"]["name"] == "Ben"
    assert rules.ACTIONS["close_doors"].host and rules.ACTIONS["open_doors"].host


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_table_gives_at_most_twice_its_largest_size_in_seats_over_a_night(game):
    """Sending players away and seating new ones would otherwise grow a table's standings
    without end: every seat keeps its line."""
    rules = GAMES[game]
    state = joined(rules, rules.new_table({"most_players": 2}), "Ana")
    for n in range(MOST_SEATS - 1):
        state, _events = rules.join(state, f"p{n + 2}", f"Guest {n}", 100)
        state, _events = rules.ACTIONS["kick"].call(state, "host", {"seat": f"p{n + 2}"}, 0.0)
    assert len(state["players"]) == MOST_SEATS == 2 * MOST_PLAYERS
    with pytest.raises(RulesError, match="this table has seated 80 players tonight"):
        rules.join(state, "p81", "Eva", 100)


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("alike", ["B0b", "Bób", "B.o.b", "ВОВ", "b o b", "8ob"])
def test_a_player_sent_away_does_not_come_back_under_a_name_drawn_alike(game, alike):
    rules = GAMES[game]
    state = joined(rules, rules.new_table({}), "Ana", "Bob")
    sent_away, _events = rules.ACTIONS["kick"].call(state, "host", {"seat": "p2"}, 0.0)
    with pytest.raises(RulesError, match="Bob was sent away by the host"):
        rules.join(sent_away, "p3", alike, 100)
    # Let back in, Bob has his seat again; another name is seated as before.
    back, _events = rules.ACTIONS["readmit"].call(sent_away, "host", {"seat": "p2"}, 0.0)
    assert "left" not in back["players"]["p2"]
    assert rules.join(sent_away, "p3", "Rob", 100)[0]["players"]["p3"]["name"] == "Rob"
