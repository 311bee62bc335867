import subprocess
import sys

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
