"""The TV's demonstration: a hand of a table's game played by computer players, in memory.

While a table waits for its players, its TV shows how its game goes: a hand played from the
seating to its result by the game's own engine and computer strategy (``Game.play``), one step
per action; the game's own template words each step (``templates/games/<NAME>/_demo.html``
turns a step's kind and the TV's view of it into a caption). Nothing of it touches a
table: no database, no ledger, no history. It is a replay, not a deal: its cards come from a
seed (:func:`montones.rules.chance.rehearsal`), so the same seed plays the same hand in any
worker, and every TV of a table shows the same step at the same time (:func:`step_at`). It
plays with the table's settings that change what a hand shows (the game's ``DEMO_SETTINGS``:
Monte Bank's side cards), the game's defaults for the rest (its four computer players, with
their few chips, must be able to play any table's hand).
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random
from typing import TYPE_CHECKING, Any

from montones.rules import chance
from montones.rules.computer import NAMES, PATIENCE
from montones.rules.errors import RulesError
from montones.rules.table import State

if TYPE_CHECKING:
    from montones.rules.games import Game

PLAYERS = 4  # a banker and three punters: enough to show every kind of bet, few to follow
CHIPS = 100
MOST_STEPS = 40  # a hand takes a dozen or two; a strategy that stalls stops here
STEP_SECONDS = 3.5  # how long the TV shows each step: time to read its caption
SEATED = "seated"  # the first step's kind: the players at the table, before anyone acts


@dataclass(frozen=True)
class Step:
    """One step of a demonstration hand: what was done (``kind``: an action of the game, a
    move the game made by itself, or :data:`SEATED`), by whom (``seat``, None for the game or
    the host), and the table after it (the TV draws its view, in its own language)."""

    kind: str
    seat: str | None
    state: State


def settings_of(rules: Game, table_settings: dict[str, Any]) -> dict[str, Any]:
    """What of a table's settings its demonstration plays with (``rules.DEMO_SETTINGS``)."""
    return {key: table_settings[key] for key in rules.DEMO_SETTINGS if key in table_settings}


def hand(rules: Game, seed: str, settings: dict[str, Any] | None = None) -> list[Step]:
    """A demonstration hand of ``rules``'s game from ``seed`` at a table of ``settings``
    (:func:`settings_of`): the players seated, then every action up to the one that settles
    the hand (its ``SETTLES`` event), the last step."""
    with chance.rehearsal(seed):
        return _played(rules, Random(seed), settings or {})


def _played(rules: Game, rng: Random, settings: dict[str, Any]) -> list[Step]:
    # The clock a demonstration plays on starts at 0: nothing of it is real time.
    now = 0.0
    state = rules.new_table(settings)
    for number, name in enumerate(NAMES[:PLAYERS], start=1):
        state, _events = rules.join(state, f"p{number}", name, CHIPS, computer=True)
    steps = [Step(SEATED, None, state)]
    if "draw" in rules.ACTIONS:  # the host's draw for the first bank, where the game has one
        state, _events = rules.ACTIONS["draw"].call(state, "host", {}, now)
        steps.append(Step("draw", None, state))
    while len(steps) < MOST_STEPS:
        now += STEP_SECONDS
        move = _next_move(rules, state, rng, now)
        if move is None:
            raise RulesError("the demonstration stalled at %(kind)s", kind=steps[-1].kind)
        seat, kind, params = move
        spec = rules.ACTIONS[kind]
        state, events = spec.call(state, seat, spec.params(state, seat, params), now)
        steps.append(Step(kind, seat, state))
        settled = any(event["type"] == rules.SETTLES for event in events)
        follow = rules.follow_up(state, now)
        if follow is not None:
            kind, state, events = follow
            steps.append(Step(kind, None, state))
            settled = settled or any(event["type"] == rules.SETTLES for event in events)
        if settled:
            return steps
    raise RulesError("the demonstration took more than %(most)s steps", most=MOST_STEPS)


def _next_move(
    rules: Game, state: State, rng: Random, now: float
) -> tuple[str, str, dict[str, Any]] | None:
    """The next computer move, as a table of them plays it (``service.computers.next_turn``):
    the first seat, in an order drawn for the step, whose strategy acts now; else the first
    that acts once the table has stood still for a banker's patience."""
    seats = rng.sample(state["seats"], len(state["seats"]))
    views = {seat: rules.view(state, seat, now) for seat in seats}
    for idle in (0.0, PATIENCE):
        for seat in seats:
            move = rules.play(views[seat], rng, idle)
            if move is not None:
                return seat, *move
    return None


def step_at(
    rules: Game, table_code: str, now: float, settings: dict[str, Any] | None = None
) -> tuple[int, int, Step]:
    """What every TV of the table ``table_code`` (of ``settings``: :func:`settings_of`) shows
    at wall time ``now``: the number of the hand in the cycle (each played from its own seed),
    the step's index in it, and the step. Each step shows for :data:`STEP_SECONDS`, a hand's
    result :data:`RESULT_HOLD` steps longer; then the next hand, and after the last of the
    cycle the first again."""
    # The hands differ in length: the cycle is played whole at every ask (a few milliseconds)
    # to find the one this tick falls in, with no memory of it kept anywhere.
    hands = cycle(rules, table_code, settings)
    tick = int(now // STEP_SECONDS) % sum(len(steps) + RESULT_HOLD for steps in hands)
    for number, steps in enumerate(hands):
        if tick < len(steps) + RESULT_HOLD:
            index = min(tick, len(steps) - 1)
            return number, index, steps[index]
        tick -= len(steps) + RESULT_HOLD
    raise AssertionError("unreachable: the tick is within the cycle")


CYCLE = 3  # demonstration hands a TV plays before it plays the first again
RESULT_HOLD = 2  # steps more that the result of a hand stays: time to see how it came out
SEEDS = 20  # seeds tried for a first hand that every player plays in (all void: 0.36**20)


def cycle(rules: Game, table_code: str, settings: dict[str, Any] | None = None) -> list[list[Step]]:
    """The :data:`CYCLE` hands the table ``table_code``'s TVs play in turn, each from its own
    seed. The first is one in which every player acts: a hand can end before the punters
    bet (a third of Monte Bank's deals are void at the cut), and a TV whose every hand ended
    there would never show its game played. The others come as their seeds deal them."""
    hands: list[list[Step]] = []
    for n in range(SEEDS + CYCLE):
        steps = hand(rules, seed(table_code, n), settings)
        if hands or n >= SEEDS or _everyone_acts(steps):
            hands.append(steps)
        if len(hands) == CYCLE:
            return hands
    raise AssertionError("unreachable: the last seeds are taken as they come")


def _everyone_acts(steps: list[Step]) -> bool:
    return set(steps[-1].state["seats"]) <= {step.seat for step in steps}


def seed(table_code: str, number: int) -> str:
    """The seed of the table's ``number``-th demonstration hand."""
    return f"demo:{table_code}:{number}"
