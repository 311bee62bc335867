"""Monte Bank, the casino game that opens the Russian source (docs/rules.md, "Monte Bank").

Ranks, not suits, are matched. Two cards from the bottom make the upper layout (``ul`` with its
stack, then ``ur``), two from the top the lower one (``ll``, ``lr``); punters bet on which
position is matched first, and the cards are turned from the bottom until every bet is decided.

Same shape as :mod:`montones.rules.monte`: the state is a plain dict, each action works on a
copy and returns ``(new_state, events)``, a :class:`RulesError` changes nothing. Each deal is a
fresh shuffle, sealed before its cut (:mod:`montones.rules.fairness`) and opened once it is
done; a void deal is opened at once, and the next shuffle sealed again.
"""

from __future__ import annotations

from fractions import Fraction
from random import Random
from typing import Any

from montones.rules import chance, computer, hand_records, rotation, settlement, table
from montones.rules.cards import FRENCH
from montones.rules.errors import Phrase, RulesError
from montones.rules.fairness import new_shuffle
from montones.rules.odds import Odds
from montones.rules.rotation import (
    BANK,
    BETTING,
    CUT,
    FINISHED,
    cut_deadline,
    require_banker,
)
from montones.rules.scenario_input import (
    ScenarioError,
    deck_order,
    field,
    listed,
    net_chips,
    quoted,
    seated_chips,
    whole_number,
)
from montones.rules.settlement import WON, cover, explain
from montones.rules.table import Action, Events, Field, State, action, is_count, require_phase

POSITIONS = ("ul", "ur", "ll", "lr")
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

DEFAULT_SETTINGS = {
    "min_bet": 1,
    "levy": True,
    "deals_per_bank": None,
    "banks_each": 1,
    "bank_size": 50,
    "cut_timeout": 30,
}

# Phases: seating -> bank -> cut -> betting -> deal_over -> cut ... (aces) -> bank ... -> finished
DEAL_OVER = "deal_over"  # the deal is over; the other phases are the rotation's
SEATING = rotation.SEATING  # a table starts in it (rotation.new_state)


# --- the deal ------------------------------------------------------------------------------


def rank(card: str) -> str:
    return card[0]


def colour(card: str) -> str:
    return "black" if card[1] in "SC" else "red"


def deal_layout(deck: list[str]) -> dict[str, Any]:
    """Lay out a deck (top card first): ``ul`` and its stack, then ``ur``, from the bottom;
    ``ll`` and ``lr`` from the top.

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
    return {"layout": layout, "rest": rest, "void": void}


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
    cards = layout[position]
    others = [c for c in FRENCH.codes if rank(c) == rank(cards[0]) and c not in cards]
    size = stack_size(layout)
    if position == "ul" or size == 1:
        return others
    own = colour(cards[0])
    if size == 2:
        return [c for c in others if colour(c) != own]
    return [c for c in others if colour(c) == own]


def by_rank(layout: dict, position: str) -> list[str]:
    """Every card of a position's rank not in the layout: what decides a cross of singles."""
    cards = layout[position]
    return [c for c in FRENCH.codes if rank(c) == rank(cards[0]) and c not in cards]


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
        win = set(matching(layout, part["on"]))
        lose = {c for p in POSITIONS if p != part["on"] for c in matching(layout, p)}
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


def decide(layout: dict, turning: list[str], part: dict) -> tuple[bool, int]:
    """Whether a part wins, and the index in ``turning`` of the card that decides it."""
    win, lose = deciding(layout, part)
    for i, card in enumerate(turning):
        if card in win:
            return True, i
        if card in lose:
            return False, i
    raise RulesError("the deck ran out before a bet was decided")  # every position has live cards


def check_bet(placed: dict) -> None:
    """A bet's kind and where it lies, as the rules allow them."""
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
    for key in ("on", "against"):
        if key in needs and placed.get(key) not in POSITIONS:
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
    card gives a quarter of what it was paid, rounded down, to the pot. Each line's ``bet`` is
    the index in ``bets``, ``card`` the index in ``turned`` of the card that decided it.
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
        if not won:
            placed = bets[i]
            bank += placed["amount"]
            lines.append(_line(i, placed, part, "lost", -placed["amount"], 0, at))
    winners = [(i, part, at) for i, part, won, at in decided if won]
    winners.sort(key=lambda w: (-bets[w[0]]["amount"], -PAYS[w[1]["part"]], w[0]))
    pot = 0
    for i, part, at in winners:
        placed = bets[i]
        result, paid = cover(bank, True, placed["amount"], PAYS[part["part"]] * placed["amount"])
        bank -= paid
        taken = paid // LEVY_SHARE if levy and at == 0 and result == WON else 0
        pot += taken
        lines.append(_line(i, placed, part, result, paid - taken, taken, at))
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
    for position in POSITIONS:
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


# --- the table -----------------------------------------------------------------------------


def new_table(settings: dict | None = None) -> State:
    merged = table.merged_settings(DEFAULT_SETTINGS, settings)
    check_settings(merged)
    return rotation.new_state(
        NAME,
        merged,
        deals=0,
        shuffles=0,
        cutter=None,
        cut_started=None,
        shuffle=None,
        deck=[],
        deal=None,
        last_deal=None,
        void=None,
        passed=None,
        pot=0,
        house=0,
    )


_SETTING_WORDS = {
    "min_bet": Phrase("min bet"),
    "banks_each": Phrase("banks each"),
    "bank_size": Phrase("bank size"),
    "cut_timeout": Phrase("cut timeout"),
    "deals_per_bank": Phrase("deals per bank"),
}


def check_settings(settings: dict) -> None:
    for key in ("min_bet", "banks_each", "bank_size", "cut_timeout"):
        if not is_count(settings[key]) or settings[key] < 1:
            raise RulesError(
                "%(setting)s must be a whole number, at least 1", setting=_SETTING_WORDS[key]
            )
    limit = settings["deals_per_bank"]
    if limit is not None and (not is_count(limit) or limit < 1):
        raise RulesError(
            "%(setting)s must be a whole number, at least 1",
            setting=_SETTING_WORDS["deals_per_bank"],
        )
    if not isinstance(settings["levy"], bool):
        raise RulesError("the option %(flag)s is true or false", flag="levy")
    # A computer banker puts up this bank: under the minimum bet it is refused at every tick.
    if settings["bank_size"] < settings["min_bet"]:
        raise RulesError(
            "a bank must hold at least the table minimum of %(least)s", least=settings["min_bet"]
        )


_PHASE_REFUSAL = {
    **rotation.REFUSALS,
    DEAL_OVER: Phrase("the deal is still in play"),
}


def _require_phase(state: State, *phases: str) -> None:
    require_phase(state, _PHASE_REFUSAL, *phases)


active = table.active


def _right_of(state: State, pid: str) -> str | None:
    """The punter on ``pid``'s right: the previous seat in joining order."""
    others = [p for p in table.left_of(state, pid) if p != pid]
    return others[-1] if others else None


top_up = table.top_up
# Seating, the host's pause and the night's end are the rotation's, as at every table whose bank
# goes round (montones.rules.rotation).
join = rotation.join
draw_for_bank = rotation.draw_for_bank
after_pause = rotation.after_pause
follow_up = rotation.follow_up
over = rotation.over
between_banks = rotation.between_banks


@action
def put_up_bank(
    state: State, events: Events, pid: str, amount: int, now: float, deck: list[str] | None = None
) -> None:
    """The banker puts up a bank of any size up to their chips (at least the table minimum,
    or nobody could bet); the first deal is shuffled and sealed."""
    _require_phase(state, BANK)
    rotation.put_up(state, pid, amount, least=state["settings"]["min_bet"])
    state["deals"] = 0
    events.append({"type": "bank_put_up", "banker": pid, "amount": amount})
    _shuffle(state, events, now, deck)


def _shuffle(state: State, events: Events, now: float, deck: list[str] | None = None) -> None:
    """A fresh sealed shuffle for the next deal; the punter on the banker's right cuts."""
    state["deck"] = (
        FRENCH.parse_order(deck) if deck is not None else FRENCH.shuffled(chance.source())
    )
    state["shuffle"] = new_shuffle(state["deck"])
    state["shuffles"] += 1
    state["deal"] = None
    state["cutter"] = _right_of(state, state["banker"])
    state["cut_started"] = now
    state["phase"] = CUT
    events.append({"type": "shuffled", "commitment": state["shuffle"]["commitment"]})
    if state["cutter"] is None:
        _cut(state, events, None, "nobody to cut", now)


def _cut(
    state: State, events: Events, position: int | None, how: str, now: float | None = None
) -> None:
    """Cut (at random for ``position`` None), lay out the deal; a void deal is shuffled and
    sealed again, its cutter's time starting ``now`` (None: when the last cut's did, for a cut
    made because the cutter left, which has no time of its own)."""
    if now is None:
        now = state["cut_started"]
    rotation.cut_at(state, events, position, how)
    dealt = deal_layout(state["deck"])
    number = state["deals"] + 1
    if dealt["void"]:
        # Gather, shuffle, seal, cut and deal again: no bet has been placed. The void deal is
        # done, so its record opens its seal.
        state["void"] = {
            "why": dealt["void"],
            "layout": dealt["layout"],
            "deal": number,
            "version": state["version"] + 1,
        }
        state["last_deal"] = {
            "number": number,
            "deck": state["deck"],
            "shuffle": state["shuffle"],
            "layout": dealt["layout"],
            "bets": [],
            "void": dealt["void"],
            "result": None,
            "bank": state["bank"],
        }
        events.append({"type": SETTLES, "void": dealt["void"], "layout": dealt["layout"]})
        _shuffle(state, events, now)
        return
    state["deal"] = {
        "number": number,
        "deck": state["deck"],
        "layout": dealt["layout"],
        "rest": dealt["rest"],
        "bets": [],
        "next_bet": 1,
        "void": None,
        "result": None,
        "bank": state["bank"],
    }
    state["phase"] = BETTING
    events.append({"type": "dealt", "number": number, "layout": dealt["layout"]})


def _cut_again(state: State, events: Events, position: int | None, how: str, now: float):
    """The cutter's cut (or the clock's): a void deal's notice goes with it."""
    state["void"] = None
    _cut(state, events, position, how, now)


cut_deck, cut_timed_out = rotation.cut_actions(_PHASE_REFUSAL, cut=_cut_again)


def parse_spot(spot: object) -> dict[str, str]:
    """Where a bet lies, as a phone sends it: ``"round ul"``, ``"cross ul ll"``,
    ``"double left"``, ``"monte_carlo ul ll left"``."""
    words = spot.split() if isinstance(spot, str) else []
    keys = {
        "round": ("on",),
        "cross": ("on", "against"),
        "double": ("side",),
        "monte_carlo": ("on", "against", "side"),
    }
    if not words or words[0] not in keys or len(words) != len(keys[words[0]]) + 1:
        raise RulesError(
            "there is no bet %(kind)r: a bet is a round, a cross, a double or a Monte Carlo",
            kind=spot,
        )
    return {"kind": words[0], **dict(zip(keys[words[0]], words[1:], strict=True))}


def tapped(params: dict[str, Any]) -> dict[str, str]:
    """The bet a tap on the layout makes (the phone's bar holds the kind, the stake, a Monte
    Carlo's cross card and side). A side is a double on it. On the layout (``bet_kind``
    ``layout``) a position is tapped twice: ``first`` is the one tapped before, so the same
    position again is a round on it and another one a cross, the first against this one. A
    Monte Carlo is on the position tapped, against the position and with the side chosen."""
    at, kind = params["at"], params["bet_kind"]
    if at in SIDES:
        return {"kind": "double", "side": at}
    if at not in POSITIONS:
        raise RulesError(
            "there is no position %(position)r: the positions are ul, ur, ll and lr", position=at
        )
    if kind == "layout":
        first = params.get("first") or at
        if first == at:
            return {"kind": "round", "on": at}
        return {"kind": "cross", "on": first, "against": at}
    if kind == "monte_carlo":
        return {"kind": kind, "on": at, "against": params["against"], "side": params["side"]}
    raise RulesError(
        "there is no bet %(kind)r: a bet is a round, a cross, a double or a Monte Carlo",
        kind=kind,
    )


def _check_stake(state: State, player: dict, amount: object, more: int) -> None:
    """A stake the table allows, and chips for it (``more``: what the bet takes per chip)."""
    if not is_count(amount) or amount <= 0:
        raise RulesError(
            "a bet must be a whole number of chips, at least 1, not %(amount)r", amount=amount
        )
    least = state["settings"]["min_bet"]
    if amount < least:
        raise RulesError("the table minimum is %(least)s", least=least)
    if amount > state["bank"]:
        raise RulesError(
            "the bank holds %(bank)s: the most you can bet is %(most)s",
            bank=state["bank"],
            most=state["bank"],
        )
    if amount * more > player["chips"]:
        raise RulesError(
            "you have %(chips)s chips: a bet of %(amount)s is over them",
            chips=player["chips"],
            amount=amount * more,
        )


@action
def bet(state: State, events: Events, pid: str, spot: object, amount: int) -> None:
    """A round, a cross, a double or a Monte Carlo (three bets of this stake); each bet is at
    least the table minimum and at most the bank; their sum may exceed the bank."""
    player = rotation.punter(state, pid)
    placed = parse_spot(spot) if not isinstance(spot, dict) else dict(spot)
    check_bet(placed)
    _check_stake(state, player, amount, len(parts(placed)))
    deal = state["deal"]
    placed = {"id": deal["next_bet"], "player": pid, **placed, "amount": amount}
    deal["next_bet"] += 1
    deal["bets"].append(placed)
    player["chips"] -= cost(placed)
    events.append({"type": "bet_placed", **placed})


@action
def withdraw(state: State, events: Events, pid: str, bet_id: int) -> None:
    """Take one's own bet back before bets close."""
    _require_phase(state, BETTING)
    table.withdraw(state, events, pid, state["deal"]["bets"], bet_id, _return_bet)


@action
def change(state: State, events: Events, pid: str, bet_id: int, amount: int) -> None:
    """A new stake for one of my bets, where it lies."""
    player = rotation.punter(state, pid)
    placed = table.own_bet(state["deal"]["bets"], pid, bet_id)
    player["chips"] += cost(placed)
    _check_stake(state, player, amount, len(parts(placed)))
    placed["amount"] = amount
    player["chips"] -= cost(placed)
    events.append({"type": "bet_changed", **placed})


def _return_bet(state: State, placed: dict) -> None:
    state["players"][placed["player"]]["chips"] += cost(placed)
    state["deal"]["bets"].remove(placed)


@action
def close_bets(state: State, events: Events, pid: str) -> None:
    """The banker says the bets are done: the cards are turned from the bottom until the last
    bet is decided, and the deal is settled. A broken bank, or one that has dealt the table's
    limit, passes at once."""
    _require_phase(state, BETTING)
    require_banker(state, pid)
    deal = state["deal"]
    bets = deal["bets"]
    outcome = play_deal(
        state["bank"], deal["layout"], deal["rest"], bets, state["settings"]["levy"]
    )
    for line in outcome["settled"]:
        placed = bets[line["bet"]]
        state["players"][placed["player"]]["chips"] += placed["amount"] + line["net"]
        line["id"] = placed["id"]
    outcome["version"] = state["version"] + 1
    state["bank"] = outcome["bank"]
    state["pot"] += outcome["levy"]
    state["deals"] += 1
    deal["result"] = outcome
    deal["shuffle"] = state["shuffle"]
    del deal["rest"]
    state["last_deal"] = deal
    state["deck"] = []
    state["phase"] = DEAL_OVER
    events.append({"type": SETTLES, "number": deal["number"], **outcome})
    limit = state["settings"]["deals_per_bank"]
    if state["bank"] == 0:
        _pass_bank(state, events, "broken")
    elif limit is not None and state["deals"] >= limit:
        _pass_bank(state, events, "deals done")


@action
def next_deal(state: State, events: Events, pid: str, now: float, deck: list[str] | None = None):
    """The banker goes on: the cards are gathered and shuffled for the next deal."""
    _require_phase(state, DEAL_OVER)
    require_banker(state, pid)
    state["void"] = None
    _shuffle(state, events, now, deck)


@action
def aces(state: State, events: Events, pid: str) -> None:
    """ "Aces": the banker passes the bank between deals."""
    _require_phase(state, DEAL_OVER)
    require_banker(state, pid)
    _pass_bank(state, events, "aces")


@action
def leave(state: State, events: Events, pid: str) -> None:
    """A player leaves: open bets go back; a leaving banker's bank passes at once."""
    deal = state["deal"]
    open_bets = deal["bets"] if deal and state["phase"] == BETTING else []
    rotation.leave(state, events, pid, open_bets, _return_bet, _pass_bank, _cut)


def _split_pot(state: State, banker: str, events: Events) -> dict[str, int]:
    """Half the levy pot (rounded down) to the outgoing banker, the rest to the house."""
    pot = state["pot"]
    share = pot // 2
    state["players"][banker]["chips"] += share
    state["house"] += pot - share
    state["pot"] = 0
    split = {"pot": pot, "banker": share, "house": pot - share}
    if pot:
        events.append({"type": "pot_split", "player": banker, **split})
    return split


def _pass_bank(state: State, events: Events, why: str) -> None:
    """The bank goes back to the banker's chips with half the pot, and passes to the left."""
    split = _split_pot(state, state["banker"], events)
    state["deal"] = None
    state["shuffle"] = None
    least = state["settings"]["min_bet"]
    rotation.pass_bank(state, events, why, least, deals=state["deals"], split=split)


standings = table.standings


@action
def finish(state: State, events: Events) -> None:
    """The night is over: open bets go back, a running bank returns to its banker, and the pot
    is split as when the bank passes."""
    deal = state["deal"]
    if deal and state["phase"] == BETTING:
        for placed in list(deal["bets"]):
            _return_bet(state, placed)
    banker = state["banker"]
    rotation.close_bank(state, events, state["deals"])
    if banker is not None:
        _split_pot(state, banker, events)
    state["deal"] = None
    rotation.night_over(state, events)


# --- what a seat may see -------------------------------------------------------------------


def view(state: State, seat: str | None = None, now: float | None = None) -> dict[str, Any]:
    """The table as one seat sees it (``seat=None``: the TV). The deck's order stays hidden:
    after a deal, only the cards turned."""
    phase = state["phase"]
    names = {pid: p["name"] for pid, p in state["players"].items()}
    banker = state["banker"]
    deal = state["deal"]
    last = state["last_deal"]
    passed = state["passed"]
    shown = None
    if phase == BETTING:
        shown = deal
    elif phase == DEAL_OVER:
        shown = last
    elif phase in (BANK, FINISHED) and passed and last and last["result"]:
        # The deal whose end passed the bank stays on show while the next banker puts one up.
        shown = last if last["result"]["version"] == passed["version"] else None
    result = shown["result"] if shown else None
    cutting = phase == CUT
    bets = []
    if shown:
        lines: dict[int, list[dict]] = {}
        for line in result["settled"] if result else []:
            lines.setdefault(line["id"], []).append({**line, "name": names[line["player"]]})
        for placed in shown["bets"]:
            bets.append(
                {
                    **placed,
                    "name": names[placed["player"]],
                    "mine": placed["player"] == seat,
                    "cost": cost(placed),
                    "lines": lines.get(placed["id"], []),
                }
            )
    spots: dict[str, list[dict]] = {key: [] for key in (*POSITIONS, *SIDES, "cross")}
    for placed in bets:
        by_part = {line["part"]: line for line in placed["lines"]}
        for part in parts(placed):
            chip = {
                **part,
                "id": placed["id"],
                "player": placed["player"],
                "name": placed["name"],
                "amount": placed["amount"],
                "kind": placed["kind"],
                "line": by_part.get(part["part"]),
            }
            where = {"round": part.get("on"), "double": part.get("side")}.get(part["part"], "cross")
            spots[where].append(chip)
    void = state["void"]
    first_draw = bool(state["draws"]) and not passed and state["deals"] == 0 and not shown
    open_bets = deal["bets"] if deal and phase == BETTING else []
    return {
        "game": NAME,
        "version": state["version"],
        "phase": phase,
        "players": rotation.seats_view(state, open_bets, cost),
        "banker": banker,
        "banker_name": names.get(banker),
        "banker_computer": bool(banker) and table.is_computer(state, banker),
        "bank": state["bank"],
        "on_table": sum(cost(b) for b in open_bets),
        "deal": shown["number"] if shown else None,
        "deals": state["deals"],
        "layout": shown["layout"] if shown else None,
        "live": live_words(shown["layout"]) if shown else [],
        "bets": bets,
        "spots": spots,
        "turned": result["turned"] if result else [],
        "result": result and {**result, "settled": _lines(shown, result, names)},
        "void": void
        and {
            **void,
            "fresh": void["version"] == state["version"],
            "cards": void_cards(void["layout"], void["why"]),
        },
        "pot": state["pot"],
        "house": state["house"],
        "commitment": live_commitment(state),
        "cutter": state["cutter"] if cutting else None,
        "cutter_name": names.get(state["cutter"]) if cutting else None,
        "cut_deadline": cut_deadline(state),
        # Whose cut the clock made, while the deal it laid out shows.
        "cut_by_clock": rotation.cut_by_clock(state, names)
        if phase in (BETTING, DEAL_OVER)
        else None,
        "deck": len(state["deck"]),
        **rotation.night_view(state, names, first_draw),
        "me": my_view(state, seat, now),
    }


def _lines(deal: dict, result: dict, names: dict[str, str]) -> list[dict]:
    """A deal's settled lines with each player's name and where each part lay."""
    placed = {b["id"]: b for b in deal["bets"]}
    lines = []
    settled = explain(
        result["settled"],
        result["bank"],
        lambda line: PAYS[line["part"]] * line["stake"] if line["result"] == WON else line["stake"],
    )
    for line in settled:
        part = next(p for p in parts(placed[line["id"]]) if p["part"] == line["part"])
        lines.append({**part, **line, "name": names[line["player"]]})
    return lines


def my_view(state: State, seat: str | None, now: float | None = None) -> dict[str, Any] | None:
    """A seat's own part of :func:`view`: its chips, its bets, what the rules let it do now."""
    if not table.seated(state, seat):
        return None
    deal = state["deal"]
    most = min(state["bank"], state["players"][seat]["chips"])
    bets = deal["bets"] if deal else []
    return rotation.seat_view(
        state, seat, bets, most, {BETTING: {"close"}, DEAL_OVER: {"next", "aces"}}
    )


def live_commitment(state: State) -> str | None:
    """The commitment of the deck a deal is dealing from, whose order must stay secret."""
    shuffle = state.get("shuffle")
    if not shuffle or state["phase"] not in (CUT, BETTING):
        return None
    return shuffle["commitment"]


def hand_record(before: State, after: State) -> dict[str, Any]:
    """A deal (or a void deal) in the scenario format of docs/scenarios.md, with its result as
    recorded. Its deck is the order as cut, the one the layout was dealt from; ``shuffle`` opens
    the seal. Each deal is its own shuffle, done once it is recorded."""
    deal = after["last_deal"]
    banker = before["banker"]
    costs = [{"player": b["player"], "amount": cost(b)} for b in deal["bets"]]
    chips_before, chips_after = hand_records.punters_chips(before, after, banker, costs)
    settings = before["settings"]
    entry = {
        "game": NAME,
        "bank": deal["bank"],
        "limits": {"min": settings["min_bet"]},
        "levy": settings["levy"],
        "players": chips_before,
        "deck": deal["deck"],
        "bets": [scenario_bet(b) for b in deal["bets"]],
        "meta": {
            "deal": deal["number"],
            "banker": banker,
            "names": hand_records.names(after),
            "passed": after["passed"]
            if after["passed"] and after["passed"]["version"] == after["version"]
            else None,
        },
        "shuffle": hand_records.sealed(deal["shuffle"], deal["shuffle"]["cut"]),
    }
    if deal["void"]:
        entry["result"] = {
            "void": deal["void"],
            "layout": deal["layout"],
            "bank": deal["bank"],
            "players": chips_after,
            "settled": [],
        }
        return entry
    result = deal["result"]
    entry["result"] = {
        "layout": deal["layout"],
        "turned": result["turned"],
        "bank": result["bank"],
        "levy": result["levy"],
        "players": chips_after,
        "settled": [_settled_line(line) for line in result["settled"]],
    }
    return entry


def scenario_bet(placed: dict) -> dict[str, Any]:
    keys = ("player", "kind", "on", "against", "side", "amount")
    return {key: placed[key] for key in keys if key in placed}


def _settled_line(line: dict) -> dict[str, Any]:
    return {key: line[key] for key in ("bet", "part", "result", "net", "levy")}


def emptied_by(entry: dict[str, Any]) -> str | None:
    """Who broke the bank in a recorded hand (``Game.emptied_by``): its settled lines as the
    bank paid them, each part of a bet on its own."""
    return settlement.emptied_by(entry["bank"], entry["bets"], entry["result"]["settled"])


def shares(hands: list[dict[str, Any]]) -> dict[str, int]:
    """The levy pots of a night's banks as they were split (``Game.shares``): each bank's pot is
    the levy of its deals, split when it passes (its next deal is a new bank's first, or the
    night is over), half rounded down to its banker and the rest to the house."""
    split: dict[str, int] = {"house": 0}
    pot = 0
    for i, hand in enumerate(hands):
        pot += hand["result"].get("levy", 0)
        following = hands[i + 1] if i + 1 < len(hands) else None
        if following is None or following["meta"].get("deal") == 1:
            banker = hand["meta"]["banker"]
            split[banker] = split.get(banker, 0) + pot // 2
            split["house"] += pot - pot // 2
            pot = 0
    return split


def record_lines(entry: dict[str, Any]) -> tuple[list[dict], list[dict]]:
    """A recorded deal's bets and one settled line per bet (a Monte Carlo's parts summed)."""
    merged: dict[int, dict] = {}
    for line in entry["result"]["settled"]:
        if line["bet"] in merged:
            total = merged[line["bet"]]
            total["net"] += line["net"]
            total["levy"] += line["levy"]
            if total["result"] != line["result"]:
                # Parts that went different ways: the bet as a whole, "even" when they cancel.
                total["result"] = (
                    "won" if total["net"] > 0 else "lost" if total["net"] < 0 else "even"
                )
        else:
            merged[line["bet"]] = dict(line)
    return entry["bets"], [merged[i] for i in sorted(merged)]


# --- a scenario, the odds, an opened deck ----------------------------------------------------


def replay(data: dict) -> dict[str, Any]:
    """One deal of a scenario file (docs/scenarios.md), settled as the table settles it."""
    bank = whole_number(field(data, "bank"), "the bank", 1)
    limits = field(data, "limits") if "limits" in data else {"min": 1}
    if not isinstance(limits, dict):
        raise ScenarioError('"limits" must be an object with "min"')
    if set(limits) - {"min"}:
        raise ScenarioError('"limits" has only "min": the bank is the most a bet may be')
    low = whole_number(field(limits, "min", '"limits"'), "the smallest bet", 1)
    levy = data.get("levy", True)
    if not isinstance(levy, bool):
        raise ScenarioError('"levy" is true or false')
    players = seated_chips(data)
    deck = deck_order(FRENCH, field(data, "deck"))
    left = dict(players)
    bets = []
    for i, raw in enumerate(listed(data, "bets")):
        placed = _scenario_bet(f"bets[{i}]", raw, players, bank, low)
        left[placed["player"]] -= cost(placed)
        if left[placed["player"]] < 0:
            player = placed["player"]
            raise ScenarioError(
                f"bets[{i}]: {player} has {players[player]} chips and would have "
                f"{players[player] - left[player]} on the table"
            )
        bets.append(placed)
    dealt = deal_layout(deck)
    if dealt["void"]:
        if bets:
            raise ScenarioError(
                f"the deal is void ({dealt['void']}): it is dealt again, and carries no bets"
            )
        return {
            "void": dealt["void"],
            "layout": dealt["layout"],
            "bank": bank,
            "players": players,
            "settled": [],
        }
    outcome = play_deal(bank, dealt["layout"], dealt["rest"], bets, levy)
    return {
        "layout": dealt["layout"],
        "turned": outcome["turned"],
        "bank": outcome["bank"],
        "levy": outcome["levy"],
        "players": net_chips(players, outcome["settled"]),
        "settled": [_settled_line(line) for line in outcome["settled"]],
    }


def _scenario_bet(where: str, raw: object, players: dict, bank: int, low: int) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where} must be an object")
    player = field(raw, "player", where)
    if not isinstance(player, str) or player not in players:
        raise ScenarioError(f"{where}: {quoted(player)} is not one of the players")
    unknown = set(raw) - {"player", "kind", "on", "against", "side", "amount"}
    if unknown:
        raise ScenarioError(f"{where}: unknown field {quoted(sorted(unknown)[0])}")
    placed = {key: raw[key] for key in ("kind", "on", "against", "side") if key in raw}
    try:
        check_bet(placed)
    except RulesError as error:
        raise ScenarioError(f"{where}: {error}") from None
    needed = {"round": {"on"}, "cross": {"on", "against"}, "double": {"side"}}.get(
        placed["kind"], {"on", "against", "side"}
    )
    extra = set(placed) - {"kind"} - needed
    if extra:
        raise ScenarioError(f"{where}: a {placed['kind']} bet has no {sorted(extra)[0]}")
    amount = whole_number(field(raw, "amount", where), f"{where}: the amount", 1)
    if amount < low:
        raise ScenarioError(f"{where}: the table minimum is {low}: a bet of {amount} is under it")
    if amount > bank:
        raise ScenarioError(f"{where}: the bank holds {bank}: a bet of {amount} is over it")
    return {"player": player, **placed, "amount": amount}


# A part of a bet is decided by the first turned card among its deciding cards (``deciding``), and
# every order of the unseen cards is as likely: it wins with the share of its winning cards among
# its deciding cards, and is won by the very first card (the levy) with the share of its winning
# cards among all the unseen cards. Exact, with no enumeration needed beyond those counts.

# A layout of each kind: the chances depend only on the stack at ul (the colour rule is the same
# for every rank and suit), so these stand for every deal with no stack, a pair or a triple.
ODDS_LAYOUTS = {
    1: {"ul": ["5S"], "ur": ["JD"], "ll": ["3C"], "lr": ["KH"]},
    2: {"ul": ["7S", "7C"], "ur": ["AD"], "ll": ["3C"], "lr": ["KH"]},
    3: {"ul": ["7S", "7C", "7H"], "ur": ["AD"], "ll": ["3C"], "lr": ["KH"]},
}


def part_odds(layout: dict, part: dict, levy: bool) -> Odds:
    """One part of a bet on a dealt layout, per chip staked (the levy as a quarter of the win,
    what it takes of a stake that is a multiple of 4; less, rounded down, of others)."""
    win, lose = deciding(layout, part)
    unseen = len(FRENCH.codes) - sum(len(cards) for cards in layout.values())
    pays = PAYS[part["part"]]
    p_win = Fraction(len(win), len(win) + len(lose))
    chances = [(-1, 1 - p_win)]
    if levy:
        first = Fraction(len(win), unseen)
        chances += [(pays - Fraction(pays, LEVY_SHARE), first), (pays, p_win - first)]
    else:
        chances.append((pays, p_win))
    return Odds(tuple((net, p) for net, p in chances if p))


def layout_odds(layout: dict, levy: bool) -> dict[str, Odds]:
    """Each kind of bet on a layout: a round, a cross of two singles, a cross of the stack
    against a single (with a stack), a double. A Monte Carlo is its three parts."""
    bets = {
        "round": part_odds(layout, {"part": "round", "on": "ur"}, levy),
        "cross": part_odds(layout, {"part": "cross", "on": "ur", "against": "ll"}, levy),
        "double": part_odds(layout, {"part": "double", "side": "upper"}, levy),
    }
    if len(layout["ul"]) > 1:
        bets["cross_stack"] = part_odds(
            layout, {"part": "cross", "on": "ul", "against": "lr"}, levy
        )
    return bets


def table_odds(state: State) -> dict[str, Any]:
    """The bets on a layout of each kind with this table's levy, and on the deal in play."""
    levy = state["settings"]["levy"]
    deal = state["deal"]
    betting = state["phase"] == BETTING and deal is not None
    return {
        "kinds": {size: layout_odds(layout, levy) for size, layout in ODDS_LAYOUTS.items()},
        "deal": layout_odds(deal["layout"], levy) if betting else {},
        "stack": len(deal["layout"]["ul"]) if betting else None,
    }


def check_dealt(hands: list[tuple[str, dict]], dealt: list[str]) -> list[str]:
    """Each deal is its own shuffle, and its scenario's deck is the cut order the layout was
    dealt from (a void deal too)."""
    problems = []
    for where, hand in hands:
        if hand.get("deck") != dealt:
            problems.append(f"{where}: its deck is not the committed deck as cut")
        elif hand["result"].get("layout") != deal_layout(dealt)["layout"]:
            problems.append(f"{where}: its layout is not the one dealt from the committed deck")
    return problems


# --- a computer player -------------------------------------------------------------------


def play(view_: dict[str, Any], rng: Random, idle: float) -> computer.Move:
    """A computer player's next action from its seat's view (``Game.play``): as banker it puts
    up the table's bank, closes the bets once they are in, and once the table has seen the deal
    deals on, saying "Aces" now and then after its second deal; as a punter it cuts when asked and stakes a little a deal on the
    even-money bets (mostly a double on a side, sometimes a cross), seldom a round."""
    me = view_["me"]
    can = set(me["can"]) if me else set()
    least = view_["settings"]["min_bet"]
    if "bank" in can:
        return "bank", {"amount": me["bank_offer"]}
    if "cut" in can:
        return computer.cut(rng, view_["deck"])
    if "close" in can:
        return ("close", {}) if computer.bets_are_in(view_, least, idle) else None
    if "aces" in can and not computer.result_seen(idle):
        return None
    if "aces" in can:
        return ("aces", {}) if view_["deals"] >= 2 and rng.random() < 0.2 else ("next", {})
    if "bet" in can and not me["bets"]:
        amount = computer.stake(rng, least, me["most"], me["chips"])
        # Every field of the phone's tap is sent; a bet that is not a Monte Carlo ignores the
        # position it plays against and its side.
        spot = {"bet_kind": "layout", "against": "ll", "side": "upper", "amount": amount}
        roll = rng.random()
        if roll < 0.6:
            return "bet", {**spot, "at": rng.choice(tuple(SIDES))}
        first, then = rng.sample(POSITIONS, 2) if roll < 0.9 else [rng.choice(POSITIONS)] * 2
        return "bet", {**spot, "at": then, "first": first}
    return None


# --- the game's interface (montones.rules.games.Game) -------------------------------------------

NAME = "monte_bank"
TITLE = Phrase("Monte Bank")
ROUND = "deal"  # a deal: the four cards, the bets, the cards turned
SETTLES = "deal_done"  # a deal settled, or found void: either is a record that opens its seal
HIDDEN_WHILE_LIVE = ("deck",)
SEALED = hand_records.OPENS
DECK = FRENCH

ACTIONS: dict[str, Action] = {
    **rotation.bank_actions(put_up_bank),
    "cut": Action(
        lambda s, who, p, now: cut_deck(s, who, p["position"], now),
        (Field("position", Phrase("The cut")),),
    ),
    "bet": Action(
        lambda s, who, p, now: bet(s, who, tapped(p), p["amount"]),
        (
            Field("at", Phrase("The place"), str),
            Field("bet_kind", Phrase("The kind of bet"), str),
            Field("first", Phrase("The position tapped first"), str, optional=True),
            Field("against", Phrase("The position it plays against"), str),
            Field("side", Phrase("The side"), str),
            Field("amount", Phrase("The amount")),
        ),
        tap=True,
    ),
    "change": Action(
        lambda s, who, p, now: change(s, who, p["bet"], p["amount"]),
        (Field("bet", Phrase("The bet")), Field("amount", Phrase("The amount"))),
    ),
    "withdraw": Action(
        lambda s, who, p, now: withdraw(s, who, p["bet"]), (Field("bet", Phrase("The bet")),)
    ),
    "close": Action(lambda s, who, p, now: close_bets(s, who)),
    "next": Action(lambda s, who, p, now: next_deal(s, who, now)),
    "aces": Action(lambda s, who, p, now: aces(s, who)),
    **table.host_actions(leave),
}

SETTINGS = (
    Field("min_bet", Phrase("The minimum bet")),
    Field("mb_bank_size", Phrase("The bank")),
    Field("mb_levy", Phrase("The levy"), bool),
    Field("mb_deals_per_bank", Phrase("Deals per bank"), optional=True),
    Field("mb_banks_each", Phrase("Banks for each player")),
    Field("cut_timeout", Phrase("The time to cut"), optional=True),
)


def settings_from(values: dict[str, Any]) -> dict[str, Any]:
    """A table's settings from the lobby's fields (:data:`SETTINGS`; this game's own fields
    are prefixed, the lobby's form holding every game's), for :func:`new_table`."""
    settings = {
        "min_bet": values["min_bet"],
        "bank_size": values["mb_bank_size"],
        "levy": values["mb_levy"],
        "deals_per_bank": values.get("mb_deals_per_bank"),
        "banks_each": values["mb_banks_each"],
    }
    if "cut_timeout" in values:
        settings["cut_timeout"] = values["cut_timeout"]
    return settings


def stage(state: State) -> str:
    """What a screen was showing: a void deal is shuffled again, so shuffles count the deals."""
    return rotation.stage(state, state["shuffles"])


def balances(state: State) -> dict[str, int]:
    """Where every chip of the table is: the players', the bank, stakes on the table, the levy
    pot, and what the house has taken of it (chips that left play)."""
    deal = state["deal"]
    open_bets = deal["bets"] if deal and state["phase"] == BETTING else []
    accounts = rotation.balances(state, sum(cost(b) for b in open_bets))
    accounts["levy"] = state["pot"]
    accounts["house"] = state["house"]
    return accounts


# What each step of the TV's demonstration shows (``Game.caption``): an action's kind to the
# code of its caption (templates/games/monte_bank/_demo.html words it).
CAPTIONS = {"seated": "seated", "draw": "draw", "bank": "bank", "cut": "cut", "bet": "bet"}
_VOID_CAPTIONS = {
    FOUR_OF_A_RANK: "void_four",
    LOWER_PAIR: "void_lower_pair",
    LOWER_MATCHES_UPPER: "void_lower_matches_upper",
}


def caption(kind: str, view_: dict[str, Any]) -> str:
    """The caption of a demonstration's step: what ``kind`` means; a cut that found the deal
    void, why; and bets closed, how the cards turned decide them."""
    void = view_["void"]
    if kind == "cut" and void is not None and void["fresh"]:
        return _VOID_CAPTIONS[void["why"]]
    if kind == "close" and view_["result"] is not None:
        return "turned"
    return CAPTIONS[kind]


def status_view(view_: dict[str, Any]) -> dict[str, Any]:
    """What a phone's status is drawn from, and nothing more (its template's ``v``): not the
    layout's bets, which the felt shows."""
    return {
        **{key: view_[key] for key in _STATUS_KEYS},
        "settings": {key: view_["settings"][key] for key in ("levy", "deals_per_bank")},
    }


_STATUS_KEYS = (
    "phase", "me", "bank", "banker", "banker_name", "banker_computer", "passed", "deal", "result", "pot",
    "turned", "void", "cut_deadline", "cut_by_clock", "cutter", "cutter_name",
)  # fmt: skip


def bar_view(view_: dict[str, Any]) -> dict[str, Any]:
    """What a phone's action bar is drawn from, and nothing more (its template's ``v``)."""
    me = view_["me"] or {}
    return {
        "phase": view_["phase"],
        "me": {
            key: me.get(key) for key in ("can", "chips", "bank_offer", "is_banker", "most", "bets")
        },
        **{
            key: view_[key]
            for key in ("bank", "banker_name", "cutter_name", "deck", "on_table", "pot")
        },
        "settings": {key: view_["settings"][key] for key in ("min_bet", "levy")},
    }
