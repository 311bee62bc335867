"""What a seat may see: the table for one seat (the TV is seat None), what a phone's status
and bar are drawn from."""

from __future__ import annotations

from typing import Any

from montones.rules import betting_time, own_deck, table
from montones.rules.cards import SPANISH
from montones.rules.montones.bets import most_stake
from montones.rules.montones.entry import can_undo, most_kept, seen, waiting_for
from montones.rules.montones.entry import turned as turned_cards
from montones.rules.montones.settle import REY, explained, heap_wins
from montones.rules.montones.state import (
    AUCTION,
    BETTING,
    CUT,
    FINISHED,
    HEAPS,
    SETTLED,
    bank_closing,
    banker_of,
    can_keep_heaps,
)
from montones.rules.table import State


def view(state: State, seat: str | None = None, now: float | None = None) -> dict[str, Any]:
    """The table as one seat sees it (``seat=None``: the TV and spectators).

    The deck order and the heaps' cards stay hidden until the heaps are turned; each seat learns
    which actions the rules allow it now, so a screen offers only those.
    """
    bank = state["bank"]
    banker = bank["banker"] if bank else None
    hand = state["hand"]
    phase = state["phase"]
    result = hand["result"] if hand else None
    names = {pid: p["name"] for pid, p in state["players"].items()}
    if result:
        result = {**result, "settled": explained(result)}
    turned = {} if not result else {line["bet"]: line for line in result["settled"]}

    heaps = []
    entered = turned_cards(hand) if hand else {}
    if hand and hand["heaps"]:
        for number, cards in enumerate(hand["heaps"], start=1):
            bets = [
                table.shown_bet(b, names, seat, turned.get(b["id"]))
                for b in hand["bets"]
                if b["heap"] == number
            ]
            card = cards[-1] if result else entered.get(number)
            heaps.append(
                {
                    "number": number,
                    # None: a heap of the table's own cards, whose size nobody counted
                    "size": None if own_deck.own(state) else len(cards),
                    "card": card,
                    "is_bank_heap": number == hand["bank_heap"],
                    "bets": bets,
                    "stacks": bets if result else stacks(bets),
                    "money": sum(b["amount"] or 0 for b in bets),
                    "wins": None
                    if not result or number == hand["bank_heap"]
                    else heap_wins(result["bank_card"], card),
                    "lifted": result["order"].index(number) + 1
                    if result and number in result["order"]
                    else None,
                }
            )

    staked: dict[str, int] = {}
    if hand and phase == BETTING:
        for b in hand["bets"]:
            staked[b["player"]] = staked.get(b["player"], 0) + (b["amount"] or 0)
    players = [
        {
            "id": pid,
            "name": p["name"],
            "computer": table.is_computer(state, pid),
            "chips": p["chips"],
            "sitting_out": p["sitting_out"],
            "is_banker": pid == banker,
            "is_cutter": hand is not None and phase == CUT and pid == hand["cutter"],
            "offer": state["auction"]["offers"].get(pid),
            "passed": pid in state["auction"]["passed"],
            "staked": staked.get(pid, 0),
        }
        for pid, p in state["players"].items()
        if not p.get("left")
    ]
    shown = {
        "game": "montones",
        "version": state["version"],
        "phase": phase,
        "hand": hand["number"] if hand else None,
        "players": players,
        "bank": None
        if not bank
        else {
            **bank,
            "name": names[bank["banker"]],
            "computer": table.is_computer(state, bank["banker"]),
            "ends_at": bank["opened_at"] + 60 * state["settings"]["tenure_minutes"],
            "closing": now is not None and bank_closing(state, now),
            "lot": [names[pid] for pid in bank.get("lot", [])],
        },
        "cutter": hand["cutter"] if hand and phase == CUT else None,
        "cutter_name": names.get(hand["cutter"]) if hand and phase == CUT else None,
        "cut_deadline": hand["cut_started"] + state["settings"]["cut_timeout"]
        if hand and phase == CUT
        else None,
        "cut": hand["cut"] if hand else None,
        # When bets close by the clock (a table with a betting time): every screen counts down.
        "betting_until": betting_time.until(state, phase == BETTING),
        # Whose cut the clock made (they let their time run out), while its deck is dealt.
        "cut_by_clock": names.get(hand["cutter"])
        if hand
        and phase in (HEAPS, BETTING)
        and hand["cut"] is not None  # None: the table's own cards, cut by hand
        and hand["cut"]["how"] == "random"
        and not hand.get("rey_kept")
        else None,
        "heaps": heaps,
        "bank_heap": hand["bank_heap"] if hand else None,
        "declared": hand["declared"] if hand else False,
        "rey_kept": hand.get("rey_kept", False) if hand else False,
        # How many heaps the banker kept after a Rey, while the new bets are made on them.
        "kept": len(hand["heaps"]) if hand and hand.get("rey_kept") and phase == BETTING else None,
        "commitment": hand["shuffle"]["commitment"] if hand and hand.get("shuffle") else None,
        "result": result
        and {
            **result,
            "settled": [{**line, "name": names[line["player"]]} for line in result["settled"]],
        },
        # No bank is running and one has: the TV has room for the night so far.
        "between_banks": phase == FINISHED or (phase == AUCTION and state["hands"] > 0),
        "settings": state["settings"],
        "entry": _entry(state),
        "me": None,
    }
    shown["me"] = my_view(state, seat, now)
    return shown


def _entry(state: State) -> dict[str, Any] | None:
    """The entry of the table's own cards, as every screen shows it (own_deck.shown)."""
    hand = state["hand"]
    heap = waiting_for(state)
    return own_deck.shown(
        state,
        SPANISH,
        heap and f"heap {heap}",
        seen(hand),
        banker_of(state),
        can_undo(state),
    )


def my_view(state: State, seat: str | None, now: float | None = None) -> dict[str, Any] | None:
    """A seat's own part of :func:`view` (``Game.view``'s ``"me"``): its chips, the bank's clock and
    what the rules let it do now."""
    return _my_view(state, seat, now) if table.seated(state, seat) else None


def stacks(bets: list[dict]) -> list[dict]:
    """A heap's open bets as the felt shows them: one pile per player and kind of bet.

    A pile holds the sum of its bets (``amount``; ``None`` for the whole bank), their ``count``,
    each bet's stake (``parts``: they are settled one by one, so every screen shows them) and,
    as its ``id``, its newest bet: the one a withdraw takes back. Piles keep the order of their
    first bet, so a new chip on a pile does not move it.
    """
    piles: dict[tuple[str, str], dict] = {}
    for b in bets:
        pile = piles.get((b["player"], b["kind"]))
        if pile is None:
            piles[(b["player"], b["kind"])] = {**b, "count": 1, "parts": [b["amount"]]}
        else:
            pile["id"] = b["id"]
            pile["count"] += 1
            pile["parts"].append(b["amount"])
            if pile["amount"] is not None and b["amount"] is not None:
                pile["amount"] += b["amount"]
    return list(piles.values())


def _my_view(state: State, seat: str, now: float | None) -> dict[str, Any]:
    player = state["players"][seat]
    bank = state["bank"]
    hand = state["hand"]
    phase = state["phase"]
    is_banker = bank is not None and bank["banker"] == seat
    can: set[str] = set()
    if phase == AUCTION and not player["sitting_out"]:
        can.add("offer")
        if seat not in state["auction"]["passed"]:
            can.add("pass")
    elif phase == CUT and hand["cutter"] == seat:
        can.add("cut")
    elif phase == HEAPS and is_banker:
        can.add("heaps")
    elif phase == BETTING and is_banker:
        can.add("close")
    elif phase == BETTING and not player["sitting_out"]:
        can |= {"choose", "withdraw"}
        minimum = state["settings"]["min_bet"]
        if player["chips"] >= minimum and bank["amount"] >= minimum:
            can |= {"bet", "against"}
        if not hand["declared"]:
            can.add("declare")
    elif phase == SETTLED and is_banker:
        closing = now is not None and bank_closing(state, now)
        if bank["amount"] == 0 and not closing:
            can |= {"abona", "close_bank"}
        else:
            can.add("next")
        if not closing and bank["amount"] > 0 and hand["result"]["bank_card"][0] == REY:
            if not own_deck.own(state) and can_keep_heaps(hand):
                can.add("keep")
            elif own_deck.own(state) and most_kept(hand) >= 2:
                can.add("keep_entered")
    if is_banker and bank["last_hands"] is None and phase != AUCTION:
        can.add("tres")
    if not is_banker and phase != FINISHED:
        can.add("sit_in" if player["sitting_out"] else "sit_out")
    can |= own_deck.seat_can(_entry(state), seat, bank and bank["banker"])
    return {
        "id": seat,
        "name": player["name"],
        "chips": player["chips"],
        "sitting_out": player["sitting_out"],
        "is_banker": is_banker,
        "bets": [b for b in hand["bets"] if b["player"] == seat] if hand else [],
        "offer": state["auction"]["offers"].get(seat),
        "most": most_stake(state, seat),
        # The most heaps the banker can say are kept after a Rey, of the table's own cards.
        "most_kept": most_kept(hand) if "keep_entered" in can else None,
        "can": sorted(can),
        # The bank's time, as this seat sees it now: the one part of a seat's regions the
        # time alone changes (the view every screen shares is worked out without it).
        "closing": bank is not None and now is not None and bank_closing(state, now),
    }


def status_view(view_: dict[str, Any]) -> dict[str, Any]:
    """What a phone's status (its chips, the step, the bank, how my bets came out) is drawn
    from, and nothing more (its template's ``v``): not the heaps' bets nor the other players'
    stakes, which the felt shows."""
    return {key: view_[key] for key in _STATUS_KEYS}


_STATUS_KEYS = (
    "phase",
    "entry",
    "me",
    "bank",
    "result",
    "cut_deadline",
    "cut_by_clock",
    "kept",
    "cutter",
    "cutter_name",
    "betting_until",
)


def bar_view(view_: dict[str, Any]) -> dict[str, Any]:
    """What a phone's action bar is drawn from, and nothing more (its template's ``v``).

    While I bet, the least and the most I may stake (``stakes``), which the web turns into the
    quick stakes the bar offers and keys its drawing by (``web/stakes.py``): the most alone,
    which every bet of mine changes, is not drawn; my chips only where it shows them (the most
    I can offer or put up).
    """
    me = view_["me"] or {}
    bank, can = view_["bank"], me.get("can", [])
    least, most = view_["settings"]["min_bet"], me.get("most", 0)
    return {
        "phase": view_["phase"],
        "me": {
            "can": can,
            "chips": me.get("chips") if "offer" in can or "abona" in can else None,
            "offer": me.get("offer"),
            "stakes": (least, most) if "bet" in can else None,
            "most_kept": me.get("most_kept"),
            "closing": me.get("closing"),
        },
        "bank": bank and {key: bank[key] for key in ("amount", "closing", "name")},
        "bank_heap": view_["bank_heap"],
        "cutter_name": view_["cutter_name"],
        "heaps": [{"number": h["number"], "size": h["size"]} for h in view_["heaps"]],
        "settings": {key: view_["settings"][key] for key in ("heap_counts", "min_bet")},
        "entry": view_["entry"],
    }
