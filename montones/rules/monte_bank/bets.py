"""The punters' bets on the layout: a tap read as a spot, a stake checked against the bank,
bets placed, changed, withdrawn and closed."""

from __future__ import annotations

from typing import Any

from montones.rules import own_deck, rotation, table
from montones.rules.errors import RulesError
from montones.rules.monte_bank.bank import (
    DEAL_OVER,
    SETTLES,
    check_phase,
    pass_bank,
    return_bet,
    side_cards,
)
from montones.rules.monte_bank.settle import (
    POSITIONS,
    SIDE_CARDS,
    SIDES,
    check_bet,
    cost,
    parts,
    play_deal,
)
from montones.rules.rotation import BETTING, require_banker
from montones.rules.table import Events, State, action, is_count


def parse_spot(spot: object) -> dict[str, str]:
    """Where a bet lies, as a phone sends it: ``"round ul"``, ``"cross ul ll"``,
    ``"double left"``, ``"monte_carlo ul ll left"``."""
    words = spot.split() if isinstance(spot, str) else []
    keys = {
        "round": ("on",),
        "cross": ("on", "against"),
        "double": ("side",),
        "monte_carlo": ("on", "against", "side"),
    }
    if not words or words[0] not in keys or len(words) != len(keys[words[0]]) + 1:
        raise RulesError(
            "there is no bet %(kind)r: a bet is a round, a cross, a double or a Monte Carlo",
            kind=spot,
        )
    return {"kind": words[0], **dict(zip(keys[words[0]], words[1:], strict=True))}


def tapped(params: dict[str, Any]) -> dict[str, str]:
    """The bet a tap on the layout makes (the phone's bar holds the kind, the stake, a Monte
    Carlo's cross card and side). A side is a double on it. On the layout (``bet_kind``
    ``layout``) a position is tapped twice: ``first`` is the one tapped before, so the same
    position again is a round on it and another one a cross, the first against this one. A
    Monte Carlo is on the position tapped, against the position and with the side chosen. A
    side card is tapped as a position (the bet then judges whether the table deals it)."""
    at, kind = params["at"], params["bet_kind"]
    if at in SIDES:
        return {"kind": "double", "side": at}
    if at not in POSITIONS + SIDE_CARDS:
        raise RulesError(
            "there is no position %(position)r: the positions are ul, ur, ll and lr", position=at
        )
    if kind == "layout":
        first = params.get("first") or at
        if first == at:
            return {"kind": "round", "on": at}
        return {"kind": "cross", "on": first, "against": at}
    if kind == "monte_carlo":
        return {"kind": kind, "on": at, "against": params["against"], "side": params["side"]}
    raise RulesError(
        "there is no bet %(kind)r: a bet is a round, a cross, a double or a Monte Carlo",
        kind=kind,
    )


def _check_stake(state: State, player: dict, amount: object, more: int) -> None:
    """A stake the table allows, and chips for it (``more``: what the bet takes per chip)."""
    if not is_count(amount) or amount <= 0:
        raise RulesError(
            "a bet must be a whole number of chips, at least 1, not %(amount)r", amount=amount
        )
    least = state["settings"]["min_bet"]
    if amount < least:
        raise RulesError("the table minimum is %(least)s", least=least)
    if amount > state["bank"]:
        raise RulesError(
            "the bank holds %(bank)s: the most you can bet is %(most)s",
            bank=state["bank"],
            most=state["bank"],
        )
    if amount * more > player["chips"]:
        raise RulesError(
            "you have %(chips)s chips: a bet of %(amount)s is over them",
            chips=player["chips"],
            amount=amount * more,
        )


def _require_laid_out(state: State) -> None:
    """With the table's own cards, bets open once the layout and its side cards are entered:
    until then a bet, or the close of bets, is refused in words that say so."""
    deal = state["deal"]
    if state["phase"] != own_deck.ENTERING or deal is None or deal["turned"] is not None:
        return
    if deal["layout"]["lr"]:
        raise RulesError("the side cards are still being entered: bets open once they are out")
    raise RulesError("the layout is still being entered: bets open once its four cards are out")


@action
def bet(state: State, events: Events, pid: str, spot: object, amount: int) -> None:
    """A round, a cross, a double or a Monte Carlo (three bets of this stake); each bet is at
    least the table minimum and at most the bank; their sum may exceed the bank."""
    _require_laid_out(state)
    player = rotation.punter(state, pid)
    placed = parse_spot(spot) if not isinstance(spot, dict) else dict(spot)
    check_bet(placed, side_cards(state["settings"]))
    _check_stake(state, player, amount, len(parts(placed)))
    deal = state["deal"]
    placed = {"id": deal["next_bet"], "player": pid, **placed, "amount": amount}
    deal["next_bet"] += 1
    deal["bets"].append(placed)
    player["chips"] -= cost(placed)
    events.append({"type": "bet_placed", **placed})


@action
def withdraw(state: State, events: Events, pid: str, bet_id: int) -> None:
    """Take one's own bet back before bets close."""
    check_phase(state, BETTING)
    table.withdraw(state, events, pid, state["deal"]["bets"], bet_id, return_bet)


@action
def change(state: State, events: Events, pid: str, bet_id: int, amount: int) -> None:
    """A new stake for one of my bets, where it lies."""
    player = rotation.punter(state, pid)
    placed = table.own_bet(state["deal"]["bets"], pid, bet_id)
    player["chips"] += cost(placed)
    _check_stake(state, player, amount, len(parts(placed)))
    placed["amount"] = amount
    player["chips"] -= cost(placed)
    events.append({"type": "bet_changed", **placed})


@action
def close_bets(state: State, events: Events, pid: str) -> None:
    """The banker says the bets are done: the cards are turned from the bottom until the last
    bet is decided, and the deal is settled. A broken bank, or one that has dealt the table's
    limit, passes at once."""
    _require_laid_out(state)
    check_phase(state, BETTING)
    require_banker(state, pid)
    deal = state["deal"]
    if own_deck.own(state) and deal["bets"]:
        # The cards are turned by hand and entered until the last bet is decided
        # (montones.rules.monte_bank.entry).
        deal["turned"] = []
        state["phase"] = own_deck.ENTERING
        events.append({"type": "bets_closed"})
        return
    settle_deal(state, events, deal.get("rest", []))


def settle_deal(state: State, events: Events, rest: list[str]) -> None:
    """The deal settled with ``rest`` left after the layout (turned from its bottom)."""
    deal = state["deal"]
    bets = deal["bets"]
    outcome = play_deal(state["bank"], deal["layout"], rest, bets, state["settings"]["levy"])
    for line in outcome["settled"]:
        placed = bets[line["bet"]]
        state["players"][placed["player"]]["chips"] += placed["amount"] + line["net"]
        line["id"] = placed["id"]
    outcome["version"] = state["version"] + 1
    state["bank"] = outcome["bank"]
    state["pot"] += outcome["levy"]
    state["deals"] += 1
    deal["result"] = outcome
    deal["shuffle"] = state["shuffle"]
    deal.pop("rest", None)
    state["last_deal"] = deal
    state["deck"] = []
    state["phase"] = DEAL_OVER
    events.append({"type": SETTLES, "number": deal["number"], **outcome})
    limit = state["settings"]["deals_per_bank"]
    if state["bank"] == 0:
        pass_bank(state, events, "broken")
    elif limit is not None and state["deals"] >= limit:
        pass_bank(state, events, "deals done")
