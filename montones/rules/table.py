"""What every game's engine shares: the shape of an action, the seats, the settings.

An engine is a module (``montones``, ``monte``, ``monte_bank``) that the registry
(:mod:`montones.rules.games`) names; the rest of the app asks it everything game-specific through
the names listed in :class:`montones.rules.games.Game`. What is the same in every game lives here once.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from montones.rules.errors import Phrase, RulesError
from montones.rules.plain import copy_state

State = dict[str, Any]
Events = list[dict[str, Any]]

# A stake of "all I can": worked out by the engine when the action arrives (its ``most_stake``),
# so a phone's all-in chip stays right however its chips have moved since it was drawn.
ALL_IN = "max"


@dataclass(frozen=True)
class Field:
    """One parameter of an action or a setting, as a form sends it: a whole number (``int``),
    a word (``str``) or a box ticked or not (``bool``). ``label`` names it in a refusal ("The
    heap is missing."); an ``optional`` field left empty is not passed at all."""

    name: str
    label: Phrase
    kind: type = int
    optional: bool = False


@dataclass(frozen=True)
class Action:
    """One thing a player (or the host) can do at a table.

    ``call(state, who, params, now)`` runs it and returns ``(new_state, events)``; ``fields``
    are its parameters; ``host``: only the host may do it; ``all_in(state, who)``, if given,
    is what an ``amount`` of :data:`ALL_IN` comes to when the action arrives; ``tap``: a tap on
    the felt does it, on the place named by its first field (a heap, a layout), with the stake
    chosen in the action bar when it has an ``amount``; ``confirm``: it cannot be taken back,
    so the screen asks "are you sure?" first; ``plays``: a host's action that is a move of the
    game (a card entered, the draw for the first bank), refused while the table is paused as
    every player's move is.
    """

    call: Callable[[State, str, dict[str, Any], float], tuple[State, Events]]
    fields: tuple[Field, ...] = ()
    host: bool = False
    all_in: Callable[[State, str], int] | None = None
    tap: bool = False
    confirm: bool = False
    plays: bool = False

    def params(self, state: State, who: str, given: dict[str, Any]) -> dict[str, Any]:
        """The action's parameters from those given: its fields only (an optional one left
        out stays out), the all-in chip worked out."""
        params = {f.name: given[f.name] for f in self.fields if f.name in given or not f.optional}
        if self.all_in is not None and params.get("amount") == ALL_IN:
            params["amount"] = self.all_in(state, who)
        return params


def action(func):
    """Run an action on a copy of the state and bump the version when it succeeds: a
    :class:`RulesError` leaves the caller's state as it was."""

    def run(state: State, *args, **kwargs) -> tuple[State, Events]:
        new = copy_state(state)
        events: Events = []
        func(new, events, *args, **kwargs)
        new["version"] += 1
        return new, events

    run.__name__ = func.__name__
    run.__doc__ = func.__doc__
    run.__wrapped__ = func
    return run


def is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def places(nets: list[int]) -> list[int]:
    """Each net's place in the standings, in the order given: 1 for the best, equal nets
    sharing one (1, 1, 3)."""
    best_first = sorted(nets, reverse=True)
    return [best_first.index(net) + 1 for net in nets]


def amount(value: object, what: str = Phrase("a bet")) -> int:
    """A number of chips to move, at least 1."""
    if not is_count(value):
        raise RulesError(
            "%(what)s must be a whole number of chips, not %(value)r", what=what, value=value
        )
    if value <= 0:
        raise RulesError("%(what)s must be at least 1 chip", what=what)
    return value


# What every table has, whatever its game: how many players it seats at most (a table of
# friends is a few; a casino night's busiest table about thirty), and whether it is a practice
# table (one person and computer players, which every screen of it says); and who enters the
# cards of a table played with its own deck (None: the table deals, montones.rules.own_deck).
OWN_DECK = "own_deck"
# The betting time: the seconds the punters have once bets open, after which bets close as the
# banker's close closes them (montones.rules.betting_time); None: the banker alone closes.
BETTING_TIME = "betting_time"
BETTING_TIMES = (20, 30, 60)  # what the forms offer
LEAST_BETTING, MOST_BETTING = 10, 600
TABLE_DEFAULTS = {"most_players": 40, "practice": False, OWN_DECK: None, BETTING_TIME: None}
TABLE_SETTINGS = (
    Field("most_players", Phrase("The most players"), optional=True),
    Field(OWN_DECK, Phrase("Our own deck"), str, optional=True),
    Field(BETTING_TIME, Phrase("The betting time"), optional=True),
)
# The most a host may set: a table's screens show every player (the TV's felt, the standings
# chart's lines), and a guest may make a table, so no table is larger than a busy night's.
MOST_PLAYERS = 40
# Seats a table gives over its night, those of players gone or sent away counted: a seat left
# empty can be taken again, and each keeps its line in the standings.
MOST_SEATS = 2 * MOST_PLAYERS


# The most any number a table's settings or a top-up takes may be: what a night at one table
# comes to. A guest may make a table, and none of its numbers is left to them unbounded (the
# form's parse stops only at a billion, the database's). The words say the figures, written out
# in each language.
MOST_CHIPS = 1_000_000  # a table's starting chips, a bank, a bet's limit, a top-up
MOST_MINUTES = 24 * 60  # a bank's time: a night is shorter than a day
MOST_SECONDS = 60 * 60  # the time to cut: an hour
# Banks each player holds, deals a bank runs, coups of a short bank: more than a night holds
# (montones simulate asks as many banks as the hands it plays, up to this: ``settings_for_rounds``).
MOST_ROUNDS = 1_000
_CHIPS = Phrase("%(setting)s can be at most 1,000,000 chips")
_ROUNDS = Phrase("%(setting)s can be at most 1,000")
BOUNDS: dict[str, tuple[int, Phrase, Phrase | None]] = {
    "min_bet": (MOST_CHIPS, _CHIPS, Phrase("min bet")),
    "max_bet": (MOST_CHIPS, _CHIPS, Phrase("max bet")),
    "bank_size": (MOST_CHIPS, _CHIPS, Phrase("bank size")),
    "tenure_minutes": (
        MOST_MINUTES,
        Phrase("the bank's time can be at most 1,440 minutes (a day)"),
        None,
    ),
    "cut_timeout": (
        MOST_SECONDS,
        Phrase("the time to cut can be at most 3,600 seconds (an hour)"),
        None,
    ),
    "banks_each": (MOST_ROUNDS, _ROUNDS, Phrase("banks each")),
    "deals_per_bank": (MOST_ROUNDS, _ROUNDS, Phrase("deals per bank")),
    "short_bank": (MOST_ROUNDS, _ROUNDS, Phrase("short bank")),
    # Monte Bank's side cards: the source's variant knows one or two.
    "side_cards": (2, Phrase("a table deals 0, 1 or 2 side cards"), None),
}


def bounded(settings: dict[str, Any]) -> None:
    """Refuse a setting past its bound (:data:`BOUNDS`); what is not a count is the game's to
    refuse."""
    for key, (most, words, setting) in BOUNDS.items():
        value = settings.get(key)
        if is_count(value) and value > most:
            raise RulesError(words, **({"setting": setting} if setting else {}))


def merged_settings(defaults: dict[str, Any], settings: dict | None) -> dict[str, Any]:
    """A table's settings: every table's and the game's defaults with those given over them;
    an unknown name is refused."""
    merged = {**TABLE_DEFAULTS, **defaults}
    for key, value in (settings or {}).items():
        if key not in merged:
            raise RulesError("unknown setting %(key)r", key=key)
        merged[key] = value
    if not isinstance(merged["practice"], bool):
        raise RulesError("the option %(flag)s is true or false", flag="practice")
    if merged[OWN_DECK] not in (None, "banker", "host"):
        raise RulesError("our own deck is entered by the banker or by the host")
    most = merged["most_players"]
    if not is_count(most) or not 2 <= most <= MOST_PLAYERS:
        raise RulesError("a table seats from 2 to %(most)s players", most=MOST_PLAYERS)
    check_betting_time(merged[BETTING_TIME])
    bounded(merged)
    return merged


def check_betting_time(seconds: object) -> None:
    """Refuse a betting time that is not None (none) or a whole number of seconds in bounds."""
    if seconds is not None and (
        not is_count(seconds) or not LEAST_BETTING <= seconds <= MOST_BETTING
    ):
        raise RulesError(
            "the betting time is from %(least)s to %(most)s seconds, or none",
            least=LEAST_BETTING,
            most=MOST_BETTING,
        )


def new_state(game: str, settings: dict[str, Any], **rest: Any) -> State:
    """The state every game's table starts from: no players, version 0."""
    return {"game": game, "version": 0, "settings": settings, "players": {}, "seats": [], **rest}


def player(state: State, pid: str) -> dict:
    found = state["players"].get(pid)
    if found is None or found.get("left"):
        raise RulesError("that player is not at the table")
    return found


def is_computer(state: State, pid: str) -> bool:
    """Whether ``pid`` is a computer player."""
    return state["players"][pid].get("computer", False)


def seated(state: State, seat: str | None) -> bool:
    return seat in state["players"] and not state["players"][seat].get("left")


def require_phase(state: State, refusals: dict[str, Phrase], *phases: str) -> None:
    """Refuse unless the table is in one of ``phases``, in the words of the first one's."""
    if state["phase"] not in phases:
        raise RulesError(refusals[phases[0]])


def no_room(state: State) -> RulesError | None:
    """Why nobody new can sit down now (the host closed the table, or it is full), or None:
    what the join form refuses, and what a watcher is told before choosing a name."""
    if state.get("closed"):
        return RulesError("the host has closed this table to new players")
    if len(state["players"]) >= MOST_SEATS:
        return RulesError(
            "this table has seated %(most)s players tonight: start a new one for more",
            most=MOST_SEATS,
        )
    at_table = sum(1 for other in state["players"].values() if not other.get("left"))
    most = state["settings"].get("most_players", TABLE_DEFAULTS["most_players"])
    if at_table >= most:
        return RulesError("the table is full: it seats %(most)s players", most=most)
    return None


def seat_player(
    state: State, events: Events, pid: str, name: str, chips: int, computer: bool = False
) -> None:
    """Seat a player with a name nobody at the table has and their starting chips;
    ``computer``: a computer player (its seat says so, for every screen to mark it)."""
    name = plain_name(name)
    if pid in state["players"]:
        raise RulesError("that seat is taken")
    refused = no_room(state)
    if refused is not None:
        raise refused
    for other in state["players"].values():
        # One name, one line in the standings: the host lets them back. Nor do they come back
        # under a name drawn nearly alike ("B0b" for "Bob").
        if other.get("left") and skeleton(other["name"]) == skeleton(name):
            raise RulesError(
                "%(name)s was sent away by the host: only the host can let them back in",
                name=other["name"],
            )
        if looks(other["name"]) == looks(name):
            raise RulesError("%(name)s is already at the table: choose another name", name=name)
    if not is_count(chips) or chips < 0:
        raise RulesError("starting chips must be a whole number, 0 or more")
    state["players"][pid] = {"name": name, "chips": chips, "sitting_out": False}
    if computer:
        state["players"][pid]["computer"] = True
    state["seats"].append(pid)
    events.append({"type": "joined", "player": pid, "chips": chips})


def plain_name(name: object) -> str:
    """A name as the table shows it: Unicode-normalised (NFKC, so a fullwidth or a ligature
    letter is the plain one), trimmed; refused if empty, too long, or not drawn as plain text
    (see :func:`_drawn_plainly`)."""
    name = unicodedata.normalize("NFKC", name).strip() if isinstance(name, str) else ""
    if not name:
        raise RulesError("a player needs a name")
    if len(name) > 24:
        raise RulesError("a name can have at most 24 characters")
    _drawn_plainly(name)
    return name


TABLE_NAME_LENGTH = 60


def table_name(name: object) -> str:
    """A table's name as every screen of it shows it, held to a player's name's checks (and
    at most ``TABLE_NAME_LENGTH`` characters); empty when none is given."""
    name = unicodedata.normalize("NFKC", name).strip() if isinstance(name, str) else ""
    if len(name) > TABLE_NAME_LENGTH:
        raise RulesError(
            "a table's name can have at most %(most)s characters", most=TABLE_NAME_LENGTH
        )
    _drawn_plainly(name)
    return name


def _drawn_plainly(name: str) -> None:
    """Refuse a name holding a character that is not shown as itself (a control or format
    character: an escape code, a zero-width mark, a bidi override, a line break), a letter
    under a stack of marks, or a character drawn as wide as a word."""
    if any(unicodedata.category(ch) in _HIDDEN for ch in name):
        raise RulesError("a name can only have letters, digits, spaces and punctuation")
    marks = 0
    for ch in name:
        marks = marks + 1 if unicodedata.category(ch) in _MARKS else 0
        if marks > MOST_MARKS:
            raise RulesError(
                "a name can have at most %(most)s marks on one letter", most=MOST_MARKS
            )
    if any(ch in _WIDE or 0x12000 <= ord(ch) <= 0x1254F for ch in name):
        raise RulesError("a name cannot have a character drawn as wide as a word")


# Characters that are not shown as themselves: controls, format characters (zero-width, bidi),
# line and paragraph separators, surrogates, private use and unassigned code points.
_HIDDEN = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"))
# Combining marks: a letter of a living language takes up to three (Vietnamese two, after
# NFKC has composed what it can; Devanagari and Thai up to three).
_MARKS = frozenset(("Mn", "Me"))
MOST_MARKS = 3
# Characters drawn as wide as several letters (besides the cuneiform signs, above): the
# Arabic ligature of a whole phrase, the two- and three-em dashes, the Javanese pada.
_WIDE = frozenset("\ufdfd\u2e3a\u2e3b\ua9c5")


def looks(name: str) -> str:
    """What a name looks like on a screen, for telling two names apart: case folded, runs of
    spaces as one, accents kept, and the Cyrillic and Greek letters drawn like Latin ones taken
    as those ("Аna" with a Cyrillic А looks like "Ana")."""
    return " ".join(name.casefold().translate(_LIKE_LATIN).split())


# Lower-case Cyrillic and Greek letters (names are case folded first) drawn like a Latin one.
_LIKE_LATIN = str.maketrans(
    "авһіјкмнорсѕтуԁԛхԝеαβεζηικμνορτυχ",
    "abhijkmhopcstydqxweabezhikmnoptyx",
)


def skeleton(name: str) -> str:
    """What is left of a name that a look at a screen would not tell apart: :func:`looks`,
    without accents, spaces or signs, and digits and signs drawn like a letter taken as it
    ("B0b", "Bób" and "B.o.b" are "bob")."""
    bare = unicodedata.normalize("NFD", looks(name).translate(_LIKE_LETTER))
    return "".join(ch for ch in bare if ch.isalnum())


_LIKE_LETTER = str.maketrans("0134578@$!|", "oleastbasil")


def left_of(state: State, pid: str) -> list[str]:
    """The seats still at the table in order from the one to the left of ``pid`` (the next
    seat), ``pid`` last."""
    seats = state["seats"]
    start = seats.index(pid)
    ring = seats[start + 1 :] + seats[: start + 1]
    return [p for p in ring if not state["players"][p].get("left")]


def active(state: State) -> list[str]:
    """The players still at the table, in seat order (to the left is the next seat)."""
    return [pid for pid in state["seats"] if not state["players"][pid].get("left")]


def next_banker(state: State, events: Events, banker: str, least: int) -> str | None:
    """Who takes the bank after ``banker``: the next player to the left still owed a bank
    (``banks_each``); one with fewer than ``least`` chips has nothing to put up, and their turn
    goes by (it counts as a bank). None when every player has had their banks."""
    for pid in left_of(state, banker) if banker in state["seats"] else active(state):
        if state["banks"][pid] >= state["settings"]["banks_each"]:
            continue
        if state["players"][pid]["chips"] < least:
            state["banks"][pid] += 1
            events.append({"type": "bank_skipped", "player": pid})
            continue
        return pid
    return None


def draw_first_banker(
    drawing: list[str], deck: Any, order: list[str] | None, rng: Any
) -> tuple[list[dict[str, str]], str]:
    """The draw for the first bank: each of ``drawing`` draws a card of ``deck`` (``order``:
    the cards as they come, else shuffled with ``rng``); the highest rank deals, and the
    equal highest draw again, from the same cards while they last. Returns the rounds drawn
    and the banker."""
    if len(drawing) < 2:
        raise RulesError("Monte needs at least two players")
    order = deck.parse_order(order) if order is not None else deck.shuffled(rng)
    rounds = []
    while len(drawing) > 1:
        if len(order) < len(drawing):
            order = deck.shuffled(rng)
        draw = {pid: order.pop(0) for pid in drawing}
        rounds.append(draw)
        best = max(deck.rank(card) for card in draw.values())
        drawing = [pid for pid in drawing if deck.rank(draw[pid]) == best]
    return rounds, drawing[0]


def own_bet(bets: list[dict], pid: str, bet_id: object) -> dict:
    """The bet ``bet_id`` among the open ``bets``, which must be ``pid``'s."""
    for placed in bets:
        if placed["id"] == bet_id:
            if placed["player"] != pid:
                raise RulesError("that bet is not yours")
            return placed
    raise RulesError("that bet is no longer on the table")


def withdraw(
    state: State,
    events: Events,
    pid: str,
    bets: list[dict],
    bet_id: object,
    return_bet: Callable[[State, dict], None],
) -> None:
    """A player takes their bet ``bet_id`` among the open ``bets`` back (``return_bet`` gives
    its stake back and takes it off the table); the game has checked that bets are open."""
    player(state, pid)
    placed = own_bet(bets, pid, bet_id)
    return_bet(state, placed)
    events.append({"type": "bet_withdrawn", **placed})


def cut_actions(
    refusals: dict[str, Phrase],
    cutter: Callable[[State], str | None],
    deadline: Callable[[State], float | None],
    cut: Callable[[State, Events, int | None, str, float], None],
):
    """A game's two ways to cut the deck, alike in every game: ``cut_deck``, the punter whose
    turn it is (``cutter(state)``) cuts ``position`` cards; ``cut_timed_out``, once their time
    (``deadline(state)``) has run out, the deck is cut at random for them. Both only while the
    deck waits for its cut (phase ``"cut"``, refused in the words of ``refusals``); then
    ``cut(state, events, position, how, now)`` is the game's own cut (``position`` None: at
    random)."""

    @action
    def cut_deck(state: State, events: Events, pid: str, position: int, now: float) -> None:
        """The punter whose turn it is cuts: ``position`` cards go from the top to the bottom."""
        require_phase(state, refusals, "cut")
        if pid != cutter(state):
            raise RulesError("it is not your turn to cut")
        if not is_count(position):
            raise RulesError("a cut is a number of cards")
        cut(state, events, position, "punter", now)

    @action
    def cut_timed_out(
        state: State, events: Events, now: float, position: int | None = None
    ) -> None:
        """The cutter did not cut in time: they are skipped and the deck is cut at random."""
        require_phase(state, refusals, "cut")
        if now < deadline(state):
            raise RulesError("the cutter still has time to cut")
        cut(state, events, position, "random", now)

    return cut_deck, cut_timed_out


@action
def top_up(state: State, events: Events, pid: str, chips: int) -> None:
    """The host gives a player more chips, at most :data:`MOST_CHIPS` at once."""
    found = player(state, pid)
    if is_count(chips) and chips > MOST_CHIPS:
        raise RulesError(_CHIPS, setting=Phrase("a top-up"))
    found["chips"] += amount(chips, Phrase("a top-up"))
    events.append({"type": "topped_up", "player": pid, "amount": chips})


@action
def readmit(state: State, events: Events, pid: str) -> None:
    """The host lets a player they sent away back in: the same seat and the chips it kept
    (never fresh chips)."""
    found = state["players"].get(pid)
    if found is None:
        raise RulesError("that player is not at the table")
    if not found.get("left"):
        raise RulesError("%(name)s is at the table already", name=found["name"])
    del found["left"]
    events.append({"type": "readmitted", "player": pid})


@action
def moved(state: State, events: Events, pid: str) -> None:
    """A seat taken to another device (its rejoin code): the device count goes up, so the
    screens of the device it left can tell that it is no longer theirs."""
    player(state, pid)["device"] = state["players"][pid].get("device", 0) + 1
    events.append({"type": "moved", "player": pid})


def host_actions(leave: Callable[[State, str], tuple[State, Events]]) -> dict[str, Action]:
    """The host's actions at every table: send a player away (the game's ``leave``), let them
    back in, give a player more chips, close the table to new players and open it again, turn
    the TV's sound off and on again, set the betting time."""
    seat = Field("seat", Phrase("The player"), str)
    return {
        "betting_time": Action(
            lambda s, who, p, now: betting_time(s, p.get("seconds"), now),
            (Field("seconds", Phrase("The betting time"), optional=True),),
            host=True,
        ),
        "close_doors": Action(lambda s, who, p, now: doors(s, True), host=True),
        "open_doors": Action(lambda s, who, p, now: doors(s, False), host=True),
        "tv_sound_off": Action(lambda s, who, p, now: tv_sound(s, False), host=True),
        "tv_sound_on": Action(lambda s, who, p, now: tv_sound(s, True), host=True),
        "kick": Action(
            lambda s, who, p, now: leave(s, p["seat"]), (seat,), host=True, confirm=True
        ),
        "readmit": Action(lambda s, who, p, now: readmit(s, p["seat"]), (seat,), host=True),
        "top_up": Action(
            lambda s, who, p, now: top_up(s, p["seat"], p["amount"]),
            (seat, Field("amount", Phrase("The top-up"))),
            host=True,
        ),
    }


@action
def betting_time(state: State, events: Events, seconds: int | None, now: float) -> None:
    """The host sets the betting time (None: none, the banker closes). Set while bets are open,
    it runs from now: the punters get the whole of it."""
    check_betting_time(seconds)
    if seconds == state["settings"].get(BETTING_TIME):
        raise RulesError("the betting time is that already")
    state["settings"][BETTING_TIME] = seconds
    if seconds is None:
        state.pop(BETTING_SINCE, None)
    else:
        state[BETTING_SINCE] = now
    events.append({"type": "betting_time", "seconds": seconds})


# When the bets now open opened (the clock's time), kept while the table has a betting time.
BETTING_SINCE = "betting_since"


@action
def doors(state: State, events: Events, closed: bool) -> None:
    """Close the table to new players (those seated play on, and take their seats back on
    another phone), or open it again."""
    if closed and state.get("closed"):
        raise RulesError("the table is closed to new players already")
    if not closed and not state.get("closed"):
        raise RulesError("the table is open to new players already")
    state["closed"] = closed
    events.append({"type": "doors_closed" if closed else "doors_opened"})


@action
def tv_sound(state: State, events: Events, on: bool) -> None:
    """The TV's sound, off or on again. A browser lets a page play sound only once someone has
    clicked on it, and the TV asks for that click until then; nobody may ever touch the TV, and
    the host, from another device, cannot give that click. Off, the TV plays nothing and asks
    for nothing; on again, it asks (or plays, if its browser lets it)."""
    if not on and state.get("tv_silent"):
        raise RulesError("the TV's sound is off already")
    if on and not state.get("tv_silent"):
        raise RulesError("the TV's sound is on already")
    state["tv_silent"] = not on
    events.append({"type": "tv_sound_on" if on else "tv_sound_off"})


def standings(state: State, held: dict[str, int] | None = None) -> list[dict]:
    """Players by chips, most first, in seat order among equals, who share the place. ``held``:
    chips a player has on the table that are still theirs (an open bank is its banker's)."""
    held = held or {}
    rows = [
        {
            "player": pid,
            "name": state["players"][pid]["name"],
            "chips": state["players"][pid]["chips"] + held.get(pid, 0),
            "computer": is_computer(state, pid),
        }
        for pid in state["seats"]
    ]
    rows.sort(key=lambda row: -row["chips"])
    for i, row in enumerate(rows):
        same = i and row["chips"] == rows[i - 1]["chips"]
        row["place"] = rows[i - 1]["place"] if same else i + 1
    return rows


def players_chips(state: State) -> dict[str, int]:
    """Each player's chips in hand, as ledger accounts."""
    return {f"player:{pid}": p["chips"] for pid, p in state["players"].items()}


def take_bank(banker: dict, amount: int) -> None:
    """A bank of ``amount`` taken from its banker's chips, which must hold it."""
    if amount > banker["chips"]:
        raise RulesError(
            "you have %(chips)s chips: a bank of %(amount)s is over them",
            chips=banker["chips"],
            amount=amount,
        )
    banker["chips"] -= amount


def shown_bet(placed: dict, names: dict[str, str], seat: str | None, line: dict | None) -> dict:
    """A bet as a screen shows it: with its player's name, whether it is the seat's own, and
    its settled line once there is one."""
    return {
        **placed,
        "name": names[placed["player"]],
        "mine": placed["player"] == seat,
        "line": line,
    }


def stakes(bets: list[dict]) -> int:
    """Chips staked on the table by these bets."""
    return sum(b["amount"] or 0 for b in bets)


View = Callable[..., dict[str, Any]]


def seat_view(whole: View, own: Callable[[State, str | None, float | None], dict | None]) -> View:
    """A game's ``view`` (``Game.view``) from its view of the table for a seat (``whole``) and a
    seat's own part of it (``own``, the view's ``"me"``). Given ``shared``, the view of no seat
    at the same state already worked out (the live path works it out once per version), only
    the seat's own part is worked out and added to it."""

    def view(
        state: State, seat: str | None = None, now: float | None = None, shared: dict | None = None
    ) -> dict[str, Any]:
        if shared is None:
            return whole(state, seat, now)
        return {**shared, "me": own(state, seat, now)}

    view.__doc__ = whole.__doc__
    return view


def seat_regions(**drawn_from: Callable[[dict], dict]) -> Callable[[dict], dict[str, dict]]:
    """A game's ``regions`` (``Game.regions``) from what each region of a seated phone is drawn
    from (``status=..., bar=...``: each a function of the seat's view returning only what its
    template draws), so a region is drawn again only when its part changed. A bar's part gives
    the least and most its seat may stake (``me.stakes``), which the web draws, and keeps the
    bar by, as the quick stakes they offer (``montones/web/stakes.py``)."""

    def regions(view: dict[str, Any]) -> dict[str, dict]:
        return {name: part(view) for name, part in drawn_from.items()}

    return regions
