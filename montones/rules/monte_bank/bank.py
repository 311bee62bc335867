"""A Monte Bank table: settings and phases, the bank put up and passed on, the shuffle and the
cut, a void deal cut again, the levy's pot split, the night's end."""

from __future__ import annotations

from montones.rules import own_deck, rotation, table
from montones.rules.errors import Phrase, RulesError
from montones.rules.monte_bank.settle import POSITIONS, cost, deal_layout
from montones.rules.rotation import BANK, BETTING, CUT, require_banker
from montones.rules.table import Events, State, action, is_count, require_phase

DEFAULT_SETTINGS = {
    "min_bet": 1,
    "levy": True,
    "deals_per_bank": None,
    "banks_each": 1,
    "bank_size": 50,
    "cut_timeout": 30,
    "side_cards": 0,
}

# Phases: seating -> bank -> cut -> betting -> deal_over -> cut ... (aces) -> bank ... -> finished
DEAL_OVER = "deal_over"  # the deal is over; the other phases are the rotation's
SEATING = rotation.SEATING  # a table starts in it (rotation.new_state)


def side_cards(settings: dict) -> int:
    """The side cards a table deals (a table made before the option deals none)."""
    return settings.get("side_cards", 0)


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
    if not is_count(settings["side_cards"]) or not 0 <= settings["side_cards"] <= 2:
        raise RulesError("a table deals 0, 1 or 2 side cards")
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


def check_phase(state: State, *phases: str) -> None:
    require_phase(state, _PHASE_REFUSAL, *phases)


def _right_of(state: State, pid: str) -> str | None:
    """The punter on ``pid``'s right: the previous seat in joining order."""
    others = [p for p in table.left_of(state, pid) if p != pid]
    return others[-1] if others else None


@action
def put_up_bank(
    state: State, events: Events, pid: str, amount: int, now: float, deck: list[str] | None = None
) -> None:
    """The banker puts up a bank of any size up to their chips (at least the table minimum,
    or nobody could bet); the first deal is shuffled and sealed."""
    check_phase(state, BANK)
    rotation.put_up(state, pid, amount, least=state["settings"]["min_bet"])
    state["deals"] = 0
    events.append({"type": "bank_put_up", "banker": pid, "amount": amount})
    _shuffle(state, events, now, deck)


def _shuffle(state: State, events: Events, now: float, deck: list[str] | None = None) -> None:
    """A fresh sealed shuffle for the next deal; the punter on the banker's right cuts. With
    the table's own cards, shuffled and cut by hand, the deal waits for its cards instead."""
    if own_deck.own(state):
        state["deck"], state["shuffle"], state["cutter"] = [], None, None
        state["shuffles"] += 1
        state["deal"] = {
            "number": state["deals"] + 1,
            "deck": [],
            "layout": {position: [] for position in POSITIONS},
            "entered": [],
            "turned": None,
            "bets": [],
            "next_bet": 1,
            "void": None,
            "result": None,
            "bank": state["bank"],
        }
        state["phase"] = own_deck.ENTERING
        events.append({"type": "shuffled", "own_deck": True})
        return
    rotation.shuffle(state, deck)
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
    dealt = deal_layout(state["deck"], side_cards(state["settings"]))
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


def return_bet(state: State, placed: dict) -> None:
    state["players"][placed["player"]]["chips"] += cost(placed)
    state["deal"]["bets"].remove(placed)


@action
def next_deal(state: State, events: Events, pid: str, now: float, deck: list[str] | None = None):
    """The banker goes on: the cards are gathered and shuffled for the next deal."""
    check_phase(state, DEAL_OVER)
    require_banker(state, pid)
    state["void"] = None
    _shuffle(state, events, now, deck)


@action
def aces(state: State, events: Events, pid: str) -> None:
    """ "Aces": the banker passes the bank between deals."""
    check_phase(state, DEAL_OVER)
    require_banker(state, pid)
    pass_bank(state, events, "aces")


@action
def leave(state: State, events: Events, pid: str) -> None:
    """A player leaves: open bets go back; a leaving banker's bank passes at once."""
    deal = state["deal"]
    # Bets whose cards are being turned by hand stay, unless the bank goes with its banker.
    turning = state["phase"] == own_deck.ENTERING and pid == state["banker"]
    open_bets = deal["bets"] if deal and (state["phase"] == BETTING or turning) else []
    rotation.leave(state, events, pid, open_bets, return_bet, pass_bank, _cut)


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


def pass_bank(state: State, events: Events, why: str) -> None:
    """The bank goes back to the banker's chips with half the pot, and passes to the left."""
    split = _split_pot(state, state["banker"], events)
    state["deal"] = None
    state["shuffle"] = None
    least = state["settings"]["min_bet"]
    rotation.pass_bank(state, events, why, least, deals=state["deals"], split=split)


@action
def finish(state: State, events: Events) -> None:
    """The night is over: open bets go back, a running bank returns to its banker, and the pot
    is split as when the bank passes."""
    deal = state["deal"]
    if deal and state["phase"] in (BETTING, own_deck.ENTERING):
        for placed in list(deal["bets"]):
            return_bet(state, placed)
    banker = state["banker"]
    rotation.close_bank(state, events, state["deals"])
    if banker is not None:
        _split_pot(state, banker, events)
    state["deal"] = None
    rotation.night_over(state, events)


NAME = "monte_bank"
SETTLES = "deal_done"  # a deal settled, or found void: either is a record that opens its seal
