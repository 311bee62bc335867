"""What Monte and Monte Bank share, as games whose bank goes round the table: the first
banker drawn, a bank put up and passed on, each deal cut by the punter whose turn it is, and
the night over once everyone has held the bank the agreed number of times. Their phases carry
the same names; each game adds its own for a deal that is over."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from montones.rules import betting_time, chance, table
from montones.rules.cards import FRENCH, cut
from montones.rules.errors import Phrase, RulesError
from montones.rules.fairness import new_shuffle
from montones.rules.table import Action, Events, Field, State, action, is_count

SEATING, BANK, CUT, BETTING, FINISHED = "seating", "bank", "cut", "betting", "finished"


# Why an action is refused in a phase it does not belong to; each game adds its own for a deal
# that is over.
REFUSALS = {
    SEATING: Phrase("the game has already started"),
    BANK: Phrase("the bank is not waiting to be put up"),
    CUT: Phrase("the deck is not waiting for a cut"),
    BETTING: Phrase("bets are closed"),
}


def new_state(game: str, settings: dict[str, Any], **rest: Any) -> State:
    """A table whose bank goes round, as it starts (``table.new_state``): seating, nobody has
    drawn for the first bank, no banker and no bank, no player has held one; ``rest`` is the
    game's own."""
    return table.new_state(
        game, settings, phase=SEATING, draws=[], banker=None, banks={}, bank=0, **rest
    )


def require_banker(state: State, pid: str) -> None:
    if pid != state["banker"]:
        raise RulesError("only the banker can do that")


def put_up(state: State, pid: str, amount: int, least: int = 1) -> None:
    """The banker puts ``amount`` of their chips up as the bank: a whole number of chips, at
    least ``least`` (the table's minimum bet, where the game has one)."""
    require_banker(state, pid)
    if not is_count(amount) or amount <= 0:
        raise RulesError("a bank must be a whole number of chips, at least 1")
    if amount < least:
        raise RulesError("a bank must hold at least the table minimum of %(least)s", least=least)
    table.take_bank(state["players"][pid], amount)
    state["bank"] = amount


def betting(state: State) -> bool:
    """Whether the table takes bets (what its betting time counts, montones.rules.betting_time)."""
    return state["phase"] == BETTING


def shuffle(state: State, deck: list[str] | None = None) -> None:
    """A fresh deck for the bank to deal from (``deck``: an order given, as a test or a scenario
    gives one), sealed by its commitment before the cut and the first bet."""
    state["deck"] = (
        FRENCH.parse_order(deck) if deck is not None else FRENCH.shuffled(chance.source())
    )
    state["shuffle"] = new_shuffle(state["deck"])


def live_commitment(state: State, *over: str) -> str | None:
    """The commitment of the deck the bank is dealing from, whose order must stay secret: while
    it waits for its cut, takes bets, or is in one of the game's ``over`` phases (a deal over,
    with more to come from the same deck)."""
    sealed = state.get("shuffle")
    if not sealed or state["phase"] not in (CUT, BETTING, *over):
        return None
    return sealed["commitment"]


def cut_at(state: State, events: Events, position: int | None, how: str) -> None:
    """The cutter cuts the deck at ``position`` (None: at random); the shuffle's record keeps
    where, by whom and how ("punter", "random" when the clock cut, "cutter left", "nobody to
    cut")."""
    if position is None:
        position = chance.source().randint(1, len(state["deck"]) - 1)
    state["deck"] = cut(state["deck"], position)
    state["shuffle"]["cut"] = position
    state["shuffle"]["cut_by"] = {"player": state["cutter"], "how": how}
    events.append({"type": "cut", "position": position, "how": how, "player": state["cutter"]})


def cut_by_clock(state: State, names: dict[str, str]) -> str | None:
    """The name of the punter whose time to cut ran out, when the clock made the cut of the
    deck in play (as :func:`cut_at` recorded it); None for any other cut."""
    cut_by = (state["shuffle"] or {}).get("cut_by")
    return names.get(cut_by["player"]) if cut_by and cut_by["how"] == "random" else None


def stage(state: State, deals: int) -> str:
    """What a screen was showing (a request made at another stage is stale): the banker, the
    banks they have held, the deals the game has counted (``deals``) and the phase."""
    banks = state["banks"].get(state["banker"], 0) if state["banker"] else 0
    return f"{state['banker']}-{banks}-{deals}-{state['phase']}"


def balances(state: State, stakes: int) -> dict[str, int]:
    """Where the chips of a table whose bank goes round are: the players', the bank and the
    ``stakes`` of the bets still open; a game adds its own accounts."""
    accounts = table.players_chips(state)
    accounts["bank"] = state["bank"]
    accounts["stakes"] = stakes
    return accounts


def punter(state: State, pid: str) -> dict:
    """The player about to bet: the table must be taking bets, and they must be at it, not
    the banker and not sitting out."""
    table.require_phase(state, REFUSALS, BETTING)
    player = table.player(state, pid)
    if pid == state["banker"]:
        raise RulesError("the banker does not bet against the bank")
    if player["sitting_out"]:
        raise RulesError("you are sitting out")
    return player


def leave(
    state: State,
    events: Events,
    pid: str,
    open_bets: list[dict],
    return_bet: Callable[[State, dict], None],
    pass_bank: Callable[[State, Events, str], None],
    cut: Callable[[State, Events, int | None, str], None],
) -> None:
    """A player leaves. A banker leaving a running bank gives every open bet back to its punter
    (``return_bet``) and the bank passes at once (``pass_bank``, "banker left"); anyone else
    takes their own open bets back, and if it was theirs to cut the deck is cut at random
    (``cut``, "cutter left")."""
    player = table.player(state, pid)
    if pid == state["banker"] and state["phase"] not in (SEATING, FINISHED):
        for placed in list(open_bets):
            return_bet(state, placed)
        player["left"] = True
        pass_bank(state, events, "banker left")
    else:
        for placed in [b for b in open_bets if b["player"] == pid]:
            return_bet(state, placed)
        player["left"] = True
        if state["phase"] == CUT and pid == state["cutter"]:
            cut(state, events, None, "cutter left")
    events.append({"type": "left", "player": pid})


@action
def join(
    state: State, events: Events, pid: str, name: str, chips: int, computer: bool = False
) -> None:
    table.seat_player(state, events, pid, name, chips, computer)
    state["banks"][pid] = 0


@action
def draw_for_bank(state: State, events: Events, deck: list[str] | None = None) -> None:
    """Everyone draws a card; the highest (K high, A low) is the first banker (equal highest
    draw again)."""
    table.require_phase(state, REFUSALS, SEATING)
    rounds, banker = table.draw_first_banker(table.active(state), FRENCH, deck, chance.source())
    state["draws"], state["banker"], state["phase"] = rounds, banker, BANK
    events.append({"type": "drawn", "draws": rounds, "banker": banker})


def bank_actions(put_up_bank: Callable[..., tuple[State, Events]]) -> dict[str, Action]:
    """The actions that start a bank: the host has everyone draw for the first banker
    (``draw``), and the banker puts up a bank of an amount (``bank``, the game's
    ``put_up_bank``, told the time it is put up)."""
    return {
        # A move of the game, as a card entered is: refused while the table is paused.
        "draw": Action(lambda s, who, p, now: draw_for_bank(s), host=True, plays=True),
        "bank": Action(
            lambda s, who, p, now: put_up_bank(s, who, p["amount"], now),
            (Field("amount", Phrase("The bank")),),
        ),
    }


def after_pause(state: State, now: float, paused_for: float) -> State:
    """The table as the host's pause leaves it: a player who is to cut gets the whole cut time
    again, and bets open the whole betting time. A bank lasts a number of deals, not a time,
    so ``paused_for`` moves nothing."""
    new = betting_time.after_pause(state, now)
    if new["phase"] == CUT:
        new["cut_started"] = now
    return new


def cut_deadline(state: State) -> float | None:
    """When the punter to cut runs out of time, if the deck waits for a cut."""
    if state["phase"] != CUT:
        return None
    return state["cut_started"] + state["settings"]["cut_timeout"]


def cut_actions(
    refusals: dict[str, Phrase], cut: Callable[[State, Events, int | None, str, float], None]
):
    """The game's two cut actions (see :func:`table.cut_actions`): the punter to cut is
    ``state["cutter"]``, with the time :func:`cut_deadline` gives."""
    return table.cut_actions(refusals, lambda state: state["cutter"], cut_deadline, cut)


def follow_up(state: State, now: float) -> tuple[str, State, Events] | None:
    """Nothing happens by itself after an action."""
    return None


def over(state: State) -> bool:
    """The night ends by itself once everyone has held the bank the agreed number of times."""
    return state["phase"] == FINISHED


def standings(state: State) -> list[dict]:
    """The players by chips (``table.standings``), an open bank counted as its banker's."""
    banker = state["banker"]
    return table.standings(state, {banker: state["bank"]} if banker and state["bank"] else None)


def settings_for_rounds(rounds: int) -> dict[str, Any]:
    """A night that lasts ``rounds`` rounds at least: banks enough for every player (every bank
    plays a round or more), up to the most a table takes."""
    return {"banks_each": min(rounds, table.MOST_ROUNDS)}


def between_banks(state: State) -> bool:
    """No bank is running and one has: the TV has room for the night so far."""
    return state["phase"] == FINISHED or (state["phase"] == BANK and any(state["banks"].values()))


def seats_view(
    state: State, open_bets: list[dict], cost: Callable[[dict], int] = lambda b: b["amount"]
) -> list[dict]:
    """The players still at the table as a view lists them: their chips, who holds the bank and
    who is to cut, the banks each has held, and what each has staked on the bets still open
    (``cost``: the chips a bet takes from its player)."""
    phase, banker = state["phase"], state["banker"]
    return [
        {
            "id": pid,
            "name": p["name"],
            "computer": table.is_computer(state, pid),
            "chips": p["chips"],
            "is_banker": pid == banker,
            "is_cutter": phase == CUT and pid == state["cutter"],
            "banks": state["banks"][pid],
            "staked": sum(cost(b) for b in open_bets if b["player"] == pid),
        }
        for pid, p in state["players"].items()
        if not p.get("left")
    ]


def night_view(state: State, names: dict[str, str], first_draw: bool) -> dict[str, Any]:
    """A view's part about the night rather than the deal: the draw for the first bank (while
    ``first_draw``, nothing dealt since), the bank last passed with its banker's name, the
    standings once the night is over (every bank back in its banker's chips by then), whether
    it stands between banks (the TV has room for the night so far), and the table's settings."""
    passed = state.get("passed")
    return {
        "draws": [
            [{"player": pid, "name": names[pid], "card": card} for pid, card in draw.items()]
            for draw in state["draws"]
        ]
        if first_draw
        else [],
        "passed": passed and {**passed, "name": names[passed["banker"]]},
        "standings": table.standings(state) if state["phase"] == FINISHED else [],
        "between_banks": between_banks(state),
        "settings": state["settings"],
    }


def pass_bank(state: State, events: Events, why: str, least: int, **passed: Any) -> None:
    """The bank passes (``why``): it goes back into its banker's chips, one more of the banks
    they are owed held, and is recorded as passed with the game's own ``passed`` details. The
    deck is gathered, and the next player to the left still owed a bank with at least ``least``
    chips to put one up takes it (:func:`table.next_banker`); when nobody is, the night is over."""
    banker = state["banker"]
    state["players"][banker]["chips"] += state["bank"]
    state["banks"][banker] += 1
    state["passed"] = {
        "banker": banker,
        "amount": state["bank"],
        "why": why,
        **passed,
        "version": state["version"] + 1,
    }
    events.append({"type": "bank_passed", "banker": banker, "amount": state["bank"], "why": why})
    state["bank"] = 0
    state["deck"] = []
    following = table.next_banker(state, events, banker, least=least)
    if following is not None:
        state["banker"], state["phase"] = following, BANK
        return
    night_over(state, events)


def close_bank(state: State, events: Events, dealt: int) -> None:
    """The host ends the night with a bank running: it goes back into its banker's chips. It
    counts as one of their banks held once it has dealt (``dealt``: its coups or deals), as
    the TV counts them: a banker who ran two coups held a bank."""
    banker = state["banker"]
    # In the bank phase the banker has put up nothing yet: ``dealt`` is the bank before's.
    if banker is not None and state["phase"] != BANK and dealt:
        state["banks"][banker] += 1
    if banker is not None and state["bank"]:
        state["players"][banker]["chips"] += state["bank"]
        events.append({"type": "bank_closed", "banker": banker, "amount": state["bank"]})
    state["bank"] = 0


def night_over(state: State, events: Events) -> None:
    """The night is over: no banker and no deck, and the standings for everyone (every bank is
    back in its banker's chips by now)."""
    state["banker"] = None
    state["deck"] = []
    state["phase"] = FINISHED
    events.append({"type": "finished", "standings": table.standings(state)})


def seat_view(
    state: State, seat: str, bets: list[dict], most: int, banker_can: dict[str, set[str]]
) -> dict[str, Any]:
    """A seat's own part of a view: its chips, its bets among the deal's ``bets``, the most it
    may bet now (``most``, never below 0), the bank it would put up, and what the rules let it
    do now: the banker puts up the bank (or does what ``banker_can`` gives them then), and in
    the game's own phases does what ``banker_can`` gives them; the punter whose turn it is cuts; a punter bets while ``most`` reaches the
    table minimum, and withdraws a bet of theirs."""
    player = state["players"][seat]
    phase = state["phase"]
    settings = state["settings"]
    is_banker = seat == state["banker"]
    can: set[str] = set()
    if phase == BANK and is_banker:
        can |= {"bank"} | banker_can.get(BANK, set())
    elif phase == CUT and seat == state["cutter"]:
        can.add("cut")
    elif is_banker:
        can |= banker_can.get(phase, set())
    elif phase == BETTING:
        if most >= settings["min_bet"]:
            can.add("bet")
        if any(b["player"] == seat for b in bets):
            can.add("withdraw")
    return {
        "id": seat,
        "name": player["name"],
        "chips": player["chips"],
        "is_banker": is_banker,
        "banks": state["banks"][seat],
        "bets": [b for b in bets if b["player"] == seat],
        "most": max(most, 0),
        "bank_offer": min(settings["bank_size"], player["chips"]),
        "can": sorted(can),
    }
