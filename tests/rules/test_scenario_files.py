"""Acceptance tests written from the rules and the scenario format alone (docs/rules.md,
docs/scenarios.md): every file under tests/scenarios/ is replayed through
`montones.rules.scenario.replay` and, for some, through the `python -m montones replay FILE`
command line.

valid/*.json   {"scenario": ..., "expected": ..., "why": "..."}: the expected result, by hand
invalid/*.json {"scenario": ..., "why": "...", "mentions": "word"}: must exit 2 with one line
invalid/bad_json.json is deliberately not JSON at all.
"""

import copy
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "tests" / "scenarios"
VALID = sorted((SCENARIOS / "valid").glob("*.json"))
INVALID = sorted((SCENARIOS / "invalid").glob("*.json"))
BAD_JSON = "bad_json.json"

# Valid files also replayed through the command line.
CLI_TOO = {
    "montones_worked_example",
    "montones_pagando_y_cobrando_others_on_his_heap_settled_first",
    "montones_partly_covered_losing_bet_pays_only_bank",
    "monte_scenarios_md_example",
    "monte_generous_bank_short_smallest_stake_first",
    "monte_two_card_full_thirteen_coups",
    "monte_bank_worked_example",
    "monte_bank_void_lower_pair",
    "monte_bank_side_cards_worked_example",
}

SPANISH = {r + s for r in "A234567SCR" for s in "oceb"}
FRENCH = {r + s for r in "A234567JQK" for s in "SHDC"}


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _replay(scenario):
    from montones.rules.scenario import replay

    return replay(copy.deepcopy(scenario))


def _run_cli(path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "montones", "replay", str(path)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _settled(entries):
    return [{"bet": e["bet"], "result": e["result"], "net": e["net"]} for e in entries]


def _cards(layout):
    # Two-card Monte: a layout of one card may come back as a bare code.
    return [layout] if isinstance(layout, str) else list(layout)


def _assert_result(result, expected, game):
    assert result["bank"] == expected["bank"], "bank after the hand"
    assert result["players"] == expected["players"], "players' chips after the hand"
    if game == "montones":
        assert result["bank_card"] == expected["bank_card"]
        assert _settled(result["settled"]) == expected["settled"], "settled, in order"
        return
    if game == "monte_bank":
        # Every field, every settled line with its part and levy: the result bet by bet.
        assert result == expected
        return
    assert len(result["coups"]) == len(expected["coups"]), "number of coups"
    for n, (got, want) in enumerate(zip(result["coups"], expected["coups"], strict=True), 1):
        assert _cards(got["bottom"]) == want["bottom"], f"coup {n}: bottom layout"
        assert _cards(got["top"]) == want["top"], f"coup {n}: top layout"
        assert got["gate"] == want["gate"], f"coup {n}: gate"
        assert sorted(got["winning"]) == sorted(want["winning"]), f"coup {n}: winning layouts"
        assert _settled(got["settled"]) == want["settled"], f"coup {n}: settled, in order"


# --- the files themselves (no engine needed) ----------------------------------------------


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_valid_file_is_self_consistent(path):
    """Cards are real and distinct, each bet is settled once, nets add up to the chip changes."""
    data = _load(path)
    sc, exp = data["scenario"], data["expected"]
    assert data["why"].strip()
    if sc["game"] == "montones":
        assert set(sc["heaps"]) <= SPANISH and len(set(sc["heaps"])) == len(sc["heaps"])
        settled_lists = [(sc["bets"], exp["settled"])]
    elif sc["game"] == "monte_bank":
        assert len(sc["deck"]) == 40 and set(sc["deck"]) == FRENCH
        settled_lists = [(sc["bets"], exp["settled"])]
    else:
        assert len(sc["deck"]) == 40 and set(sc["deck"]) == FRENCH
        assert len(sc["coups"]) == len(exp["coups"])
        settled_lists = [
            (c["bets"], e["settled"]) for c, e in zip(sc["coups"], exp["coups"], strict=True)
        ]
    change = Counter()
    for bets, settled in settled_lists:
        # A Monte Carlo is settled as its three parts, each with the bet's index.
        parts = [3 if b.get("kind") == "monte_carlo" else 1 for b in bets]
        assert sorted(s["bet"] for s in settled) == sorted(
            i for i, n in enumerate(parts) for _ in range(n)
        )
        for s in settled:
            change[bets[s["bet"]]["player"]] += s["net"]
            assert (s["result"] == "void") == (s["net"] == 0)
    for player, before in sc["players"].items():
        assert exp["players"][player] == before + change[player], player
    levy = exp.get("levy", 0)
    assert levy == sum(s.get("levy", 0) for _, settled in settled_lists for s in settled)
    assert exp["bank"] == sc["bank"] - sum(change.values()) - levy


# --- the engine -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_replay_valid_scenario(path):
    data = _load(path)
    result = _replay(data["scenario"])
    _assert_result(result, data["expected"], data["scenario"]["game"])


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_replay_conserves_chips(path):
    """Chips only move between the bank and the players: none appear, none vanish."""
    sc = _load(path)["scenario"]
    result = _replay(sc)
    assert set(result["players"]) == set(sc["players"])
    before = sum(sc["players"].values()) + sc["bank"]
    # Monte Bank's levy leaves the players' winnings for the table's pot.
    assert sum(result["players"].values()) + result["bank"] + result.get("levy", 0) == before


CLI_VALID = [p for p in VALID if p.stem in CLI_TOO]


def test_cli_subset_exists():
    assert {p.stem for p in CLI_VALID} == CLI_TOO


@pytest.mark.parametrize("path", CLI_VALID, ids=[p.stem for p in CLI_VALID])
def test_cli_replay_valid_scenario(path, tmp_path):
    data = _load(path)
    scenario_file = tmp_path / path.name
    scenario_file.write_text(json.dumps(data["scenario"]), encoding="utf-8")
    proc = _run_cli(scenario_file)
    assert proc.returncode == 0, proc.stderr
    _assert_result(json.loads(proc.stdout), data["expected"], data["scenario"]["game"])


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_cli_rejects_invalid_scenario(path, tmp_path):
    if path.name == BAD_JSON:
        scenario_file, mentions = path, None
    else:
        data = _load(path)
        scenario_file = tmp_path / path.name
        scenario_file.write_text(json.dumps(data["scenario"]), encoding="utf-8")
        mentions = data.get("mentions")
    proc = _run_cli(scenario_file)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout.strip() == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), f"want one line on stderr, got {proc.stderr!r}"
    assert "Traceback" not in proc.stderr
    if mentions:
        assert mentions.lower() in lines[0].lower(), f"{mentions!r} not in {lines[0]!r}"


INVALID_DATA = [p for p in INVALID if p.name != BAD_JSON]


@pytest.mark.parametrize("path", INVALID_DATA, ids=[p.stem for p in INVALID_DATA])
def test_replay_raises_value_error_on_invalid_scenario(path):
    with pytest.raises(ValueError):
        _replay(_load(path)["scenario"])


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,  # deeper than the JSON reader goes
        '{"game": "monte", "bank": ' + "[" * 900 + "]" * 900 + "}",  # readable, and absurd
    ],
    ids=["nested-too-deep-to-read", "nested-bank"],
)
def test_cli_rejects_deeply_nested_json_in_one_short_line(text, tmp_path):
    scenario_file = tmp_path / "nested.json"
    scenario_file.write_text(text, encoding="utf-8")
    proc = _run_cli(scenario_file)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-300:])
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and len(lines[0]) < 200, proc.stderr[:300]
