"""Where a request becomes a rules action, inside one database transaction.

Views parse the request and call a function here; the service loads the table under a write
lock, checks who may act, runs the rules engine, and stores the new state together with its
action-log row and its ledger entries (``montones.data.store``, which tells the live channel).
Nothing else writes a table's state. ``actions``: who may do what, run through the rules engine;
the reads the views need are passed through from ``montones.data.queries``.

May import: ``montones.rules`` and ``montones.data``; never the live channel or the web.
"""

from montones.data.history import story
from montones.data.queries import (
    Seat,
    buy_ins,
    chips_over_night,
    departure,
    game_of,
    get_table,
    is_host,
    kept,
    ledger_totals,
    player_by_token,
    standings,
)
from montones.data.refusals import NotAllowed, NotFound, ServiceError, Stale
from montones.data.store import keep
from montones.service.actions import (
    Actor,
    act,
    act_as,
    age,
    choose,
    create_table,
    follow,
    host_action,
    join,
    new_night,
    no_room,
    rejoin,
    stage,
)
from montones.service.computers import (
    add_computer,
    clock_deadline,
    practice,
    remove_computer,
    tick,
)

__all__ = [
    "keep",
    "kept",
    "Actor",
    "buy_ins",
    "follow",
    "new_night",
    "standings",
    "story",
    "NotAllowed",
    "NotFound",
    "Seat",
    "ServiceError",
    "Stale",
    "act",
    "act_as",
    "choose",
    "age",
    "add_computer",
    "chips_over_night",
    "clock_deadline",
    "create_table",
    "departure",
    "game_of",
    "get_table",
    "host_action",
    "is_host",
    "join",
    "ledger_totals",
    "no_room",
    "player_by_token",
    "practice",
    "rejoin",
    "remove_computer",
    "stage",
    "tick",
]
