"""Copying a table's state: plain data (what JSON holds), copied much faster than deepcopy."""

from __future__ import annotations

import copy
from typing import Any

_ATOMS = (str, int, float, bool, type(None))


def copy_state(value: Any) -> Any:
    """A deep copy of plain data: dicts, lists and tuples are copied, strings and numbers shared.

    Every action runs on a copy of the state (so a refusal leaves the state as it was);
    ``copy.deepcopy`` keeps a memo for shared and cyclic objects that plain data never has, and
    took a fifth of an action's time with 200 bets on the felt. Anything else falls back to it.
    """
    if isinstance(value, dict):
        return {k: copy_state(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_state(v) for v in value]
    if isinstance(value, _ATOMS):
        return value
    if isinstance(value, tuple):
        return tuple(copy_state(v) for v in value)
    return copy.deepcopy(value)
