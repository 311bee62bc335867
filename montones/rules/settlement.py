"""Cover: a bet is in play only up to what the bank holds when it is settled (RULES.md).

Shared by both games: Montones settles every hand this way, and Monte uses the same order
and cover when a generous banker's 3 to 1 leaves the bank short.
"""

from __future__ import annotations

WON, LOST, VOID = "won", "lost", "void"


def cover(bank: int, won: bool, stake: int, payout: int) -> tuple[str, int]:
    """Settle one bet against a bank holding ``bank``; return (result, net for the punter).

    A winning bet is paid ``min(payout, bank)``; a losing bet pays the bank ``min(stake, bank)``
    and gets the rest back; with the bank empty the bet is void and its stake goes back.
    The bank afterwards holds ``bank - net``.
    """
    if bank <= 0 or stake <= 0:
        return VOID, 0
    if won:
        return WON, min(payout, bank)
    return LOST, -min(stake, bank)
