"""A computer player: its next action from its seat's view."""

from __future__ import annotations

from random import Random
from typing import Any

from montones.rules import computer
from montones.rules.cards import SPANISH


def play(
    view_: dict[str, Any], rng: Random, idle: float, patience: float = computer.PATIENCE
) -> computer.Move:
    """A computer player's next action from its seat's view (``Game.play``): it offers for
    the bank now and then and takes it when nobody else will, cuts when asked, makes uneven
    heaps, chooses the banker's heap when nobody has, and stakes a little on one heap (or on the
    banker's card against it) a hand. As banker it closes the bets once they are in, goes on
    once the table has seen the result,
    keeps the heaps after a Rey half the time (of the table's own cards, only when it knows how
    many heaps that makes: :func:`_kept_count`), puts up a broken bank again or gives it up,
    and now and then announces its three last hands, so the bank goes round."""
    me = view_["me"]
    can = set(me["can"]) if me else set()
    least = view_["settings"]["min_bet"]
    if "offer" in can:
        return _auction(view_, me, rng)
    if "cut" in can:
        return computer.cut(rng, len(SPANISH.codes))
    if "heaps" in can:
        low, high = view_["settings"]["heap_counts"]
        return "heaps", {"count": rng.randint(low, high)}
    if "close" in can:
        ready = view_["bank_heap"] is not None and computer.bets_are_in(
            view_, least, idle, patience
        )
        return ("close", {}) if ready else None
    if "choose" in can and view_["bank_heap"] is None:
        free = [h["number"] for h in view_["heaps"] if not h["bets"]]
        return "choose", {"heap": rng.choice(free)}
    if "bet" in can and not me["bets"] and view_["bank_heap"] is not None:
        amount = computer.stake(rng, least, me["most"], me["chips"])
        heaps = [h["number"] for h in view_["heaps"] if not h["is_bank_heap"]]
        kind = "against" if rng.random() < 0.25 else "bet"
        return kind, {"heap": rng.choice(heaps), "amount": amount}
    if ("abona" in can or "next" in can) and not computer.result_seen(idle, patience):
        return None
    if "abona" in can:
        if me["chips"] >= least and rng.random() < 0.5:
            return "abona", {"amount": _bank_amount(rng, me["chips"])}
        return "close_bank", {}
    if "next" in can:
        if "tres" in can and rng.random() < 0.15:
            return "tres", {}
        if "keep" in can and rng.random() < 0.5:
            kept = [h["number"] for h in view_["heaps"] if h["size"] >= 3]
            return "keep", {"heap": rng.choice(kept)}
        count = _kept_count(view_, me)
        if count is not None and rng.random() < 0.5:
            return "keep_entered", {"count": count}
        return "next", {}
    return None


def _kept_count(view_: dict[str, Any], me: dict[str, Any]) -> int | None:
    """How many heaps keeping them makes, at a table of its own cards, when the rules say it
    without anyone seeing them (else None: the computer gathers). The app cannot see the heaps;
    the host lays them out for a computer banker as for its cards. Right after a deal every heap
    was cut with at least three cards, so each keeps two or more once its turned card is taken
    away, and splitting one makes one heap more. Heaps kept already may hold a heap of one
    card, gone once it is turned: only someone who sees them could count them."""
    if "keep_entered" not in me["can"] or view_["rey_kept"]:
        return None
    count = len(view_["heaps"]) + 1
    return count if count <= me["most_kept"] else None


def _auction(view_: dict[str, Any], me: dict[str, Any], rng: Random) -> computer.Move:
    """Offer or pass once an auction; having passed, take the bank when everyone has passed
    (the table would wait for ever)."""
    answered = {p["id"]: p["offer"] is not None or p["passed"] for p in view_["players"]}
    if not answered[me["id"]]:
        if me["chips"] >= 1 and rng.random() < 0.5:
            return "offer", {"amount": _bank_amount(rng, me["chips"])}
        return "pass", {}
    everyone_passed = all(p["passed"] for p in view_["players"] if not p["sitting_out"])
    if everyone_passed and me["chips"] >= 1:
        return "offer", {"amount": _bank_amount(rng, me["chips"])}
    return None


def _bank_amount(rng: Random, chips: int) -> int:
    """A bank a careful player puts up: a fifth to a third of their chips."""
    return rng.randint(max(1, chips // 5), max(1, chips // 3))
