"""The punters' bets on the heaps, the banker's heap chosen, and bets closed: the hand settled
at the table."""

from __future__ import annotations

from montones.rules import own_deck, table
from montones.rules.errors import RulesError
from montones.rules.montones.settle import full_payout, lifting_order, settle_hand
from montones.rules.montones.state import (
    BETTING,
    SETTLED,
    banker_of,
    check_phase,
    check_tie,
    heap_number,
    require_banker,
    require_punter,
    return_bet,
    tied_heaps,
)
from montones.rules.settlement import VOID, WON
from montones.rules.table import Events, State, action


def _check_stake(state: State, player: dict, amount: int, already: int = 0) -> None:
    table.amount(amount)
    minimum = state["settings"]["min_bet"]
    bank = state["bank"]["amount"]
    if amount < minimum:
        raise RulesError("the table minimum is %(least)s", least=minimum)
    if amount > bank:
        raise RulesError(
            "the bank holds %(bank)s: the most you can bet is %(most)s", bank=bank, most=bank
        )
    if amount - already > player["chips"]:
        raise RulesError(
            "you have %(chips)s chips: a bet of %(amount)s is over them",
            chips=player["chips"] + already,
            amount=amount,
        )


def most_stake(state: State, pid: str) -> int:
    """The most ``pid`` can stake on one bet now: their chips, up to what the bank holds."""
    bank = state["bank"]
    return min(bank["amount"], state["players"][pid]["chips"]) if bank else 0


def _place(state: State, events: Events, pid: str, kind: str, heap: int, amount: int | None):
    hand = state["hand"]
    bet = {"id": hand["next_bet"], "player": pid, "kind": kind, "heap": heap, "amount": amount}
    hand["next_bet"] += 1
    hand["bets"].append(bet)
    if amount:
        state["players"][pid]["chips"] -= amount
    events.append({"type": "bet_placed", **bet})


@action
def bet(state: State, events: Events, pid: str, heap: int, amount: int) -> None:
    """Bet on a heap: paid 1 to 1 if it beats the banker's card, 2 to 1 on the Rey de oros."""
    _stake_on(state, events, pid, "heap", heap, amount)


@action
def bet_against(state: State, events: Events, pid: str, heap: int, amount: int) -> None:
    """Bet on the banker's card against a heap: 1 to 1 when the bank beats it, never double."""
    _stake_on(state, events, pid, "against", heap, amount)


def _stake_on(state: State, events: Events, pid: str, kind: str, heap: int, amount: int) -> None:
    """A punter's stake on a heap (``kind`` "heap") or on the banker's card against it."""
    check_phase(state, BETTING)
    player = require_punter(state, pid)
    heap = heap_number(state["hand"], heap)
    check_tie(state, heap)
    _check_stake(state, player, amount)
    _place(state, events, pid, kind, heap, amount)


@action
def declare(state: State, events: Events, pid: str, heap: int) -> None:
    """Pagando y cobrando: one punter a hand plays a heap for the whole bank."""
    check_phase(state, BETTING)
    player = require_punter(state, pid)
    hand = state["hand"]
    heap = heap_number(hand, heap)
    if hand["declared"]:
        raise RulesError("someone already plays for the whole bank this hand")
    if player["chips"] <= 0 and not any(b["player"] == pid for b in hand["bets"]):
        raise RulesError("you have no chips to play for the bank with")
    check_tie(state, heap)
    hand["declared"] = True
    _place(state, events, pid, "whole_bank", heap, None)


@action
def withdraw(state: State, events: Events, pid: str, bet_id: int) -> None:
    """Take one's own bet back before bets close."""
    check_phase(state, BETTING)
    table.withdraw(state, events, pid, state["hand"]["bets"], bet_id, return_bet)


@action
def choose_bank_heap(state: State, events: Events, pid: str, heap: int) -> None:
    """The punters, never the banker, choose the banker's heap: one with nothing tied to it."""
    check_phase(state, BETTING)
    if pid == banker_of(state):
        raise RulesError("the punters choose the banker's heap, never the banker")
    require_punter(state, pid)
    hand = state["hand"]
    heap = heap_number(hand, heap)
    if heap in tied_heaps(hand):
        raise RulesError(
            "heap %(heap)s has bets on it: the banker's heap must have none", heap=heap
        )
    hand["bank_heap"] = heap
    events.append({"type": "bank_heap_chosen", "heap": heap, "player": pid})


@action
def close_bets(state: State, events: Events, pid: str) -> None:
    """The banker closes bets; every heap is turned and the hand is settled."""
    check_phase(state, BETTING)
    require_banker(state, pid)
    hand = state["hand"]
    if hand["bank_heap"] is None:
        raise RulesError("the punters have not chosen the banker's heap yet")
    if own_deck.own(state):
        # The heaps are turned by hand, in the order they are lifted, the banker's last; the
        # hand is settled when its card is entered (montones.rules.montones.entry).
        lifted = lifting_order(hand["bank_heap"], hand["bets"])
        rest = [h for h in range(1, len(hand["heaps"]) + 1) if h not in lifted]
        rest.remove(hand["bank_heap"])
        hand["turning"] = [*lifted, *rest, hand["bank_heap"]]
        hand["entered"] = []
        state["phase"] = own_deck.ENTERING
        events.append({"type": "bets_closed", "turning": hand["turning"]})
        return
    settle(state, events, [heap[-1] for heap in hand["heaps"]])


def settle(state: State, events: Events, cards: list[str]) -> None:
    """The hand settled with the heaps showing ``cards``, as the banker lifts them."""
    hand = state["hand"]
    stakes: dict[str, int] = {}
    for placed in hand["bets"]:
        stakes[placed["player"]] = stakes.get(placed["player"], 0) + (placed["amount"] or 0)
    chips = {pid: state["players"][pid]["chips"] + stakes.get(pid, 0) for pid in state["players"]}
    bank_before = state["bank"]["amount"]
    outcome = settle_hand(bank_before, cards, hand["bank_heap"], hand["bets"], chips)
    for line in outcome["settled"]:
        placed = hand["bets"][line["bet"]]
        line["bet"] = placed["id"]
        state["players"][placed["player"]]["chips"] += (placed["amount"] or 0) + line["net"]
    state["bank"]["amount"] = outcome["bank"]
    short = any(
        line["result"] == VOID
        or (line["result"] == WON and line["net"] < full_payout(line, cards))
        or (line["result"] != WON and -line["net"] < line["stake"])
        for line in outcome["settled"]
        if line["kind"] != "whole_bank"
    )
    hand["result"] = {
        "version": state["version"] + 1,  # the version this action makes: screens animate it once
        "cards": cards,
        "bank_before": bank_before,
        "short": short,
        **outcome,
    }
    state["phase"] = SETTLED
    events.append({"type": "settled", "hand": hand["number"], **hand["result"]})
