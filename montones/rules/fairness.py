"""The commitment to a deck: shown before the first bet, opened once the deck is done.

When a deck is shuffled the table shows the SHA-256 of its order and a random salt. Nobody can
work the order out of the hash, and once the deck is done the order and the salt are shown, so
anyone can hash them again (on the verify page, in their own browser, or with
``montones verify``) and see that the cards dealt were the cards committed to. The punter's cut
is applied after the commitment, so neither the server nor the banker alone fixes the cards.

The hashed text is the salt, a space, and the card codes top card first, separated by spaces
(``"9f2c… Ro 3c 7e …"``), in UTF-8: simple to type into any SHA-256 tool.
"""

from __future__ import annotations

import hashlib

from montones.rules import chance

SALT_BYTES = 16
SHORT = 12  # hex digits shown on the TV and phones: enough to compare by eye


def new_shuffle(order: list[str]) -> dict:
    """The commitment to a freshly shuffled ``order``, with its salt and the order kept secret."""
    salt = chance.source().randbytes(SALT_BYTES).hex()
    return {"commitment": commitment(order, salt), "salt": salt, "order": list(order)}


def hashed_text(order: list[str], salt: str) -> str:
    return " ".join([salt, *order])


def commitment(order: list[str], salt: str) -> str:
    return hashlib.sha256(hashed_text(order, salt).encode()).hexdigest()


def short(commitment_hex: str | None) -> str | None:
    return commitment_hex[:SHORT] if commitment_hex else None
