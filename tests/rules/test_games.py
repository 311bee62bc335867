"""One interface per game: the registry names the games, and nothing outside the rules does."""

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
