"""A night played through the service layer, exported, and checked hand by hand.

The export is what a host downloads; ``montones verify`` re-settles every hand with the rules
and opens every deck's commitment. A changed card or a changed bet must be caught.
"""

import copy
import json
import re
import secrets

import pytest

from montones import service
from montones.cli import main
from montones.data import history
from montones.rules import SPANISH
from montones.service import Actor
from tests.helpers.exports import export, verify_file
from tests.helpers.services import HOST, banked, montones_night

_rng = secrets.SystemRandom()


def monte_night(app):
    """Two players, each banks once: two whole decks of eight coups (or fewer if one breaks)."""
    with app.app_context():
        table, _secret = service.create_table("monte", "Monte", 300, {"max_bet": 10})
        code = table.code
        for name in ("Anna", "Ben"):
            service.join(code, name)
        service.act(code, HOST, "draw", {})
        while (state := service.get_table(code).state)["phase"] != "finished":
            banker = Actor(seat=state["banker"])
            punter = Actor(seat=next(s for s in state["seats"] if s != state["banker"]))
            if state["phase"] == "bank":
                service.act(code, banker, "bank", {"amount": 40})
            elif state["phase"] == "cut":
                service.act(code, Actor(seat=state["cutter"]), "cut", {"position": 13})
            elif state["phase"] == "betting":
                top = _rng.randint(
                    1, min(5, state["bank"])
                )  # the bets together stay within the bank
                service.act(code, punter, "bet", {"layout": "top", "amount": top})
                if state["bank"] - top >= 2:
                    service.act(code, punter, "bet", {"layout": "bottom", "amount": 2})
                service.act(code, banker, "gate", {})
            else:
                service.act(code, banker, "next", {})
        return code


def test_a_night_of_montones_exports_and_verifies(app, tmp_path, capsys):
    code = montones_night(app)
    data = export(app, code)
    assert data["format"] == "montones-export/1" and data["table"]["code"] == code
    assert len(data["hands"]) + data["held_back"] == 6
    assert data["hands"], "at least the first decks are done"
    for number, hand in enumerate(data["hands"], start=1):
        assert hand["meta"]["number"] == number and hand["shuffle"]["order"]
    status, out = verify_file(tmp_path, data, capsys)
    assert status == 0, out
    assert f"{len(data['hands'])} hands" in out


def test_any_hand_of_an_export_replays_to_its_recorded_result(app, tmp_path, capsys):
    data = export(app, montones_night(app, hands=3))
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    for n, hand in enumerate(data["hands"], start=1):
        assert main(["replay", str(path), "--hand", str(n)]) == 0
        assert json.loads(capsys.readouterr().out) == hand["result"]


def test_a_night_of_monte_exports_and_verifies(app, tmp_path, capsys):
    code = monte_night(app)
    data = export(app, code)
    assert data["held_back"] == 0  # the game is over: every deck is done
    assert len({h["shuffle"]["commitment"] for h in data["hands"]}) == 2
    status, out = verify_file(tmp_path, data, capsys)
    assert status == 0, out


def test_verify_fails_on_one_altered_card(app, tmp_path, capsys):
    data = export(app, montones_night(app, hands=3))
    hand = data["hands"][0]
    unused = next(c for c in SPANISH.codes if c not in hand["heaps"])
    hand["heaps"][-1] = unused  # the banker's heap shows another card
    status, out = verify_file(tmp_path, data, capsys)
    assert status == 1
    assert out.startswith("hand 1: ")


def test_verify_fails_on_one_altered_bet(app, tmp_path, capsys):
    data = export(app, monte_night(app))
    data["hands"][2]["coups"][0]["bets"][0]["amount"] += 1
    status, out = verify_file(tmp_path, data, capsys)
    assert status == 1
    assert "hand 3: the recorded result is not what the rules give" in out


def test_verify_fails_when_a_deck_is_not_the_committed_one(app, tmp_path, capsys):
    data = export(app, monte_night(app))
    forged = copy.deepcopy(data)
    order = forged["hands"][0]["shuffle"]["order"]
    order[0], order[1] = order[1], order[0]
    status, out = verify_file(tmp_path, forged, capsys)
    assert status == 1 and "do not hash to the commitment" in out


def test_the_deck_in_play_stays_secret_in_history_and_export(app):
    with app.app_context():
        code, seats, (ana, ben, eva) = banked()
        service.act(code, ben, "cut", {"position": 5})
        service.act(code, ana, "heaps", {"count": 4})
        service.act(code, ben, "bet", {"heap": 1, "amount": 5})
        service.act(code, ben, "choose", {"heap": 2})
        table = service.act(code, ana, "close", {})
        secret = table.state["hand"]["shuffle"]["salt"]
        live = history.live_commitment(table)
        shown = json.dumps([history.hands(table), history.export(table)])
        if live:  # the banker turned a Rey: the heaps may be kept, so the deck is not done
            assert secret not in shown
            assert history.export(table)["held_back"] == 1
        else:
            assert secret in shown
        service.act(code, ana, "next", {})
        table = service.get_table(code)
        assert secret in json.dumps(history.export(table))
        assert table.state["hand"]["shuffle"]["salt"] not in json.dumps(history.export(table))


# --- a hostile export: every field of the wrong type -----------------------------------------

WRONG = ([], {}, 7, "x", None, -1.5, True)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def _paths(value, path=()):
    """Every place in a JSON value, as a path of keys and indexes."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value[:3]):
            yield from _paths(item, (*path, i))


def _put(data, path, value):
    data = copy.deepcopy(data)
    where = data
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    return data


def test_verify_answers_any_wrongly_typed_field_in_words_not_a_traceback(app, tmp_path, capsys):
    for code in (montones_night(app, hands=2), monte_night(app)):
        data = export(app, code)
        data["hands"] = data["hands"][:2]
        for path in list(_paths(data))[1:]:
            for value in WRONG:
                try:
                    status, out = verify_file(tmp_path, _put(data, path, value), capsys)
                except Exception as error:  # noqa: BLE001 (the failure names the field)
                    pytest.fail(f"verify with {path} = {value!r} raised {error!r}")
                assert status in (0, 1, 2) and out.strip(), (path, value)


def test_verify_shows_escape_codes_in_any_field_and_never_sends_them(app, tmp_path, capsys):
    hostile = "\x1b[2J\x1b]0;owned\x07\u202e"
    for code in (montones_night(app, hands=2), monte_night(app)):
        data = export(app, code)
        data["hands"] = data["hands"][:2]
        for path in list(_paths(data))[1:]:
            for value in (hostile, {hostile: 1}, [hostile]):
                _status, out = verify_file(tmp_path, _put(data, path, value), capsys)
                assert not CONTROL.search(out.rstrip("\n")), (path, out)
