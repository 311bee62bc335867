import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from montones.cli import main


def run_module(*args):
    return subprocess.run(
        [sys.executable, "-m", "montones", *args], capture_output=True, text=True, timeout=60
    )


def test_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "serve" in out
    assert "replay" in out


def test_python_m_montones_is_the_montones_command():
    result = run_module("--help")
    assert result.returncode == 0
    assert "replay" in result.stdout


def test_replay_missing_file_exits_2_with_one_line(tmp_path):
    missing = tmp_path / "nope.json"
    result = run_module("replay", str(missing))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("montones replay: ")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert str(missing) in result.stderr


def test_replay_invalid_json_exits_2_naming_line_and_column(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "game": "montones",\n  "bank": ,\n}\n')
    result = run_module("replay", str(bad))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"montones replay: {bad} is not valid JSON (line 3, column 11: Expecting value)\n"
    )


def test_replay_non_utf8_file_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"game": "mont\xf3nes"}')
    result = run_module("replay", str(bad))
    assert result.returncode == 2
    assert result.stderr.startswith("montones replay: ")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_replay_does_not_import_flask(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    code = (
        "import sys\n"
        "from montones.cli import main\n"
        f"assert main(['replay', {str(bad)!r}]) == 2\n"
        "assert 'flask' not in sys.modules and 'sqlalchemy' not in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# --- a hostile file: what the terminal is sent ------------------------------------------------

SCENARIOS = Path(__file__).parent / "scenarios"
HOSTILE = "\x1b[2J\x1b]0;owned\x07\u202e\u200b"
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def _poisoned(value):
    """Every string of a JSON value, and every key, with terminal escapes and bidi marks in."""
    if isinstance(value, dict):
        return {_poisoned(k): _poisoned(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_poisoned(v) for v in value]
    if isinstance(value, str):
        return value + HOSTILE
    return value


def _one_value_poisoned(value):
    """Copies with one string at a time poisoned: a refusal names the first bad value."""
    if isinstance(value, str):
        yield value + HOSTILE
    elif isinstance(value, dict):
        for key, item in value.items():
            for poisoned in _one_value_poisoned(item):
                yield {**value, key: poisoned}
    elif isinstance(value, list):
        for i, item in enumerate(value):
            for poisoned in _one_value_poisoned(item):
                yield [*value[:i], poisoned, *value[i + 1 :]]


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_escape_codes_in_a_file_are_shown_not_sent_to_the_terminal(tmp_path, capsys, command):
    files = sorted((SCENARIOS / "valid").glob("*.json")) + sorted(
        (SCENARIOS / "invalid").glob("*.json")
    )
    checked = 0
    for source in files:
        try:
            data = json.loads(source.read_text(encoding="utf-8"))
        except ValueError:
            continue
        data = data.get("scenario", data) if isinstance(data, dict) else data
        for poisoned in [_poisoned(data), *_one_value_poisoned(data)]:
            for shape in (poisoned, {"hands": [poisoned]}):
                path = tmp_path / "hostile.json"
                path.write_text(json.dumps(shape, ensure_ascii=False), encoding="utf-8")
                main([command, str(path)])
                out, err = capsys.readouterr()
                assert not CONTROL.search(out + err.rstrip("\n")), (source.name, out, err)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    "url, refused",
    [
        ("postgresql://u@h/db", "needs --server gunicorn"),
        ("postgresql+psycopg://u@h/db", "needs --server gunicorn"),  # SQLAlchemy's own form
        ("sqlite:///night.sqlite", "needs DATABASE_URL=postgresql"),
    ],
)
def test_several_workers_take_postgresql_in_either_form(tmp_path, url, refused):
    """The database is checked before the server: a PostgreSQL URL in either form passes that
    check, and the run stops at the next (pywsgi runs one process)."""
    done = subprocess.run(
        [sys.executable, "-m", "montones", "serve", "--workers", "3", "--server", "portable"],
        env={**os.environ, "DATABASE_URL": url},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and refused in done.stderr, done.stderr


@pytest.mark.parametrize("game", ["montones", "monte", "monte_bank"])
def test_simulate_plays_500_hands_of_computers_and_its_export_verifies(tmp_path, capsys, game):
    export = tmp_path / "night.json"
    args = ["simulate", "--game", game, "--players", "4", "--hands", "500", "--seed", "29"]
    assert main([*args, "--export", str(export)]) == 0
    summary = capsys.readouterr().out.strip()
    assert "\n" not in summary
    assert re.match(r"500 hands of .+, 4 computer players, \d+ actions in ", summary), summary
    assert "chips conserved (800)" in summary and "export verified" in summary
    night = json.loads(export.read_text())
    assert len(night["hands"]) == 500 and night["held_back"] == 0
    assert night["table"]["game"] == game and night["table"]["ended_at"]
    assert sorted(night["computers"]) == sorted(night["players"]) == ["p1", "p2", "p3", "p4"]
    assert main(["verify", str(export)]) == 0
    assert "500 hands from" in capsys.readouterr().out


def test_simulate_refuses_a_night_it_cannot_seat(tmp_path, capsys):
    export = tmp_path / "night.json"
    args = ["simulate", "--game", "monte", "--players", "1", "--hands", "5"]
    assert main([*args, "--export", str(export)]) == 2
    assert "--players is 2 to 12" in capsys.readouterr().err
    assert not export.exists()


def test_serve_warns_when_no_phone_can_reach_the_join_address(tmp_path):
    """Issue 36: `montones serve --host 127.0.0.1`, or a computer with no network address,
    printed a join address and QR code no phone can reach, and said nothing of it."""
    from tests.helpers.liveserver import free_port, kill_server, start_server

    process = start_server(tmp_path, free_port())  # --host 127.0.0.1, as every live test
    try:
        log = (tmp_path / "server.log").read_text()
    finally:
        kill_server(process)
    assert "Warning: --host 127.0.0.1 listens on this computer alone: no phone can reach it" in log
    assert "Leave --host out" in log


def test_serve_says_why_a_join_address_is_unreachable_and_nothing_when_it_is_not():
    from montones.cli import _unreachable

    assert "listens on this computer alone" in _unreachable("127.0.0.1", "127.0.0.1", None)
    assert "listens on this computer alone" in _unreachable("::1", "::1", None)
    assert "listens on this computer alone" in _unreachable("localhost", "localhost", None)
    # Every network, but no address found for this computer (_lan_ip's 127.0.0.1).
    said = _unreachable("0.0.0.0", "127.0.0.1", None)
    assert "no network address: is it on the Wi-Fi?" in said and "--public-url" in said
    assert _unreachable("0.0.0.0", "127.0.0.1", "http://192.168.1.20:8000/") is None
    assert _unreachable("0.0.0.0", "192.168.1.20", None) is None
    assert _unreachable("192.168.1.20", "192.168.1.20", None) is None
    assert _unreachable("montones.local", "montones.local", None) is None
