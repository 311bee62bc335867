"""``montones verify`` on an export edited by hand: each kind of edit fails with its reason (exit
1), and a file that is no export, too large or endless is refused at once (exit 2)."""

import copy
import json
import os

import pytest

from montones import cli
from montones.cli import main


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    """A Monte Bank night of computers, ended by the host, as its export."""
    path = tmp_path_factory.mktemp("night") / "night.json"
    args = ["simulate", "--game", "monte_bank", "--players", "3", "--hands", "8", "--seed", "5"]
    assert main([*args, "--export", str(path)]) == 0
    return json.loads(path.read_text())


def verified(tmp_path, capsys, data) -> tuple[int, str]:
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    code = main(["verify", str(path)])
    out, err = capsys.readouterr()
    return code, out + err


def test_the_night_as_exported_checks_out(tmp_path, capsys, night):
    code, said = verified(tmp_path, capsys, night)
    assert code == 0 and "the standings check out" in said, said


def _with_standings(night, seat, **changed):
    data = copy.deepcopy(night)
    row = next(row for row in data["standings"] if row["player"] == seat)
    row.update(changed)
    return data


def test_a_player_given_a_million_chips_in_the_standings_fails(tmp_path, capsys, night):
    row = night["standings"][-1]
    chips = row["chips"] + 1_000_000
    data = _with_standings(night, row["player"], chips=chips, net=chips - row["bought"])
    # Placed as their nets say, equal nets sharing a place (the cards are the machine's own, so
    # two players may end level).
    data["standings"].sort(key=lambda row: -row["net"])
    best_first = [other["net"] for other in data["standings"]]
    for other in data["standings"]:
        other["place"] = best_first.index(other["net"]) + 1
    code, said = verified(tmp_path, capsys, data)
    assert code == 1
    assert f"has {chips} chips, the hands and buy-ins give {row['chips']}" in said, said


def test_bought_chips_that_are_not_the_buy_ins_fail(tmp_path, capsys, night):
    row = night["standings"][0]
    data = _with_standings(night, row["player"], bought=row["bought"] + 7, net=row["net"] - 7)
    code, said = verified(tmp_path, capsys, data)
    assert code == 1 and f"bought {row['bought'] + 7}, their buy-ins add up to" in said, said


def test_a_net_that_is_not_chips_less_bought_fails(tmp_path, capsys, night):
    row = night["standings"][0]
    code, said = verified(tmp_path, capsys, _with_standings(night, row["player"], net=123456))
    assert code == 1 and "a net of 123456 is not chips" in said, said


def test_a_hand_repeated_three_times_fails(tmp_path, capsys, night):
    data = copy.deepcopy(night)
    data["hands"][3:4] = [data["hands"][3]] * 3
    code, said = verified(tmp_path, capsys, data)
    assert code == 1 and "hand 5: numbered 4, as hand 4 is: repeated" in said, said


def test_a_hand_missing_fails(tmp_path, capsys, night):
    data = copy.deepcopy(night)
    del data["hands"][4]
    code, said = verified(tmp_path, capsys, data)
    assert code == 1 and "hands missing: numbers 5" in said, said


def test_hands_out_of_order_fail(tmp_path, capsys, night):
    data = copy.deepcopy(night)
    data["hands"][2], data["hands"][3] = data["hands"][3], data["hands"][2]
    code, said = verified(tmp_path, capsys, data)
    assert code == 1 and "hand 4: numbered 3 after 4: out of order" in said, said


def test_another_banker_named_fails(tmp_path, capsys, night):
    data = copy.deepcopy(night)
    hand = next(h for h in data["hands"] if h["players"])
    punter = next(iter(hand["players"]))
    hand["meta"]["banker"] = punter
    code, said = verified(tmp_path, capsys, data)
    assert code == 1 and f"its banker '{punter}' is also a punter in it" in said, said
    hand["meta"]["banker"] = "p9"
    code, said = verified(tmp_path, capsys, data)
    assert code == 1 and "its banker 'p9' is not a player of the table" in said, said


def test_a_hand_of_another_table_fails(tmp_path, capsys, night):
    data = copy.deepcopy(night)
    data["hands"][1]["meta"]["table"] = "ZZZZ"
    code, said = verified(tmp_path, capsys, data)
    assert code == 1 and "hand 2: of table 'ZZZZ'" in said, said


@pytest.mark.parametrize(
    "data",
    [{"hands": []}, {"game": "monte", "bank": 5}, {**{"format": "montones-export/1"}}],
)
def test_a_file_that_is_not_an_export_is_refused(tmp_path, capsys, data):
    code, said = verified(tmp_path, capsys, data)
    assert code == 1 and "not an export" in said, said


def test_a_file_too_large_is_refused_unread(tmp_path, capsys, monkeypatch, night):
    monkeypatch.setattr(cli, "MOST_BYTES", 1000)
    code, said = verified(tmp_path, capsys, json.dumps(night))
    assert code == 2 and "larger than" in said, said


def test_an_endless_input_is_refused_at_once(capsys, monkeypatch):
    code = main(["verify", "/dev/zero"])
    assert code == 2 and "does not begin with {" in capsys.readouterr().err
    # An endless stream that looks like JSON is read only up to the limit.
    monkeypatch.setattr(cli, "MOST_BYTES", 1 << 20)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the writer: "{" then spaces, for ever (until the reader goes)
        os.close(read)
        try:
            os.write(write, b"{")
            while True:
                os.write(write, b" " * 65536)
        finally:
            os._exit(0)
    os.close(write)
    try:
        code = main(["verify", f"/dev/fd/{read}"])
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    assert code == 2 and "larger than 1 MB" in capsys.readouterr().err


def test_chips_a_punter_comes_to_a_hand_with_that_contradict_their_last_hand_fail(
    tmp_path, capsys, night
):
    """The hand itself still settles (its result moved with its chips): only the record around
    it says the punter could not have had them."""
    data = copy.deepcopy(night)
    hands = data["hands"]
    i, pid = next(
        (i, pid)
        for i in range(1, len(hands))
        for pid in hands[i]["players"]
        if pid in hands[i - 1]["players"]
    )
    hands[i]["players"][pid] += 50
    hands[i]["result"]["players"][pid] += 50
    code, said = verified(tmp_path, capsys, data)
    assert code == 1 and f"hand {i + 1}: " in said and "comes to it with" in said, said
    assert "recorded result" not in said, said


def test_a_place_that_its_net_does_not_give_fails(tmp_path, capsys, night):
    row = night["standings"][-1]
    data = _with_standings(night, row["player"], place=1 if row["place"] != 1 else 2)
    code, said = verified(tmp_path, capsys, data)
    assert code == 1 and f"is placed {data['standings'][-1]['place']}, their net gives" in said, (
        said
    )


@pytest.fixture(scope="module")
def side_night(tmp_path_factory):
    """A Monte Bank night with two side cards, as its export."""
    path = tmp_path_factory.mktemp("side") / "night.json"
    args = ["simulate", "--game", "monte_bank", "--players", "4", "--hands", "8", "--seed", "41"]
    assert main([*args, "--side-cards", "2", "--export", str(path)]) == 0
    return json.loads(path.read_text())


def test_a_night_with_side_cards_exports_them_and_checks_out(tmp_path, capsys, side_night):
    dealt = [hand for hand in side_night["hands"] if not hand["result"].get("void")]
    assert dealt and all(hand["side_cards"] == 2 for hand in side_night["hands"])
    assert all({"s1", "s2"} <= set(hand["result"]["layout"]) for hand in dealt)
    assert all("set_aside" in hand["result"] for hand in dealt)
    code, said = verified(tmp_path, capsys, side_night)
    assert code == 0 and "the standings check out" in said, said


def test_a_side_card_edited_in_an_export_fails(tmp_path, capsys, side_night):
    data = copy.deepcopy(side_night)
    hand = next(h for h in data["hands"] if not h["result"].get("void"))
    hand["result"]["layout"]["s1"], hand["result"]["layout"]["s2"] = (
        hand["result"]["layout"]["s2"],
        hand["result"]["layout"]["s1"],
    )
    code, said = verified(tmp_path, capsys, data)
    assert code == 1, said


def test_side_cards_dropped_from_an_export_fail(tmp_path, capsys, side_night):
    data = copy.deepcopy(side_night)
    for hand in data["hands"]:
        del hand["side_cards"]
    code, said = verified(tmp_path, capsys, data)
    assert code == 1, said
