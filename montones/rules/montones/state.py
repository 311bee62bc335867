"""A Montones table's state: its settings and phases, who banks and who punts, the checks
every action starts with, and the bank handed back."""

from __future__ import annotations

from montones.rules import betting_time, table
from montones.rules.errors import Phrase, RulesError
from montones.rules.table import Events, State, is_count, require_phase

NAME = "montones"  # the key a table's row and state carry (Game.NAME)
MIN_HEAP_CARDS = 3

DEFAULT_SETTINGS = {
    "min_bet": 1,
    "heap_counts": [3, 8],
    "tenure_minutes": 60,
    "cut_timeout": 30,
}

# Phases: auction -> cut -> heaps -> betting -> settled -> (cut | auction)
AUCTION, CUT, HEAPS, BETTING, SETTLED = "auction", "cut", "heaps", "betting", "settled"
FINISHED = "finished"


def new_table(settings: dict | None = None) -> State:
    merged = table.merged_settings(DEFAULT_SETTINGS, settings)
    _check_settings(merged)
    return table.new_state(
        NAME,
        merged,
        phase=AUCTION,
        auction={"offers": {}, "passed": []},
        bank=None,
        cut_turn=0,
        hands=0,
        hand=None,
    )


def _check_settings(settings: dict) -> None:
    low, high = settings["heap_counts"]
    if not (is_count(settings["min_bet"]) and settings["min_bet"] >= 1):
        raise RulesError("the minimum bet must be a whole number of chips, at least 1")
    if not (is_count(low) and is_count(high) and 2 <= low <= high <= 40 // MIN_HEAP_CARDS):
        raise RulesError("heap counts must run from 2 up to %(most)s", most=40 // MIN_HEAP_CARDS)
    if not (is_count(settings["tenure_minutes"]) and settings["tenure_minutes"] >= 1):
        raise RulesError("the bank's time must be at least one minute")
    if not (is_count(settings["cut_timeout"]) and settings["cut_timeout"] >= 1):
        raise RulesError("the time to cut must be at least one second")


def banker_of(state: State) -> str | None:
    return state["bank"]["banker"] if state["bank"] else None


def check_phase(state: State, *phases: str) -> None:
    require_phase(state, PHASE_REFUSALS, *phases)


PHASE_REFUSALS = {
    AUCTION: Phrase("the bank is not up for auction now"),
    CUT: Phrase("the deck is not waiting for a cut"),
    HEAPS: Phrase("the heaps are not being made now"),
    BETTING: Phrase("bets are closed"),
    SETTLED: Phrase("the hand is still in play"),
}


def require_banker(state: State, pid: str) -> None:
    if pid != banker_of(state):
        raise RulesError("only the banker can do that")


def require_punter(state: State, pid: str) -> dict:
    player = table.player(state, pid)
    if pid == banker_of(state):
        raise RulesError("the banker does not bet against the bank")
    if player["sitting_out"]:
        raise RulesError("you are sitting out this hand")
    return player


def punters(state: State) -> list[str]:
    """Players who can play a hand: seated, not sitting out, not the banker."""
    banker = banker_of(state)
    return [
        pid
        for pid in state["seats"]
        if pid != banker
        and not state["players"][pid].get("left")
        and not state["players"][pid]["sitting_out"]
    ]


def bank_time_up(state: State, now: float) -> bool:
    bank = state["bank"]
    return bank is not None and now >= bank["opened_at"] + 60 * state["settings"]["tenure_minutes"]


def return_bank(state: State, events: Events, why: str) -> None:
    bank = state["bank"]
    state["players"][bank["banker"]]["chips"] += bank["amount"]
    events.append(
        {"type": "bank_closed", "banker": bank["banker"], "amount": bank["amount"], "why": why}
    )
    state["bank"] = None
    state["hand"] = None
    state["phase"] = AUCTION
    state["auction"] = {"offers": {}, "passed": []}


def heap_number(hand: dict, heap: object) -> int:
    if not is_count(heap) or not 1 <= heap <= len(hand["heaps"]):
        raise RulesError(
            "there is no heap %(heap)s: the heaps are 1 to %(heaps)s",
            heap=heap,
            heaps=len(hand["heaps"]),
        )
    return heap


def tied_heaps(hand: dict) -> set[int]:
    """Heaps with a bet of any kind tied to them."""
    return {bet["heap"] for bet in hand["bets"]}


def check_tie(state: State, heap: int) -> None:
    """A bet may not land on the banker's heap, nor leave no heap free for it."""
    hand = state["hand"]
    if heap == hand["bank_heap"]:
        raise RulesError("heap %(heap)s is the banker's heap: no bet can go on it", heap=heap)
    if hand["bank_heap"] is None and len(tied_heaps(hand) | {heap}) == len(hand["heaps"]):
        raise RulesError("one heap must stay free for the banker: choose the banker's heap first")


def return_bet(state: State, placed: dict) -> None:
    hand = state["hand"]
    if placed["amount"]:
        state["players"][placed["player"]]["chips"] += placed["amount"]
    if placed["kind"] == "whole_bank":
        hand["declared"] = False
    hand["bets"].remove(placed)


def bank_closing(state: State, now: float) -> bool:
    """Whether the bank closes instead of dealing another hand."""
    bank = state["bank"]
    return bank_time_up(state, now) or bank["last_hands"] == 0


def count_last_hand(state: State) -> None:
    if state["bank"]["last_hands"] is not None:
        state["bank"]["last_hands"] -= 1


def after_pause(state: State, now: float, paused_for: float) -> State:
    """The table as the host's pause leaves it: the bank's time moves on by the pause, and a
    punter who is to cut gets the whole cut time again (both times are passed in)."""
    new = betting_time.after_pause(state, now)  # bets open get the whole betting time again
    if new["bank"] is not None:
        new["bank"]["opened_at"] += paused_for
    if new["phase"] == CUT:
        new["hand"]["cut_started"] = now
    return new


def can_keep_heaps(hand: dict) -> bool:
    """Two heaps stay once the shown cards go, and one of them can still be split."""
    left = [len(heap) - 1 for heap in hand["heaps"]]
    return sum(1 for n in left if n > 0) >= 2 and any(n >= 2 for n in left)


def cut_deadline(state: State) -> float | None:
    """When the punter to cut runs out of time, if the deck waits for a cut."""
    if state["phase"] != CUT:
        return None
    return state["hand"]["cut_started"] + state["settings"]["cut_timeout"]
