"""Replaying a scenario file (docs/scenarios.md): one hand, coup or deal of the game it names.

:func:`replay` takes the parsed JSON and returns the result as plain data, settled by the
game's own engine (its ``replay``). Any scenario that breaks a rule raises
:class:`ScenarioError` (a :class:`RulesError`, so a ``ValueError``) with one line that names the
problem.
"""

from __future__ import annotations

from typing import Any

from montones.rules.errors import RulesError
from montones.rules.games import GAMES, game
from montones.rules.scenario_input import ScenarioError, quoted

__all__ = ["ScenarioError", "replay"]


def replay(data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object")
    try:
        engine = game(data.get("game"))
    except RulesError:
        *others, last = (f'"{name}"' for name in GAMES)
        raise ScenarioError(
            f'unknown game {quoted(data.get("game"))}: "game" is {", ".join(others)} or {last}'
        ) from None
    return engine.replay(data)
