"""The party around a night's play: each seat's face, the lobby, the host's party switches and
who may send a reaction. None of it is the game's: it lives on the table's row (``party``),
never in the rules' state, and moves no chip.

A face is one of :data:`FACES` (drawn in ``static/img/faces.svg``) in one of :data:`COLOURS`,
chosen on the phone when sitting down; a seat that chose none shows the one its seat number
gives. The lobby is the TV's picture of everyone who has sat down, until the host starts the
night or a player's first action (a bank offered, as before there was a lobby) does.
"""

from __future__ import annotations

from montones.data.queries import seat_by_token
from montones.data.refusals import NotAllowed, ServiceError
from montones.data.snapshot import Snapshot
from montones.data.store import bump, locked, write
from montones.extensions import db

FACES = ("sun", "cat", "bear", "owl", "frog", "king", "cool", "bigote", "star", "wink")
COLOURS = 8  # the seats' colours (app.css, .seat-0 to .seat-7)
REACTIONS = ("laugh", "gasp", "clap", "taunt")
# The host's party switches: what each sets in the party.
SWITCHES = {
    "start": ("started", True),
    "reactions_off": ("quiet", True),
    "reactions_on": ("quiet", False),
    "music_on": ("music", True),
    "music_off": ("music", False),
}


def _already(kind: str) -> ServiceError:
    """What a switch asked for twice is told (nothing is stored)."""
    if kind == "start":
        return ServiceError("The night has started already.")
    if kind == "reactions_off":
        return ServiceError("Reactions are off already.")
    if kind == "reactions_on":
        return ServiceError("Reactions are on already.")
    if kind == "music_on":
        return ServiceError("The music is on already.")
    return ServiceError("The music is off already.")


def face_of(party: dict | None, seat: str) -> tuple[str, int]:
    """The face and colour seat ``seat`` shows."""
    chosen = (party or {}).get("faces", {}).get(seat)
    if chosen:
        return chosen[0], chosen[1]
    number = int(seat[1:]) if seat[1:].isdigit() else 0
    return FACES[number % len(FACES)], number % COLOURS


def chosen_face(face: str | None, colour: str | int | None) -> list | None:
    """A face as a join form says it, checked; None when it chose none."""
    if not face and colour in (None, ""):
        return None
    if face not in FACES:
        raise ServiceError("Choose one of the faces.")
    try:
        number = int(colour)
    except (TypeError, ValueError):
        number = -1
    if not 0 <= number < COLOURS:
        raise ServiceError("Choose one of the colours.")
    return [face, number]


def with_face(party: dict | None, seat: str, face: list) -> dict:
    """``party`` with ``seat``'s face, a new dict (a table's party is never changed in place)."""
    party = dict(party or {})
    party["faces"] = {**party.get("faces", {}), seat: face}
    return party


def started(party: dict | None) -> dict:
    """``party`` with the night started (the lobby over)."""
    return {**(party or {}), "started": True}


def in_lobby(table) -> bool:
    """Whether the TV shows the lobby: someone has sat down, and nobody has started the night."""
    party = table.party or {}
    return bool(table.state["players"]) and not party.get("started") and not table.ended_at


def reactions_on(table) -> bool:
    return not (table.party or {}).get("quiet") and not table.ended_at


def switch(code: str, actor, kind: str) -> Snapshot:
    """One of the host's party switches (:data:`SWITCHES`), a new version of the table, so that
    every screen shows it."""
    if kind not in SWITCHES:
        raise ServiceError("That is not something the host can do.")
    name, value = SWITCHES[kind]
    with locked(code) as (table, conn):
        if not actor.is_host:
            raise NotAllowed("Only the host can do that.")
        if table.ended_at:
            raise ServiceError("This table has ended.")
        if bool((table.party or {}).get(name)) == value:
            raise _already(kind)
        table.party = {**(table.party or {}), name: value}
        write(conn, table, bump(table.state), [{"type": kind}], "host", kind, {})
    return table.committed


def reacting(table, token: str | None, reaction: str) -> str:
    """The seat of the phone holding ``token`` may send ``reaction`` now: returns the seat, or
    raises why not. Read, not written: a reaction is no change of the table."""
    if reaction not in REACTIONS:
        raise ServiceError("That is not a reaction.")
    seat = seat_by_token(db.session, table.id, token)
    if seat is None:
        raise NotAllowed("Join the table first.")
    if table.state["players"].get(seat.seat, {}).get("left"):
        raise NotAllowed("You are no longer at this table.")
    if table.ended_at:
        raise ServiceError("This table has ended.")
    if not reactions_on(table):
        raise ServiceError("The host has turned reactions off.")
    return seat.seat
