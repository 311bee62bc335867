"""What one chip staked on a kind of bet comes to: the shape of every figure of the odds.

Nothing here restates a rule: each engine counts its own bets' odds, exactly, from the
functions it settles real hands with (its ``table_odds``), so the figures change if the rules
ever do. Values are per chip staked, for a bet the bank covers in full: a short bank can only
void part of a bet, which is no part of the odds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Odds:
    """What one chip staked comes to: each net result (−1 lost, 1 even money, 2 or 3 for the
    better payouts) with its chance, lowest net first."""

    chances: tuple[tuple[int, Fraction], ...]

    @classmethod
    def counted(cls, nets: Iterable[int]) -> Odds:
        """From the net of each equally likely case."""
        counts = Counter(nets)
        total = sum(counts.values())
        return cls(tuple((net, Fraction(n, total)) for net, n in sorted(counts.items())))

    @property
    def edge(self) -> Fraction:
        """The bank's edge: what the bank expects to keep of each chip staked.

        Negative when the bet favours the punter.
        """
        return -sum((net * p for net, p in self.chances), Fraction(0))

    @property
    def win(self) -> Fraction:
        return sum((p for net, p in self.chances if net > 0), Fraction(0))

    @property
    def lose(self) -> Fraction:
        return sum((p for net, p in self.chances if net < 0), Fraction(0))

    def chance(self, net: int) -> Fraction:
        return dict(self.chances).get(net, Fraction(0))
