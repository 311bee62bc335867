"""A hand dealt: the shuffle and its commitment, the punter's cut, the banker's heaps; the
next hand, or the heaps kept after a Rey."""

from __future__ import annotations

from random import Random

from montones.rules import chance, own_deck, table
from montones.rules.cards import SPANISH, cut
from montones.rules.errors import RulesError
from montones.rules.fairness import new_shuffle
from montones.rules.montones.settle import REY
from montones.rules.montones.state import (
    BETTING,
    CUT,
    HEAPS,
    MIN_HEAP_CARDS,
    PHASE_REFUSALS,
    SETTLED,
    bank_closing,
    bank_time_up,
    can_keep_heaps,
    check_phase,
    count_last_hand,
    cut_deadline,
    punters,
    require_banker,
    return_bank,
)
from montones.rules.table import Events, State, action, is_count


def deal_hand(state: State, events: Events, now: float, deck: list[str] | None) -> None:
    """Shuffle, seal and wait for the cut; with the table's own cards, which the app neither
    shuffles nor cuts, wait for the heaps at once."""
    real = own_deck.own(state)
    if real:
        order = []
    else:
        order = SPANISH.parse_order(deck) if deck is not None else SPANISH.shuffled(chance.source())
    state["hands"] += 1
    eligible = punters(state)
    cutter = None
    if eligible and not real:
        cutter = eligible[state["cut_turn"] % len(eligible)]
        state["cut_turn"] += 1
    state["hand"] = {
        "number": state["hands"],
        "deck": order,
        # Committed to before the cut and the first bet; opened once the deck is done.
        "shuffle": None if real else new_shuffle(order),
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
    if real:
        state["phase"] = HEAPS
        events.append({"type": "shuffled", "hand": state["hands"], "own_deck": True})
        return
    events.append(
        {
            "type": "shuffled",
            "hand": state["hands"],
            "cutter": cutter,
            "commitment": state["hand"]["shuffle"]["commitment"],
        }
    )
    if cutter is None:
        cut_at(state, events, None, "nobody to cut")


def cut_at(state: State, events: Events, position: int | None, how: str) -> None:
    hand = state["hand"]
    if position is None:
        position = chance.source().randint(1, len(hand["deck"]) - 1)
    hand["deck"] = cut(hand["deck"], position)
    hand["cut"] = {"position": position, "how": how}
    state["phase"] = HEAPS
    events.append({"type": "cut", "position": position, "how": how, "player": hand["cutter"]})


cut_deck, cut_timed_out = table.cut_actions(
    PHASE_REFUSALS,
    cutter=lambda state: state["hand"]["cutter"],
    deadline=cut_deadline,
    cut=lambda state, events, position, how, _now: cut_at(state, events, position, how),
)


@action
def make_heaps(
    state: State, events: Events, pid: str, count: int, sizes: list[int] | None = None
) -> None:
    """The banker cuts the deck into ``count`` face-down heaps of uneven size, at least 3 each."""
    check_phase(state, HEAPS)
    require_banker(state, pid)
    low, high = state["settings"]["heap_counts"]
    if not is_count(count) or not low <= count <= high:
        raise RulesError("this table plays with %(low)s to %(high)s heaps", low=low, high=high)
    deck = state["hand"]["deck"]
    if own_deck.own(state):
        # The heaps are on the table, cut by hand: the app knows how many, and each one's
        # bottom card once it is turned and entered.
        state["hand"]["heaps"] = [[] for _ in range(count)]
        state["hand"]["sizes"] = None
        state["phase"] = BETTING
        events.append({"type": "heaps_made", "sizes": None, "count": count})
        return
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


@action
def next_hand(state: State, events: Events, pid: str, now: float, deck: list[str] | None = None):
    """Gather and shuffle for the next hand, or close the bank when its time is over."""
    check_phase(state, SETTLED)
    require_banker(state, pid)
    if bank_closing(state, now):
        return_bank(state, events, "time" if bank_time_up(state, now) else "tres ultimas manos")
        return
    if state["bank"]["amount"] == 0:
        raise RulesError("the bank is broken: se abona or close it")
    count_last_hand(state)
    state["bank"].pop("lot", None)
    deal_hand(state, events, now, deck)


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
    heaps left, or no heap to split, the banker gathers instead. (With the table's own cards
    the banker says how many heaps there are: montones.rules.montones.entry.keep_entered.)
    """
    require_keeping(state, pid, now)
    hand = state["hand"]
    if own_deck.own(state):
        raise RulesError(
            "with your own cards the app cannot see what is left of the heaps: gather and shuffle"
        )
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
    deal_kept(state, events, heaps, {"split": split_heap, "position": position})


def require_keeping(state: State, pid: str, now: float) -> None:
    """Refuse to keep the heaps unless the banker turned a Rey and the bank goes on."""
    check_phase(state, SETTLED)
    require_banker(state, pid)
    if state["hand"]["result"]["bank_card"][0] != REY:
        raise RulesError("the heaps stay only after the banker turns a Rey")
    if bank_closing(state, now):
        raise RulesError("the bank closes after this hand")


def deal_kept(state: State, events: Events, heaps: list[list[str]], kept: dict) -> None:
    """The next hand on the ``heaps`` kept (how, ``kept``): the shown cards are discarded, and
    the punters bet and choose the banker's heap afresh."""
    hand = state["hand"]
    count_last_hand(state)
    state["hands"] += 1
    discarded = hand.get("discards", []) + hand["result"]["cards"]
    state["hand"] = {
        **{k: hand[k] for k in ("cutter", "cut_started", "cut", "shuffle")},
        "number": state["hands"],
        "deck": [],
        "heaps": heaps,
        "kept": kept,
        "bank_heap": None,
        "bets": [],
        "next_bet": 1,
        "declared": False,
        "rey_kept": True,
        "discards": discarded,
        "result": None,
    }
    state["phase"] = BETTING
    events.append({"type": "heaps_kept", "split": kept.get("split"), "heaps": len(heaps)})
