"""What the screens draw of the party (``service.party``): faces, the lobby, the moments the
TV celebrates after a reveal and the leaderboard between rounds. Template globals, drawn from
the table at its version (its row's ``party``, its hands' records), every game alike.
"""

from __future__ import annotations

from typing import Any

from montones.data import history
from montones.rules.games import game
from montones.rules.table import BETTING_TIMES
from montones.service import party
from montones.web.common import shown_state

# The TV shows the leaderboard after every BOARD_EVERY-th hand, and when a bank passes.
BOARD_EVERY = 3
# A win worth a moment of its own: at least this share of the starting chips in one hand.
BIG_WIN_SHARE = 4
# How big a moment is (its CSS class and its sound): bigger events, bigger moments.
SIZES = {"broke": "huge", "monte_carlo": "big", "rey_de_oros": "big", "big_win": "big"}


def face(table, seat: str) -> dict[str, Any]:
    """A seat's face and colour, as its templates draw it."""
    name, colour = party.face_of(getattr(table, "party", None), seat)
    return {"face": name, "colour": colour}


def colour_of(table, seat: str) -> str:
    """A seat's colour class: the one its player chose when sitting down, else its number's."""
    return f"seat-{face(table, seat)['colour']}"


def moment(table, entry: dict | None) -> dict[str, Any] | None:
    """The biggest moment of the hand ``entry`` (its record) the TV celebrates once its reveal
    is over, if any: who broke the bank, the game's own feat (``Game.feat``: a Monte Carlo
    that landed, a stake paid double on the Rey de oros), a big win; None for a hand of none."""
    if not entry or "result" not in entry:
        return None
    rules = game(entry["game"])
    names = entry["meta"]["names"]
    broke = rules.emptied_by(entry)
    if broke:
        return _moment("broke", broke, names)
    feat = rules.feat(entry)
    if feat:
        kind, seat, amount = feat
        return _moment(kind, seat, names, amount)
    bets, lines = rules.record_lines(entry)
    nets: dict[str, int] = {}
    for line in lines:
        player = bets[line["bet"]]["player"]
        nets[player] = nets.get(player, 0) + line["net"]
    big = max(1, table.starting_chips // BIG_WIN_SHARE)
    best = max(nets.items(), key=lambda item: item[1], default=(None, 0))
    if best[0] and best[1] >= big:
        return _moment("big_win", best[0], names, best[1])
    return None


def _moment(kind: str, seat: str, names: dict, amount: int = 0) -> dict[str, Any]:
    return {
        "kind": kind,
        "seat": seat,
        "name": names.get(seat, ""),
        "amount": amount,
        "size": SIZES[kind],
    }


def board(table, recent: list[dict], between_banks: bool) -> list[dict] | None:
    """The leaderboard the TV shows after this hand (``recent``: the table's last hands'
    records, newest first; ``between_banks``: the TV's view says no bank runs now), or None:
    after every ``BOARD_EVERY``-th hand, and after a hand that left no bank running (Monte's
    and Monte Bank's bank passed; a Montones bank closes on a later tap, so only the every
    few hands' board shows there). Each row: the standing now, named in the TV's language,
    with the chips won or lost and the places moved over the hands since the board was last
    due."""
    if not recent or table.ended_at:
        return None
    count = history.count(table)
    if count % BOARD_EVERY and not between_banks:
        return None
    since = recent[: (count - 1) % BOARD_EVERY + 1]
    moved: dict[str, int] = {}
    for entry in since:
        after, before = entry["result"].get("players", {}), entry.get("players", {})
        for seat in after:
            moved[seat] = moved.get(seat, 0) + after[seat] - before.get(seat, after[seat])
        banker = entry["meta"].get("banker")
        if banker and "bank" in entry["result"] and "bank" in entry:
            moved[banker] = moved.get(banker, 0) + entry["result"]["bank"] - entry["bank"]
    rows = game(table.game).standings(shown_state(table.state))
    then = sorted(rows, key=lambda row: -(row["chips"] - moved.get(row["player"], 0)))
    was = {row["player"]: place for place, row in enumerate(then, 1)}
    return [
        {
            **row,
            "moved": moved.get(row["player"], 0),
            "climbed": was[row["player"]] - index,
            **face(table, row["player"]),
        }
        for index, row in enumerate(rows, 1)
    ]


def init_app(app) -> None:
    app.jinja_env.globals.update(
        face=face,
        colour_of=colour_of,
        party_moment=moment,
        party_board=board,
        in_lobby=party.in_lobby,
        reactions_on=party.reactions_on,
        FACES=party.FACES,
        REACTIONS=party.REACTIONS,
        COLOURS=party.COLOURS,
        BETTING_TIMES=BETTING_TIMES,  # the betting times the lobby and the host page offer
    )
