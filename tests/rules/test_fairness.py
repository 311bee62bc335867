"""The commitment to each deck, and checking a recorded night against the rules (rules/audit.py)."""

import copy
import hashlib

from montones.rules import audit, fairness, monte, montones
from montones.rules.cards import SPANISH, cut
from montones.rules.scenario import replay
from tests.helpers.tables import NOW, MonteTable, Table


def settle(t, *steps):
    """Run bets and choices, close bets, and return the hand's record."""
    for step in steps:
        t.do(*step)
    before = t.state
    t.do(montones.close_bets, "banker")
    return montones.hand_record(before, t.state)


def test_the_commitment_is_the_sha256_of_the_salt_and_the_order_as_typed():
    order = list(SPANISH.codes)
    text = "00ff " + " ".join(order)
    assert fairness.commitment(order, "00ff") == hashlib.sha256(text.encode()).hexdigest()


def test_a_montones_deck_is_committed_before_the_cut_and_the_cut_comes_after():
    t = Table()
    deck = list(reversed(SPANISH.codes))
    t.open_bank(deck=deck)
    shuffle = t.hand["shuffle"]
    assert t.state["phase"] == montones.CUT
    assert shuffle["order"] == deck
    assert shuffle["commitment"] == fairness.commitment(deck, shuffle["salt"])
    assert montones.view(t.state)["commitment"] == shuffle["commitment"]
    t.do(montones.cut_deck, t.hand["cutter"], 7, NOW)
    assert t.hand["deck"] == cut(deck, 7)
    assert t.hand["shuffle"]["order"] == deck  # the commitment stays on the uncut order


def test_no_view_shows_the_salt_or_the_order():
    t = Table()
    t.deal("5o", "3c", "Ro", "2e")
    salt = t.hand["shuffle"]["salt"]
    for seat in (None, "ana", "banker"):
        assert salt not in repr(montones.view(t.state, seat, NOW))


def test_each_shuffle_has_its_own_salt():
    a, b = Table(), Table()
    a.open_bank(deck=list(SPANISH.codes))
    b.open_bank(deck=list(SPANISH.codes))
    assert a.hand["shuffle"]["salt"] != b.hand["shuffle"]["salt"]
    assert a.hand["shuffle"]["commitment"] != b.hand["shuffle"]["commitment"]


def test_a_recorded_hand_replays_to_its_recorded_result():
    t = Table()
    t.deal("5o", "3c", "Ro", "2e")
    record = settle(
        t,
        (montones.bet, "ana", 3, 8),
        (montones.bet, "ben", 4, 20),
        (montones.bet, "eva", 3, 4),
        (montones.bet, "dan", 1, 6),
        (montones.choose_bank_heap, "ana", 2),
    )
    assert record["heaps"] == ["5o", "3c", "Ro", "2e"]
    assert replay(record) == record["result"]
    assert record["result"]["players"] == {"ana": 106, "ben": 100, "eva": 108, "dan": 106}
    assert audit.verify_hands([record]) == []


def test_the_deck_stays_live_after_a_rey_until_the_heaps_are_gathered():
    t = Table()
    t.deal("5o", "Rc", "2e", "7b")
    settle(t, (montones.bet, "ben", 1, 5), (montones.choose_bank_heap, "ana", 2))
    commitment = t.hand["shuffle"]["commitment"]
    assert montones.live_commitment(t.state) == commitment  # the heaps may yet be kept
    t.do(montones.next_hand, "banker", NOW)
    assert montones.live_commitment(t.state) not in (None, commitment)

    t2 = Table()
    t2.deal("5o", "3c", "2e")
    settle(t2, (montones.choose_bank_heap, "ana", 2))
    assert montones.live_commitment(t2.state) is None  # no Rey: the cards are gathered


def test_hands_that_keep_the_heaps_verify_against_the_one_deck():
    t = Table()
    t.deal("5o", "Rc", "2e", "7b")
    first = settle(t, (montones.bet, "ben", 1, 5), (montones.choose_bank_heap, "ana", 2))
    t.do(montones.keep_heaps, "banker", 4, NOW, position=10)
    second = settle(t, (montones.bet, "eva", 1, 3), (montones.choose_bank_heap, "ana", 2))
    assert second["shuffle"]["commitment"] == first["shuffle"]["commitment"]
    assert second["shuffle"]["kept"] == {"split": 4, "position": 10}
    assert audit.verify_hands([first, second]) == []
    assert "missing from the export" in audit.verify_hands([second])[0]


def test_verify_finds_an_altered_card_an_altered_bet_and_a_wrong_salt():
    t = Table()
    t.deal("5o", "3c", "Ro", "2e")
    record = settle(
        t,
        (montones.bet, "ana", 3, 8),
        (montones.bet, "dan", 1, 6),
        (montones.choose_bank_heap, "ana", 2),
    )
    card = copy.deepcopy(record)
    card["heaps"][0] = "6o"  # still a winning heap: only the commitment can tell
    assert any("turned cards" in p for p in audit.verify_hands([card]))
    stake = copy.deepcopy(record)
    stake["bets"][1]["amount"] = 5
    assert any("recorded result" in p for p in audit.verify_hands([stake]))
    salt = copy.deepcopy(record)
    was = salt["shuffle"]["salt"]
    salt["shuffle"]["salt"] = ("1" if was[0] == "0" else "0") + was[1:]  # never the same salt
    assert any("do not hash" in p for p in audit.verify_hands([salt]))


def test_a_monte_bank_is_committed_and_its_coups_verify():
    t = MonteTable()
    banker = t.start()
    shuffle = t.state["shuffle"]
    assert monte.view(t.state)["commitment"] == shuffle["commitment"]
    records = []
    for _ in range(3):
        punter = next(p for p in t.state["seats"] if p != banker)
        t.do(monte.bet, punter, "top", 2)
        before = t.state
        t.do(monte.turn_gate, banker)
        record = monte.hand_record(before, t.state)
        assert replay(record) == record["result"]
        records.append(record)
        if t.state["phase"] == monte.COUP_OVER:
            t.do(monte.next_coup, banker)
    assert audit.verify_hands(records) == []
    swapped = copy.deepcopy(records)
    swapped[1]["result"]["coups"][0]["gate"], swapped[1]["deck"][-3] = "XX", "XX"
    assert audit.verify_hands(swapped)
    moved = copy.deepcopy(records)
    moved[2]["shuffle"]["coup"] = 1
    assert any("not coup 1" in p for p in audit.verify_hands(moved))
