"""A computer player: its next action from its seat's view."""

from __future__ import annotations

from random import Random
from typing import Any

from montones.rules import computer
from montones.rules.monte_bank.settle import POSITIONS, SIDES


def play(
    view_: dict[str, Any], rng: Random, idle: float, patience: float = computer.PATIENCE
) -> computer.Move:
    """A computer player's next action from its seat's view (``Game.play``): as banker it puts
    up the table's bank, closes the bets once they are in, and once the table has seen the deal
    deals on, saying "Aces" now and then after its second deal; as a punter it cuts when asked and stakes a little a deal on the
    even-money bets (mostly a double on a side, sometimes a cross), seldom a round; with side
    cards on the layout, now and then a cross or a round on one of them, tapped as a position."""
    me = view_["me"]
    can = set(me["can"]) if me else set()
    least = view_["settings"]["min_bet"]
    if "bank" in can:
        return "bank", {"amount": me["bank_offer"]}
    if "cut" in can:
        return computer.cut(rng, view_["deck"])
    if "close" in can:
        return ("close", {}) if computer.bets_are_in(view_, least, idle, patience) else None
    if "aces" in can and not computer.result_seen(idle, patience):
        return None
    if "aces" in can:
        return ("aces", {}) if view_["deals"] >= 2 and rng.random() < 0.2 else ("next", {})
    if "bet" in can and not me["bets"]:
        amount = computer.stake(rng, least, me["most"], me["chips"])
        # Every field of the phone's tap is sent; a bet that is not a Monte Carlo ignores the
        # position it plays against and its side.
        spot = {"bet_kind": "layout", "against": "ll", "side": "upper", "amount": amount}
        roll = rng.random()
        sides = [s["position"] for s in view_.get("sides", [])]
        if sides and rng.random() < 0.3:
            side = rng.choice(sides)
            first = rng.choice([*POSITIONS, side])  # the same card again: a round on it
            return "bet", {**spot, "at": side, "first": first}
        if roll < 0.6:
            return "bet", {**spot, "at": rng.choice(tuple(SIDES))}
        first, then = rng.sample(POSITIONS, 2) if roll < 0.9 else [rng.choice(POSITIONS)] * 2
        return "bet", {**spot, "at": then, "first": first}
    return None
