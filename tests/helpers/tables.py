"""Helpers that set a Montones, Monte or Monte Bank table up to the moment a rule is tested."""

from montones.rules import monte, monte_bank, montones
from montones.rules.cards import FRENCH, SPANISH

NOW = 1_000_000.0


def spanish_deck_ending(*bottoms_by_heap, sizes):
    """A deck order whose heaps (cut in ``sizes``) show the given bottom cards."""
    rest = [c for c in SPANISH.codes if c not in bottoms_by_heap]
    order = []
    for size, bottom in zip(sizes, bottoms_by_heap, strict=True):
        order += rest[: size - 1] + [bottom]
        rest = rest[size - 1 :]
    return order


class Table:
    """A Montones table driven the way the service layer drives it: state in, state out."""

    def __init__(self, players=("banker", "ana", "ben", "eva", "dan"), chips=100, **settings):
        self.state = montones.new_table(settings)
        for pid in players:
            self.do(montones.join, pid, pid.title(), chips)

    def do(self, action, *args, **kwargs):
        self.state, events = action(self.state, *args, **kwargs)
        return events

    def open_bank(self, amount=20, banker="banker", deck=None, now=NOW):
        self.do(montones.offer_bank, banker, amount)
        self.do(montones.close_auction, now, deck=deck)

    def deal(self, *bottoms, bank=20, banker="banker", now=NOW):
        """Open a bank (if needed), cut at 0 and lay heaps showing ``bottoms``."""
        sizes = [3] * (len(bottoms) - 1) + [40 - 3 * (len(bottoms) - 1)]
        deck = spanish_deck_ending(*bottoms, sizes=sizes)
        if self.state["bank"] is None:
            self.open_bank(bank, banker, deck=_uncut(deck), now=now)
        else:
            self.do(montones.next_hand, banker, now, deck=_uncut(deck))
        hand = self.state["hand"]
        self.do(montones.cut_deck, hand["cutter"], 1, NOW)
        self.do(montones.make_heaps, banker, len(bottoms), sizes=sizes)

    @property
    def hand(self):
        return self.state["hand"]

    def chips(self, pid):
        return self.state["players"][pid]["chips"]


def _uncut(deck):
    """The order that a cut of one card turns into ``deck``."""
    return deck[-1:] + deck[:-1]


def monte_deck(top, bottom_up, rest_order=None):
    """A French deck whose top cards are ``top`` and whose bottom cards, bottom first, are
    ``bottom_up``; the middle holds the other cards."""
    middle = [c for c in FRENCH.codes if c not in top and c not in bottom_up]
    return list(top) + middle + list(reversed(bottom_up))


class MonteTable:
    def __init__(self, players=("anna", "ben", "cid"), chips=100, **settings):
        self.state = monte.new_table(settings)
        for pid in players:
            self.do(monte.join, pid, pid.title(), chips)

    def do(self, action, *args, **kwargs):
        self.state, events = action(self.state, *args, **kwargs)
        return events

    def start(self, first_banker_card="KS", bank=50, deck=None):
        """Draw for the bank (the first player draws ``first_banker_card``), put up a bank."""
        draw = [first_banker_card] + [c for c in FRENCH.codes if c[0] not in "K"][:10]
        draw += [c for c in FRENCH.codes if c not in draw]
        self.do(monte.draw_for_bank, deck=draw)
        banker = self.state["banker"]
        self.do(monte.put_up_bank, banker, bank, NOW, deck=_uncut(deck) if deck else None)
        if self.state["phase"] == monte.CUT:
            self.do(monte.cut_deck, self.state["cutter"], 1, NOW)
        return banker


def monte_bank_deck(ul, ur, ll, lr, turning=()):
    """A French deck (top card first) that Monte Bank lays out as ``ul`` (its stack,
    bottom card first), ``ur``, ``ll`` and ``lr``, then turns ``turning`` first."""
    bottom = list(ul) + ([ur] if ur else [])
    top = [c for c in (ll, lr) if c]
    fixed = set(bottom) | set(top) | set(turning)
    middle = [c for c in FRENCH.codes if c not in fixed]
    return top + middle + list(turning)[::-1] + bottom[::-1]


class MonteBankTable:
    """A Monte Bank table driven as the service drives it: state in, state out."""

    def __init__(self, players=("anna", "ben", "cid"), chips=100, **settings):
        self.rules = monte_bank
        self.state = monte_bank.new_table(settings)
        for pid in players:
            self.do(monte_bank.join, pid, pid.title(), chips)

    def do(self, action, *args, **kwargs):
        self.state, events = action(self.state, *args, **kwargs)
        return events

    def start(self, deck, first_banker_card="KS", bank=50):
        """The first player draws the highest card and puts up ``bank``; the punter on the
        banker's right cuts one card, so that ``deck`` is the order laid out."""
        draw = [first_banker_card] + [c for c in FRENCH.codes if c[0] not in "K"][:10]
        draw += [c for c in FRENCH.codes if c not in draw]
        self.do(self.rules.draw_for_bank, deck=draw)
        banker = self.state["banker"]
        self.do(self.rules.put_up_bank, banker, bank, NOW, deck=_uncut(deck))
        return self.cut(), banker

    def cut(self):
        events = self.do(self.rules.cut_deck, self.state["cutter"], 1, NOW)
        return events

    def chips(self, pid):
        return self.state["players"][pid]["chips"]
