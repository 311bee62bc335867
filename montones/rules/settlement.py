"""Cover: a bet is in play only up to what the bank holds when it is settled (docs/rules.md).

Shared by every game: Montones settles every hand this way, Monte uses the same order and
cover when a generous banker's 3 to 1 leaves the bank short, and Monte Bank covers each
winning part of a bet with what its bank still holds.
"""

from __future__ import annotations

from collections.abc import Callable

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


def explain(settled: list[dict], bank_after: int, owed: Callable[[dict], int]) -> list[dict]:
    """Settled lines, in the order the bank settled them, with what makes a cover plain:
    ``bank_before``, what the bank held when the line came to be settled; ``owed``, what the bet would
    have come to had the bank held enough (its payout if it won, its stake if it lost). A line
    paid less than ``owed``, or that lost less than its stake, was covered only in part.

    Each line moved ``net`` (and its ``levy``, if any) out of the bank, so what it held before
    the first is the bank after with every line undone.
    """
    held = bank_after + sum(line["net"] + line.get("levy", 0) for line in settled)
    lines = []
    for line in settled:
        lines.append({**line, "bank_before": held, "owed": owed(line)})
        held -= line["net"] + line.get("levy", 0)
    return lines


def emptied_by(bank: int, bets: list[dict], settled: list[dict]) -> str | None:
    """Who broke a bank that held ``bank``: the punter whose winning line, settled in the bank's
    order, took its last chip (the lines after it are void). None when no winning line emptied
    it. Not whoever won the most in the hand: a line paid in full before the bank ran short
    did not break it."""
    held = bank
    for line in settled:
        held -= line["net"] + line.get("levy", 0)
        if held <= 0:
            return bets[line["bet"]]["player"] if line["net"] > 0 else None
    return None
