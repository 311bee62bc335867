"""The betting time, in every game: a table that sets one (``settings["betting_time"]``,
seconds) gives the punters that long once bets open, then bets close as the banker's close
closes them, by the clock (the service's scheduler asks each game's ``betting_deadline`` and
calls its ``bets_timed_out`` once it has come, as it does for a cut).

When bets opened is stamped on the state (``table.BETTING_SINCE``) by the action that opened
them, whichever it is (a deal, heaps made, a cut that deals, a card entered): each game's
actions are wrapped once (:func:`timed`), and bets open when a game's ``stage`` moves to one of
its betting stages. A table without a betting time is never stamped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from montones.rules.errors import RulesError
from montones.rules.plain import copy_state
from montones.rules.table import BETTING_SINCE, BETTING_TIME, Action, Events, State

Stage = Callable[[State], str]
Betting = Callable[[State], bool]


def until(state: State, betting: bool) -> float | None:
    """When bets close by the clock (the screens count down to it): None unless the table has
    a betting time and ``betting`` (its bets are open)."""
    seconds = state["settings"].get(BETTING_TIME)
    since = state.get(BETTING_SINCE)
    if not betting or not seconds or since is None:
        return None
    return since + seconds


def stamped(before: State, after: State, now: float, stage: Stage, betting: Betting) -> State:
    """``after`` (a new state of the caller's) with the betting time started at ``now`` if
    the action opened bets: a table with a betting time, at a betting stage it was not at."""
    if (
        after["settings"].get(BETTING_TIME)
        and betting(after)
        and (not betting(before) or stage(before) != stage(after))
    ):
        after[BETTING_SINCE] = now
    return after


def timed(actions: dict[str, Action], stage: Stage, betting: Betting) -> dict[str, Action]:
    """A game's actions, each starting the betting time when it opens bets."""

    def wrap(call):
        def run(state: State, who: str, params: dict, now: float) -> tuple[State, Events]:
            new, events = call(state, who, params, now)
            return stamped(state, new, now, stage, betting), events

        return run

    return {kind: replace(spec, call=wrap(spec.call)) for kind, spec in actions.items()}


def timed_out(
    timed_out_call: Callable[[State, float], tuple[State, Events]],
    stage: Stage,
    betting: Betting,
) -> Callable[..., tuple[State, Events]]:
    """A game's ``cut_timed_out`` (the clock's cut), starting the betting time when the cut
    deals and so opens bets."""

    def run(state: State, now: float, *args, **kwargs) -> tuple[State, Events]:
        new, events = timed_out_call(state, now, *args, **kwargs)
        return stamped(state, new, now, stage, betting), events

    run.__name__, run.__doc__ = timed_out_call.__name__, timed_out_call.__doc__
    return run


def clock(
    betting: Betting,
    close_bets: Callable[[State], tuple[State, Events]],
    waits: Betting = lambda state: False,
) -> tuple[Callable[[State], float | None], Callable[[State, float], tuple[State, Events]]]:
    """A game's ``betting_deadline`` and ``bets_timed_out``: while ``betting`` (and the clock
    does not ``wait`` for something only a player can do), bets close once the betting time has
    run, exactly as the banker's close (``close_bets``) closes them."""

    def betting_deadline(state: State) -> float | None:
        """When the clock closes bets: the betting time's end."""
        if not betting(state) or waits(state):
            return None
        return until(state, True)

    def bets_timed_out(state: State, now: float) -> tuple[State, Events]:
        """The betting time ran out: bets close exactly as the banker's close closes them."""
        deadline = betting_deadline(state)
        if deadline is None or now < deadline:
            raise RulesError("the punters still have time to bet")
        return close_bets(state)

    return betting_deadline, bets_timed_out


def after_pause(state: State, now: float) -> State:
    """A copy of ``state`` as a pause leaves it: bets open get the whole betting time again."""
    new = copy_state(state)
    if BETTING_SINCE in new:
        new[BETTING_SINCE] = now
    return new
