"""A coup settled: the layouts dealt from both ends of the deck, the gate that decides them,
the bets a coup allows and what they are paid (docs/rules.md, "Monte")."""

from __future__ import annotations

from typing import Any

from montones.rules.cards import suit
from montones.rules.errors import RulesError
from montones.rules.settlement import cover
from montones.rules.table import is_count

LAYOUTS = ("bottom", "top")
FOUR_CARD_COUPS = 8
TWO_CARD_COUPS = 13
PRIVATE_CIRCLE_COUPS = 6


def check_options(options: dict) -> None:
    for flag in ("two_card", "generous", "private_circle"):
        if not isinstance(options.get(flag, False), bool):
            raise RulesError("the option %(flag)s is true or false", flag=flag)
    if options.get("generous") and not options.get("two_card"):
        raise RulesError("a generous banker pays 3 to 1 only in two-card Monte")
    short = options.get("short_bank")
    if short is not None and (not is_count(short) or short < 1):
        raise RulesError("a short bank is a number of coups, at least 1")


def max_coups(options: dict) -> int:
    """Coups one bank deals: the whole deck, or fewer for a short bank or a private circle."""
    coups = TWO_CARD_COUPS if options.get("two_card") else FOUR_CARD_COUPS
    if options.get("short_bank"):
        coups = min(coups, options["short_bank"])
    if options.get("private_circle"):
        coups = min(coups, PRIVATE_CIRCLE_COUPS)
    return coups


def deal_layouts(deck: list[str], two_card: bool) -> tuple[list[str], list[str], list[str]]:
    """Bottom layout from the bottom up, top layout from the top down; returns the rest too."""
    size = 1 if two_card else 2
    if len(deck) < 2 * size + 1:
        raise RulesError("the deck is used up: the bank passes")
    bottom = deck[::-1][:size]
    top = deck[:size]
    return bottom, top, deck[size:-size]


def layout_wins(layout: list[str], gate: str) -> bool:
    """A layout with a card of the gate's suit wins, once however many cards match."""
    return any(suit(card) == suit(gate) for card in layout)


def generous_triple(bottom: list[str], top: list[str], gate: str, options: dict) -> bool:
    """Generous banker: both layout cards and the gate of one suit pay 3 to 1."""
    return bool(options.get("generous")) and {suit(c) for c in (*bottom, *top, gate)} == {
        suit(gate)
    }


def winning_unseen(layout: list[str], unseen: list[str]) -> int:
    """How many of the unseen cards would win for this layout as the gate ("18 of 36")."""
    suits = {suit(card) for card in layout}
    return sum(1 for card in unseen if suit(card) in suits)


def settle_coup(
    bank: int, bottom: list[str], top: list[str], gate: str, bets: list[dict], options: dict
) -> dict[str, Any]:
    """Settle a coup's bets, smallest stake first (equal stakes in the order placed).

    The order matters only when a generous 3 to 1 leaves the bank short: each bet is then
    covered only by what the bank still holds, as in Montones.
    """
    layouts = {"bottom": bottom, "top": top}
    winning = [name for name in LAYOUTS if layout_wins(layouts[name], gate)]
    odds = 3 if generous_triple(bottom, top, gate, options) else 1
    settled = []
    for i in sorted(range(len(bets)), key=lambda i: (bets[i]["amount"], i)):
        placed = bets[i]
        won = placed["layout"] in winning
        result, net = cover(bank, won, placed["amount"], odds * placed["amount"])
        bank -= net
        settled.append(
            {
                "bet": i,
                "player": placed["player"],
                "layout": placed["layout"],
                "stake": placed["amount"],
                "result": result,
                "net": net,
            }
        )
    return {"gate": gate, "winning": winning, "odds": odds, "bank": bank, "settled": settled}


def check_bet(
    player_chips: int, bank: int, on_table: int, layout: object, amount: object, limits: dict
) -> None:
    """One more bet on a layout, given what the player has and what is already on the table."""
    if layout not in LAYOUTS:
        raise RulesError(
            "there is no layout %(layout)r: bet on the bottom or the top layout", layout=layout
        )
    if not is_count(amount) or amount <= 0:
        raise RulesError(
            "a bet must be a whole number of chips, at least 1, not %(amount)r", amount=amount
        )
    if amount < limits["min_bet"]:
        raise RulesError("the table minimum is %(least)s", least=limits["min_bet"])
    if amount > limits["max_bet"]:
        raise RulesError(
            "the table maximum is %(most)s: a bet of %(amount)s is over it",
            most=limits["max_bet"],
            amount=amount,
        )
    if on_table + amount > bank:
        room = bank - on_table
        raise RulesError(
            "the bank holds %(bank)s and %(on_table)s is already bet: the most you can bet is %(most)s",
            bank=bank,
            on_table=on_table,
            most=room,
        )
    if amount > player_chips:
        raise RulesError(
            "you have %(chips)s chips: a bet of %(amount)s is over them",
            chips=player_chips,
            amount=amount,
        )
