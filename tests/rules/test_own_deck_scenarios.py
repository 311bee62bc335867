"""Every valid scenario of tests/scenarios played through the entry path of a table with its
own cards (montones.rules.own_deck): a table seated as the scenario says, its bets placed,
each card entered as the game shows it; the hand's record gives what `montones replay` gives."""

import json
from pathlib import Path

import pytest

from montones.rules import monte, monte_bank, montones
from montones.rules.cards import FRENCH
from montones.rules.monte.settle import deal_layouts
from montones.rules.monte_bank.settle import SET_ASIDE, SIDE_CARDS, deal_layout, turning_order
from montones.rules.scenario import replay
from tests.helpers.tables import NOW

BANKER = "banker"


class Entered:
    def __init__(self, engine, settings, players, bank):
        self.engine = engine
        self.state = engine.new_table({**settings, "own_deck": "banker"})
        self.do(engine.join, BANKER, "Banker", bank)
        for pid, chips in players.items():
            self.do(engine.join, pid, pid.title(), chips)

    def do(self, action, *args, **kwargs):
        self.state, events = action(self.state, *args, **kwargs)
        return events

    def enter(self, card):
        """A card entered; returns the record of the hand it settled, if it settled one."""
        before = self.state
        events = self.do(self.engine.enter_card, BANKER, card)
        if any(event["type"] == self.engine.SETTLES for event in events):
            return self.engine.hand_record(before, self.state)
        return None


def montones_entered(s):
    t = Entered(montones, {"heap_counts": [2, 13]}, s["players"], s["bank"])
    t.do(montones.offer_bank, BANKER, s["bank"])
    t.do(montones.close_auction, NOW)
    t.do(montones.make_heaps, BANKER, len(s["heaps"]))
    return montones_hand(t, s)["result"]


def montones_hand(t, s):
    """A hand on the heaps made (or kept): the banker's heap, the bets, each card entered as
    its heap is lifted; returns the hand's record."""
    t.do(montones.choose_bank_heap, next(iter(s["players"])), s["bank_heap"])
    for placed in s["bets"]:
        if placed.get("whole_bank"):
            t.do(montones.declare, placed["player"], placed["heap"])
        elif "against" in placed:
            t.do(montones.bet_against, placed["player"], placed["against"], placed["amount"])
        else:
            t.do(montones.bet, placed["player"], placed["heap"], placed["amount"])
    t.do(montones.close_bets, BANKER)
    record = None
    while montones.waiting_for(t.state) is not None:
        record = t.enter(s["heaps"][montones.waiting_for(t.state) - 1])
    return record


def monte_entered(s):
    options = s.get("options", {})
    settings = {
        **options,
        "bank_size": s["bank"],
        "min_bet": s["limits"]["min"],
        "max_bet": s["limits"]["max"],
    }
    t = Entered(monte, settings, s["players"], s["bank"])
    draw = ["KS"] + [c for c in FRENCH.codes if c[0] != "K"]
    t.do(monte.draw_for_bank, deck=draw + [c for c in FRENCH.codes if c not in draw])
    t.do(monte.put_up_bank, BANKER, s["bank"], NOW)
    deck = list(s["deck"])
    coups = []
    record = None
    for number, coup in enumerate(s["coups"]):
        if number:
            t.do(monte.next_coup, BANKER)
        bottom, top, deck = deal_layouts(deck, options.get("two_card", False))
        for card in bottom + top:
            t.enter(card)
        for placed in coup["bets"]:
            t.do(monte.bet, placed["player"], placed["layout"], placed["amount"])
        record = t.enter(deck.pop())
        coups += record["result"]["coups"]
    return {**record["result"], "coups": coups}


def monte_bank_entered(s):
    sides = s.get("side_cards", 0)
    settings = {"min_bet": s["limits"]["min"], "levy": s.get("levy", True), "side_cards": sides}
    t = Entered(monte_bank, settings, s["players"], s["bank"])
    draw = ["KS"] + [c for c in FRENCH.codes if c[0] != "K"]
    t.do(monte_bank.draw_for_bank, deck=draw + [c for c in FRENCH.codes if c not in draw])
    t.do(monte_bank.put_up_bank, BANKER, s["bank"], NOW)
    dealt = deal_layout(s["deck"], sides)
    layout = dealt["layout"]
    # After the four, the side cards and the cards set aside as they come off the top.
    off_the_top = [c for p in SIDE_CARDS if p in layout for c in layout[p]]
    off_the_top += layout.get(SET_ASIDE, [])
    record = None
    cards = layout["ul"] + layout["ur"] + layout["ll"] + layout["lr"]
    for card in cards + s["deck"][2 : 2 + len(off_the_top)]:
        record = t.enter(card)
    if dealt["void"]:
        return recorded(record, sides)
    for placed in s["bets"]:
        spot = {k: placed[k] for k in ("kind", "on", "against", "side") if k in placed}
        t.do(monte_bank.bet, placed["player"], spot, placed["amount"])
    before = t.state
    events = t.do(monte_bank.close_bets, BANKER)
    if any(event["type"] == monte_bank.SETTLES for event in events):  # no bet: nothing to turn
        return recorded(monte_bank.hand_record(before, t.state), sides)
    for card in turning_order(dealt["rest"]):
        record = t.enter(card)
        if record:
            return recorded(record, sides)
    raise AssertionError("the deal was never settled")


def recorded(record, sides):
    """An own-deck deal's record, re-settled from the cards entered (its deck, no seal) as
    verify re-settles it: the same result. Its result."""
    assert record["shuffle"] == {"commitment": None, "own_deck": True}
    assert record.get("side_cards", 0) == sides
    assert replay(record) == record["result"]
    return record["result"]


# Every valid scenario, those of side cards too (entered after the four, as they are dealt).
VALID = sorted((Path(__file__).parents[1] / "scenarios" / "valid").glob("*.json"))

ENTERED = {"montones": montones_entered, "monte": monte_entered, "monte_bank": monte_bank_entered}


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_a_scenario_entered_card_by_card_gives_what_replay_gives(path):
    scenario = json.loads(path.read_text())["scenario"]
    assert ENTERED[scenario["game"]](scenario) == replay(scenario)


KEPT = sorted((Path(__file__).parents[1] / "scenarios" / "kept").glob("*.json"))


@pytest.mark.parametrize("path", KEPT, ids=[p.stem for p in KEPT])
def test_heaps_kept_after_a_rey_entered_card_by_card_give_what_replay_gives(path):
    """A Montones hand whose banker turns a Rey, then the next hand on the heaps kept (the
    banker says how many they make, the second scenario's heaps): each hand's record is its
    scenario, and settles as `montones replay` settles it."""
    first, second = (hand["scenario"] for hand in json.loads(path.read_text())["hands"])
    expected = [hand["expected"] for hand in json.loads(path.read_text())["hands"]]
    t = Entered(montones, {"heap_counts": [2, 13]}, first["players"], first["bank"])
    t.do(montones.offer_bank, BANKER, first["bank"])
    t.do(montones.close_auction, NOW)
    t.do(montones.make_heaps, BANKER, len(first["heaps"]))
    records = [montones_hand(t, first)]
    t.do(montones.keep_entered, BANKER, len(second["heaps"]), NOW)
    assert t.state["hand"]["rey_kept"] and t.state["hand"]["discards"] == first["heaps"]
    records.append(montones_hand(t, second))
    for record, scenario, result in zip(records, (first, second), expected, strict=True):
        assert {key: record[key] for key in scenario if key != "game"} == {
            key: value for key, value in scenario.items() if key != "game"
        }
        assert record["result"] == replay(scenario) == result
        assert record["shuffle"] == {"commitment": None, "own_deck": True}
