"""The two 40-card decks and their card codes (docs/rules.md, "Card codes").

A card is its code, a plain string such as ``"Ro"`` (Rey de oros) or ``"QH"``, so that
state holding cards is plain JSON. A :class:`Deck` knows which codes are its own.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from montones.rules import chance
from montones.rules.errors import RulesError


@dataclass(frozen=True)
class Deck:
    name: str
    ranks: str  # low to high
    suits: str

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(rank + suit for suit in self.suits for rank in self.ranks)

    def parse(self, code: object) -> str:
        """Return ``code`` if it names a card of this deck, else raise :class:`RulesError`."""
        if not isinstance(code, str) or len(code) != 2:
            raise RulesError(
                "%(code)r is not a card code of the %(deck)s deck", code=code, deck=self.name
            )
        if code[0] not in self.ranks or code[1] not in self.suits:
            raise RulesError(
                "unknown card %(code)r: %(deck)s cards are a rank of %(ranks)s and a suit of %(suits)s",
                code=code,
                deck=self.name,
                ranks=" ".join(self.ranks),
                suits=" ".join(self.suits),
            )
        return code

    def parse_distinct(self, codes: object, what: str = "cards") -> list[str]:
        """Parse a list of codes in which no card may appear twice."""
        if not isinstance(codes, list):
            raise RulesError("%(what)s must be a list of card codes", what=what)
        seen: set[str] = set()
        for code in codes:
            self.parse(code)
            if code in seen:
                raise RulesError("repeated card %(code)r in %(what)s", code=code, what=what)
            seen.add(code)
        return list(codes)

    def parse_order(self, codes: object) -> list[str]:
        """Parse a whole deck order (top card first): every card exactly once."""
        order = self.parse_distinct(codes, "the deck")
        if len(order) != len(self.codes):
            missing = sorted(set(self.codes) - set(order), key=self.codes.index)
            raise RulesError(
                "a deck has %(cards)s cards, this one %(these)s (missing %(missing)s)",
                cards=len(self.codes),
                these=len(order),
                missing=" ".join(missing),
            )
        return order

    def rank(self, code: str) -> int:
        """The rank's place from 1 (As/Ace) to 10 (Rey/King)."""
        return self.ranks.index(code[0]) + 1

    def shuffled(self, rng: secrets.SystemRandom | None = None) -> list[str]:
        """A fresh deck order from ``rng``, or the source of chance (:mod:`montones.rules.chance`:
        a CSPRNG but in a rehearsal); tests pass their own deck order instead."""
        order = list(self.codes)
        (rng or chance.source()).shuffle(order)
        return order


SPANISH = Deck("Spanish", ranks="A234567SCR", suits="oceb")
FRENCH = Deck("French", ranks="A234567JQK", suits="SHDC")


def suit(code: str) -> str:
    return code[1]


def cut(order: Iterable[str], position: int) -> list[str]:
    """Lift ``position`` cards off the top and put them underneath."""
    order = list(order)
    if not 1 <= position < len(order):
        raise RulesError("a cut must leave cards on both sides: 1 to %(most)s", most=len(order) - 1)
    return order[position:] + order[:position]
