"""Who wins against whom, and a hand settled heap by heap as the banker lifts them
(docs/rules.md, "Montones")."""

from __future__ import annotations

from typing import Any

from montones.rules.cards import SPANISH
from montones.rules.settlement import WON, cover, explain

REY = "R"
REY_DE_OROS = "Ro"


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


def explained(result: dict) -> list[dict]:
    """A settled hand's lines with what makes each plain: ``bank_before``, what the bank held when it
    was settled; ``owed``, what the bet would have come to had the bank held enough (its
    payout if it won, its stake if it lost); ``capped``, a pagando y cobrando played for the
    declarer's chips, not for the whole bank."""
    lines = explain(
        result["settled"],
        result["bank"],
        lambda line: full_payout(line, result["cards"]) if line["result"] == WON else line["stake"],
    )
    return [
        {**line, "capped": line["kind"] == "whole_bank" and line["stake"] < line["bank_before"]}
        for line in lines
    ]


def full_payout(line: dict, cards: list[str]) -> int:
    if line["kind"] == "heap":
        return heap_payout(cards[line["heap"] - 1], line["stake"])
    return line["stake"]
