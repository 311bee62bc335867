"""Actions: who may do what at a table, run through the rules engine under the table's lock."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from montones.models import utcnow
from montones.rules import RulesError, heaps, monte
from montones.rules.errors import Phrase
from montones.service import store
from montones.service.queries import Seat, get_table, hash_secret, is_host, seat_by_token
from montones.service.refusals import NotAllowed, ServiceError, Stale
from montones.service.store import LockedTable, bump, locked, record, transaction
from montones.snapshot import Snapshot

GAMES = {"montones": heaps, "monte": monte}
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: read off a TV, typed on a phone
REJOIN_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
# A Montones stake of "all I can": worked out when the tap arrives (heaps.most_stake), so a
# phone's all-in chip stays right however its chips have moved since the bar was drawn.
ALL_IN = "max"


@dataclass(frozen=True)
class Actor:
    """Who is asking: a seated player (``seat``), the host, or both on one phone."""

    seat: str | None = None
    is_host: bool = False


def stage(state: dict) -> str:
    """What a screen was showing: a request made for another stage is stale."""
    if state["game"] == "montones":
        return f"{state['hands']}-{state['phase']}"
    banks = state["banks"].get(state["banker"], 0) if state["banker"] else 0
    return f"{state['banker']}-{banks}-{state['coups']}-{state['phase']}"


def create_table(game: str, name: str, starting_chips: int, settings: dict) -> tuple[Snapshot, str]:
    """A new table, and the host secret (shown once, kept only as a hash)."""
    if game not in GAMES:
        raise ServiceError("Choose Montones or Monte.")
    name = (name or "").strip()[:60] or ("Montones" if game == "montones" else "Monte")
    if not isinstance(starting_chips, int) or not 1 <= starting_chips <= 1_000_000:
        raise ServiceError("Starting chips must be between 1 and 1,000,000.")
    try:
        state = GAMES[game].new_table(settings)
    except RulesError as error:
        raise ServiceError(error.template, **error.params) from None
    secret = secrets.token_urlsafe(24)
    with transaction() as conn:
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(4))
            if not store.code_taken(conn, code):
                break
        else:
            raise ServiceError("Could not find a free room code; try again.")
        table = LockedTable(
            id=0,  # the database's, below
            code=code,
            game=game,
            name=name,
            host_hash=hash_secret(secret),
            starting_chips=starting_chips,
            version=state["version"],
            paused=False,
            ended_at=None,
            created_at=utcnow(),
            state=state,
        )
        table.id = store.insert_table(conn, table)
    return Snapshot.of(table), secret


def join(code: str, name: str) -> tuple[Seat, str]:
    """Seat a new player with the starting chips; returns their seat and their cookie secret."""
    token = secrets.token_urlsafe(24)
    with locked(code) as (table, sql):
        if table.ended_at:
            raise ServiceError("This table has ended.")
        seat = f"p{len(table.state['players']) + 1}"
        engine = GAMES[table.game]
        try:
            new_state, events = engine.join(table.state, seat, name, table.starting_chips)
        except RulesError as error:
            raise ServiceError(error.template, **error.params) from None
        taken = store.rejoin_codes(sql, table.id)
        player = Seat(seat, new_state["players"][seat]["name"], _rejoin_code(taken))
        store.add_player(sql, table.id, player, hash_secret(token))
        record(sql, table, new_state, events, seat, "join", {"name": player.name})
    return player, token


def _rejoin_code(taken: set[str]) -> str:
    while True:
        code = "".join(secrets.choice(REJOIN_ALPHABET) for _ in range(6))
        if code not in taken:
            return code


def rejoin(code: str, rejoin_code: str) -> tuple[Seat, str]:
    """Take one's seat back on another device: the old device's cookie stops working."""
    with locked(code) as (table, sql):
        player = store.seat_by_rejoin_code(sql, table.id, (rejoin_code or "").strip().upper())
        if player is None or table.state["players"][player.seat].get("left"):
            raise ServiceError("That rejoin code does not match a seat at this table.")
        token = secrets.token_urlsafe(24)
        store.new_token(sql, table.id, player.seat, hash_secret(token))
    return player, token


@dataclass
class _Spec:
    role: str  # "player" (the engine checks banker or cutter) or "host"
    call: Callable[..., tuple[dict, list]]
    params: tuple[str, ...] = field(default=())
    all_in: bool = False  # its "amount" may be ALL_IN


def _montones_actions() -> dict[str, _Spec]:
    m = heaps
    return {
        "offer": _Spec("player", lambda s, a, p, now: m.offer_bank(s, a, p["amount"]), ("amount",)),
        "pass": _Spec("player", lambda s, a, p, now: m.pass_bank(s, a)),
        "cut": _Spec("player", lambda s, a, p, now: m.cut_deck(s, a, p["position"]), ("position",)),
        "heaps": _Spec("player", lambda s, a, p, now: m.make_heaps(s, a, p["count"]), ("count",)),
        "bet": _Spec(
            "player",
            lambda s, a, p, now: m.bet(s, a, p["heap"], p["amount"]),
            ("heap", "amount"),
            all_in=True,
        ),
        "against": _Spec(
            "player",
            lambda s, a, p, now: m.bet_against(s, a, p["heap"], p["amount"]),
            ("heap", "amount"),
            all_in=True,
        ),
        "declare": _Spec("player", lambda s, a, p, now: m.declare(s, a, p["heap"]), ("heap",)),
        "withdraw": _Spec("player", lambda s, a, p, now: m.withdraw(s, a, p["bet"]), ("bet",)),
        "choose": _Spec(
            "player", lambda s, a, p, now: m.choose_bank_heap(s, a, p["heap"]), ("heap",)
        ),
        "close": _Spec("player", lambda s, a, p, now: m.close_bets(s, a)),
        "next": _Spec("player", lambda s, a, p, now: m.next_hand(s, a, now)),
        "keep": _Spec("player", lambda s, a, p, now: m.keep_heaps(s, a, p["heap"], now), ("heap",)),
        "abona": _Spec(
            "player", lambda s, a, p, now: m.se_abona(s, a, p["amount"], now), ("amount",)
        ),
        "close_bank": _Spec("player", lambda s, a, p, now: m.close_bank(s, a)),
        "tres": _Spec("player", lambda s, a, p, now: m.tres_ultimas_manos(s, a)),
        "sit_out": _Spec("player", lambda s, a, p, now: m.sit_out(s, a, True)),
        "sit_in": _Spec("player", lambda s, a, p, now: m.sit_out(s, a, False)),
        "close_auction": _Spec("host", lambda s, a, p, now: m.close_auction(s, now)),
        "kick": _Spec("host", lambda s, a, p, now: m.leave(s, p["seat"]), ("seat",)),
        "top_up": _Spec(
            "host", lambda s, a, p, now: m.top_up(s, p["seat"], p["amount"]), ("seat", "amount")
        ),
    }


def _monte_actions() -> dict[str, _Spec]:
    m = monte
    return {
        "draw": _Spec("host", lambda s, a, p, now: m.draw_for_bank(s)),
        "bank": _Spec(
            "player", lambda s, a, p, now: m.put_up_bank(s, a, p["amount"], now), ("amount",)
        ),
        "cut": _Spec("player", lambda s, a, p, now: m.cut_deck(s, a, p["position"]), ("position",)),
        "bet": _Spec(
            "player",
            lambda s, a, p, now: m.bet(s, a, p["layout"], p["amount"]),
            ("layout", "amount"),
        ),
        "withdraw": _Spec("player", lambda s, a, p, now: m.withdraw(s, a, p["bet"]), ("bet",)),
        "gate": _Spec("player", lambda s, a, p, now: m.turn_gate(s, a)),
        "next": _Spec("player", lambda s, a, p, now: m.next_coup(s, a)),
        "kick": _Spec("host", lambda s, a, p, now: m.leave(s, p["seat"]), ("seat",)),
        "top_up": _Spec(
            "host", lambda s, a, p, now: m.top_up(s, p["seat"], p["amount"]), ("seat", "amount")
        ),
    }


ACTIONS = {"montones": _montones_actions(), "monte": _monte_actions()}


def act(
    code: str,
    actor: Actor,
    kind: str,
    params: dict[str, Any],
    *,
    stage_seen: str | None = None,
    nonce: str | None = None,
) -> Snapshot:
    """Run one action for ``actor`` on table ``code``; raise a :class:`ServiceError` if refused."""
    with locked(code) as (table, sql):
        _act(sql, table, actor, kind, params, stage_seen, nonce)
    return table.committed


def act_as(
    code: str,
    token: str | None,
    secret: str | None,
    asked: Callable[[str], tuple[str, dict[str, Any]]],
    *,
    stage_seen: str | None = None,
    nonce: str | None = None,
) -> tuple[Snapshot, Seat]:
    """Run the action a browser asked for with its credentials (its seat token, its host
    secret); who is asking is read in the action's own transaction. ``asked(game)`` gives the
    action's kind and params from the request, or refuses with a :class:`ServiceError`.
    Returns the table and the asker's seat."""
    with locked(code) as (table, sql):
        seat = seat_by_token(sql, table.id, token)
        if seat is None:
            raise NotAllowed("Join the table first.")
        kind, params = asked(table.game)
        actor = Actor(seat=seat.seat, is_host=is_host(table, secret))
        _act(sql, table, actor, kind, params, stage_seen, nonce)
    return table.committed, seat


def _act(
    sql: Connection,
    table: LockedTable,
    actor: Actor,
    kind: str,
    params: dict[str, Any],
    stage_seen: str | None,
    nonce: str | None,
) -> None:
    """One action on a table held under its write lock."""
    specs = ACTIONS.get(table.game, {})
    spec = specs.get(kind)
    if spec is None:
        raise ServiceError("That is not something you can do at this table.")
    if spec.role == "player":
        if actor.seat is None or actor.seat not in table.state["players"]:
            raise NotAllowed("Join the table first.")
        if table.state["players"][actor.seat].get("left"):
            raise NotAllowed("You are no longer at this table.")
    # Nonces are per seat: every phone gets the same felt, with the same nonces in it.
    nonce = f"{actor.seat or 'host'}:{nonce}"[:80] if nonce else None
    if nonce and store.nonce_seen(sql, table.id, nonce):
        return  # a double click: the first one already did it
    if table.ended_at:
        raise ServiceError("This table has ended.")
    if spec.role == "host":
        if not actor.is_host:
            raise NotAllowed("Only the host can do that.")
        who = "host"
    else:
        if table.paused:
            raise ServiceError("The host has paused the table.")
        who = actor.seat
    if stage_seen is not None and stage_seen != stage(table.state):
        raise Stale("The table moved on before your tap arrived: here it is now.")
    missing = [name for name in spec.params if name not in params]
    if missing:
        raise ServiceError("Missing %(names)s.", names=", ".join(missing))
    if params.get("amount") == ALL_IN:
        if not spec.all_in:
            raise ServiceError("%(label)s must be a whole number.", label=Phrase("The amount"))
        most = heaps.most_stake(table.state, who)
        if most <= 0 and table.state["bank"]:  # with no bank, the rules say why not
            raise ServiceError("You have no chips left to bet.")
        params = {**params, "amount": most}
    try:
        new_state, events = spec.call(table.state, who, params, time.time())
    except RulesError as error:
        raise ServiceError(error.template, **error.params) from None
    record(sql, table, new_state, events, who, kind, {k: params[k] for k in spec.params}, nonce)
    _follow_up(sql, table)


def _follow_up(sql: Connection, table: LockedTable) -> None:
    """What happens by itself after an action: an auction everyone answered closes; a Monte
    table whose last bank has passed ends, so every screen can show the standings."""
    state = table.state
    if table.game == "montones" and state["phase"] == heaps.AUCTION:
        if heaps.auction_complete(state):
            new_state, events = heaps.close_auction(state, time.time())
            record(sql, table, new_state, events, "system", "close_auction", {})
    # Monte ends by itself once everyone has held the bank the agreed number of times.
    if table.game == "monte" and state["phase"] == monte.FINISHED and not table.ended_at:
        table.ended_at = utcnow()
        store.end_table(sql, table)


def tick(code: str) -> None:
    """Apply what the clock decides: a punter who did not cut in time is skipped (not while the
    host has the table paused)."""
    table = get_table(code)
    if table.paused or not _cut_overdue(table.state):
        return
    with locked(code) as (table, sql):
        if not table.paused and _cut_overdue(table.state):
            engine = GAMES[table.game]
            new_state, events = engine.cut_timed_out(table.state, time.time())
            record(sql, table, new_state, events, "system", "cut_timeout", {})


def clock_deadline(table) -> float | None:
    """When the clock next decides something at this table: never while it is paused."""
    return None if table.paused else cut_deadline(table.state)


def _paused_for(sql: Connection, table: LockedTable) -> float:
    """Seconds since the host's last pause of this table (its action's time)."""
    paused_at = store.last_pause(sql, table.id)
    return max(0.0, (utcnow() - paused_at).total_seconds()) if paused_at else 0.0


def cut_deadline(state: dict) -> float | None:
    if state["phase"] != "cut":
        return None
    started = state["hand"]["cut_started"] if state["game"] == "montones" else state["cut_started"]
    return started + state["settings"]["cut_timeout"]


def _cut_overdue(state: dict) -> bool:
    deadline = cut_deadline(state)
    return deadline is not None and time.time() >= deadline


def host_action(code: str, actor: Actor, kind: str) -> Snapshot:
    """Pause, resume or end a table: the host's own switches, outside the rules."""
    with locked(code) as (table, sql):
        if not actor.is_host:
            raise NotAllowed("Only the host can do that.")
        if table.ended_at:
            raise ServiceError("This table has ended.")
        if kind == "pause":
            table.paused = True
            new_state, events = bump(table.state), [{"type": "paused"}]
        elif kind == "resume":
            table.paused = False
            engine = GAMES[table.game]
            new_state = bump(engine.after_pause(table.state, time.time(), _paused_for(sql, table)))
            events = [{"type": "resumed"}]
        elif kind == "end":
            table.ended_at = utcnow()
            new_state, events = GAMES[table.game].finish(table.state)
        else:
            raise ServiceError("That is not something the host can do.")
        record(sql, table, new_state, events, "host", kind, {})
    return table.committed
