"""Montones, the Murcia heap game (docs/rules.md, "Montones").

The state of a table is a plain dict that round-trips through JSON. Every action is a function
``action(state, ...) -> (new_state, events)``: it works on a copy, so a :class:`RulesError`
leaves the caller's state untouched. The engine never reads the clock (``now`` is passed in,
in seconds) and draws its randomness from ``chance.SYSTEM`` (a rehearsal's seeded one inside
:func:`montones.rules.chance.rehearsal`) unless a test passes the
outcome (a deck order, a cut, heap sizes, the winner of a tie).

Heaps are numbered from 1. A heap is a list of cards, top first; only its bottom card counts.
Players' ``chips`` are the chips in front of them: a bet's stake leaves them when it is placed
and comes back, with what it won or less what it lost, at settlement.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import permutations
from random import Random
from typing import Any

from montones.rules import chance, computer, hand_records, settlement, table
from montones.rules.cards import SPANISH, cut
from montones.rules.errors import Phrase, RulesError
from montones.rules.fairness import new_shuffle
from montones.rules.odds import Odds
from montones.rules.plain import copy_state
from montones.rules.scenario_input import (
    ScenarioError,
    distinct_cards,
    field,
    listed,
    net_chips,
    quoted,
    scenario_lines,
    seated_chips,
    whole_number,
)
from montones.rules.settlement import VOID, WON, cover, explain
from montones.rules.table import (
    Action,
    Events,
    Field,
    State,
    action,
    is_count,
    require_phase,
)

REY = "R"
REY_DE_OROS = "Ro"
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


# --- who wins against whom ---------------------------------------------------------------


def heap_wins(bank_card: str, card: str) -> bool:
    """A punter heap wins when its card is higher than the banker's, unless the banker has a Rey."""
    if bank_card[0] == REY:
        return False
    return SPANISH.rank(card) > SPANISH.rank(bank_card)


def heap_payout(card: str, stake: int) -> int:
    """1 to 1, or 2 to 1 on the Rey de oros."""
    return 2 * stake if card == REY_DE_OROS else stake


def lifting_order(bank_heap: int, bets: list[dict]) -> list[int]:
    """Heaps in the order the banker lifts them (docs/rules.md, "Settling, and a bank that runs short", 1).

    Ascending money tied to the heap, equal money lower heap first; the heap of a pagando y
    cobrando declaration last. Heaps with nothing tied to them are not lifted.
    """
    money: dict[int, int] = {}
    declared = None
    for bet in bets:
        money.setdefault(bet["heap"], 0)
        if bet["kind"] == "whole_bank":
            declared = bet["heap"]
        else:
            money[bet["heap"]] += bet["amount"]
    return sorted((h for h in money if h != bank_heap), key=lambda h: (h == declared, money[h], h))


def settle_hand(
    bank: int, cards: list[str], bank_heap: int, bets: list[dict], chips: dict[str, int]
) -> dict[str, Any]:
    """Settle a hand whose heaps show ``cards``.

    ``bets`` are in the order placed: ``{"player", "kind", "heap", "amount"}`` where kind is
    ``heap``, ``against`` (the banker's card against that heap) or ``whole_bank`` (pagando y
    cobrando, no amount). ``chips`` are the players' chips before the hand, stakes included;
    they cap a declaration. Returns the banker's card, the bank after, the lifting order and
    ``settled``: one entry per bet in the order settled, with ``bet`` its index in ``bets``.
    """
    bank_card = cards[bank_heap - 1]
    running = dict(chips)
    settled = []
    order = lifting_order(bank_heap, bets)
    for heap in order:
        card = cards[heap - 1]
        wins = heap_wins(bank_card, card)
        items = [i for i, bet in enumerate(bets) if bet["heap"] == heap]
        items.sort(key=lambda i: (bets[i]["kind"] == "whole_bank", bets[i].get("amount") or 0, i))
        for i in items:
            bet = bets[i]
            if bet["kind"] == "whole_bank":
                stake = min(bank, max(running[bet["player"]], 0))
                result, net = cover(bank, wins, stake, stake)
            elif bet["kind"] == "against":
                stake = bet["amount"]
                result, net = cover(bank, not wins, stake, stake)
            else:
                stake = bet["amount"]
                result, net = cover(bank, wins, stake, heap_payout(card, stake))
            bank -= net
            running[bet["player"]] += net
            settled.append(
                {
                    "bet": i,
                    "player": bet["player"],
                    "heap": heap,
                    "kind": bet["kind"],
                    "stake": stake,
                    "result": result,
                    "net": net,
                }
            )
    return {"bank_card": bank_card, "bank": bank, "order": order, "settled": settled}


# --- the table ---------------------------------------------------------------------------


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


def _banker(state: State) -> str | None:
    return state["bank"]["banker"] if state["bank"] else None


def _require_phase(state: State, *phases: str) -> None:
    require_phase(state, _PHASE_REFUSAL, *phases)


_PHASE_REFUSAL = {
    AUCTION: Phrase("the bank is not up for auction now"),
    CUT: Phrase("the deck is not waiting for a cut"),
    HEAPS: Phrase("the heaps are not being made now"),
    BETTING: Phrase("bets are closed"),
    SETTLED: Phrase("the hand is still in play"),
}


def _require_banker(state: State, pid: str) -> None:
    if pid != _banker(state):
        raise RulesError("only the banker can do that")


def _require_punter(state: State, pid: str) -> dict:
    player = table.player(state, pid)
    if pid == _banker(state):
        raise RulesError("the banker does not bet against the bank")
    if player["sitting_out"]:
        raise RulesError("you are sitting out this hand")
    return player


def punters(state: State) -> list[str]:
    """Players who can play a hand: seated, not sitting out, not the banker."""
    banker = _banker(state)
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


# --- players -----------------------------------------------------------------------------


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
    if out and pid == _banker(state):
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
    if pid == _banker(state):
        if hand and state["phase"] in (CUT, HEAPS, BETTING):
            for bet in list(hand["bets"]):
                _return_bet(state, bet)
            events.append({"type": "hand_called_off"})
        _close_bank(state, events, "banker left")
    elif hand and state["phase"] == BETTING:
        for bet in [b for b in hand["bets"] if b["player"] == pid]:
            _return_bet(state, bet)
    state["auction"]["offers"].pop(pid, None)
    player["left"] = True
    events.append({"type": "left", "player": pid})
    if hand and state["phase"] == CUT and hand["cutter"] == pid:
        _cut(state, events, None, "cutter left")  # nobody waits for a cut that cannot come


@action
def finish(state: State, events: Events) -> None:
    """The night is over: open bets go back, a running bank returns to its banker."""
    hand = state["hand"]
    if hand and state["phase"] == BETTING:
        for placed in list(hand["bets"]):
            _return_bet(state, placed)
    if state["bank"]:
        _close_bank(state, events, "table ended")
    state["phase"] = FINISHED
    events.append({"type": "finished"})


def standings(state: State) -> list[dict]:
    """The players by chips (``table.standings``), an open bank counted as its banker's."""
    bank = state["bank"]
    return table.standings(state, {bank["banker"]: bank["amount"]} if bank else None)


# --- the bank ----------------------------------------------------------------------------


@action
def offer_bank(state: State, events: Events, pid: str, amount: int) -> None:
    """Offer an amount from one's own chips for the bank (a new offer replaces the old)."""
    _require_phase(state, AUCTION)
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
    _require_phase(state, AUCTION)
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
    _require_phase(state, AUCTION)
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
    _deal(state, events, now, deck)


@action
def tres_ultimas_manos(state: State, events: Events, pid: str) -> None:
    """The banker announces three last hands: exactly three more hands are dealt."""
    _require_banker(state, pid)
    if state["bank"]["last_hands"] is not None:
        raise RulesError("the three last hands are already announced")
    state["bank"]["last_hands"] = 3
    events.append({"type": "tres_ultimas_manos", "banker": pid})


@action
def se_abona(state: State, events: Events, pid: str, amount: int, now: float) -> None:
    """After the bank broke and before its time is up, the banker puts up a new amount."""
    _require_phase(state, SETTLED)
    _require_banker(state, pid)
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
    _require_phase(state, SETTLED)
    _require_banker(state, pid)
    if state["bank"]["amount"] != 0:
        raise RulesError("a running bank closes only by time or after the three last hands")
    _close_bank(state, events, "closed")


def _close_bank(state: State, events: Events, why: str) -> None:
    bank = state["bank"]
    state["players"][bank["banker"]]["chips"] += bank["amount"]
    events.append(
        {"type": "bank_closed", "banker": bank["banker"], "amount": bank["amount"], "why": why}
    )
    state["bank"] = None
    state["hand"] = None
    state["phase"] = AUCTION
    state["auction"] = {"offers": {}, "passed": []}


# --- a hand ------------------------------------------------------------------------------


def _deal(state: State, events: Events, now: float, deck: list[str] | None) -> None:
    order = SPANISH.parse_order(deck) if deck is not None else SPANISH.shuffled(chance.source())
    state["hands"] += 1
    eligible = punters(state)
    cutter = None
    if eligible:
        cutter = eligible[state["cut_turn"] % len(eligible)]
        state["cut_turn"] += 1
    state["hand"] = {
        "number": state["hands"],
        "deck": order,
        # Committed to before the cut and the first bet; opened once the deck is done.
        "shuffle": new_shuffle(order),
        "cutter": cutter,
        "cut_started": now,
        "cut": None,
        "heaps": [],
        "bank_heap": None,
        "bets": [],
        "next_bet": 1,
        "declared": False,
        "rey_kept": False,
        "result": None,
    }
    state["phase"] = CUT
    events.append(
        {
            "type": "shuffled",
            "hand": state["hands"],
            "cutter": cutter,
            "commitment": state["hand"]["shuffle"]["commitment"],
        }
    )
    if cutter is None:
        _cut(state, events, None, "nobody to cut")


def _cut(state: State, events: Events, position: int | None, how: str) -> None:
    hand = state["hand"]
    if position is None:
        position = chance.source().randint(1, len(hand["deck"]) - 1)
    hand["deck"] = cut(hand["deck"], position)
    hand["cut"] = {"position": position, "how": how}
    state["phase"] = HEAPS
    events.append({"type": "cut", "position": position, "how": how, "player": hand["cutter"]})


cut_deck, cut_timed_out = table.cut_actions(
    _PHASE_REFUSAL,
    cutter=lambda state: state["hand"]["cutter"],
    deadline=lambda state: cut_deadline(state),  # defined below, with the views
    cut=lambda state, events, position, how, _now: _cut(state, events, position, how),
)


@action
def make_heaps(
    state: State, events: Events, pid: str, count: int, sizes: list[int] | None = None
) -> None:
    """The banker cuts the deck into ``count`` face-down heaps of uneven size, at least 3 each."""
    _require_phase(state, HEAPS)
    _require_banker(state, pid)
    low, high = state["settings"]["heap_counts"]
    if not is_count(count) or not low <= count <= high:
        raise RulesError("this table plays with %(low)s to %(high)s heaps", low=low, high=high)
    deck = state["hand"]["deck"]
    if sizes is None:
        sizes = uneven_sizes(count, len(deck))
    elif (
        not isinstance(sizes, list)
        or len(sizes) != count
        or any(not is_count(s) or s < MIN_HEAP_CARDS for s in sizes)
        or sum(sizes) != len(deck)
    ):
        raise RulesError(
            "%(count)s heaps of at least %(least)s cards using all %(cards)s",
            count=count,
            least=MIN_HEAP_CARDS,
            cards=len(deck),
        )
    hand = state["hand"]
    hand["heaps"] = deal_heaps(deck, sizes)
    hand["sizes"] = sizes
    hand["deck"] = []
    state["phase"] = BETTING
    events.append({"type": "heaps_made", "sizes": sizes})


def deal_heaps(deck: list[str], sizes: list[int]) -> list[list[str]]:
    """The cut deck laid out in heaps of ``sizes`` cards, from the top."""
    heaps, start = [], 0
    for size in sizes:
        heaps.append(deck[start : start + size])
        start += size
    return heaps


def split_heaps(heaps: list[list[str]], split_heap: int, position: int) -> list[list[str]]:
    """The heaps kept after a Rey: each loses its shown card, an emptied heap is gone, and the
    top ``position`` cards of heap ``split_heap`` (what is left of it) make a new last heap."""
    source = heaps[split_heap - 1][:-1]
    kept = []
    for number, heap in enumerate(heaps, start=1):
        rest = source[position:] if number == split_heap else heap[:-1]
        if rest:
            kept.append(rest)
    kept.append(source[:position])
    return kept


def uneven_sizes(count: int, cards: int, rng: Random | None = None) -> list[int]:
    """Random heap sizes, each at least 3, summing to ``cards``: where the banker's hand cuts.

    Uneven, as a hand cuts them: sizes that come out all equal are drawn again (a deal that
    cannot be uneven, such as 3 heaps of 3 from 9 cards, keeps its only sizes).
    """
    rng = rng or chance.source()
    spare = cards - MIN_HEAP_CARDS * count
    while True:
        cuts = sorted(rng.randint(0, spare) for _ in range(count - 1))
        bounds = [0, *cuts, spare]
        sizes = [MIN_HEAP_CARDS + bounds[i + 1] - bounds[i] for i in range(count)]
        if count < 2 or spare == 0 or len(set(sizes)) > 1:
            return sizes


def _heap_number(hand: dict, heap: object) -> int:
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


def _check_tie(state: State, heap: int) -> None:
    """A bet may not land on the banker's heap, nor leave no heap free for it."""
    hand = state["hand"]
    if heap == hand["bank_heap"]:
        raise RulesError("heap %(heap)s is the banker's heap: no bet can go on it", heap=heap)
    if hand["bank_heap"] is None and len(tied_heaps(hand) | {heap}) == len(hand["heaps"]):
        raise RulesError("one heap must stay free for the banker: choose the banker's heap first")


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
    _require_phase(state, BETTING)
    player = _require_punter(state, pid)
    heap = _heap_number(state["hand"], heap)
    _check_tie(state, heap)
    _check_stake(state, player, amount)
    _place(state, events, pid, kind, heap, amount)


@action
def declare(state: State, events: Events, pid: str, heap: int) -> None:
    """Pagando y cobrando: one punter a hand plays a heap for the whole bank."""
    _require_phase(state, BETTING)
    player = _require_punter(state, pid)
    hand = state["hand"]
    heap = _heap_number(hand, heap)
    if hand["declared"]:
        raise RulesError("someone already plays for the whole bank this hand")
    if player["chips"] <= 0 and not any(b["player"] == pid for b in hand["bets"]):
        raise RulesError("you have no chips to play for the bank with")
    _check_tie(state, heap)
    hand["declared"] = True
    _place(state, events, pid, "whole_bank", heap, None)


@action
def withdraw(state: State, events: Events, pid: str, bet_id: int) -> None:
    """Take one's own bet back before bets close."""
    _require_phase(state, BETTING)
    table.withdraw(state, events, pid, state["hand"]["bets"], bet_id, _return_bet)


def _return_bet(state: State, placed: dict) -> None:
    hand = state["hand"]
    if placed["amount"]:
        state["players"][placed["player"]]["chips"] += placed["amount"]
    if placed["kind"] == "whole_bank":
        hand["declared"] = False
    hand["bets"].remove(placed)


@action
def choose_bank_heap(state: State, events: Events, pid: str, heap: int) -> None:
    """The punters, never the banker, choose the banker's heap: one with nothing tied to it."""
    _require_phase(state, BETTING)
    if pid == _banker(state):
        raise RulesError("the punters choose the banker's heap, never the banker")
    _require_punter(state, pid)
    hand = state["hand"]
    heap = _heap_number(hand, heap)
    if heap in tied_heaps(hand):
        raise RulesError(
            "heap %(heap)s has bets on it: the banker's heap must have none", heap=heap
        )
    hand["bank_heap"] = heap
    events.append({"type": "bank_heap_chosen", "heap": heap, "player": pid})


@action
def close_bets(state: State, events: Events, pid: str) -> None:
    """The banker closes bets; every heap is turned and the hand is settled."""
    _require_phase(state, BETTING)
    _require_banker(state, pid)
    hand = state["hand"]
    if hand["bank_heap"] is None:
        raise RulesError("the punters have not chosen the banker's heap yet")
    cards = [heap[-1] for heap in hand["heaps"]]
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
        or (line["result"] == WON and line["net"] < _full_payout(line, cards))
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


def explained(result: dict) -> list[dict]:
    """A settled hand's lines with what makes each plain: ``held``, what the bank held when it
    was settled; ``owed``, what the bet would have come to had the bank held enough (its
    payout if it won, its stake if it lost); ``capped``, a pagando y cobrando played for the
    declarer's chips, not for the whole bank."""
    lines = explain(
        result["settled"],
        result["bank"],
        lambda line: (
            _full_payout(line, result["cards"]) if line["result"] == WON else line["stake"]
        ),
    )
    return [
        {**line, "capped": line["kind"] == "whole_bank" and line["stake"] < line["held"]}
        for line in lines
    ]


def _full_payout(line: dict, cards: list[str]) -> int:
    if line["kind"] == "heap":
        return heap_payout(cards[line["heap"] - 1], line["stake"])
    return line["stake"]


# --- after the hand ----------------------------------------------------------------------


def bank_closing(state: State, now: float) -> bool:
    """Whether the bank closes instead of dealing another hand."""
    bank = state["bank"]
    return bank_time_up(state, now) or bank["last_hands"] == 0


@action
def next_hand(state: State, events: Events, pid: str, now: float, deck: list[str] | None = None):
    """Gather and shuffle for the next hand, or close the bank when its time is over."""
    _require_phase(state, SETTLED)
    _require_banker(state, pid)
    if bank_closing(state, now):
        _close_bank(state, events, "time" if bank_time_up(state, now) else "tres ultimas manos")
        return
    if state["bank"]["amount"] == 0:
        raise RulesError("the bank is broken: se abona or close it")
    _count_last_hand(state)
    state["bank"].pop("lot", None)
    _deal(state, events, now, deck)


def _count_last_hand(state: State) -> None:
    if state["bank"]["last_hands"] is not None:
        state["bank"]["last_hands"] -= 1


@action
def keep_heaps(
    state: State,
    events: Events,
    pid: str,
    split_heap: int,
    now: float,
    position: int | None = None,
) -> None:
    """After turning a Rey: discard each shown card, keep the heaps, make one new heap.

    ``split_heap`` is the number of the heap as the table shows it now; the new heap is its top
    ``position`` cards and goes last. A heap left with no card is gone. With fewer than two
    heaps left, or no heap to split, the banker gathers instead.
    """
    _require_phase(state, SETTLED)
    _require_banker(state, pid)
    hand = state["hand"]
    if hand["result"]["bank_card"][0] != REY:
        raise RulesError("the heaps stay only after the banker turns a Rey")
    if bank_closing(state, now):
        raise RulesError("the bank closes after this hand")
    if not can_keep_heaps(hand):
        raise RulesError("too few cards are left in the heaps: gather and shuffle")
    if not is_count(split_heap) or not 1 <= split_heap <= len(hand["heaps"]):
        raise RulesError(
            "there is no heap %(heap)s: the heaps are 1 to %(heaps)s",
            heap=split_heap,
            heaps=len(hand["heaps"]),
        )
    source = hand["heaps"][split_heap - 1][:-1]
    if len(source) < 2:
        raise RulesError("heap %(heap)s has too few cards left to make a new heap", heap=split_heap)
    if position is None:
        position = chance.source().randint(1, len(source) - 1)
    if not is_count(position) or not 1 <= position < len(source):
        raise RulesError(
            "the new heap takes 1 to %(most)s cards of heap %(heap)s",
            most=len(source) - 1,
            heap=split_heap,
        )
    heaps = split_heaps(hand["heaps"], split_heap, position)
    _count_last_hand(state)
    state["hands"] += 1
    discarded = hand.get("discards", []) + hand["result"]["cards"]
    state["hand"] = {
        **{k: hand[k] for k in ("cutter", "cut_started", "cut", "shuffle")},
        "number": state["hands"],
        "deck": [],
        "heaps": heaps,
        "kept": {"split": split_heap, "position": position},
        "bank_heap": None,
        "bets": [],
        "next_bet": 1,
        "declared": False,
        "rey_kept": True,
        "discards": discarded,
        "result": None,
    }
    state["phase"] = BETTING
    events.append({"type": "heaps_kept", "split": split_heap, "heaps": len(heaps)})


# --- what a seat may see ---------------------------------------------------------------------


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
    if hand and hand["heaps"]:
        for number, cards in enumerate(hand["heaps"], start=1):
            bets = [
                table.shown_bet(b, names, seat, turned.get(b["id"]))
                for b in hand["bets"]
                if b["heap"] == number
            ]
            card = cards[-1] if result else None
            heaps.append(
                {
                    "number": number,
                    "size": len(cards),
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
        # Whose cut the clock made (they let their time run out), while its deck is dealt.
        "cut_by_clock": names.get(hand["cutter"])
        if hand
        and phase in (HEAPS, BETTING)
        and hand["cut"]["how"] == "random"
        and not hand.get("rey_kept")
        else None,
        "heaps": heaps,
        "bank_heap": hand["bank_heap"] if hand else None,
        "declared": hand["declared"] if hand else False,
        "rey_kept": hand.get("rey_kept", False) if hand else False,
        "commitment": hand["shuffle"]["commitment"] if hand and "shuffle" in hand else None,
        "result": result
        and {
            **result,
            "settled": [{**line, "name": names[line["player"]]} for line in result["settled"]],
        },
        "settings": state["settings"],
        "me": None,
    }
    shown["me"] = my_view(state, seat, now)
    return shown


def my_view(state: State, seat: str | None, now: float | None = None) -> dict[str, Any] | None:
    """A seat's own part of :func:`view` (``Game.my_view``): its chips, the bank's clock and
    what the rules let it do now."""
    return _my_view(state, seat, now) if table.seated(state, seat) else None


def after_pause(state: State, now: float, paused_for: float) -> State:
    """The table as the host's pause leaves it: the bank's time moves on by the pause, and a
    punter who is to cut gets the whole cut time again (both times are passed in)."""
    new = copy_state(state)
    if new["bank"] is not None:
        new["bank"]["opened_at"] += paused_for
    if new["phase"] == CUT:
        new["hand"]["cut_started"] = now
    return new


def live_commitment(state: State) -> str | None:
    """The commitment of the deck still in play, whose order must stay secret: from the shuffle
    until the cards are gathered (after a Rey the heaps may yet be kept)."""
    hand = state["hand"]
    if not hand or "shuffle" not in hand or state["phase"] == FINISHED:
        return None
    if state["phase"] == SETTLED and not (
        hand["result"]["bank_card"][0] == REY and can_keep_heaps(hand)
    ):
        return None
    return hand["shuffle"]["commitment"]


def hand_record(before: State, after: State) -> dict[str, Any]:
    """A settled hand in the scenario format of docs/scenarios.md, with its result as recorded.

    ``before`` is the table as bets closed, ``after`` as the hand was settled. Players are
    named by seat (``meta.names`` gives their names). ``shuffle`` holds what opens the
    commitment (the order, the salt, the cut, how the heaps were made): it must not be shown
    while :func:`live_commitment` is still this deck's.
    """
    hand = after["hand"]
    result = hand["result"]
    banker = before["bank"]["banker"]
    chips_before, chips_after = hand_records.punters_chips(before, after, banker, hand["bets"])
    bets = []
    for placed in hand["bets"]:
        if placed["kind"] == "whole_bank":
            bets.append({"player": placed["player"], "heap": placed["heap"], "whole_bank": True})
        else:
            key = "heap" if placed["kind"] == "heap" else "against"
            bets.append(
                {"player": placed["player"], key: placed["heap"], "amount": placed["amount"]}
            )
    shuffle = hand["shuffle"]
    return {
        "game": "montones",
        "bank": result["bank_before"],
        "players": chips_before,
        "heaps": result["cards"],
        "bank_heap": hand["bank_heap"],
        "bets": bets,
        "result": {
            "bank_card": result["bank_card"],
            "bank": result["bank"],
            "players": chips_after,
            "settled": hand_records.settled(result["settled"], hand["bets"]),
        },
        "meta": {
            "hand": hand["number"],
            "banker": banker,
            "names": hand_records.names(after),
            "lifting": result["order"],
            "short": result["short"],
        },
        "shuffle": hand_records.sealed(
            shuffle,
            hand["cut"]["position"],
            sizes=hand.get("sizes"),
            kept=hand.get("kept"),
            heaps=hand["heaps"],
        ),
    }


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


def can_keep_heaps(hand: dict) -> bool:
    """Two heaps stay once the shown cards go, and one of them can still be split."""
    left = [len(heap) - 1 for heap in hand["heaps"]]
    return sum(1 for n in left if n > 0) >= 2 and any(n >= 2 for n in left)


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
        if (
            not closing
            and bank["amount"] > 0
            and hand["result"]["bank_card"][0] == REY
            and can_keep_heaps(hand)
        ):
            can.add("keep")
    if is_banker and bank["last_hands"] is None and phase != AUCTION:
        can.add("tres")
    if not is_banker and phase != FINISHED:
        can.add("sit_in" if player["sitting_out"] else "sit_out")
    return {
        "id": seat,
        "name": player["name"],
        "chips": player["chips"],
        "sitting_out": player["sitting_out"],
        "is_banker": is_banker,
        "bets": [b for b in hand["bets"] if b["player"] == seat] if hand else [],
        "offer": state["auction"]["offers"].get(seat),
        "most": most_stake(state, seat),
        "can": sorted(can),
    }


# --- a scenario, the odds, an opened deck ----------------------------------------------------


def replay(data: dict) -> dict[str, Any]:
    """One hand of a scenario file (docs/scenarios.md), settled as the table settles it."""
    bank = whole_number(field(data, "bank"), "the bank", 1)
    players = seated_chips(data)
    cards = distinct_cards(SPANISH, field(data, "heaps"), "the heaps")
    if len(cards) < 2:
        raise ScenarioError("a hand needs at least two heaps: the banker's and one to bet on")
    bank_heap = whole_number(field(data, "bank_heap"), "bank_heap", 1)
    if bank_heap > len(cards):
        raise ScenarioError(f"bank_heap {bank_heap} is not a heap: the heaps are 1 to {len(cards)}")
    bets = [
        _scenario_bet(i, raw, players, bank, bank_heap, len(cards))
        for i, raw in enumerate(listed(data, "bets"))
    ]
    declarations = [i for i, b in enumerate(bets) if b["kind"] == "whole_bank"]
    if len(declarations) > 1:
        raise ScenarioError(
            f"bets[{declarations[1]}]: only one punter a hand may declare pagando y cobrando"
        )
    staked: dict[str, int] = {}
    for i, placed in enumerate(bets):
        player = placed["player"]
        staked[player] = staked.get(player, 0) + (placed["amount"] or 0)
        if staked[player] > players[player]:
            raise ScenarioError(
                f"bets[{i}]: {player} has {players[player]} chips and would have "
                f"{staked[player]} on the table"
            )
    outcome = settle_hand(bank, cards, bank_heap, bets, players)
    return {
        "bank_card": outcome["bank_card"],
        "bank": outcome["bank"],
        "players": net_chips(players, outcome["settled"]),
        "settled": scenario_lines(outcome["settled"]),
    }


def _scenario_bet(
    i: int, raw: object, players: dict, bank: int, bank_heap: int, heaps: int
) -> dict[str, Any]:
    where = f"bets[{i}]"
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where} must be an object")
    player = field(raw, "player", where)
    if not isinstance(player, str) or player not in players:
        raise ScenarioError(f"{where}: {quoted(player)} is not one of the players")
    whole_bank = raw.get("whole_bank", False)
    if not isinstance(whole_bank, bool):
        raise ScenarioError(f"{where}: whole_bank is true or false")
    if "heap" in raw and "against" in raw:
        raise ScenarioError(f"{where} names both a heap and a heap to bet against: choose one")
    if whole_bank:
        kind, key = "whole_bank", "heap"
        if "amount" in raw:
            raise ScenarioError(f"{where}: a bet for the whole bank has no amount")
        if "against" in raw:
            raise ScenarioError(
                f"{where}: pagando y cobrando is declared on a heap, not against one"
            )
    elif "against" in raw:
        kind, key = "against", "against"
    elif "heap" in raw:
        kind, key = "heap", "heap"
    else:
        raise ScenarioError(f'{where} needs "heap" or "against"')
    heap = whole_number(raw[key], f"{where}: the heap", 1)
    if heap > heaps:
        raise ScenarioError(f"{where}: there is no heap {heap}: the heaps are 1 to {heaps}")
    if heap == bank_heap:
        raise ScenarioError(
            f"{where}: heap {heap} is the banker's heap: no bet of any kind can be tied to it"
        )
    amount = None
    if kind != "whole_bank":
        amount = whole_number(field(raw, "amount", where), f"{where}: the amount", 1)
        if amount > bank:
            raise ScenarioError(f"{where}: the bank holds {bank}: a bet of {amount} is over it")
    return {"player": player, "kind": kind, "heap": heap, "amount": amount}


# The heaps' bottom cards are distinct cards of one shuffled deck, and the banker's heap is chosen
# before any is turned: the banker's card and a heap's card are a uniformly drawn ordered pair of
# distinct cards, so the 40 × 39 pairs, each once, are the exact odds.


def _pairs() -> Iterable[tuple[str, str]]:
    """(the banker's card, the heap's card) for every ordered pair of distinct cards."""
    return permutations(SPANISH.codes, 2)


@cache
def heap_bet() -> Odds:
    """A bet on a heap: paid as settle_hand pays it, double on the Rey de oros."""
    return Odds.counted(
        heap_payout(card, 1) if heap_wins(bank_card, card) else -1 for bank_card, card in _pairs()
    )


@cache
def banker_card_bet() -> Odds:
    """A bet on the banker's card against a heap: even money, never double."""
    return Odds.counted(-1 if heap_wins(bank_card, card) else 1 for bank_card, card in _pairs())


@cache
def whole_bank_bet() -> Odds:
    """Pagando y cobrando, per chip of the bank played for: even money, never double."""
    return Odds.counted(1 if heap_wins(bank_card, card) else -1 for bank_card, card in _pairs())


def table_odds(state: State) -> dict[str, Odds]:
    """Each kind of bet of a hand, by the engine's name for it: the same at every table."""
    return {"heap": heap_bet(), "against": banker_card_bet(), "whole_bank": whole_bank_bet()}


def check_dealt(hands: list[tuple[str, dict]], dealt: list[str]) -> list[str]:
    """The first hand's heaps are the cut deck in the recorded sizes; a hand that kept the heaps
    after a Rey split the previous hand's heaps as recorded."""
    problems = []
    heaps = None
    for where, hand in sorted(hands, key=lambda item: item[1].get("meta", {}).get("hand", 0)):
        shuffle = hand["shuffle"]
        kept = shuffle.get("kept")
        if kept is None:
            expected = deal_heaps(dealt, shuffle["sizes"])
        elif heaps is None:
            problems.append(f"{where}: it keeps the heaps of a hand missing from the export")
            continue
        else:
            expected = split_heaps(heaps, kept["split"], kept["position"])
        if shuffle.get("heaps") != expected:
            problems.append(f"{where}: the heaps are not the ones dealt from the committed deck")
        elif hand.get("heaps") != [heap[-1] for heap in expected]:
            problems.append(f"{where}: the turned cards are not the bottoms of the dealt heaps")
        heaps = expected
    return problems


# --- a computer player -------------------------------------------------------------------


def play(view_: dict[str, Any], rng: Random, idle: float) -> computer.Move:
    """A computer player's next action from its seat's view (``Game.play``): it offers for
    the bank now and then and takes it when nobody else will, cuts when asked, makes uneven
    heaps, chooses the banker's heap when nobody has, and stakes a little on one heap (or on the
    banker's card against it) a hand. As banker it closes the bets once they are in, goes on
    once the table has seen the result,
    keeps the heaps after a Rey half the time, puts up a broken bank again or gives it up, and
    now and then announces its three last hands, so the bank goes round."""
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
        ready = view_["bank_heap"] is not None and computer.bets_are_in(view_, least, idle)
        return ("close", {}) if ready else None
    if "choose" in can and view_["bank_heap"] is None:
        free = [h["number"] for h in view_["heaps"] if not h["bets"]]
        return "choose", {"heap": rng.choice(free)}
    if "bet" in can and not me["bets"] and view_["bank_heap"] is not None:
        amount = computer.stake(rng, least, me["most"], me["chips"])
        heaps = [h["number"] for h in view_["heaps"] if not h["is_bank_heap"]]
        kind = "against" if rng.random() < 0.25 else "bet"
        return kind, {"heap": rng.choice(heaps), "amount": amount}
    if ("abona" in can or "next" in can) and not computer.result_seen(idle):
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
        return "next", {}
    return None


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


# --- the game's interface (montones.rules.games.Game) -----------------------------------------

NAME = "montones"
TITLE = Phrase("Montones")
ROUND = "hand"  # a hand: the heaps, the bets, the heaps turned
SETTLES = "settled"  # the event of an action that settles a hand, recorded by hand_record
HIDDEN_WHILE_LIVE: tuple[str, ...] = ()  # nothing of a hand's record beyond its deck's secrets
SEALED = (*hand_records.OPENS, "heaps")  # and the heaps' hidden cards, still to come if kept
DECK = SPANISH


def _all_in(state: State, pid: str) -> int:
    """What the all-in chip stakes: the most ``pid`` can stake now."""
    table.player(state, pid)
    most = most_stake(state, pid)
    if most <= 0 and state["bank"]:  # with no bank, the bet itself says why not
        raise RulesError("you have no chips left to bet")
    return most


_HEAP = Field("heap", Phrase("The heap"))
_AMOUNT = Field("amount", Phrase("The amount"))

ACTIONS: dict[str, Action] = {
    "offer": Action(
        lambda s, who, p, now: offer_bank(s, who, p["amount"]),
        (Field("amount", Phrase("The offer")),),
    ),
    "pass": Action(lambda s, who, p, now: pass_bank(s, who)),
    "cut": Action(
        lambda s, who, p, now: cut_deck(s, who, p["position"], now),
        (Field("position", Phrase("The cut")),),
    ),
    "heaps": Action(
        lambda s, who, p, now: make_heaps(s, who, p["count"]),
        (Field("count", Phrase("The number of heaps")),),
    ),
    "bet": Action(
        lambda s, who, p, now: bet(s, who, p["heap"], p["amount"]),
        (_HEAP, _AMOUNT),
        all_in=_all_in,
        tap=True,
    ),
    "against": Action(
        lambda s, who, p, now: bet_against(s, who, p["heap"], p["amount"]),
        (_HEAP, _AMOUNT),
        all_in=_all_in,
        tap=True,
    ),
    "declare": Action(lambda s, who, p, now: declare(s, who, p["heap"]), (_HEAP,), tap=True),
    "choose": Action(
        lambda s, who, p, now: choose_bank_heap(s, who, p["heap"]), (_HEAP,), tap=True
    ),
    "withdraw": Action(
        lambda s, who, p, now: withdraw(s, who, p["bet"]), (Field("bet", Phrase("The bet")),)
    ),
    "close": Action(lambda s, who, p, now: close_bets(s, who)),
    "next": Action(lambda s, who, p, now: next_hand(s, who, now)),
    "keep": Action(lambda s, who, p, now: keep_heaps(s, who, p["heap"], now), (_HEAP,)),
    "abona": Action(
        lambda s, who, p, now: se_abona(s, who, p["amount"], now),
        (Field("amount", Phrase("The new bank")),),
    ),
    "close_bank": Action(lambda s, who, p, now: close_bank(s, who)),
    "tres": Action(lambda s, who, p, now: tres_ultimas_manos(s, who), confirm=True),
    "sit_out": Action(lambda s, who, p, now: sit_out(s, who, True)),
    "sit_in": Action(lambda s, who, p, now: sit_out(s, who, False)),
    "close_auction": Action(lambda s, who, p, now: close_auction(s, now), host=True),
    **table.host_actions(leave),
}

SETTINGS = (
    Field("min_bet", Phrase("The minimum bet")),
    Field("heaps_min", Phrase("The fewest heaps")),
    Field("heaps_max", Phrase("The most heaps")),
    Field("tenure", Phrase("The bank's time")),
    Field("cut_timeout", Phrase("The time to cut")),
)


def settings_from(values: dict[str, Any]) -> dict[str, Any]:
    """A table's settings from the lobby's fields (:data:`SETTINGS`), for :func:`new_table`."""
    return {
        "min_bet": values["min_bet"],
        "heap_counts": [values["heaps_min"], values["heaps_max"]],
        "tenure_minutes": values["tenure"],
        "cut_timeout": values["cut_timeout"],
    }


def stage(state: State) -> str:
    """What a screen was showing: a request made at another stage of the table is stale."""
    return f"{state['hands']}-{state['phase']}"


def balances(state: State) -> dict[str, int]:
    """Where every chip of the table is: the players', the bank, stakes on the table."""
    accounts = table.players_chips(state)
    accounts["bank"] = state["bank"]["amount"] if state["bank"] else 0
    hand = state["hand"]
    accounts["stakes"] = table.stakes(hand["bets"]) if hand and state["phase"] == BETTING else 0
    return accounts


def cut_deadline(state: State) -> float | None:
    """When the punter to cut runs out of time, if the deck waits for a cut."""
    if state["phase"] != CUT:
        return None
    return state["hand"]["cut_started"] + state["settings"]["cut_timeout"]


def follow_up(state: State, now: float) -> tuple[str, State, Events] | None:
    """What happens by itself after an action: an auction everyone has answered closes."""
    if state["phase"] == AUCTION and auction_complete(state):
        return ("close_auction", *close_auction(state, now))
    return None


def over(state: State) -> bool:
    """A Montones night ends only when the host ends it."""
    return False


def between_banks(state: State) -> bool:
    """No bank is running and one has: the TV has room for the night so far."""
    return state["phase"] == FINISHED or (state["phase"] == AUCTION and state["hands"] > 0)


def emptied_by(entry: dict[str, Any]) -> str | None:
    """Who broke the bank in a recorded hand (``Game.emptied_by``): its settled lines as the
    bank paid them."""
    return settlement.emptied_by(entry["bank"], entry["bets"], entry["result"]["settled"])


def shares(hands: list[dict[str, Any]]) -> dict[str, int]:
    """What of a night's chips went to anyone outside its hands' results (``Game.shares``):
    nothing, in this game."""
    return {}


def record_lines(entry: dict[str, Any]) -> tuple[list[dict], list[dict]]:
    """A recorded hand's bets and its settled lines (``bet`` indexes the bets)."""
    return entry["bets"], entry["result"]["settled"]


# What each step of the TV's demonstration shows (``Game.caption``): an action's kind, or the
# game's own move, to the code of its caption (templates/games/montones/_demo.html words it).
CAPTIONS = {
    "seated": "seated",
    "offer": "offer",
    "pass": "pass",
    "close_auction": "bank_taken",
    "cut": "cut",
    "heaps": "heaps",
    "choose": "choose",
    "bet": "bet",
    "against": "against",
}


def caption(kind: str, view_: dict[str, Any]) -> str:
    """The caption of a demonstration's step: what ``kind`` means, and once the heaps are
    turned, the rule that decided the hand (a banker's Rey, the Rey de oros paid double, or
    the higher card)."""
    result = view_["result"]
    if kind != "close" or result is None:
        return CAPTIONS[kind]
    if result["bank_card"][0] == REY:
        return "rey_banker"
    cards = result["cards"]
    if any(
        line["result"] == WON and line["kind"] == "heap" and cards[line["heap"] - 1] == REY_DE_OROS
        for line in result["settled"]
    ):
        return "rey_de_oros"
    return "turned"


def status_view(view_: dict[str, Any]) -> dict[str, Any]:
    """What a phone's status (its chips, the step, the bank, how my bets came out) is drawn
    from, and nothing more (its template's ``v``): not the heaps' bets nor the other players'
    stakes, which the felt shows."""
    return {key: view_[key] for key in _STATUS_KEYS}


_STATUS_KEYS = (
    "phase",
    "me",
    "bank",
    "result",
    "cut_deadline",
    "cut_by_clock",
    "cutter",
    "cutter_name",
)


QUICK_STAKES = (1, 5, 10, 25)


def bar_view(view_: dict[str, Any]) -> dict[str, Any]:
    """What a phone's action bar is drawn from, and nothing more (its template's ``v``).

    While I bet, it offers the quick stakes my chips and the bank allow, and the all-in chip
    (worked out when the tap arrives); my chips only where it shows them (the most I can offer
    or put up).
    """
    me = view_["me"] or {}
    bank, can = view_["bank"], me.get("can", [])
    least = view_["settings"]["min_bet"]
    return {
        "phase": view_["phase"],
        "me": {
            "can": can,
            "chips": me.get("chips") if "offer" in can or "abona" in can else None,
            "offer": me.get("offer"),
        },
        "quick": [q for q in QUICK_STAKES if least <= q <= me.get("most", 0)],
        "bank": bank and {key: bank[key] for key in ("amount", "closing", "name")},
        "bank_heap": view_["bank_heap"],
        "cutter_name": view_["cutter_name"],
        "heaps": [{"number": h["number"], "size": h["size"]} for h in view_["heaps"]],
        "settings": {key: view_["settings"][key] for key in ("heap_counts", "min_bet")},
    }
