"""Checking an exported night: every hand re-settled, every commitment opened, the hands'
numbers and metadata, and the standings re-derived from the hands and the buy-ins.

An export (``montones.data.history.export``) is ``{"format": FORMAT, "hands": [...], ...}``: each
hand is a scenario of docs/scenarios.md with its ``result`` as recorded, its ``meta`` and its
``shuffle`` (the deck order, the salt and the cut that open the commitment shown at the table;
for a hand played with the table's own cards, only ``own_deck``: there is no seal to open, and
the hand is re-settled from the cards entered).
:func:`verify` returns one line per problem; an export with none is a night whose every hand the
rules confirm and whose standings its hands and buy-ins add up to.
"""

from __future__ import annotations

from typing import Any

from montones.rules.cards import cut
from montones.rules.errors import RulesError
from montones.rules.fairness import commitment
from montones.rules.games import game
from montones.rules.hand_records import own_deck
from montones.rules.scenario import replay
from montones.rules.table import is_count, places

FORMAT = "montones-export/1"
# What an export holds besides its hands, each of its kind: a file without them is no export.
PARTS = {"table": dict, "players": dict, "standings": list, "buy_ins": list, "hands": list}


def verify(export: object) -> list[str]:
    """The problems of a table's export: its hands (:func:`verify_hands`), their numbers and
    metadata, and its standings."""
    if not isinstance(export, dict) or export.get("format") != FORMAT:
        return [f'not an export: its "format" is not "{FORMAT}"']
    wrong = [name for name, kind in PARTS.items() if not isinstance(export.get(name), kind)]
    if wrong or not isinstance(export.get("held_back"), int):
        return [f"not an export: no {', '.join(wrong or ['held_back'])} of the right kind"]
    problems = verify_hands(export["hands"])
    problems += record_problems(export)
    return problems + standings_problems(export, trusted=not problems)


def verify_hands(hands: list) -> list[str]:
    """Every hand replayed and compared with its recorded result, every deck's commitment
    opened and its hands dealt from it."""
    problems: list[str] = []
    decks: dict[str, list[tuple[str, dict]]] = {}
    for i, hand in enumerate(hands, start=1):
        where = f"hand {i}"
        if not isinstance(hand, dict):
            problems.append(f"{where}: not an object")
            continue
        try:
            replayed = replay(hand)
        except RulesError as error:
            problems.append(f"{where}: {error}")
            continue
        difference = _difference(hand.get("result"), replayed, "result")
        if difference:
            problems.append(
                f"{where}: the recorded result is not what the rules give: {difference}"
            )
        shuffle = hand.get("shuffle")
        if own_deck(hand):
            continue  # the table's own cards: re-settled above, with no seal to open
        if not isinstance(shuffle, dict) or not isinstance(shuffle.get("commitment"), str):
            problems.append(f"{where}: no commitment to its deck")
            continue
        decks.setdefault(shuffle["commitment"], []).append((where, hand))
    for hands in decks.values():
        problems += _check_deck(hands)
    return problems


def _difference(recorded: Any, replayed: Any, path: str) -> str | None:
    """The first place where two results differ, as ``path: recorded X, replayed Y``."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in sorted(set(recorded) | set(replayed), key=str):
            found = _difference(recorded.get(key), replayed.get(key), f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(replayed, list) and len(recorded) == len(replayed):
        for i, (a, b) in enumerate(zip(recorded, replayed, strict=True)):
            found = _difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    if recorded != replayed:
        return f"{path}: recorded {recorded!r}, replayed {replayed!r}"
    return None


def _check_deck(hands: list[tuple[str, dict]]) -> list[str]:
    """Open one deck's commitment and check that its hands were dealt from that order (the
    game's ``check_dealt``)."""
    where, first = hands[0]
    shuffle = first["shuffle"]
    engine = game(first["game"])  # each hand here was replayed: its game is one of the registry
    try:
        order = engine.DECK.parse_order(shuffle.get("order"))
        dealt = cut(order, shuffle.get("cut"))
    except (RulesError, TypeError) as error:
        return [f"{where}: the committed deck cannot be opened: {error}"]
    if commitment(order, str(shuffle.get("salt"))) != shuffle["commitment"]:
        return [f"{where}: the deck order and salt do not hash to the commitment"]
    for other, hand in hands[1:]:
        if {k: hand["shuffle"].get(k) for k in ("salt", "order", "cut")} != {
            k: shuffle.get(k) for k in ("salt", "order", "cut")
        }:
            return [f"{other}: its deck is not the one its commitment names"]
    try:
        return engine.check_dealt(hands, dealt)
    except (RulesError, TypeError, ValueError, AttributeError, IndexError, KeyError) as error:
        return [f"{where}: the deal cannot be rebuilt from the committed deck: {error}"]


def record_problems(export: dict) -> list[str]:
    """The record around the hands: numbered 1, 2, ... in order, none repeated nor missing, of
    this table, in the order the table settled them; each naming a banker of the table who is
    no punter of that same hand, and the names the table has."""
    problems: list[str] = []
    code, players = export["table"].get("code"), export["players"]
    seen: dict[object, int] = {}
    last_version = None
    for i, hand in enumerate(export["hands"], start=1):
        meta = hand.get("meta") if isinstance(hand, dict) else None
        if not isinstance(meta, dict):
            problems.append(f"hand {i}: no meta")
            continue
        number = meta.get("number")
        if not _count(number):
            problems.append(f"hand {i}: no hand number")
        elif number in seen:
            problems.append(f"hand {i}: numbered {number}, as hand {seen[number]} is: repeated")
        elif seen and number < max(seen):
            problems.append(f"hand {i}: numbered {number} after {max(seen)}: out of order")
        if _count(number):
            seen.setdefault(number, i)
        if hand.get("game") != export["table"].get("game"):
            problems.append(f"hand {i}: a hand of {hand.get('game')!r}, not of the table's game")
        if meta.get("table") != code:
            problems.append(f"hand {i}: of table {meta.get('table')!r}, not {code!r}")
        version = meta.get("version")
        if not _count(version) or (last_version is not None and version <= last_version):
            problems.append(f"hand {i}: version {version!r} is not after the hand before's")
        else:
            last_version = version
        banker = meta.get("banker")
        chips, bets = hand.get("players"), hand.get("bets")
        punters = list(chips) if isinstance(chips, dict) else []
        if isinstance(bets, list):
            punters += [bet.get("player") for bet in bets if isinstance(bet, dict)]
        if not isinstance(banker, str) or banker not in players:
            problems.append(f"hand {i}: its banker {banker!r} is not a player of the table")
        elif banker in punters:
            problems.append(f"hand {i}: its banker {banker!r} is also a punter in it")
        names = meta.get("names")
        if isinstance(names, dict) and any(players.get(p) != n for p, n in names.items()):
            problems.append(f"hand {i}: its players' names are not the table's")
    missing = sorted(set(range(1, max(seen, default=0) + 1)) - set(seen))
    if missing:
        problems.append(f"hands missing: numbers {', '.join(map(str, missing))}")
    return problems


def _count(value: object) -> bool:
    return is_count(value) and value >= 1


def standings_problems(export: dict, trusted: bool = True) -> list[str]:
    """Each player's bought, chips, net and place re-derived. ``bought`` is the sum of their
    buy-ins; ``net`` is chips less bought, the places follow it. Once the night is over with
    every hand in the export (and the hands check out: ``trusted``), each player's chips are
    their buy-ins plus what they won or lost in each hand (a banker: what their bank gained or
    lost) plus their share of what was left on the table after the hands (the game's
    ``shares``), and the nets add up to minus what the house kept."""
    problems: list[str] = []
    players = export["players"]
    rows = [row for row in export["standings"] if isinstance(row, dict)]
    seats = [row.get("player") for row in rows]
    if (
        len(rows) != len(export["standings"])
        or not all(isinstance(seat, str) for seat in seats)
        or sorted(seats) != sorted(players)
    ):
        return ["standings: not one row for each player of the table"]
    bought: dict[str, int] = dict.fromkeys(players, 0)
    for entry in export["buy_ins"]:
        amount = entry.get("amount") if isinstance(entry, dict) else None
        player = entry.get("player") if isinstance(entry, dict) else None
        version = entry.get("version") if isinstance(entry, dict) else None
        if not (_count(amount) and _count(version) and isinstance(player, str)) or (
            player not in players
        ):
            return [f"buy-ins: {entry!r} is not a buy-in of a player of the table"]
        bought[entry["player"]] += amount
    for row in rows:
        pid, chips, net = row["player"], row.get("chips"), row.get("net")
        who = f"standings: {players[pid]} ({pid})"
        if row.get("bought") != bought[pid]:
            problems.append(
                f"{who} bought {row.get('bought')!r}, their buy-ins add up to {bought[pid]}"
            )
        if not isinstance(chips, int) or net != chips - bought[pid]:
            problems.append(
                f"{who}: a net of {net!r} is not chips {chips!r} less {bought[pid]} bought"
            )
    nets = [row["net"] if is_count(row.get("net")) else 0 for row in rows]
    for row, expected in zip(rows, places(nets), strict=True):
        if row.get("place") != expected:
            problems.append(
                f"standings: {players[row['player']]} is placed {row.get('place')!r}, their net gives {expected}"
            )
    if problems or not trusted:
        return problems
    problems = _carried(export)
    if problems or not export["table"].get("ended_at") or export["held_back"]:
        return problems
    return _chips(export, rows, bought)


def _carried(export: dict) -> list[str]:
    """A punter's chips before a hand are what they had after their last hand as a punter,
    plus what they bought since (a banker's chips in hand are not recorded: a player who held
    the bank in between is picked up again at their next hand)."""
    buy_ins: dict[str, list[tuple[int, int]]] = {}
    for entry in export["buy_ins"]:
        buy_ins.setdefault(entry["player"], []).append((entry["version"], entry["amount"]))
    after: dict[str, tuple[int, int]] = {}  # a punter's chips after their last hand, and when
    problems = []
    for i, hand in enumerate(export["hands"], start=1):
        version = hand["meta"]["version"]
        for pid, before in hand["players"].items():
            if pid in after:
                chips, since = after[pid]
                chips += sum(amount for at, amount in buy_ins.get(pid, []) if since < at <= version)
                if before != chips:
                    problems.append(
                        f"hand {i}: {export['players'].get(pid, pid)} ({pid}) comes to it with {before} "
                        f"chips, after {chips} at their last hand and their buy-ins since"
                    )
            after[pid] = (hand["result"]["players"][pid], version)
        after.pop(hand["meta"]["banker"], None)
    return problems


def _chips(export: dict, rows: list[dict], bought: dict[str, int]) -> list[str]:
    hands = export["hands"]
    chips = dict(bought)
    for hand in hands:
        for pid, before in hand["players"].items():
            chips[pid] = chips.get(pid, 0) + hand["result"]["players"][pid] - before
        banker = hand["meta"]["banker"]
        chips[banker] += hand["result"]["bank"] - hand["bank"]
    kept = 0
    if hands:
        shares = game(hands[0]["game"]).shares(hands)
        kept = shares.pop("house", 0)
        for pid, share in shares.items():
            chips[pid] += share
    problems = [
        f"standings: {export['players'][row['player']]} ({row['player']}) has {row['chips']} "
        f"chips, the hands and buy-ins give {chips[row['player']]}"
        for row in rows
        if row["chips"] != chips[row["player"]]
    ]
    nets = sum(row["net"] for row in rows)
    if not problems and nets != -kept:
        problems.append(
            f"standings: the nets add up to {nets}, not minus the {kept} the house kept"
        )
    return problems
