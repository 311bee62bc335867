"""Who may change what: every state-changing route, for each actor, against an explicit table.

The routes are read from ``app.url_map``: a route that accepts anything but GET/HEAD/OPTIONS and
is not in ``STATE_CHANGING`` fails the suite, and so does an action of the rules
(each game's ``ACTIONS``) that no row of ``MATRIX`` exercises. Each row is a table of one game in
one phase (see ``tests.helpers.security``), a POST, and what each of the five actors gets:

    anonymous  a browser with a session and its CSRF token, but no seat and no host secret
    A, B       two punters (A cuts when the phase is the cut; B owns the bet on the table)
    banker     the player holding the bank
    host       the device that created the table (it holds the host secret), not seated

Whenever the answer is not an allow, nothing may change: the table's state, switches, seats and
their secrets, its ledger totals and action count, and the number of tables, seats, actions and
ledger rows in the whole database (``tests.helpers.security.snapshot``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest
from flask.sessions import SecureCookieSessionInterface

from montones.rules.games import GAMES
from tests.helpers.security import (
    ACTORS,
    SECURITY_CONFIG,
    browser,
    csrf_of,
    host_secret,
    kept_secret,
    last_action,
    make_app,
    notice,
    path_of,
    rejoin_code,
    snapshot,
    table_in,
)

APP_CONFIG = SECURITY_CONFIG


SAFE = {"GET", "HEAD", "OPTIONS"}

# Every route that changes state, by endpoint: its methods other than GET/HEAD/OPTIONS.
STATE_CHANGING = {
    "lobby.create": {"POST"},  # POST /tables
    "lobby.practice": {"POST"},  # POST /practice
    "seats.leave_practice": {"POST"},  # POST /t/<code>/leave-practice
    "play.act": {"POST"},  # POST /t/<code>/a/<kind>
    "play.react": {"POST"},  # POST /t/<code>/react/<reaction>
    "seats.join": {"POST"},  # POST /t/<code>/join
    "seats.rejoin": {"POST"},  # POST /t/<code>/rejoin
    "host.act": {"POST"},  # POST /t/<code>/host/<kind>
}
# The host's own switches, outside the rules' actions (service.host_action).
HOST_SWITCHES = ("pause", "resume", "end", "tv_language")


# --- outcomes ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    kind: str  # ok | refused | flash | created | seated | already | takes_seat | ends | reacts
    status: int | None = None
    message: str | None = None

    @property
    def allowed(self) -> bool:
        return self.kind in ("ok", "created", "practises", "seated", "takes_seat", "ends", "reacts")

    def __repr__(self):
        return self.kind if self.status is None else f"{self.status}:{self.message or ''}"


OK = Outcome("ok")  # done: the table changed and the action log names this actor
ENDS = Outcome("ends")  # the host ended the night: 303 to the standings
CREATED = Outcome("created")  # a new table of one's own; this one untouched
PRACTISES = Outcome("practises")  # a practice table of one's own, a seat at it; this one untouched
SEATED = Outcome("seated")  # 303 to the phone page with a new seat
ALREADY = Outcome("already")  # already seated: 303 to the phone page, nothing done
TAKES_SEAT = Outcome("takes_seat")  # the rejoin code moves that seat to this browser
ASKS = Outcome("asks")  # a drastic action not yet confirmed: "are you sure?", nothing done
F403 = Outcome("refused", 403)  # the host routes' bare 403
REACTS = Outcome("reacts")  # a reaction sent to the TV: 204, and the table is as it was


def refused(status: int, message: str | None = None) -> Outcome:
    return Outcome("refused", status, message)


def flash(message: str | None = None) -> Outcome:
    """303 back to the host page with the refusal flashed, nothing done."""
    return Outcome("flash", 303, message)


JOIN = refused(403, "Join the table first.")
GONE = refused(403, "You are no longer at this table.")  # a seat the host kicked
HOST = refused(403, "Only the host can do that.")
BANK = refused(422, "Only the banker can do that.")
NO_BET = refused(422, "The banker does not bet against the bank.")
NOT_YOURS = refused(422, "That bet is not yours.")
NOT_TURN = refused(422, "It is not your turn to cut.")
UNKNOWN = refused(422, "That is not something you can do at this table.")
PAUSED = refused(422, "The host has paused the table.")
ENDED = refused(422, "This table has ended.")
R422 = refused(422)
QUIET = refused(422, "The host has turned reactions off.")
NO_REACTION = refused(422, "That is not a reaction.")
ENTERS = refused(422, "Only the banker enters the cards.")

MONTONES_FORM = {
    "game": "montones",
    "name": "Mine",
    "chips": "100",
    "min_bet": "1",
    "heaps_min": "3",
    "heaps_max": "8",
    "tenure": "60",
    "cut_timeout": "30",
}
MONTE_FORM = {
    "game": "monte",
    "name": "Mine",
    "chips": "100",
    "bank_size": "50",
    "min_bet": "1",
    "max_bet": "10",
    "banks_each": "1",
}
CASINO_FORM = {
    "game": "monte_bank",
    "name": "Mine",
    "chips": "100",
    "min_bet": "1",
    "mb_bank_size": "50",
    "mb_banks_each": "1",
    "mb_levy": "on",
}


@dataclass(frozen=True)
class Row:
    game: str
    phase: str
    path: str  # under /t/CODE; "//tables" is the absolute /tables (so "//practice")
    fields: dict  # "$bet", "$seat:A", "$rejoin:A" are read off the table
    expect: tuple  # outcomes for (anonymous, A, B, banker, host)
    logged: str | None = None  # the kind in the action log when allowed (default: the route's)
    xfail: str | None = None

    @property
    def id(self) -> str:
        tail = "-".join(f"{k}={v}" for k, v in self.fields.items() if k != "game")
        return f"{self.game}-{self.phase}-{self.path.strip('/')}" + (f"-{tail}" if tail else "")

    @property
    def endpoint(self) -> str:
        if self.path == "//tables":
            return "lobby.create"
        if self.path == "//practice":
            return "lobby.practice"
        if self.path.startswith("/a/"):
            return "play.act"
        if self.path.startswith("/host/"):
            return "host.act"
        if self.path.startswith("/react/"):
            return "play.react"
        return {
            "/join": "seats.join",
            "/rejoin": "seats.rejoin",
            "/leave-practice": "seats.leave_practice",
        }[self.path]

    @property
    def kind(self) -> str:
        return self.path.rsplit("/", 1)[1]


M, T, C = "montones", "monte", "monte_bank"
TAP = {"bet_kind": "layout", "against": "ll", "side": "upper", "amount": 3}
BET2 = {"heap": 2, "amount": 5}
# fmt: off
MATRIX = [
    # A table played with its own cards (issue 42): the banker's phone or the host's page enters
    Row(M, "own",       "/a/card",           {"card": "6o"},                          (JOIN,     ENTERS,    ENTERS,    OK,        JOIN)),
    Row(M, "own",       "/a/undo_card",      {},                                      (JOIN,     ENTERS,    ENTERS,    OK,        JOIN)),
    Row(M, "own_host",  "/host/host_card",   {"card": "6o"},                          (F403,     F403,      F403,      F403,      OK)),
    Row(M, "own_host",  "/host/host_undo_card", {},                                   (F403,     F403,      F403,      F403,      OK)),
    Row(M, "own_host",  "/a/host_card",      {"card": "6o"},                          (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(M, "own_host",  "/a/host_undo_card", {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(T, "own",       "/a/card",           {"card": "QH"},                          (JOIN,     ENTERS,    ENTERS,    OK,        JOIN)),
    Row(T, "own",       "/a/undo_card",      {},                                      (JOIN,     ENTERS,    ENTERS,    OK,        JOIN)),
    Row(T, "own_host",  "/host/host_card",   {"card": "QH"},                          (F403,     F403,      F403,      F403,      OK)),
    Row(T, "own_host",  "/host/host_undo_card", {},                                   (F403,     F403,      F403,      F403,      OK)),
    Row(T, "own_host",  "/a/host_card",      {"card": "QH"},                          (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(T, "own_host",  "/a/host_undo_card", {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(C, "own",       "/a/card",           {"card": "QH"},                          (JOIN,     ENTERS,    ENTERS,    OK,        JOIN)),
    Row(C, "own",       "/a/undo_card",      {},                                      (JOIN,     ENTERS,    ENTERS,    OK,        JOIN)),
    Row(C, "own_host",  "/host/host_card",   {"card": "QH"},                          (F403,     F403,      F403,      F403,      OK)),
    Row(C, "own_host",  "/host/host_undo_card", {},                                   (F403,     F403,      F403,      F403,      OK)),
    Row(C, "own_host",  "/a/host_card",      {"card": "QH"},                          (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(C, "own_host",  "/a/host_undo_card", {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    #   game phase       path                 fields                                  anonymous A          B          banker     host
    # Montones, the phones' actions
    Row(M, "auction",   "/a/offer",          {"amount": 40},                          (JOIN,     OK,        OK,        OK,        JOIN)),
    Row(M, "auction",   "/a/pass",           {},                                      (JOIN,     OK,        OK,        OK,        JOIN)),
    Row(M, "cut",       "/a/cut",            {"position": 10},                        (JOIN,     OK,        NOT_TURN,  NOT_TURN,  JOIN)),
    Row(M, "heaps",     "/a/heaps",          {"count": 3},                            (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(M, "betting",   "/a/bet",            BET2,                                    (JOIN,     OK,        OK,        NO_BET,    JOIN)),
    Row(M, "betting",   "/a/against",        BET2,                                    (JOIN,     OK,        OK,        NO_BET,    JOIN)),
    Row(M, "betting",   "/a/declare",        {"heap": 2},                             (JOIN,     OK,        OK,        NO_BET,    JOIN)),
    Row(M, "betting",   "/a/withdraw",       {"bet": "$bet"},                         (JOIN,     NOT_YOURS, OK,        NOT_YOURS, JOIN)),
    Row(M, "betting",   "/a/choose",         {"heap": 3},                             (JOIN,     OK,        OK,        refused(422, "The punters choose the banker's heap, never the banker."), JOIN)),
    Row(M, "betting",   "/a/tap",            {"mode": "bet", **BET2},                 (JOIN,     OK,        OK,        NO_BET,    JOIN), logged="bet"),
    Row(M, "betting",   "/a/tap",            {"mode": "against", **BET2},             (JOIN,     OK,        OK,        NO_BET,    JOIN), logged="against"),
    Row(M, "betting",   "/a/tap",            {"mode": "declare", "heap": 2},          (JOIN,     OK,        OK,        NO_BET,    JOIN), logged="declare"),
    Row(M, "betting",   "/a/tap",            {"mode": "choose", "heap": 3},           (JOIN,     OK,        OK,        R422,      JOIN), logged="choose"),
    Row(M, "chosen",    "/a/close",          {},                                      (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(M, "betting",   "/a/tres",           {"confirm": "yes"},                      (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(M, "betting",   "/a/tres",           {},                                      (JOIN,     BANK,      BANK,      ASKS,      JOIN)),
    Row(M, "betting",   "/a/sit_out",        {},                                      (JOIN,     OK,        OK,        R422,      JOIN)),
    Row(M, "b_out",     "/a/sit_in",         {},                                      (JOIN,     R422,      OK,        R422,      JOIN)),
    Row(M, "settled",   "/a/next",           {},                                      (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(M, "rey",       "/a/keep",           {"heap": 1},                             (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(M, "own_rey",   "/a/keep_entered",   {"count": 4},                            (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(M, "broken",    "/a/abona",          {"amount": 20},                          (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(M, "broken",    "/a/close_bank",     {},                                      (JOIN,     BANK,      BANK,      OK,        JOIN)),
    # Montones: the host's actions and the host's switches through a phone's route
    Row(M, "auction",   "/a/close_auction",  {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(M, "betting",   "/a/kick",           {"seat": "$seat:B"},                     (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(M, "betting",   "/a/top_up",         {"seat": "$seat:A", "amount": 50},       (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(M, "betting",   "/a/pause",          {},                                      (JOIN,     UNKNOWN,   UNKNOWN,   UNKNOWN,   JOIN)),
    Row(M, "betting",   "/a/end",            {},                                      (JOIN,     UNKNOWN,   UNKNOWN,   UNKNOWN,   JOIN)),
    Row(M, "betting",   "/a/gate",           {},                                      (JOIN,     UNKNOWN,   UNKNOWN,   UNKNOWN,   JOIN)),
    Row(M, "betting",   "/a/nonsense",       {},                                      (JOIN,     UNKNOWN,   UNKNOWN,   UNKNOWN,   JOIN)),
    # Montones: nobody acts on a paused or ended table, nor after being sent away
    Row(M, "paused",    "/a/bet",            BET2,                                    (JOIN,     PAUSED,    PAUSED,    PAUSED,    JOIN)),
    Row(M, "ended",     "/a/sit_out",        {},                                      (JOIN,     ENDED,     ENDED,     ENDED,     JOIN)),
    Row(M, "kicked",    "/a/bet",            BET2,                                    (JOIN,     GONE,      OK,        NO_BET,    JOIN)),
    # Montones: the host's routes
    Row(M, "auction",   "/host/close_auction", {},                                    (F403,     F403,      F403,      F403,      OK)),
    Row(M, "betting",   "/host/kick",        {"seat": "$seat:B", "confirm": "yes"},   (F403,     F403,      F403,      F403,      OK)),
    Row(M, "betting",   "/host/kick",        {"seat": "$seat:B"},                     (F403,     F403,      F403,      F403,      ASKS)),
    Row(M, "kicked",    "/host/readmit",     {"seat": "$seat:A"},                     (F403,     F403,      F403,      F403,      OK)),
    Row(M, "betting",   "/host/readmit",     {"seat": "$seat:A"},                     (F403,     F403,      F403,      F403,      flash())),
    Row(M, "kicked",    "/a/readmit",        {"seat": "$seat:A"},                     (JOIN,     GONE,      HOST,      HOST,      JOIN)),
    Row(M, "betting",   "/host/top_up",      {"seat": "$seat:A", "amount": 50},       (F403,     F403,      F403,      F403,      OK)),
    Row(M, "betting",   "/host/close_doors", {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(M, "betting",   "/host/open_doors",  {},                                      (F403,     F403,      F403,      F403,      flash())),
    Row(M, "closed",    "/host/open_doors",  {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(M, "closed",    "/host/close_doors", {},                                      (F403,     F403,      F403,      F403,      flash())),
    Row(M, "betting",   "/a/close_doors",    {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(M, "betting",   "/a/open_doors",     {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(M, "betting",   "/host/tv_sound_off", {},                                     (F403,     F403,      F403,      F403,      OK)),
    Row(M, "silent",    "/host/tv_sound_on", {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(M, "betting",   "/host/tv_sound_on", {},                                      (F403,     F403,      F403,      F403,      flash())),
    Row(M, "betting",   "/a/tv_sound_off",   {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(M, "betting",   "/host/betting_time", {"seconds": "30"},                      (F403,     F403,      F403,      F403,      OK)),
    Row(M, "betting",   "/host/betting_time", {"seconds": "5"},                       (F403,     F403,      F403,      F403,      flash())),
    Row(M, "betting",   "/a/betting_time",   {"seconds": "30"},                       (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(M, "silent",    "/a/tv_sound_on",    {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(M, "betting",   "/host/pause",       {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(M, "paused",    "/host/resume",      {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(M, "betting",   "/host/end",         {"confirm": "yes"},                      (F403,     F403,      F403,      F403,      ENDS)),
    Row(M, "betting",   "/host/end",         {},                                      (F403,     F403,      F403,      F403,      ASKS)),
    Row(M, "betting",   "/host/tv_language", {"language": "ru"},                      (F403,     F403,      F403,      F403,      OK)),
    Row(M, "betting",   "/host/tv_language", {"language": "xx"},                      (F403,     F403,      F403,      F403,      refused(400))),
    Row(M, "betting",   "/a/tv_language",    {"language": "ru"},                      (JOIN,     UNKNOWN,   UNKNOWN,   UNKNOWN,   JOIN)),
    Row(M, "betting",   "/host/close_auction", {},                                    (F403,     F403,      F403,      F403,      flash("The bank is not up for auction now."))),
    Row(M, "ended",     "/host/pause",       {},                                      (F403,     F403,      F403,      F403,      flash("This table has ended."))),
    Row(M, "betting",   "/host/new_night",   {"confirm": "yes"},                      (F403,     F403,      F403,      F403,      flash("End the night first: then everyone can start a new one."))),
    Row(M, "ended",     "/host/top_up",      {"seat": "$seat:A", "amount": "5"},      (F403,     F403,      F403,      F403,      flash("The night is over: nobody can be given chips, sent away or let back in now."))),
    Row(M, "betting",   "/host/kick",        {"seat": "p99", "confirm": "yes"},       (F403,     F403,      F403,      F403,      flash())),
    Row(M, "betting",   "/host/bet",         BET2,                                    (F403,     F403,      F403,      F403,      F403)),
    Row(M, "betting",   "/host/sit_out",     {},                                      (F403,     F403,      F403,      F403,      F403)),
    Row(M, "betting",   "/host/tres",        {},                                      (F403,     F403,      F403,      F403,      F403)),
    Row(M, "betting",   "/host/nonsense",    {},                                      (F403,     F403,      F403,      F403,      F403)),
    Row(M, "betting",   "/host/top_up",      {"seat": "$seat:A", "amount": "lots"},   (F403,     F403,      F403,      F403,      flash())),
    # Montones: the party (issue 40): the host's switches, a phone's reactions
    Row(M, "lobby",     "/host/start",       {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(M, "betting",   "/host/start",       {},                                      (F403,     F403,      F403,      F403,      flash("The night has started already."))),
    Row(M, "betting",   "/host/reactions_off", {},                                    (F403,     F403,      F403,      F403,      OK)),
    Row(M, "quiet",     "/host/reactions_on", {},                                     (F403,     F403,      F403,      F403,      OK)),
    Row(M, "betting",   "/host/reactions_on", {},                                     (F403,     F403,      F403,      F403,      flash("Reactions are on already."))),
    Row(M, "betting",   "/host/music_on",    {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(M, "betting",   "/host/music_off",   {},                                      (F403,     F403,      F403,      F403,      flash("The music is off already."))),
    Row(M, "ended",     "/host/music_on",    {},                                      (F403,     F403,      F403,      F403,      flash("This table has ended."))),
    Row(M, "betting",   "/a/music_on",       {},                                      (JOIN,     UNKNOWN,   UNKNOWN,   UNKNOWN,   JOIN)),
    Row(M, "betting",   "/react/laugh",      {},                                      (JOIN,     REACTS,    REACTS,    REACTS,    JOIN)),
    Row(M, "quiet",     "/react/clap",       {},                                      (JOIN,     QUIET,     QUIET,     QUIET,     JOIN)),
    Row(M, "kicked",    "/react/gasp",       {},                                      (JOIN,     GONE,      REACTS,    REACTS,    JOIN)),
    Row(M, "ended",     "/react/taunt",      {},                                      (JOIN,     ENDED,     ENDED,     ENDED,     JOIN)),
    Row(M, "betting",   "/react/boo",        {},                                      (NO_REACTION, NO_REACTION, NO_REACTION, NO_REACTION, NO_REACTION)),
    # Montones: creating, joining, rejoining
    Row(M, "betting",   "//tables",          MONTONES_FORM,                           (CREATED,  CREATED,   CREATED,   CREATED,   CREATED)),
    Row(M, "betting",   "//practice",        {"game": "monte"},                       (PRACTISES, PRACTISES, PRACTISES, PRACTISES, PRACTISES)),
    Row(M, "betting",   "/leave-practice",   {},                                      (F403,     F403,      F403,      F403,      F403)),
    Row(M, "betting",   "/join",             {"name": "Zed"},                         (SEATED,   ALREADY,   ALREADY,   ALREADY,   SEATED)),
    Row(M, "betting",   "/join",             {"name": "ben"},                         (R422,     ALREADY,   ALREADY,   ALREADY,   R422)),
    Row(M, "ended",     "/join",             {"name": "Zed"},                         (R422,     ALREADY,   ALREADY,   ALREADY,   R422)),
    Row(M, "betting",   "/rejoin",           {"rejoin": "ZZZZZZ"},                    (R422,     R422,      R422,      R422,      R422)),
    Row(M, "kicked",    "/rejoin",           {"rejoin": "$rejoin:A"},                 (R422,     R422,      R422,      R422,      R422)),
    Row(M, "betting",   "/rejoin",           {"rejoin": "$rejoin:A"},                 (TAKES_SEAT, TAKES_SEAT, TAKES_SEAT, TAKES_SEAT, TAKES_SEAT)),
    # Monte, the phones' actions
    Row(T, "bank",      "/a/bank",           {"amount": 50},                          (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(T, "cut",       "/a/cut",            {"position": 20},                        (JOIN,     OK,        NOT_TURN,  NOT_TURN,  JOIN)),
    Row(T, "betting",   "/a/bet",            {"layout": "bottom", "amount": 3},       (JOIN,     OK,        OK,        NO_BET,    JOIN)),
    Row(T, "betting",   "/a/tap",            {"layout": "top", "amount": 3},          (JOIN,     OK,        OK,        NO_BET,    JOIN), logged="bet"),
    Row(T, "betting",   "/a/withdraw",       {"bet": "$bet"},                         (JOIN,     NOT_YOURS, OK,        NOT_YOURS, JOIN)),
    Row(T, "betting",   "/a/gate",           {},                                      (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(T, "coup_over", "/a/next",           {},                                      (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(T, "bank",      "/a/decline",        {},                                      (JOIN,     BANK,      BANK,      OK,        JOIN)),
    # Monte: the host's actions through a phone's route, and another game's actions
    Row(T, "seating",   "/a/draw",           {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(T, "betting",   "/a/kick",           {"seat": "$seat:B"},                     (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(T, "betting",   "/a/top_up",         {"seat": "$seat:A", "amount": 50},       (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(T, "betting",   "/a/offer",          {"amount": 5},                           (JOIN,     UNKNOWN,   UNKNOWN,   UNKNOWN,   JOIN)),
    Row(T, "betting",   "/a/resume",         {},                                      (JOIN,     UNKNOWN,   UNKNOWN,   UNKNOWN,   JOIN)),
    Row(T, "paused",    "/a/bet",            {"layout": "top", "amount": 3},          (JOIN,     PAUSED,    PAUSED,    PAUSED,    JOIN)),
    Row(T, "ended",     "/a/bet",            {"layout": "top", "amount": 3},          (JOIN,     ENDED,     ENDED,     ENDED,     JOIN)),
    Row(T, "kicked",    "/a/bet",            {"layout": "top", "amount": 3},          (JOIN,     GONE,      OK,        NO_BET,    JOIN)),
    # Monte: the host's routes
    Row(T, "seating",   "/host/draw",        {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(T, "betting",   "/host/kick",        {"seat": "$seat:B", "confirm": "yes"},   (F403,     F403,      F403,      F403,      OK)),
    Row(T, "betting",   "/host/kick",        {"seat": "$seat:B"},                     (F403,     F403,      F403,      F403,      ASKS)),
    Row(T, "kicked",    "/host/readmit",     {"seat": "$seat:A"},                     (F403,     F403,      F403,      F403,      OK)),
    Row(T, "betting",   "/host/readmit",     {"seat": "$seat:A"},                     (F403,     F403,      F403,      F403,      flash())),
    Row(T, "kicked",    "/a/readmit",        {"seat": "$seat:A"},                     (JOIN,     GONE,      HOST,      HOST,      JOIN)),
    Row(T, "betting",   "/host/top_up",      {"seat": "$seat:A", "amount": 50},       (F403,     F403,      F403,      F403,      OK)),
    Row(T, "betting",   "/host/close_doors", {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(T, "betting",   "/host/open_doors",  {},                                      (F403,     F403,      F403,      F403,      flash())),
    Row(T, "closed",    "/host/open_doors",  {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(T, "closed",    "/host/close_doors", {},                                      (F403,     F403,      F403,      F403,      flash())),
    Row(T, "betting",   "/a/close_doors",    {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(T, "betting",   "/a/open_doors",     {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(T, "betting",   "/host/tv_sound_off", {},                                     (F403,     F403,      F403,      F403,      OK)),
    Row(T, "silent",    "/host/tv_sound_on", {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(T, "betting",   "/host/tv_sound_on", {},                                      (F403,     F403,      F403,      F403,      flash())),
    Row(T, "betting",   "/a/tv_sound_off",   {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(T, "betting",   "/host/betting_time", {"seconds": "30"},                      (F403,     F403,      F403,      F403,      OK)),
    Row(T, "betting",   "/host/betting_time", {"seconds": "5"},                       (F403,     F403,      F403,      F403,      flash())),
    Row(T, "betting",   "/a/betting_time",   {"seconds": "30"},                       (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(T, "silent",    "/a/tv_sound_on",    {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(T, "betting",   "/host/pause",       {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(T, "paused",    "/host/resume",      {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(T, "betting",   "/host/end",         {"confirm": "yes"},                      (F403,     F403,      F403,      F403,      ENDS)),
    Row(T, "betting",   "/host/end",         {},                                      (F403,     F403,      F403,      F403,      ASKS)),
    Row(T, "betting",   "/host/tv_language", {"language": "ru"},                      (F403,     F403,      F403,      F403,      OK)),
    Row(T, "betting",   "/host/tv_language", {"language": "xx"},                      (F403,     F403,      F403,      F403,      refused(400))),
    Row(T, "betting",   "/a/tv_language",    {"language": "ru"},                      (JOIN,     UNKNOWN,   UNKNOWN,   UNKNOWN,   JOIN)),
    Row(T, "betting",   "/host/draw",        {},                                      (F403,     F403,      F403,      F403,      flash())),
    Row(T, "betting",   "/host/gate",        {},                                      (F403,     F403,      F403,      F403,      F403)),
    Row(T, "betting",   "/host/nonsense",    {},                                      (F403,     F403,      F403,      F403,      F403)),
    # Monte: creating, joining, rejoining
    Row(T, "betting",   "//tables",          MONTE_FORM,                              (CREATED,  CREATED,   CREATED,   CREATED,   CREATED)),
    Row(T, "betting",   "/join",             {"name": "Zed"},                         (SEATED,   ALREADY,   ALREADY,   ALREADY,   SEATED)),
    Row(T, "ended",     "/join",             {"name": "Zed"},                         (R422,     ALREADY,   ALREADY,   ALREADY,   R422)),
    Row(T, "betting",   "/rejoin",           {"rejoin": "ZZZZZZ"},                    (R422,     R422,      R422,      R422,      R422)),
    Row(T, "betting",   "/rejoin",           {"rejoin": "$rejoin:B"},                 (TAKES_SEAT, TAKES_SEAT, TAKES_SEAT, TAKES_SEAT, TAKES_SEAT)),
    # Monte Bank, the phones' actions
    Row(C, "bank",      "/a/bank",           {"amount": 50},                          (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(C, "cut",       "/a/cut",            {"position": 20},                        (JOIN,     OK,        NOT_TURN,  NOT_TURN,  JOIN)),
    Row(C, "betting",   "/a/bet",            {"at": "lr", **TAP},                     (JOIN,     OK,        OK,        NO_BET,    JOIN)),
    Row(C, "betting",   "/a/tap",            {"at": "upper", **TAP},                  (JOIN,     OK,        OK,        NO_BET,    JOIN), logged="bet"),
    Row(C, "betting",   "/a/change",         {"bet": "$bet", "amount": 2},            (JOIN,     NOT_YOURS, OK,        NO_BET,    JOIN)),
    Row(C, "betting",   "/a/withdraw",       {"bet": "$bet"},                         (JOIN,     NOT_YOURS, OK,        NOT_YOURS, JOIN)),
    Row(C, "betting",   "/a/close",          {},                                      (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(C, "deal_over", "/a/next",           {},                                      (JOIN,     BANK,      BANK,      OK,        JOIN)),
    Row(C, "deal_over", "/a/aces",           {},                                      (JOIN,     BANK,      BANK,      OK,        JOIN)),
    # Monte Bank: the host's actions through a phone's route, and another game's actions
    Row(C, "seating",   "/a/draw",           {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(C, "betting",   "/a/kick",           {"seat": "$seat:B"},                     (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(C, "betting",   "/a/top_up",         {"seat": "$seat:A", "amount": 50},       (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(C, "betting",   "/a/gate",           {},                                      (JOIN,     UNKNOWN,   UNKNOWN,   UNKNOWN,   JOIN)),
    Row(C, "paused",    "/a/bet",            {"at": "lr", **TAP},                     (JOIN,     PAUSED,    PAUSED,    PAUSED,    JOIN)),
    Row(C, "ended",     "/a/bet",            {"at": "lr", **TAP},                     (JOIN,     ENDED,     ENDED,     ENDED,     JOIN)),
    Row(C, "kicked",    "/a/bet",            {"at": "lr", **TAP},                     (JOIN,     GONE,      OK,        NO_BET,    JOIN)),
    # Monte Bank: the host's routes
    Row(C, "seating",   "/host/draw",        {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(C, "betting",   "/host/kick",        {"seat": "$seat:B", "confirm": "yes"},   (F403,     F403,      F403,      F403,      OK)),
    Row(C, "betting",   "/host/kick",        {"seat": "$seat:B"},                     (F403,     F403,      F403,      F403,      ASKS)),
    Row(C, "betting",   "/host/top_up",      {"seat": "$seat:A", "amount": 50},       (F403,     F403,      F403,      F403,      OK)),
    Row(C, "betting",   "/host/pause",       {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(C, "paused",    "/host/resume",      {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(C, "betting",   "/host/end",         {"confirm": "yes"},                      (F403,     F403,      F403,      F403,      ENDS)),
    Row(C, "betting",   "/host/end",         {},                                      (F403,     F403,      F403,      F403,      ASKS)),
    Row(C, "betting",   "/host/tv_language", {"language": "ru"},                      (F403,     F403,      F403,      F403,      OK)),
    Row(C, "betting",   "/host/tv_language", {"language": "xx"},                      (F403,     F403,      F403,      F403,      refused(400))),
    Row(C, "betting",   "/a/tv_language",    {"language": "ru"},                      (JOIN,     UNKNOWN,   UNKNOWN,   UNKNOWN,   JOIN)),
    Row(C, "betting",   "/host/draw",        {},                                      (F403,     F403,      F403,      F403,      flash())),
    Row(C, "betting",   "/host/close_doors", {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(C, "closed",    "/host/open_doors",  {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(C, "betting",   "/a/close_doors",    {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(C, "betting",   "/a/open_doors",     {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(C, "betting",   "/host/tv_sound_off", {},                                     (F403,     F403,      F403,      F403,      OK)),
    Row(C, "silent",    "/host/tv_sound_on", {},                                      (F403,     F403,      F403,      F403,      OK)),
    Row(C, "betting",   "/host/tv_sound_on", {},                                      (F403,     F403,      F403,      F403,      flash())),
    Row(C, "betting",   "/a/tv_sound_off",   {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(C, "betting",   "/host/betting_time", {"seconds": "30"},                      (F403,     F403,      F403,      F403,      OK)),
    Row(C, "betting",   "/host/betting_time", {"seconds": "5"},                       (F403,     F403,      F403,      F403,      flash())),
    Row(C, "betting",   "/a/betting_time",   {"seconds": "30"},                       (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(C, "silent",    "/a/tv_sound_on",    {},                                      (JOIN,     HOST,      HOST,      HOST,      JOIN)),
    Row(C, "kicked",    "/host/readmit",     {"seat": "$seat:A"},                     (F403,     F403,      F403,      F403,      OK)),
    Row(C, "betting",   "/host/readmit",     {"seat": "$seat:A"},                     (F403,     F403,      F403,      F403,      flash())),
    Row(C, "kicked",    "/a/readmit",        {"seat": "$seat:A"},                     (JOIN,     GONE,      HOST,      HOST,      JOIN)),
    Row(C, "closed",    "/host/close_doors", {},                                      (F403,     F403,      F403,      F403,      flash())),
    Row(C, "betting",   "/host/close",       {},                                      (F403,     F403,      F403,      F403,      F403)),
    # Monte Bank: creating, joining, rejoining
    Row(C, "betting",   "//tables",          CASINO_FORM,                             (CREATED,  CREATED,   CREATED,   CREATED,   CREATED)),
    Row(C, "betting",   "/join",             {"name": "Zed"},                         (SEATED,   ALREADY,   ALREADY,   ALREADY,   SEATED)),
    Row(C, "betting",   "/rejoin",           {"rejoin": "$rejoin:B"},                 (TAKES_SEAT, TAKES_SEAT, TAKES_SEAT, TAKES_SEAT, TAKES_SEAT)),
]
# fmt: on


def params(rows):
    return [
        pytest.param(
            row,
            id=row.id,
            marks=[pytest.mark.xfail(strict=True, reason=row.xfail)] if row.xfail else [],
        )
        for row in rows
    ]


def resolve(table, fields: dict) -> dict:
    out = {}
    for key, value in fields.items():
        if value == "$bet":
            value = table.extra["bet"]
        elif isinstance(value, str) and value.startswith("$seat:"):
            value = table.seat(value.split(":")[1])
        elif isinstance(value, str) and value.startswith("$rejoin:"):
            value = rejoin_code(table, value.split(":")[1])
        out[key] = value
    return out


def absolute(path: str, code: str) -> str:
    """A row's path as a URL: under the table's, or on its own ("//tables": /tables)."""
    return path[1:] if path.startswith("//") else f"/t/{code}{path}"


def flashes(client) -> list[str]:
    """The messages flashed into a browser's session (taken out, as a page would)."""
    with client.session_transaction() as session:
        return [message for _category, message in session.pop("_flashes", [])]


def whole(snap: str) -> dict:
    import json

    return json.loads(snap)


def check(table, row: Row, actor: str, outcome: Outcome, response, before: str) -> None:
    """``response`` (a POST by ``actor``) is ``outcome``; a refusal changed nothing."""
    code = table.code
    after = table.snapshot()
    where = (row.id, actor, outcome, response.status_code)
    client, _token = table.client(actor)
    raw = response.headers.get("Location") or ""
    assert not raw or (raw.startswith("/") and not raw.startswith("//")), (*where, raw)
    location = path_of(raw)
    if outcome.kind == "refused":
        assert response.status_code == outcome.status, (*where, notice(response))
        if outcome.message:
            assert notice(response) == outcome.message, where
        assert after == before, where
    elif outcome.kind == "flash":
        assert response.status_code == 303 and location == f"/t/{code}/host", where
        messages = flashes(client)
        assert messages, where
        if outcome.message:
            assert messages == [outcome.message], (*where, messages)
        assert after == before, where
    elif outcome.kind == "asks":
        if row.endpoint == "host.act":
            assert response.status_code == 303, where
            assert location.startswith(f"/t/{code}/host?confirm={row.kind}"), where
            asking = client.get(location).get_data(as_text=True)
        else:
            assert response.status_code == 200 and notice(response) is None, where
            asking = response.get_data(as_text=True)
        assert 'role="alertdialog"' in asking and 'name="confirm" value="yes"' in asking, where
        assert after == before, where
    elif outcome.kind == "already":
        assert response.status_code == 303 and location == f"/t/{code}", where
        assert after == before, where
    elif outcome.kind == "created":
        assert response.status_code == 303, where
        found = re.fullmatch(r"/t/([A-Z]{4})/host", location)
        assert found and found.group(1) != code, where
        b, a = whole(before), whole(after)
        assert a["tables"] == b["tables"] + 1, where
        assert (a["table"], a["actions"], a["players"], a["ledger"]) == (
            b["table"],
            b["actions"],
            b["players"],
            b["ledger"],
        ), where
    elif outcome.kind == "practises":
        assert response.status_code == 303, where
        found = re.fullmatch(r"/t/([A-Z]{4})", location)
        assert found and found.group(1) != code, where
        b, a = whole(before), whole(after)
        assert a["tables"] == b["tables"] + 1, where
        assert a["players"] == b["players"] + 4, where  # this browser's seat, three computers'
        assert a["table"] == b["table"], where
        assert client.get(location).status_code == 200, where  # this browser's seat there
    elif outcome.kind == "seated":
        assert response.status_code == 303 and location == f"/t/{code}", where
        b, a = whole(before), whole(after)
        assert len(a["table"]["seats"]) == len(b["table"]["seats"]) + 1, where
        new_seat = a["table"]["seats"][-1][0]
        assert last_action(table.app, code) == (new_seat, "join"), where
        assert client.get(f"/t/{code}").status_code == 200, where
    elif outcome.kind == "takes_seat":
        assert response.status_code == 303 and location == f"/t/{code}", where
        b, a = whole(before), whole(after)
        # The seat's device count goes up (a new version, for the old device's stream to
        # tell it); nothing else of the state changes.
        old, new = b["table"]["state"], a["table"]["state"]
        seat = resolve_seat_of_code(table, row)
        devices = new["players"][seat].pop("device")
        assert devices == old["players"][seat].pop("device", 0) + 1, where
        assert {**new, "version": 0} == {**old, "version": 0}, where
        changed = [
            old[0]
            for old, new in zip(b["table"]["seats"], a["table"]["seats"], strict=True)
            if old != new
        ]
        seat = resolve_seat_of_code(table, row)
        assert changed == [seat], where
    elif outcome.kind == "reacts":
        assert response.status_code == 204 and notice(response) is None, where
        assert after == before, where  # no version, no row: the live channel's alone
    else:  # ok, ends
        assert after != before, where
        if row.endpoint == "host.act":
            target = f"/t/{code}/standings" if outcome.kind == "ends" else f"/t/{code}/host"
            assert response.status_code == 303 and location == target, where
            # A top-up is answered with the chips it made; nothing else is flashed.
            answered = ("top_up", "readmit")  # the host page says what they did
            assert len(flashes(client)) == (row.kind in answered), where
            assert last_action(table.app, code) == ("host", row.logged or row.kind), where
        else:
            assert response.status_code == 200 and notice(response) is None, (
                *where,
                notice(response),
            )
            assert last_action(table.app, code) == (table.seat(actor), row.logged or row.kind)


def resolve_seat_of_code(table, row: Row) -> str:
    role = row.fields["rejoin"].split(":")[1]
    return table.seat(role)


def post(table, row: Row, actor: str, fields: dict, **kwargs):
    return table.post(actor, row.path, fields, **kwargs)


@pytest.mark.parametrize("row", params(MATRIX))
def test_every_actor_gets_what_the_table_says_and_a_refusal_changes_nothing(app, row):
    order = sorted(range(len(ACTORS)), key=lambda i: row.expect[i].allowed)
    table, used = table_in(app, row.game, row.phase), False
    for i in order:
        actor, outcome = ACTORS[i], row.expect[i]
        if outcome.allowed and used:
            table = table_in(app, row.game, row.phase)  # each allow on a table of its own
        used = used or outcome.allowed
        fields = resolve(table, row.fields)
        before = table.snapshot()
        response = post(table, row, actor, fields)
        check(table, row, actor, outcome, response, before)
        if outcome.kind == "refused" and row.endpoint == "play.act":
            # Without htmx the same refusal is a redirect to the phone page, and changes nothing.
            response = post(table, row, actor, fields, hx=False)
            assert response.status_code == 303, (row.id, actor)
            assert path_of(response.location) == f"/t/{table.code}", (row.id, actor)
            assert table.snapshot() == before, (row.id, actor)
            if outcome is JOIN:
                page = table.client(actor)[0].get(response.location)
                assert path_of(page.location) == f"/t/{table.code}/join", (row.id, actor)


@pytest.mark.parametrize("row", [pytest.param(row, id=row.id) for row in MATRIX])
def test_every_post_refuses_a_missing_or_wrong_csrf_token(app, row):
    """Without a token, with an empty or wrong one, with another browser's, or with a wrong
    header over a right form field: 400 and nothing changed. Then the right token does what
    the matrix says, so the refusals were not refusals for another reason."""
    table = table_in(app, row.game, row.phase)
    i = next((i for i, o in enumerate(row.expect) if o.allowed), 1)
    actor, outcome = ACTORS[i], row.expect[i]
    other = "host" if actor != "host" else "A"
    fields = resolve(table, row.fields)
    before = table.snapshot()
    client, token = table.client(actor)
    url = absolute(row.path, table.code)
    data = {k: str(v) for k, v in fields.items()}
    for hx in (True, False):
        headers = {"HX-Request": "true"} if hx else {}
        for variant, sent, extra in [
            ("none", data, {}),
            ("empty", {**data, "csrf_token": ""}, {}),
            ("wrong", {**data, "csrf_token": token[:-1] + ("B" if token[-1] == "A" else "A")}, {}),
            ("other browser's", {**data, "csrf_token": table.client(other)[1]}, {}),
            ("wrong header", {**data, "csrf_token": token}, {"X-CSRF-Token": "wrong"}),
            ("empty header, no field", data, {"X-CSRF-Token": ""}),
        ]:
            response = client.post(url, data=sent, headers={**headers, **extra})
            assert response.status_code == 400, (row.id, actor, variant, hx)
            assert table.snapshot() == before, (row.id, actor, variant, hx)
    if not row.xfail:  # (the matrix test holds the known bug of these rows)
        response = post(table, row, actor, fields)
        check(table, row, actor, outcome, response, before)


def test_a_browser_without_a_session_is_refused_everywhere(app):
    """A browser that never loaded a page (no session cookie at all) has no CSRF token, and
    another browser's token does not stand in for one."""
    table = table_in(app, "montones", "betting")
    before = table.snapshot()
    for path in sorted({row.path for row in MATRIX}):
        url = absolute(path, table.code)
        fields = {"name": "x", "amount": "5", "heap": "2", "seat": table.seat("B")}
        for data in (fields, {**fields, "csrf_token": table.night.host_token}):
            for headers in ({}, {"HX-Request": "true"}):
                response = app.test_client().post(url, data=data, headers=headers)
                assert response.status_code == 400, path
        assert table.snapshot() == before, path


# --- the table covers every route and every action ----------------------------------------------


def test_every_state_changing_route_is_in_the_expectation_table(app):
    found = {}
    for rule in app.url_map.iter_rules():
        unsafe = set(rule.methods) - SAFE
        if unsafe:
            found[rule.endpoint] = unsafe
    assert found == STATE_CHANGING, (
        "a route that changes state is missing from (or gone from) STATE_CHANGING and MATRIX"
    )
    assert {row.endpoint for row in MATRIX} == set(STATE_CHANGING)


def test_every_action_of_both_games_is_in_the_matrix():
    done = {(row.game, row.path) for row in MATRIX if any(o.allowed for o in row.expect)}
    for game, rules in GAMES.items():
        for kind, spec in rules.ACTIONS.items():
            route = "/host/" if spec.host else "/a/"
            assert (game, route + kind) in done, f"no matrix row allows {game} {route}{kind}"
            if spec.host:
                # and the same action through a phone's route is refused to the players
                row = next((r for r in MATRIX if (r.game, r.path) == (game, "/a/" + kind)), None)
                assert row is not None, f"no matrix row for {game} /a/{kind}"
                assert not any(o.allowed for o in row.expect), row.id
        for switch in HOST_SWITCHES:
            assert (game, "/host/" + switch) in done, f"no matrix row allows {game} {switch}"
        assert (game, "/a/tap") in done


# --- GETs change nothing ------------------------------------------------------------------------


def test_a_get_on_a_post_route_changes_nothing(app):
    table = table_in(app, "montones", "betting")
    client, _token = table.client("A")
    before = table.snapshot()
    for row in MATRIX:
        url = absolute(row.path, table.code)
        query = {k: str(v) for k, v in row.fields.items() if not str(v).startswith("$")}
        # /join sends a seated player to their phone; /rejoin shows its form; the rest is POST only
        expected = {"/join": 303, "/rejoin": 200}.get(row.path, 405)
        for method in ("get", "head"):
            response = getattr(client, method)(url, query_string=query)
            assert response.status_code == expected, (row.id, method)
        response = client.options(url)
        assert response.status_code == 200 and not response.data
    assert table.snapshot() == before


# --- the host's pages and secrets ---------------------------------------------------------------


def test_the_host_page_refuses_everyone_without_the_host_secret(app):
    table = table_in(app, "montones", "betting")
    for actor in ("anonymous", "A", "B", "banker"):
        response = table.client(actor)[0].get(f"/t/{table.code}/host")
        assert response.status_code == 403, actor
        assert "host/claim" not in response.get_data(as_text=True)
    assert table.client("host")[0].get(f"/t/{table.code}/host").status_code == 200


@pytest.mark.parametrize(("game", "phase"), [("montones", "settled"), ("monte", "coup_over")])
def test_the_host_history_and_download_refuse_everyone_without_the_host_secret(app, game, phase):
    """A played hand is on record: its bets, every player's name, the deck once done. Only the
    host reads the night's history or downloads it; a seat (the banker's too) is not enough."""
    table = table_in(app, game, phase)
    names = set(table.roles.values())
    for path in ("/host/history", "/host/export.json"):
        url = f"/t/{table.code}{path}"
        for actor in ("anonymous", "A", "B", "banker"):
            response = table.client(actor)[0].get(url)
            assert response.status_code == 403, (path, actor)
            assert response.mimetype == "text/html", (path, actor)
            body = response.get_data(as_text=True)
            assert '"hands"' not in body and "recall__hand" not in body, (path, actor)
            assert "Content-Disposition" not in response.headers, (path, actor)
        response = table.client("host")[0].get(url)
        assert response.status_code == 200, path
        if path.endswith(".json"):
            assert response.mimetype == "application/json"
            assert set(json.loads(response.data)["players"].values()) == names
        else:
            assert "recall__hand" in response.get_data(as_text=True)


def test_the_phone_regions_refuse_a_browser_without_a_seat(app):
    table = table_in(app, "monte", "betting")
    for actor in ("anonymous", "host"):
        for region in ("all", "status", "felt", "bar"):
            response = table.client(actor)[0].get(
                f"/t/{table.code}/p/{region}", headers={"HX-Request": "true"}
            )
            assert response.status_code == 403, (actor, region)


@pytest.mark.parametrize(
    "secret",
    ["wrong", "", "x" * 200, "..%2F..%2Fhost", "$secret_of_another_table", "$secret_upper"],
)
def test_a_wrong_host_secret_gives_no_rights(app, secret):
    table = table_in(app, "montones", "betting")
    if secret == "$secret_of_another_table":
        secret = host_secret(table_in(app, "montones", "auction"))
    elif secret == "$secret_upper":
        secret = host_secret(table).swapcase()
    client, token = browser(app)
    before = table.snapshot()
    response = client.get(f"/t/{table.code}/host/claim/{secret}")
    assert response.status_code in (403, 404)  # an empty secret is no route at all
    assert client.get(f"/t/{table.code}/host").status_code == 403
    # A kicking B through the host's route, after the wrong link, is still refused.
    for who, who_token in [(client, token), table.client("A")]:
        for kind, fields in [("kick", {"seat": table.seat("B")}), ("pause", {})]:
            response = who.post(
                f"/t/{table.code}/host/{kind}", data={"csrf_token": who_token, **fields}
            )
            assert response.status_code == 403, kind
    assert table.snapshot() == before


def test_the_right_host_link_gives_a_player_the_host_rights_of_that_table_only(app):
    table = table_in(app, "montones", "betting")
    other = table_in(app, "montones", "betting")
    client, token = table.client("A")
    secret = host_secret(table)
    response = client.get(f"/t/{table.code}/host/claim/{secret}")
    assert response.status_code == 303 and path_of(response.location) == f"/t/{table.code}/host"
    assert client.get(f"/t/{table.code}/host").status_code == 200
    # The same secret at another table's claim link, or that table's host page: refused.
    assert client.get(f"/t/{other.code}/host/claim/{secret}").status_code == 403
    assert client.get(f"/t/{other.code}/host").status_code == 403
    before = other.snapshot()
    response = client.post(f"/t/{other.code}/host/pause", data={"csrf_token": token})
    assert response.status_code == 403 and other.snapshot() == before


def test_a_host_secret_copied_into_another_tables_slot_gives_nothing(app):
    """Even a session that says "I host table Y" with table X's secret is refused at Y."""
    first = table_in(app, "monte", "betting")
    second = table_in(app, "monte", "betting")
    client, token = browser(app)
    with client.session_transaction() as session:
        session["hosts"] = {second.code: host_secret(first)}
    before = second.snapshot()
    assert client.get(f"/t/{second.code}/host").status_code == 403
    response = client.post(f"/t/{second.code}/host/end", data={"csrf_token": token})
    assert response.status_code == 403 and second.snapshot() == before


def test_a_seat_token_works_only_at_its_own_table(app):
    first = table_in(app, "montones", "betting")
    second = table_in(app, "montones", "betting")
    client, token = first.client("A")
    seat_token = kept_secret(app, client, first.code, "seats")
    with client.session_transaction() as session:  # as a cookie of the days it was kept in
        session["seats"] = {second.code: seat_token}
    before = second.snapshot()
    response = client.post(
        f"/t/{second.code}/a/bet",
        data={"csrf_token": token, "heap": "2", "amount": "5"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 403 and notice(response) == "Join the table first."
    assert second.snapshot() == before


def test_a_forged_session_cookie_is_ignored(app, tmp_path):
    """A session signed with another key, claiming B's seat and the host secret: the server
    sees no session at all (so no CSRF token either) and changes nothing."""
    table = table_in(app, "montones", "betting")
    with table.client("B")[0].session_transaction() as session:
        claimed = dict(session)
    claimed["hosts"] = {table.code: host_secret(table)}
    forger = make_app(tmp_path, SECRET_KEY="not-the-key")
    serializer = SecureCookieSessionInterface().get_signing_serializer(forger)
    client = app.test_client()
    client.set_cookie("session", serializer.dumps(claimed))
    before = table.snapshot()
    response = client.post(
        f"/t/{table.code}/a/bet",
        data={"csrf_token": claimed["csrf"], "heap": "2", "amount": "5"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 400
    assert client.get(f"/t/{table.code}/host").status_code == 403
    assert path_of(client.get(f"/t/{table.code}").location) == f"/t/{table.code}/join"
    assert table.snapshot() == before


def test_a_join_cannot_take_over_a_seat_or_the_bank(app):
    """Joining with a taken name (any case, padded) is refused; the newcomer is a new seat."""
    table = table_in(app, "montones", "betting")
    before = table.snapshot()
    client, token = browser(app)
    for name in ("Ben", " ben ", "BEN", "Ana"):
        response = client.post(f"/t/{table.code}/join", data={"csrf_token": token, "name": name})
        assert response.status_code == 422, name
    assert table.snapshot() == before


# --- unknown tables -----------------------------------------------------------------------------

UNKNOWN_CODE_ROUTES = [
    ("get", "/t/QQQQ", None),
    ("get", "/t/QQQQ/join", None),
    ("get", "/t/QQQQ/rejoin", None),
    ("get", "/t/QQQQ/standings", None),
    ("get", "/t/QQQQ/standings.svg", None),
    ("get", "/t/QQQQ/next", None),
    ("get", "/t/QQQQ/qr.svg", None),
    ("get", "/t/QQQQ/p/all", None),
    ("get", "/t/QQQQ/back", None),
    ("post", "/t/QQQQ/a/bet", None),
    ("post", "/t/QQQQ/react/laugh", None),
    ("post", "/t/QQQQ/join", None),
    ("post", "/t/QQQQ/rejoin", None),
    ("get", "/t/QQQQ/tv", None),
    ("get", "/t/QQQQ/tv/p/all", None),
    ("get", "/t/QQQQ/watch", None),
    ("get", "/t/QQQQ/watch/p/all", None),
    ("get", "/t/QQQQ/watch/qr.svg", None),
    ("get", "/t/QQQQ/tv/next", None),
    ("get", "/t/QQQQ/stream", None),
    ("get", "/t/QQQQ/host", None),
    ("get", "/t/QQQQ/host/history", None),
    ("get", "/t/QQQQ/host/export.json", None),
    ("get", "/t/QQQQ/history", None),
    ("get", "/t/QQQQ/verify/1", None),
    ("get", "/t/QQQQ/host/claim/secret", None),
    ("post", "/t/QQQQ/host/pause", None),
    ("post", "/t/QQQQ/leave-practice", None),
]


@pytest.mark.parametrize(
    ("method", "url"),
    [
        pytest.param(
            m, u, id=f"{m}-{u}", marks=[pytest.mark.xfail(strict=True, reason=r)] if r else []
        )
        for m, u, r in UNKNOWN_CODE_ROUTES
    ],
)
def test_an_unknown_table_code_is_a_404_not_a_server_error(app, method, url):
    client, token = browser(app)
    before = snapshot(app)
    for hx in ({}, {"HX-Request": "true"}):
        if method == "get":
            response = client.get(url, headers=hx)
        else:
            response = client.post(url, data={"csrf_token": token, "name": "Zed"}, headers=hx)
        assert response.status_code == 404, (url, hx, response.status_code)
    assert snapshot(app) == before


def test_every_get_route_is_checked_for_unknown_codes(app):
    with_code = {rule.endpoint for rule in app.url_map.iter_rules() if "<code>" in rule.rule}
    covered = set()
    for _method, url, _reason in UNKNOWN_CODE_ROUTES:
        path = url.replace("QQQQ", "C")
        adapter = app.url_map.bind("localhost")
        for method in ("GET", "POST"):
            try:
                endpoint, _args = adapter.match(path, method=method)
            except Exception:  # noqa: BLE001 - wrong method for this path
                continue
            covered.add(endpoint)
    assert with_code <= covered, with_code - covered


def test_the_page_of_a_join_refusal_carries_a_fresh_csrf_token(app):
    """A refusal page is a form the browser can send again: it carries the session's token."""
    table = table_in(app, "montones", "betting")
    client, token = browser(app)
    response = client.post(f"/t/{table.code}/join", data={"csrf_token": token, "name": ""})
    assert response.status_code == 422 and csrf_of(response) == token
