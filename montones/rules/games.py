"""The games a table can play, by name: the one place that names them.

Each game is an engine package whose names make up :class:`Game`; the service and the views
look a table's game up here (``game(table.game)``) and ask it everything that differs from one
game to another. Its templates are the folder ``templates/games/<NAME>/``.
"""

from __future__ import annotations

from collections.abc import Mapping
from random import Random
from typing import Any, Protocol

from montones.rules import monte, monte_bank, montones
from montones.rules.cards import Deck
from montones.rules.computer import PATIENCE, Move
from montones.rules.errors import Phrase, RulesError
from montones.rules.table import Action, Events, Field, State


class Game(Protocol):
    """What a game provides the rest of the app: the whole of what a new game must write.

    A game is a package ``montones/rules/<NAME>/``, standard library only, its modules by
    concern (its state and actions, settlement, views, records, odds, computer player) and
    these names in its ``__init__``; its templates are the folder ``templates/games/<NAME>/``;
    it is registered in :data:`GAMES`. Its state is plain JSON data and every action
    ``action(state, ...) -> (new_state, events)`` works on a copy (``table.action``), refusing
    what the rules refuse with a :class:`RulesError`. What every game shares is
    :mod:`montones.rules.table`; what a game whose bank goes round the table shares (Monte,
    Monte Bank) is :mod:`montones.rules.rotation`.

    These 32 members are exactly what the rest of the app asks of a game, each asked by the
    service, the data layer, the web, the audit or the TV's demonstration
    (``tests/rules/test_games.py`` checks both ways, and that each game takes what they pass);
    what only one engine's code uses stays inside it. A seat's part of the view and what a
    phone's regions are drawn from are built by :func:`~montones.rules.table.seat_view` and
    :func:`~montones.rules.table.seat_regions` from the engine's own functions.

    A game's words are its templates': the engine gives codes (a phase, a step's kind, a
    result) and data (its views), and ``templates/games/<NAME>/`` turns them into words through
    ``_()``, the demonstration's captions among them. The quick stakes a bar offers are the
    web's too (``montones/web/stakes.py``, the same for every game): a game's bar view gives
    only the least and the most its seat may stake (``me.stakes``). What only templates draw
    is part of the views, not a member of its own.
    """

    # --- the lobby and the service: a table's settings, its actions and its clock ---------
    NAME: str  # the key a table's row and state carry, and its templates' folder
    TITLE: Phrase  # the game's name on screens
    SETTINGS: tuple[Field, ...]  # the lobby's fields for a new table
    ACTIONS: Mapping[str, Action]  # kind -> what it does, its fields, who may do it

    def settings_from(self, values: dict[str, Any]) -> dict[str, Any]: ...
    def settings_for_rounds(self, rounds: int) -> dict[str, Any]:
        """Settings for a night of ``rounds`` rounds at least, where the game ends a night by
        itself (``montones simulate``)."""

    def new_table(self, settings: dict | None = None) -> State: ...
    def join(
        self, state: State, pid: str, name: str, chips: int, computer: bool = False
    ) -> tuple[State, Events]:
        """Seat a player (``computer``: a computer player, which every screen marks)."""

    def stage(self, state: State) -> str:
        """What a screen was showing: a request made at another stage is stale."""

    def balances(self, state: State) -> dict[str, int]:
        """Where every chip of the table is (the ledger records what moves between them)."""

    def follow_up(self, state: State, now: float) -> tuple[str, State, Events] | None:
        """What happens by itself after an action, if anything."""

    def over(self, state: State) -> bool: ...
    def finish(self, state: State) -> tuple[State, Events]: ...
    def after_pause(self, state: State, now: float, paused_for: float) -> State: ...
    def cut_deadline(self, state: State) -> float | None: ...
    def cut_timed_out(self, state: State, now: float) -> tuple[State, Events]: ...
    def betting_deadline(self, state: State) -> float | None:
        """When the clock closes the bets now open (the table's betting time run out), if it
        will: see :mod:`montones.rules.betting_time`."""

    def bets_timed_out(self, state: State, now: float) -> tuple[State, Events]:
        """Bets closed by the clock, exactly as the banker's close closes them."""

    # --- the screens ------------------------------------------------------------------------
    def view(
        self,
        state: State,
        seat: str | None = None,
        now: float | None = None,
        shared: dict | None = None,
    ) -> dict:
        """The table as one seat sees it (``seat=None``: the TV): no card still to come. Its
        ``"me"`` is the seat's own part (None for a seat not at the table), the rest is the
        same for every seat: given ``shared``, the view of no seat at this state, only the
        seat's part is worked out (``table.seat_view``)."""

    def regions(self, view: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """What each region of a seated phone (``"status"``, ``"bar"``) is drawn from, from its
        seat's view, and nothing more (its template's ``v``): a region is drawn again only when
        its part changed (``table.seat_regions``), the bar's ``me.stakes`` once the web has made
        them the quick stakes they offer (``web.stakes.bar_region``): a bar that does not show
        the most its seat may stake is not drawn again at every chip it bets."""

    def standings(self, state: State) -> list[dict]: ...
    def table_odds(self, state: State) -> dict[str, Any]:
        """The odds of the table's bets (:class:`~montones.rules.odds.Odds`), as its
        templates show them."""

    # --- the records: a settled hand, and what of it waits until its deck is done ----------
    SETTLES: str  # the event type of an action that settles a hand

    def live_commitment(self, state: State) -> str | None: ...
    def hand_record(self, before: State, after: State) -> dict[str, Any]: ...
    def while_live(self, entry: dict[str, Any]) -> dict[str, Any]:
        """A hand's record as it may be shown while its deck is live: what of it would tell
        the cards to come taken out (``hand_records.while_live``)."""

    def record_lines(self, entry: dict[str, Any]) -> tuple[list[dict], list[dict]]: ...
    def emptied_by(self, entry: dict[str, Any]) -> str | None:
        """Who broke the bank in a recorded hand: the punter whose winning line took its last
        chip as the bank paid its lines; None if none did."""

    def feat(self, entry: dict[str, Any]) -> tuple[str, str, int] | None:
        """The game's own feat in a recorded hand, which the TV celebrates after its reveal:
        its code, the player's seat and the chips it won; None for a hand of none."""

    def shares(self, hands: list[dict[str, Any]]) -> dict[str, int]:
        """What of a night's chips went to anyone outside its hands' results, from its hands
        (an export's, all of them, oldest first): by player, and the ``"house"``'s."""

    # --- replay and verify ------------------------------------------------------------------
    DECK: Deck  # the deck it is played with: an export's shuffle is an order of it

    def replay(self, data: dict) -> dict[str, Any]:
        """A scenario of this game (docs/scenarios.md) settled, its result as plain data; a
        :class:`~montones.rules.scenario_input.ScenarioError` naming what breaks a rule."""

    def check_dealt(self, hands: list[tuple[str, dict]], dealt: list[str]) -> list[str]:
        """The problems of an export's hands (``(where, hand)``) that share one deck, opened
        and cut (``dealt``): each a line saying where a hand is not what that deck deals."""

    # --- the computer players and the TV's demonstration -----------------------------------
    DEMO_SETTINGS: tuple[str, ...]  # a table's settings its TV's demonstration plays with

    def play(
        self, view: dict[str, Any], rng: Random, idle: float, patience: float = PATIENCE
    ) -> Move:
        """A computer player's next action from its seat's ``view`` (never the deck): one of
        :attr:`ACTIONS` the rules allow that seat now, as ``(kind, params)``, or None.
        ``rng`` makes its choices; ``idle`` is how long the table has stood still, in
        seconds, and ``patience`` how long a banker waits for the punters to bet and to see a
        result (the app's COMPUTER_PATIENCE). See :mod:`montones.rules.computer`."""


GAMES: dict[str, Game] = {engine.NAME: engine for engine in (montones, monte, monte_bank)}


def game(name: object) -> Game:
    """The game called ``name``; a :class:`RulesError` if there is none."""
    found = GAMES.get(name) if isinstance(name, str) else None
    if found is None:
        raise RulesError("there is no game called %(name)r", name=name)
    return found
