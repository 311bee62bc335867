"""A deal settled: the four cards of the layout and its side cards, the bets they allow
(round, cross, double, Monte Carlo), the cards turned until each bet is decided, and the levy
(docs/rules.md, "Monte Bank")."""

from __future__ import annotations

from typing import Any

from montones.rules.cards import FRENCH
from montones.rules.errors import RulesError
from montones.rules.settlement import VOID, WON, cover

POSITIONS = ("ul", "ur", "ll", "lr")
SIDE_CARDS = ("s1", "s2")  # the table option's side cards, dealt in this order (0, 1 or 2)
SET_ASIDE = "set_aside"  # a layout's cards set aside while its side cards were dealt
SIDES = {
    "upper": ("ul", "ur"),
    "lower": ("ll", "lr"),
    "left": ("ul", "ll"),
    "right": ("ur", "lr"),
}
OPPOSITE = {"upper": "lower", "lower": "upper", "left": "right", "right": "left"}
KINDS = ("round", "cross", "double", "monte_carlo")
PAYS = {"round": 3, "cross": 1, "double": 1}
LEVY_SHARE = 4  # the levy is a quarter of what a first-card win is paid

# Why a deal is void (docs/rules.md, "Bank, banker, deal").
FOUR_OF_A_RANK = "four of a rank"
LOWER_PAIR = "lower pair"
LOWER_MATCHES_UPPER = "lower matches upper"


def rank(card: str) -> str:
    return card[0]


def colour(card: str) -> str:
    return "black" if card[1] in "SC" else "red"


def deal_layout(deck: list[str], side_cards: int = 0) -> dict[str, Any]:
    """Lay out a deck (top card first): ``ul`` and its stack, then ``ur``, from the bottom;
    ``ll`` and ``lr`` from the top; then, on a valid deal, ``side_cards`` side cards.

    Returns ``{"layout": {position: [cards]}, "rest": [...], "void": why or None}``: ``rest``
    is what is left of the deck, top card first (turned from its bottom); a void deal's layout
    holds what was dealt before it was found void.
    """
    bottom = deck[::-1]
    stack = [bottom[0]]
    i = 1
    while rank(bottom[i]) == rank(stack[0]):
        stack.append(bottom[i])
        i += 1
        if len(stack) == 4:
            layout = {"ul": stack, "ur": [], "ll": [], "lr": []}
            return {"layout": layout, "rest": deck[: len(deck) - i], "void": FOUR_OF_A_RANK}
    layout = {"ul": stack, "ur": [bottom[i]], "ll": [deck[0]], "lr": [deck[1]]}
    rest = deck[2 : len(deck) - i - 1]
    void = None
    if rank(deck[0]) == rank(deck[1]):
        void = LOWER_PAIR
    elif {rank(deck[0]), rank(deck[1])} & {rank(stack[0]), rank(bottom[i])}:
        void = LOWER_MATCHES_UPPER
    elif side_cards:
        rest = _deal_side_cards(layout, rest, side_cards)
    return {"layout": layout, "rest": rest, "void": void}


def _deal_side_cards(layout: dict[str, list[str]], rest: list[str], count: int) -> list[str]:
    """Deal ``count`` side cards into ``layout`` from the top of ``rest``, each of a rank not
    showing yet; a card whose rank shows is set aside, face up, out of the deal (kept in the
    layout under :data:`SET_ASIDE`). What is left, top card first. Six ranks are still unseen
    after the layout, so the deck never runs out here."""
    aside: list[str] = []
    showing = {rank(cards[0]) for cards in layout.values()}
    taken = 0
    for name in SIDE_CARDS[:count]:
        while rank(rest[taken]) in showing:
            aside.append(rest[taken])
            taken += 1
        layout[name] = [rest[taken]]
        showing.add(rank(rest[taken]))
        taken += 1
    layout[SET_ASIDE] = aside
    return rest[taken:]


def positions(layout: dict) -> tuple[str, ...]:
    """Every position of a layout: the four, then its side cards."""
    return POSITIONS + tuple(s for s in SIDE_CARDS if s in layout)


def side_count(layout: dict) -> int:
    return sum(1 for s in SIDE_CARDS if s in layout)


def void_cards(layout: dict[str, list[str]], why: str) -> list[str]:
    """The cards of a void deal's ``layout`` that made it void (``why``): the two lower cards
    of one rank; a lower card and the upper card of its rank; the stack of four."""
    upper = layout["ul"] + layout["ur"]
    lower = layout["ll"] + layout["lr"]
    if why == LOWER_PAIR:
        return lower
    if why == LOWER_MATCHES_UPPER:
        for card in lower:
            match = next((c for c in upper if rank(c) == rank(card)), None)
            if match is not None:
                return [card, match]
    return layout["ul"]


def turning_order(rest: list[str]) -> list[str]:
    """The cards left after the layout, in the order they are turned: from the bottom."""
    return rest[::-1]


def stack_size(layout: dict) -> int:
    return len(layout["ul"])


def matching(layout: dict, position: str) -> list[str]:
    """The cards that match a position for every bet but a cross of two singles (the colour
    rule): no stack, any card of its rank; a pair at ``ul``, ``ul`` by either card of its rank
    left and a single by its rank in the other colour; a triple, ``ul`` by the last card of its
    rank and a single by its rank in the same colour."""
    others = by_rank(layout, position)
    size = stack_size(layout)
    if position == "ul" or size == 1:
        return others
    own = colour(layout[position][0])
    if size == 2:
        return [c for c in others if colour(c) != own]
    return [c for c in others if colour(c) == own]


def by_rank(layout: dict, position: str) -> list[str]:
    """Every card of a position's rank not in the layout nor set aside: what decides a cross
    of singles."""
    cards = layout[position]
    gone = set(cards) | set(layout.get(SET_ASIDE, ()))
    return [c for c in FRENCH.codes if rank(c) == rank(cards[0]) and c not in gone]


def parts(placed: dict) -> list[dict]:
    """A bet as the bets it is made of: a Monte Carlo is a round, a cross and a double, each
    of the whole stake; any other bet is one part, named by its kind."""
    kind = placed["kind"]
    if kind == "monte_carlo":
        return [
            {"part": "round", "on": placed["on"]},
            {"part": "cross", "on": placed["on"], "against": placed["against"]},
            {"part": "double", "side": placed["side"]},
        ]
    part = {"part": kind}
    for key in ("on", "against", "side"):
        if key in placed:
            part[key] = placed[key]
    return [part]


def deciding(layout: dict, part: dict) -> tuple[set[str], set[str]]:
    """The cards that would win a part and those that would lose it: the first turned card of
    either set decides it."""
    kind = part["part"]
    if kind == "round":
        # A round on the layout is against the layout's other three; one on a side card,
        # against every other position.
        against = POSITIONS if part["on"] in POSITIONS else positions(layout)
        win = set(matching(layout, part["on"]))
        lose = {c for p in against if p != part["on"] for c in matching(layout, p)}
    elif kind == "cross":
        on, against = part["on"], part["against"]
        if len(layout[on]) == 1 and len(layout[against]) == 1:  # two singles: plain rank
            win, lose = set(by_rank(layout, on)), set(by_rank(layout, against))
        else:
            win, lose = set(matching(layout, on)), set(matching(layout, against))
    else:
        win = {c for p in SIDES[part["side"]] for c in matching(layout, p)}
        lose = {c for p in SIDES[OPPOSITE[part["side"]]] for c in matching(layout, p)}
    return win, lose


def pays(layout: dict, part: dict) -> int:
    """What a winning part pays to 1: a round on a side card ``n - 1``, ``n`` counting every
    position; every other part as :data:`PAYS`."""
    if part["part"] == "round" and part["on"] in SIDE_CARDS:
        return len(positions(layout)) - 1
    return PAYS[part["part"]]


def decide(layout: dict, turning: list[str], part: dict) -> tuple[bool | None, int]:
    """Whether a part wins, and the index in ``turning`` of the card that decides it; None and
    the last card's index for a part still undecided when the deck runs out (only a set-aside
    card can leave its positions with no live card)."""
    win, lose = deciding(layout, part)
    for i, card in enumerate(turning):
        if card in win:
            return True, i
        if card in lose:
            return False, i
    return None, len(turning) - 1


def check_bet(placed: dict, side_cards: int = 0) -> None:
    """A bet's kind and where it lies, as the rules allow them (a round or a cross on the
    table's ``side_cards`` too)."""
    kind = placed.get("kind")
    if kind not in KINDS:
        raise RulesError(
            "there is no bet %(kind)r: a bet is a round, a cross, a double or a Monte Carlo",
            kind=kind,
        )
    needs = {
        "round": ("on",),
        "cross": ("on", "against"),
        "double": ("side",),
        "monte_carlo": ("on", "against", "side"),
    }[kind]
    allowed = POSITIONS + SIDE_CARDS[:side_cards]
    for key in ("on", "against"):
        if key in needs and placed.get(key) not in allowed:
            if side_cards:
                raise RulesError(
                    "there is no position %(position)r: the positions are ul, ur, ll, lr "
                    "and the side cards %(sides)s",
                    position=placed.get(key),
                    sides=", ".join(SIDE_CARDS[:side_cards]),
                )
            raise RulesError(
                "there is no position %(position)r: the positions are ul, ur, ll and lr",
                position=placed.get(key),
            )
    if "against" in needs and placed["on"] == placed["against"]:
        raise RulesError("a cross is a position against another one")
    side = placed.get("side")
    if "side" in needs and (not isinstance(side, str) or side not in SIDES):
        raise RulesError(
            "there is no side %(side)r: the sides are upper, lower, left and right",
            side=placed.get("side"),
        )
    if kind == "monte_carlo" and placed["on"] in SIDE_CARDS:
        raise RulesError(
            "a Monte Carlo is on a card of the layout: on a side card, bet a round or a cross"
        )
    if kind == "monte_carlo" and placed["on"] not in SIDES[placed["side"]]:
        # Said as what to do: the phone has the player choose the side, then tap the card.
        raise RulesError(
            "for a Monte Carlo, choose a side the card you tap lies on: the upper left card "
            "lies on the upper side and on the left side"
        )


def cost(placed: dict) -> int:
    """Chips a bet takes from its player: a Monte Carlo is three bets of its stake."""
    return placed["amount"] * len(parts(placed))


def play_deal(
    bank: int, layout: dict, rest: list[str], bets: list[dict], levy: bool
) -> dict[str, Any]:
    """Turn the cards until every bet is decided, then settle (docs/rules.md, "Money, at the end of the deal").

    The bank takes every losing stake (in the order placed), then pays the winners largest
    stake first (equal: the higher payout, then the earlier bet), each ``min(payout, bank)``;
    once the bank is empty the rest are void. With the levy on, a part won by the very first
    card gives a quarter of what it was paid, rounded down, to the pot. A part undecided when
    the deck ran out is void, its stake returned (listed last, ``undecided``). Each line's
    ``bet`` is the index in ``bets``, ``card`` the index in ``turned`` of the card that decided
    it.
    """
    turning = turning_order(rest)
    decided = []
    for i, placed in enumerate(bets):
        for part in parts(placed):
            won, at = decide(layout, turning, part)
            decided.append((i, part, won, at))
    turned = turning[: max((at for *_, at in decided), default=-1) + 1]
    lines = []
    for i, part, won, at in decided:
        if won is False:
            placed = bets[i]
            bank += placed["amount"]
            lines.append(_line(i, placed, part, "lost", -placed["amount"], 0, at))
    winners = [(i, part, at) for i, part, won, at in decided if won]
    winners.sort(key=lambda w: (-bets[w[0]]["amount"], -pays(layout, w[1]), w[0]))
    pot = 0
    for i, part, at in winners:
        placed = bets[i]
        result, paid = cover(bank, True, placed["amount"], pays(layout, part) * placed["amount"])
        bank -= paid
        taken = paid // LEVY_SHARE if levy and at == 0 and result == WON else 0
        pot += taken
        lines.append(_line(i, placed, part, result, paid - taken, taken, at))
    for i, part, won, at in decided:
        if won is None:
            lines.append({**_line(i, bets[i], part, VOID, 0, 0, at), "undecided": True})
    return {"turned": turned, "bank": bank, "levy": pot, "settled": lines}


def _line(i: int, placed: dict, part: dict, result: str, net: int, levy: int, at: int) -> dict:
    return {
        "bet": i,
        "part": part["part"],
        "player": placed["player"],
        "stake": placed["amount"],
        "result": result,
        "net": net,
        "levy": levy,
        "card": at,  # what decided it, also when the bank could not pay it
    }


def live_words(layout: dict) -> list[dict]:
    """Which cards match each position (the colour rule), for the screens to put in words:
    ``{"position", "rank", "cards", "any"}``, ``any`` when every card of its rank left does."""
    rows = []
    for position in positions(layout):
        cards = matching(layout, position)
        rows.append(
            {
                "position": position,
                "card": layout[position][0],
                "rank": rank(layout[position][0]),
                "cards": cards,
                "any": len(cards) == len(by_rank(layout, position)),
            }
        )
    return rows
