"""Where a request becomes a rules action, inside one database transaction.

Views parse the request and call a function here; this module loads the table under a write
lock, checks who may act, runs the rules engine, and stores the new state together with its
action-log row and its ledger entries, then tells the live channel. Nothing else writes a
table's state.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.orm import defer
from sqlalchemy.orm.attributes import set_committed_value

from montones import history, live
from montones.extensions import db
from montones.models import Action, GameTable, LedgerEntry, Player, utcnow
from montones.rules import RulesError, monte, montones
from montones.rules.errors import Phrase

GAMES = {"montones": montones, "monte": monte}
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: read off a TV, typed on a phone
REJOIN_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
# A Montones stake of "all I can": worked out when the tap arrives (montones.most_stake), so a
# phone's all-in chip stays right however its chips have moved since the bar was drawn.
ALL_IN = "max"


class ServiceError(ValueError):
    """A refusal, worded for the person who asked. Nothing was changed.

    Like a :class:`RulesError` it keeps an English ``template`` with %-style ``params``, so that
    it is put into the asker's language only where it is shown (:meth:`sentence`); ``str()`` is
    the English sentence.
    """

    status = 422

    def __init__(self, template: str, **params: Any) -> None:
        self.template = template
        self.params = params
        super().__init__(self.sentence())

    def sentence(self, gettext: Callable[..., str] | None = None) -> str:
        """The refusal as a sentence, in the language of ``gettext`` (English without one).

        ``gettext(template, **params)`` is Flask-Babel's; a param that is a :class:`Phrase`
        (words of the rules, "a top-up") is translated too.
        """
        if gettext is None:
            text = self.template % self.params if self.params else self.template
        else:
            params = {
                name: gettext(value) if isinstance(value, Phrase) else value
                for name, value in self.params.items()
            }
            text = gettext(self.template, **params)
        return _sentence(text)


class NotAllowed(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Stale(ServiceError):
    """The screen that sent the request showed an older stage of the table."""

    status = 409


@dataclass(frozen=True)
class Actor:
    """Who is asking: a seated player (``seat``), the host, or both on one phone."""

    seat: str | None = None
    is_host: bool = False


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


# --- reading --------------------------------------------------------------------------------


def get_table(code: str) -> GameTable:
    table = db.session.execute(
        select(GameTable).where(GameTable.code == (code or "").upper())
    ).scalar_one_or_none()
    if table is None:
        raise NotFound("There is no table with that code.")
    return table


@dataclass(frozen=True)
class Seat:
    """A seated player as the views need them: kept as read, whatever the session does next
    (an action's write transaction begins with a rollback, which would make a row read again)."""

    seat: str
    name: str
    rejoin_code: str


def player_by_token(table: GameTable, token: str | None) -> Seat | None:
    """The seat this token holds at the table, if its player is still at it."""
    seat = _seat_by_token(table, token)
    if seat is None or table.state["players"].get(seat.seat, {}).get("left"):
        return None
    return seat


def _seat_by_token(table: GameTable, token: str | None) -> Seat | None:
    """The seat this token holds at the table, whether or not its player has left."""
    if not token:
        return None
    found = (
        db.session.connection()
        .execute(_SEAT, {"table_id": table.id, "token_hash": _hash(token)})
        .first()
    )
    return Seat(*found) if found else None


# Built once: the statements every action runs (building one costs more than running it).
_SEAT = select(Player.seat, Player.name, Player.rejoin_code).where(
    Player.table_id == bindparam("table_id"), Player.token_hash == bindparam("token_hash")
)
_LOCK = (
    select(GameTable)
    .options(defer(GameTable.state))
    .where(GameTable.code == bindparam("code"))
    .with_for_update()
)
_NONCE = select(Action.id).where(
    Action.table_id == bindparam("table_id"), Action.nonce == bindparam("nonce")
)


def is_host(table: GameTable, secret: str | None) -> bool:
    return bool(secret) and secrets.compare_digest(_hash(secret), table.host_hash)


def stage(state: dict) -> str:
    """What a screen was showing: a request made for another stage is stale."""
    if state["game"] == "montones":
        return f"{state['hands']}-{state['phase']}"
    banks = state["banks"].get(state["banker"], 0) if state["banker"] else 0
    return f"{state['banker']}-{banks}-{state['coups']}-{state['phase']}"


def ledger_totals(table: GameTable) -> dict[str, int]:
    rows = db.session.execute(
        select(LedgerEntry.account, func.sum(LedgerEntry.amount))
        .where(LedgerEntry.table_id == table.id)
        .group_by(LedgerEntry.account)
    ).all()
    return {account: int(total) for account, total in rows}


def chips_over_night(table: GameTable) -> dict[str, list[int | None]]:
    """Each seat's chips in hand, as its phone showed them, over the night (from the ledger).

    A point is taken after every version that leaves nothing staked on the table and the
    players' chips changed since the last point, so a bet is no dip until it is settled; the
    newest version is always the last point, so the lines end where the standings do. A bank
    is not its banker's chips in hand: it comes back to the line when the bank closes. ``None``
    is before a seat joined.
    """
    rows = db.session.execute(
        select(LedgerEntry.version, LedgerEntry.account, LedgerEntry.amount)
        .where(LedgerEntry.table_id == table.id)
        .order_by(LedgerEntry.version, LedgerEntry.id)
    ).all()
    totals: dict[str, int] = {}
    points: list[dict[str, int]] = []
    for i, (version, account, amount) in enumerate(rows):
        totals[account] = totals.get(account, 0) + amount
        last = i + 1 == len(rows)
        if not last and rows[i + 1][0] == version:
            continue
        players = {a[7:]: n for a, n in totals.items() if a.startswith("player:")}
        if (last or not totals.get("stakes")) and (not points or players != points[-1]):
            points.append(players)
    seats = sorted({seat for point in points for seat in point}, key=_seat_order)
    return {seat: [point.get(seat) for point in points] for seat in seats}


def _seat_order(seat: str) -> int:
    return int(seat[1:])


def balances(state: dict) -> dict[str, int]:
    """Where every chip of a table is: players, the bank, stakes on the table."""
    accounts = {f"player:{pid}": p["chips"] for pid, p in state["players"].items()}
    if state["game"] == "montones":
        accounts["bank"] = state["bank"]["amount"] if state["bank"] else 0
        bets = state["hand"]["bets"] if state["hand"] and state["phase"] == "betting" else []
    else:
        accounts["bank"] = state["bank"]
        bets = state["coup"]["bets"] if state["coup"] and state["phase"] == "betting" else []
    accounts["stakes"] = sum(b["amount"] or 0 for b in bets)
    return accounts


# --- writing --------------------------------------------------------------------------------


# On SQLite the threads of this process take turns at writing here, rather than in SQLite's busy
# handler, which polls with sleeps of up to 100 ms: under a burst of taps those sleeps, not the
# work, made the wait. (SQLite runs one worker process; another process, if any, still waits in
# the busy handler.)
_sqlite_writer = threading.Lock()


@contextmanager
def _writing():
    """One write transaction; on SQLite, BEGIN IMMEDIATE, one writer of this process at a time.

    The caller commits; whatever it leaves uncommitted is rolled back.
    """
    db.session.rollback()  # end any read transaction this request has open
    sqlite = db.engine.dialect.name == "sqlite"
    if sqlite:
        _sqlite_writer.acquire()
    try:
        if sqlite:
            db.session.connection(execution_options={"sqlite_immediate": True})
        yield
    except BaseException:
        db.session.rollback()
        raise
    finally:
        if sqlite:
            _sqlite_writer.release()


@contextmanager
def _locked(code: str):
    """One write transaction on one table: BEGIN IMMEDIATE on SQLite, FOR UPDATE elsewhere.

    While it runs (and while it waits for the lock) the table counts it as an action on its way
    (:func:`live.acting`): the streams' release pace widens while more changes are coming.
    """
    code = (code or "").upper()
    with live.acting(code), _writing():
        table = db.session.execute(_LOCK, {"code": code}).scalar_one_or_none()
        if table is None:
            raise NotFound("There is no table with that code.")
        # The state is read only if this process does not hold it already: the newest table
        # it committed, at the version the locked row has (a state is never changed in place,
        # and every change of one takes a new version, so the one held is the one stored).
        held = live.latest(table.code)
        if held is not None and held.id == table.id and held.version == table.version:
            set_committed_value(table, "state", held.state)
        yield table
        live.notify_in_transaction(db.session, table.code, table.version)
        committed = live.snapshot(table)
        db.session.commit()
    live.publish(committed.code, committed.version, committed)


def _record(
    table: GameTable,
    new_state: dict,
    events: list,
    actor: str,
    kind: str,
    params: dict,
    nonce: str | None = None,
) -> None:
    """Store a new state with its action row and the ledger entries of what moved."""
    before, after = balances(table.state), balances(new_state)
    moves = {
        account: after.get(account, 0) - before.get(account, 0)
        for account in set(before) | set(after)
    }
    moves = {account: amount for account, amount in moves.items() if amount}
    issued = sum(moves.values())
    if issued and kind not in ("join", "top_up"):
        raise RuntimeError(f"{kind} would create or destroy {issued} chips")
    if issued:
        moves["house"] = -issued
    version = new_state["version"]
    # Written as plain INSERTs and UPDATE on the transaction's connection, not as objects for the
    # session to track: an action is the hottest path there is, and nothing reads these rows
    # back within it.
    connection, now = db.session.connection(), utcnow()
    if moves:
        connection.execute(
            _INSERT_LEDGER,
            [
                {
                    "table_id": table.id,
                    "version": version,
                    "account": account,
                    "amount": amount,
                    "created_at": now,
                }
                for account, amount in sorted(moves.items())
            ],
        )
    connection.execute(
        _INSERT_ACTION,
        {
            "table_id": table.id,
            "version": version,
            "actor": actor,
            "kind": kind,
            "params": params,
            "events": events,
            "nonce": nonce,
            "created_at": now,
        },
    )
    history.record(table, table.state, new_state, events)
    connection.execute(_UPDATE_STATE, {"row": table.id, "state": new_state, "version": version})
    set_committed_value(table, "state", new_state)
    set_committed_value(table, "version", version)


_INSERT_LEDGER = insert(LedgerEntry.__table__)
_INSERT_ACTION = insert(Action.__table__)
_UPDATE_STATE = (
    update(GameTable.__table__)
    .where(GameTable.__table__.c.id == bindparam("row"))
    .values(state=bindparam("state"), version=bindparam("version"))
)


def _bump(state: dict) -> dict:
    return {**state, "version": state["version"] + 1}


def create_table(
    game: str, name: str, starting_chips: int, settings: dict
) -> tuple[GameTable, str]:
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
    with _writing():
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(4))
            taken = db.session.execute(select(GameTable.id).where(GameTable.code == code))
            if taken.first() is None:
                break
        else:
            raise ServiceError("Could not find a free room code; try again.")
        table = GameTable(
            code=code,
            game=game,
            name=name,
            host_hash=_hash(secret),
            starting_chips=starting_chips,
            state=state,
            version=state["version"],
        )
        db.session.add(table)
        db.session.commit()
    return table, secret


def join(code: str, name: str) -> tuple[Player, str]:
    """Seat a new player with the starting chips; returns the player and their cookie secret."""
    token = secrets.token_urlsafe(24)
    with _locked(code) as table:
        if table.ended_at:
            raise ServiceError("This table has ended.")
        seat = f"p{len(table.state['players']) + 1}"
        engine = GAMES[table.game]
        try:
            new_state, events = engine.join(table.state, seat, name, table.starting_chips)
        except RulesError as error:
            raise ServiceError(error.template, **error.params) from None
        taken = set(
            db.session.execute(
                select(Player.rejoin_code).where(Player.table_id == table.id)
            ).scalars()
        )
        rejoin = _rejoin_code(taken)
        player = Player(
            table_id=table.id,
            seat=seat,
            name=new_state["players"][seat]["name"],
            token_hash=_hash(token),
            rejoin_code=rejoin,
        )
        db.session.add(player)
        _record(table, new_state, events, seat, "join", {"name": player.name})
    return player, token


def _rejoin_code(taken: set[str]) -> str:
    while True:
        code = "".join(secrets.choice(REJOIN_ALPHABET) for _ in range(6))
        if code not in taken:
            return code


def rejoin(code: str, rejoin_code: str) -> tuple[Player, str]:
    """Take one's seat back on another device: the old device's cookie stops working."""
    with _writing():
        table = get_table(code)
        player = db.session.execute(
            select(Player).where(
                Player.table_id == table.id,
                Player.rejoin_code == (rejoin_code or "").strip().upper(),
            )
        ).scalar_one_or_none()
        if player is None or table.state["players"][player.seat].get("left"):
            raise ServiceError("That rejoin code does not match a seat at this table.")
        token = secrets.token_urlsafe(24)
        player.token_hash = _hash(token)
        db.session.commit()
    return player, token


@dataclass
class _Spec:
    role: str  # "player" (the engine checks banker or cutter) or "host"
    call: Callable[..., tuple[dict, list]]
    params: tuple[str, ...] = field(default=())
    all_in: bool = False  # its "amount" may be ALL_IN


def _montones_actions() -> dict[str, _Spec]:
    m = montones
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
) -> GameTable:
    """Run one action for ``actor`` on table ``code``; raise a :class:`ServiceError` if refused."""
    with _locked(code) as table:
        _act(table, actor, kind, params, stage_seen, nonce)
    return table


def act_as(
    code: str,
    token: str | None,
    secret: str | None,
    asked: Callable[[str], tuple[str, dict[str, Any]]],
    *,
    stage_seen: str | None = None,
    nonce: str | None = None,
) -> tuple[GameTable, Seat]:
    """Run the action a browser asked for with its credentials (its seat token, its host
    secret); who is asking is read in the action's own transaction. ``asked(game)`` gives the
    action's kind and params from the request, or refuses with a :class:`ServiceError`.
    Returns the table and the asker's seat."""
    with _locked(code) as table:
        seat = _seat_by_token(table, token)
        if seat is None:
            raise NotAllowed("Join the table first.")
        kind, params = asked(table.game)
        actor = Actor(seat=seat.seat, is_host=is_host(table, secret))
        _act(table, actor, kind, params, stage_seen, nonce)
    return table, seat


def _act(
    table: GameTable,
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
    if nonce and _seen_nonce(table, nonce):
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
        most = montones.most_stake(table.state, who)
        if most <= 0:
            raise ServiceError("You have no chips left to bet.")
        params = {**params, "amount": most}
    try:
        new_state, events = spec.call(table.state, who, params, time.time())
    except RulesError as error:
        raise ServiceError(error.template, **error.params) from None
    _record(table, new_state, events, who, kind, {k: params[k] for k in spec.params}, nonce)
    _follow_up(table)


def _follow_up(table: GameTable) -> None:
    """What happens by itself after an action: an auction everyone answered closes; a Monte
    table whose last bank has passed ends, so every screen can show the standings."""
    state = table.state
    if table.game == "montones" and state["phase"] == montones.AUCTION:
        if montones.auction_complete(state):
            new_state, events = montones.close_auction(state, time.time())
            _record(table, new_state, events, "system", "close_auction", {})
    # Monte ends by itself once everyone has held the bank the agreed number of times.
    if table.game == "monte" and state["phase"] == monte.FINISHED and not table.ended_at:
        table.ended_at = utcnow()


def _seen_nonce(table: GameTable, nonce: str) -> bool:
    found = db.session.connection().execute(_NONCE, {"table_id": table.id, "nonce": nonce}).first()
    return found is not None


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:] + ("" if message.endswith((".", "!", "?")) else ".")


def tick(code: str) -> None:
    """Apply what the clock decides: a punter who did not cut in time is skipped (not while the
    host has the table paused)."""
    table = get_table(code)
    if table.paused or not _cut_overdue(table.state):
        return
    with _locked(code) as table:
        if not table.paused and _cut_overdue(table.state):
            engine = GAMES[table.game]
            new_state, events = engine.cut_timed_out(table.state, time.time())
            _record(table, new_state, events, "system", "cut_timeout", {})


def clock_deadline(table) -> float | None:
    """When the clock next decides something at this table: never while it is paused."""
    return None if table.paused else cut_deadline(table.state)


def _paused_for(table: GameTable) -> float:
    """Seconds since the host's last pause of this table (its action's time)."""
    paused_at = db.session.scalar(
        select(func.max(Action.created_at)).where(
            Action.table_id == table.id, Action.kind == "pause"
        )
    )
    return max(0.0, (utcnow() - paused_at).total_seconds()) if paused_at else 0.0


def cut_deadline(state: dict) -> float | None:
    if state["phase"] != "cut":
        return None
    started = state["hand"]["cut_started"] if state["game"] == "montones" else state["cut_started"]
    return started + state["settings"]["cut_timeout"]


def _cut_overdue(state: dict) -> bool:
    deadline = cut_deadline(state)
    return deadline is not None and time.time() >= deadline


def host_action(code: str, actor: Actor, kind: str) -> GameTable:
    """Pause, resume or end a table: the host's own switches, outside the rules."""
    with _locked(code) as table:
        if not actor.is_host:
            raise NotAllowed("Only the host can do that.")
        if table.ended_at:
            raise ServiceError("This table has ended.")
        if kind == "pause":
            table.paused = True
            new_state, events = _bump(table.state), [{"type": "paused"}]
        elif kind == "resume":
            table.paused = False
            engine = GAMES[table.game]
            new_state = _bump(engine.after_pause(table.state, time.time(), _paused_for(table)))
            events = [{"type": "resumed"}]
        elif kind == "end":
            table.ended_at = utcnow()
            new_state, events = GAMES[table.game].finish(table.state)
        else:
            raise ServiceError("That is not something the host can do.")
        _record(table, new_state, events, "host", kind, {})
    return table
