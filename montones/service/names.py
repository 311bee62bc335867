"""A new player's name, told apart from the names at the table as a player would tell them.

Two names are the same if their Unicode TR39 skeletons are (``disarm.skeleton_key``: look-alike
letters of any script, case, width and invisible marks folded away), so "Ana" with a Cherokee Ꭺ
or a Latin ɑ is Ana. A name holding an invisible character (Unicode's Default_Ignorable_Code_Point,
by the ``regex`` module) is refused, and so is one with no visible letter or digit. The rules
engine, standard library only, keeps its own coarser guard (``rules.table.plain_name`` and
``looks``); this one is the service's, before the engine seats anyone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import disarm
import regex

from montones.data.refusals import ServiceError

_INVISIBLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")


# How each computer player's name is written in every language the app speaks (the web's
# translations), by the name a table keeps: the rules' ``NAMES``.
Spellings = Mapping[str, Sequence[str]]


def spelled(name: str, spellings: Spellings) -> tuple[str, ...]:
    """Every way a screen may write a computer's ``name`` ("Lola", "Лола"; "Lola 13" as
    "Лола 13")."""
    base, _space, count = name.rpartition(" ")
    if base in spellings and count.isdigit():
        return tuple(f"{way} {count}" for way in spellings[base])
    return tuple(spellings.get(name, ())) or (name,)


def shown_as(player: dict, spellings: Spellings) -> tuple[str, ...]:
    """The names a player goes by on the table's screens: a computer's in every language."""
    return spelled(player["name"], spellings) if player.get("computer") else (player["name"],)


def check(name: str, players: Iterable[dict], spellings: Spellings | None = None) -> None:
    """Refuse ``name`` unless every player at the table (``players``: the state's) can tell
    it from theirs, on a screen of any language (``spellings``: the computers' names)."""
    if _INVISIBLE.search(name or ""):
        raise ServiceError("a name can only have letters, digits, spaces and punctuation")
    key = disarm.skeleton_key(name or "")
    if not any(ch.isalnum() for ch in key):
        raise ServiceError("a name needs at least one letter or digit")
    for player in players:
        if all(disarm.skeleton_key(way) != key for way in shown_as(player, spellings or {})):
            continue
        if player.get("left"):
            raise ServiceError(
                "%(name)s was sent away by the host: only the host can let them back in",
                name=player["name"],
            )
        raise ServiceError("%(name)s is already at the table: choose another name", name=name)
