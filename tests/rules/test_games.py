"""One interface per game: the registry names the games, and nothing outside the rules does."""

import ast
import inspect
import re
import typing
from pathlib import Path

import pytest

from montones.rules import games
from montones.rules.games import GAMES, Game
from montones.rules.table import Action, Field

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = [
    name for name in dir(Game) if not name.startswith("_") and name not in dir(typing.Protocol)
] + list(typing.get_type_hints(Game, include_extras=False))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_registered_game_offers_the_whole_interface(name):
    engine = GAMES[name]
    missing = [attribute for attribute in PROTOCOL if not hasattr(engine, attribute)]
    assert not missing, f"{name} lacks {missing}"
    assert engine.NAME == name
    assert engine.new_table()["game"] == name
    assert all(isinstance(spec, Action) for spec in engine.ACTIONS.values())
    assert all(isinstance(field, Field) for field in engine.SETTINGS)
    for kind, spec in engine.ACTIONS.items():
        assert not (spec.tap and spec.host), kind  # a tap is a player's
        assert spec.all_in is None or any(f.name == "amount" for f in spec.fields), kind


def _parameters(function) -> list[inspect.Parameter]:
    """What a function takes as its caller sees it: an action (``table.action``) is passed its
    ``events`` by its wrapper."""
    parameters = list(inspect.signature(function).parameters.values())
    if getattr(function, "__wrapped__", None) is not None and parameters[1].name == "events":
        del parameters[1]
    return [p for p in parameters if p.name != "self"]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_registered_game_takes_what_the_interface_passes(name):
    """Each function of the interface can be called as the protocol declares it: its
    parameters in its order, an optional one also by its name (``view(..., shared=...)``)."""
    engine = GAMES[name]
    for member in PROTOCOL:
        declared = getattr(Game, member, None)
        if not callable(declared):
            continue
        wanted = _parameters(declared)
        signature = inspect.Signature(_parameters(getattr(engine, member)))
        try:
            signature.bind(*(p.name for p in wanted))
            required = [p.name for p in wanted if p.default is p.empty]
            signature.bind(*required, **{p.name: p for p in wanted if p.default is not p.empty})
        except TypeError:
            pytest.fail(f"{name}.{member}{signature} cannot be called as {wanted}")


def _asks_a_game(node: ast.AST, bound: set[str]) -> bool:
    """Whether ``node`` is a game: ``game(...)``, ``GAMES[...]`` or a name bound to one."""
    if isinstance(node, ast.Name):
        return node.id in bound
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id == "game"
    return isinstance(node, ast.Subscript) and getattr(node.value, "id", None) == "GAMES"


def _games_bound(scope: ast.AST) -> set[str]:
    """The names a scope binds to a game: ``x = game(...)``, a parameter ``x: Game``, a loop
    over ``GAMES.values()`` or ``GAMES.items()``."""
    bound = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and _asks_a_game(node.value, set()):
            bound |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.arg) and getattr(node.annotation, "id", None) == "Game":
            bound.add(node.arg)
        elif isinstance(node, (ast.For, ast.comprehension)):
            over = node.iter
            if isinstance(over, ast.Call) and getattr(over.func, "value", None) is not None:
                if getattr(over.func.value, "id", None) == "GAMES":
                    target = (
                        node.target.elts[-1] if isinstance(node.target, ast.Tuple) else node.target
                    )
                    bound |= {target.id} if isinstance(target, ast.Name) else set()
    return bound


def asked_of_a_game() -> dict[str, set[str]]:
    """Every name the app's code asks of a game, outside the engines, with where."""
    package = ROOT / "montones"
    engines = [package / "rules" / name for name in GAMES]
    asked: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        if any(path.is_relative_to(engine) for engine in engines):
            continue
        tree = ast.parse(path.read_text())
        scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))]
        for scope in scopes:
            bound = _games_bound(scope)
            for node in ast.walk(scope):
                if isinstance(node, ast.Attribute) and _asks_a_game(node.value, bound):
                    asked.setdefault(node.attr, set()).add(str(path.relative_to(ROOT)))
    return asked


def test_the_interface_is_exactly_what_the_app_asks_of_a_game():
    """games.Game says what a new game must provide: no more (a member nobody asks for is one a
    new game writes for nothing) and no less (a name asked of a game beside the interface is
    one a new game would not know to provide)."""
    asked = asked_of_a_game()
    asked["NAME"] = {"montones/rules/games.py"}  # the registry's key (checked above)
    beside = {name: sorted(where) for name, where in asked.items() if name not in PROTOCOL}
    assert not beside, f"asked of a game but not in games.Game: {beside}"
    unasked = sorted(set(PROTOCOL) - set(asked))
    assert not unasked, f"in games.Game but asked by nothing: {unasked}"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_registered_game_has_its_templates(name):
    folder = ROOT / "templates" / "games" / name
    for partial in ("_felt", "_status", "_bar", "_help", "_players", "_tv_status", "_history"):
        assert (folder / f"{partial}.html").exists(), f"{name} has no {partial}.html"
    for partial in ("_host", "_settings", "_about"):
        assert (folder / f"{partial}.html").exists(), f"{name} has no {partial}.html"


def test_an_unknown_game_is_refused_by_the_registry():
    with pytest.raises(ValueError):
        games.game("poker")


# What would name a game outside montones/rules/: a comparison with a game's name, a lookup by
# it, an import of an engine module.
NAMES_A_GAME = re.compile(
    r"""(==|!=)\s*["'](montones|monte|monte_bank)["']"""
    r"""|\[["'](montones|monte|monte_bank)["']\]"""
    r"""|from montones\.rules import[^\n]*\b(montones|monte|monte_bank)\b"""
    r"""|montones\.rules\.(montones|monte|monte_bank)\b"""
)


def test_no_module_outside_the_rules_names_a_game():
    package = ROOT / "montones"
    found = []
    for path in package.rglob("*.py"):
        if path.is_relative_to(package / "rules"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if NAMES_A_GAME.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


# A lookup of the registry by hand, beside games.game(): going through GAMES is for listing them.
LOOKS_A_GAME_UP = re.compile(r"GAMES\s*\[|GAMES\.get\(|(?<!for )\b\w+ (not )?in GAMES\b")


def test_a_game_is_looked_up_only_through_the_registrys_one_function():
    found = []
    for path in (ROOT / "montones").rglob("*.py"):
        if path == ROOT / "montones" / "rules" / "games.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if LOOKS_A_GAME_UP.search(line) or re.search(r"def (engine|game)\(", line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_no_template_picks_a_game_by_name():
    found = []
    for path in (ROOT / "templates").rglob("*.html"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"game\s*(==|!=)", line) or NAMES_A_GAME.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_a_games_templates_use_no_other_games_templates():
    """What two games draw alike is in templates/games/_*.html, not borrowed from one of them."""
    found = []
    for name in GAMES:
        for path in (ROOT / "templates" / "games" / name).glob("*.html"):
            for other in re.findall(r"games/(\w+)/", path.read_text()):
                if other != name:
                    found.append(f"{path.relative_to(ROOT)} uses games/{other}/")
    assert not found, "\n".join(found)


# What of a hand's record would tell the cards still to come, by game: what opens the deck's
# commitment everywhere; a Monte coup's and a Monte Bank deal's scenario deck (the order still
# to be dealt); the hidden cards of Montones' heaps, dealt again if they are kept.
STILL_TO_COME = {
    "montones": {"shuffle": ("salt", "order", "heaps")},
    "monte": {"shuffle": ("salt", "order"), "record": ("deck",)},
    "monte_bank": {"shuffle": ("salt", "order"), "record": ("deck",)},
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_record_shown_while_its_deck_is_live_tells_nothing_still_to_come(name):
    shuffle = {"commitment": "c0ffee", "salt": "s4lt", "order": ["1o"], "cut": 3, "heaps": [["2c"]]}
    entry = {"game": name, "shuffle": shuffle, "deck": ["3e"], "result": {"players": {}}}
    shown = GAMES[name].while_live(entry)
    hidden = STILL_TO_COME[name]
    assert not set(hidden["shuffle"]) & set(shown["shuffle"])
    assert not set(hidden.get("record", ())) & set(shown)
    # The rest stays: what the record commits to, the cut, the result.
    assert shown["shuffle"]["commitment"] == "c0ffee" and shown["shuffle"]["cut"] == 3
    assert shown["result"] == entry["result"]
    assert entry["shuffle"] == shuffle  # the stored record is left as it was
