"""The players and the bank: seating, sitting out and leaving, the auction for the bank,
se abona, the three last hands, the night's end."""

from __future__ import annotations

from montones.rules import chance, own_deck, table
from montones.rules.errors import Phrase, RulesError
from montones.rules.montones.deal import cut_at, deal_hand
from montones.rules.montones.state import (
    AUCTION,
    BETTING,
    CUT,
    FINISHED,
    HEAPS,
    SETTLED,
    bank_time_up,
    banker_of,
    check_phase,
    require_banker,
    return_bank,
    return_bet,
)
from montones.rules.table import Events, State, action


@action
def join(
    state: State, events: Events, pid: str, name: str, chips: int, computer: bool = False
) -> None:
    """Seat a player; they may join at any time and play from the next betting they see."""
    table.seat_player(state, events, pid, name, chips, computer)


@action
def sit_out(state: State, events: Events, pid: str, out: bool = True) -> None:
    """Sit out of (or back into) the hands; a player with bets in play keeps them."""
    player = table.player(state, pid)
    if out and pid == banker_of(state):
        raise RulesError("the banker cannot sit out: close the bank first")
    if player["sitting_out"] == bool(out):
        raise RulesError(
            Phrase("you are already sitting out") if out else Phrase("you are already playing")
        )
    player["sitting_out"] = bool(out)
    events.append({"type": "sat_out" if out else "sat_in", "player": pid})


top_up = table.top_up


@action
def leave(state: State, events: Events, pid: str) -> None:
    """A player leaves (or is sent away): their bets go back, their chips stay theirs.

    A banker leaving in the middle of a hand calls the hand off: every stake goes back and
    the bank returns to the banker before a new auction.
    """
    player = table.player(state, pid)
    hand = state["hand"]
    if pid == banker_of(state):
        if hand and state["phase"] in (CUT, HEAPS, BETTING, own_deck.ENTERING):
            for bet in list(hand["bets"]):
                return_bet(state, bet)
            events.append({"type": "hand_called_off"})
        return_bank(state, events, "banker left")
    elif hand and state["phase"] == BETTING:
        for bet in [b for b in hand["bets"] if b["player"] == pid]:
            return_bet(state, bet)
    state["auction"]["offers"].pop(pid, None)
    player["left"] = True
    events.append({"type": "left", "player": pid})
    if hand and state["phase"] == CUT and hand["cutter"] == pid:
        cut_at(state, events, None, "cutter left")  # nobody waits for a cut that cannot come


@action
def finish(state: State, events: Events) -> None:
    """The night is over: open bets go back, a running bank returns to its banker."""
    hand = state["hand"]
    if hand and state["phase"] in (BETTING, own_deck.ENTERING):
        for placed in list(hand["bets"]):
            return_bet(state, placed)
    if state["bank"]:
        return_bank(state, events, "table ended")
    state["phase"] = FINISHED
    events.append({"type": "finished"})


def standings(state: State) -> list[dict]:
    """The players by chips (``table.standings``), an open bank counted as its banker's."""
    bank = state["bank"]
    return table.standings(state, {bank["banker"]: bank["amount"]} if bank else None)


@action
def offer_bank(state: State, events: Events, pid: str, amount: int) -> None:
    """Offer an amount from one's own chips for the bank (a new offer replaces the old)."""
    check_phase(state, AUCTION)
    player = table.player(state, pid)
    if player["sitting_out"]:
        raise RulesError("you are sitting out: sit in to offer for the bank")
    table.amount(amount, Phrase("an offer"))
    if amount > player["chips"]:
        raise RulesError(
            "you have %(chips)s chips: an offer of %(amount)s is over them",
            chips=player["chips"],
            amount=amount,
        )
    state["auction"]["offers"][pid] = amount
    if pid in state["auction"]["passed"]:
        state["auction"]["passed"].remove(pid)
    events.append({"type": "offered", "player": pid, "amount": amount})


@action
def pass_bank(state: State, events: Events, pid: str) -> None:
    """Decline to offer for the bank (withdrawing an offer already made)."""
    check_phase(state, AUCTION)
    table.player(state, pid)
    if pid in state["auction"]["passed"]:
        raise RulesError("you have already passed: offer if you want the bank after all")
    state["auction"]["offers"].pop(pid, None)
    state["auction"]["passed"].append(pid)
    events.append({"type": "passed", "player": pid})


def auction_complete(state: State) -> bool:
    """Every player who can offer has offered or passed, and someone offered."""
    auction = state["auction"]
    waiting = [
        pid
        for pid in state["seats"]
        if not state["players"][pid].get("left")
        and not state["players"][pid]["sitting_out"]
        and pid not in auction["offers"]
        and pid not in auction["passed"]
    ]
    return bool(auction["offers"]) and not waiting


@action
def close_auction(
    state: State,
    events: Events,
    now: float,
    winner: str | None = None,
    deck: list[str] | None = None,
) -> None:
    """The highest offer takes the bank; equal highest offers are drawn by lot.

    ``winner`` is the outcome of that lot when a test or a replay fixes it. The first hand's
    deck is shuffled at once and waits for its cut.
    """
    check_phase(state, AUCTION)
    offers = {
        pid: a
        for pid, a in state["auction"]["offers"].items()
        if not state["players"][pid].get("left")
    }
    if not offers:
        raise RulesError("nobody has offered for the bank yet")
    best = max(offers.values())
    tied = [pid for pid in state["seats"] if offers.get(pid) == best]
    if winner is None:
        winner = chance.source().choice(tied)
    elif winner not in tied:
        raise RulesError("the lot can only fall on one of the highest offers")
    player = state["players"][winner]
    if player["chips"] < best:
        raise RulesError("the winning offer is no longer covered by that player's chips")
    player["chips"] -= best
    state["bank"] = {"banker": winner, "amount": best, "opened_at": now, "last_hands": None}
    if len(tied) > 1:  # said on every screen through the bank's first hand: why this banker
        state["bank"]["lot"] = tied
    state["auction"] = {"offers": {}, "passed": []}
    events.append({"type": "bank_opened", "banker": winner, "amount": best, "tied": tied})
    deal_hand(state, events, now, deck)


@action
def tres_ultimas_manos(state: State, events: Events, pid: str) -> None:
    """The banker announces three last hands: exactly three more hands are dealt."""
    require_banker(state, pid)
    if state["bank"]["last_hands"] is not None:
        raise RulesError("the three last hands are already announced")
    state["bank"]["last_hands"] = 3
    events.append({"type": "tres_ultimas_manos", "banker": pid})


@action
def se_abona(state: State, events: Events, pid: str, amount: int, now: float) -> None:
    """After the bank broke and before its time is up, the banker puts up a new amount."""
    check_phase(state, SETTLED)
    require_banker(state, pid)
    if state["bank"]["amount"] != 0:
        raise RulesError("se abona is only for a broken bank")
    if bank_time_up(state, now):
        raise RulesError("the bank's time is up: it closes")
    banker = state["players"][pid]
    table.amount(amount, Phrase("the new bank"))
    table.take_bank(banker, amount)
    state["bank"]["amount"] = amount
    events.append({"type": "se_abona", "banker": pid, "amount": amount})


@action
def close_bank(state: State, events: Events, pid: str) -> None:
    """The banker gives up a broken bank (between hands, only once it is broken)."""
    check_phase(state, SETTLED)
    require_banker(state, pid)
    if state["bank"]["amount"] != 0:
        raise RulesError("a running bank closes only by time or after the three last hands")
    return_bank(state, events, "closed")
