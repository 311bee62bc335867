"""A computer player: its next action from its seat's view."""

from __future__ import annotations

from random import Random
from typing import Any

from montones.rules import computer


def play(
    view_: dict[str, Any], rng: Random, idle: float, patience: float = computer.PATIENCE
) -> computer.Move:
    """A computer player's next action from its seat's view (``Game.play``): as banker it puts
    up the table's bank, turns the gate once the bets are in and lays out the next coup once
    the table has seen how this one came out; as a
    punter it cuts when asked and stakes a little a coup on the layout more of the unseen cards
    win for (either, when they are as good)."""
    me = view_["me"]
    can = set(me["can"]) if me else set()
    if "bank" in can:
        return "bank", {"amount": me["bank_offer"]}
    if "cut" in can:
        return computer.cut(rng, view_["deck"])
    if "gate" in can:
        return (
            ("gate", {})
            if computer.bets_are_in(view_, view_["settings"]["min_bet"], idle, patience)
            else None
        )
    if "next" in can:
        return ("next", {}) if computer.result_seen(idle, patience) else None
    if "bet" in can and not me["bets"]:
        best = max(layout["winning"] for layout in view_["layouts"])
        layouts = [layout["name"] for layout in view_["layouts"] if layout["winning"] == best]
        amount = computer.stake(rng, view_["settings"]["min_bet"], me["most"], me["chips"])
        return "bet", {"layout": rng.choice(layouts), "amount": amount}
    return None
