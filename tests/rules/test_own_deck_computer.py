"""A computer banker at a Montones table of its own cards (issue 42): the host lays out and
enters its cards; after a Rey it keeps the heaps or gathers, as RULES.md lets a banker, and
says how many heaps it keeps only when the rules tell it without anyone seeing them.

Each night is played twice in step: at the table of its own cards, by computer players, and
at a table the app deals from the same real cards (``dealt``: the heaps as they lie, cut
uneven as a hand cuts them, kept by a split of one of them), which the host reads each
turned card from. Both tables take the same moves, so each hand must settle alike."""

from __future__ import annotations

from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from montones.rules import montones
from montones.rules.cards import SPANISH
from montones.rules.computer import PATIENCE
from montones.rules.montones import uneven_sizes
from tests.helpers.tables import NOW, Table

SEATS = ("p1", "p2", "p3", "p4")
REYES = ("Ro", "Rc", "Re", "Rb")


def without_version(result):
    return {k: v for k, v in result.items() if k != "version"}


def uncut(order):
    """The deck that a cut of one card turns into ``order`` (the dealt table's cut)."""
    return order[-1:] + order[:-1]


class Night:
    """The two tables of one night and the real cards, from ``seed``."""

    def __init__(self, seed: int):
        self.rng = Random(seed)
        self.own = Table(players=(), own_deck="banker")
        self.dealt = Table(players=())
        for number, pid in enumerate(SEATS, start=1):
            for t in (self.own, self.dealt):
                t.do(montones.join, pid, f"Player {number}", 100, True)
        self.now = NOW
        self.choices = []  # after each Rey the banker could keep: ("keep" | "gather", kept before)
        self.hands = 0
        self.own.open_bank(40, "p1")
        self.dealt.open_bank(40, "p1", deck=uncut(self.shuffled()))
        self.cut()

    def shuffled(self):
        order = list(SPANISH.codes)
        self.rng.shuffle(order)
        return order

    def cut(self):
        self.dealt.do(montones.cut_deck, self.dealt.hand["cutter"], 1, self.now)

    def rig(self):
        """Half the hands the banker's heap shows a Rey: two cards nobody has seen change
        places in the heaps, so the banker has the choice often."""
        heaps = self.dealt.hand["heaps"]
        bank = heaps[self.dealt.hand["bank_heap"] - 1]
        if self.rng.random() < 0.5 or bank[-1] in REYES:
            return
        for heap in heaps:
            for i, card in enumerate(heap):
                if card in REYES:
                    heap[i], bank[-1] = bank[-1], card
                    return

    def enter(self):
        """The host enters each card as it is turned, read from the real heaps."""
        while montones.waiting_for(self.own.state) is not None:
            heap = montones.waiting_for(self.own.state)
            self.own.do(montones.enter_card, "host", self.dealt.hand["heaps"][heap - 1][-1])
        self.hands += 1
        assert without_version(self.own.hand["result"]) == without_version(
            self.dealt.hand["result"]
        )

    def move(self):
        """The next computer move at the table of its own cards, as a table of them plays:
        the first seat, in an order drawn for the step, whose play answers; else as if the
        table had stood still."""
        for idle in (0.0, PATIENCE):
            seats = self.rng.sample(SEATS, len(SEATS))
            for seat in seats:
                view = montones.view(self.own.state, seat, self.now)
                move = montones.play(view, self.rng, idle)
                if move is not None:
                    assert move[0] in view["me"]["can"]
                    return seat, view, *move
        raise AssertionError("the night stalled")

    def step(self):
        seat, view, kind, params = self.move()
        spec = montones.ACTIONS[kind]
        rey = kind in ("next", "keep_entered") and "keep_entered" in view["me"]["can"]
        if rey:
            self.choices.append(("keep" if kind == "keep_entered" else "gather", view["rey_kept"]))
        if kind == "heaps":
            sizes = uneven_sizes(params["count"], 40, self.rng)
            self.dealt.do(montones.make_heaps, seat, params["count"], sizes=sizes)
        elif kind == "keep_entered":
            # The heaps kept as RULES.md says: each turned card taken away, a heap left with
            # none gone, one heap split in two (the new heap laid last).
            splittable = [n for n, h in enumerate(self.dealt.hand["heaps"], 1) if len(h) >= 3]
            heap = self.rng.choice(splittable)
            position = self.rng.randint(1, len(self.dealt.hand["heaps"][heap - 1]) - 2)
            self.dealt.do(montones.keep_heaps, seat, heap, self.now, position)
            assert len(self.dealt.hand["heaps"]) == params["count"]  # as many as lie there
        elif kind == "next":
            self.dealt.do(montones.next_hand, seat, self.now, deck=uncut(self.shuffled()))
            if self.dealt.state["phase"] == montones.CUT:
                self.cut()
        else:
            if kind == "close":
                self.rig()
            self.dealt.state = spec.call(
                self.dealt.state, seat, spec.params(self.dealt.state, seat, params), self.now
            )[0]
        self.own.state = spec.call(
            self.own.state, seat, spec.params(self.own.state, seat, params), self.now
        )[0]
        if self.own.state["phase"] == "entering":
            self.enter()
        assert montones.balances(self.own.state) == montones.balances(self.dealt.state)
        assert sum(montones.balances(self.own.state).values()) == 100 * len(SEATS)
        if kind == "keep_entered":  # the next hand's heaps, numbered as they lie
            assert self.own.hand["rey_kept"] and self.own.state["phase"] == montones.BETTING
            assert len(self.own.hand["heaps"]) == len(self.dealt.hand["heaps"])
        self.now += 2.0

    def play(self):
        """Hands until the computer's bank closes."""
        while self.own.state["phase"] not in (montones.AUCTION, montones.FINISHED):
            self.step()
        assert self.dealt.state["phase"] == self.own.state["phase"]
        return self


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_a_computer_banker_keeps_only_heaps_it_can_count_and_every_hand_settles_as_dealt(seed):
    """After a Rey the computer keeps the heaps of a fresh deal (each was cut with three cards
    or more, so every heap stays and the split makes one more: as many as the real heaps it
    says) or gathers; heaps kept already it gathers, since their count depends on what is
    left of them. Either way the next hand settles exactly as the same cards dealt."""
    night = Night(seed).play()
    assert all(choice == "gather" for choice, kept_before in night.choices if kept_before)


def test_a_computer_banker_of_the_tables_own_cards_both_keeps_and_gathers_after_a_rey():
    choices = [choice for seed in range(12) for choice in Night(seed).play().choices]
    fresh = [choice for choice, kept_before in choices if not kept_before]
    assert fresh.count("keep") >= 3 and fresh.count("gather") >= 3, choices
