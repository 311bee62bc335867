"""Copying a table's state: plain data (what JSON holds), copied much faster than deepcopy."""

from __future__ import annotations

import copy
from typing import Any

_ATOMS = frozenset((str, int, float, bool, type(None)))


def copy_state(value: Any) -> Any:
    """A deep copy of plain data: dicts, lists and tuples are copied, strings and numbers shared.

    Every action runs on a copy of the state (so a refusal leaves the state as it was);
    ``copy.deepcopy`` keeps a memo for shared and cyclic objects that plain data never has,
    which made it a large part of an action's time with many bets on the felt
    (docs/performance.md, "Copying a state"). An atom in a dict or a list is taken as it is,
    without a call for it, for the same reason. Anything else (a subclass of dict too) falls
    back to deepcopy.
    """
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _ATOMS else copy_state(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _ATOMS else copy_state(v) for v in value]
    if kind in _ATOMS:
        return value
    if kind is tuple:
        return tuple(copy_state(v) for v in value)
    return copy.deepcopy(value)
