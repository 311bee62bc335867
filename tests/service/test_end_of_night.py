"""The end of a night on a real database: buy-ins in the ledger and the standings, the night's
story from its hands, a new night with the same players, and what the host can no longer do."""

import json

import pytest

from montones import service
from montones.cli import main
from montones.data import history
from montones.service import Actor
from tests.helpers.services import montones_night

HOST = Actor(is_host=True)


def seated(game="montones", names=("Ana", "Ben", "Eva"), chips=100, settings=None):
    """A table of ``game`` with these players (call it inside an app context): its code, its
    host secret and each name's seat."""
    table, secret = service.create_table(game, "Night", chips, settings or {})
    seats = {name: service.join(table.code, name)[0].seat for name in names}
    return table.code, secret, seats


def test_a_top_up_is_a_buy_in_issued_by_the_house(app):
    with app.app_context():
        code, _secret, seats = seated()
        service.act(code, HOST, "top_up", {"seat": seats["Eva"], "amount": 40})
        table = service.get_table(code)
        assert service.buy_ins(table) == {seats["Ana"]: 100, seats["Ben"]: 100, seats["Eva"]: 140}
        assert service.ledger_totals(table)["house"] == -340


def test_the_standings_rank_by_chips_won_net_of_buy_ins(app):
    with app.app_context():
        code, _secret, seats = seated()
        service.act(code, HOST, "top_up", {"seat": seats["Eva"], "amount": 100})
        rows = service.standings(service.get_table(code))
    eva = next(row for row in rows if row["name"] == "Eva")
    # Eva holds the most chips, but bought them: nobody is ahead of anyone.
    assert eva == {**eva, "chips": 200, "bought": 200, "net": 0}
    assert [row["place"] for row in rows] == [1, 1, 1]


def test_the_standings_net_of_buy_ins_add_up_to_what_the_players_won(app):
    code = montones_night(app, hands=3)
    with app.app_context():
        service.act(code, HOST, "top_up", {"seat": "p2", "amount": 70})
        service.host_action(code, HOST, "end")
        table = service.get_table(code)
        rows = service.standings(table)
        totals = service.ledger_totals(table)
    # Every chip is back with a player at the end: what they won is what the others lost.
    assert sum(row["net"] for row in rows) == 0
    assert sum(row["bought"] for row in rows) == -totals["house"] == 3 * 200 + 70
    for row in rows:
        assert row["chips"] == totals[f"player:{row['player']}"]
    assert [row["net"] for row in rows] == sorted((row["net"] for row in rows), reverse=True)


def test_the_story_names_the_boldest_bet_and_the_biggest_win_of_a_hand(app):
    with app.app_context():
        code, _secret, seats = seated()
        ana, ben, eva = (Actor(seat=seats[n]) for n in ("Ana", "Ben", "Eva"))
        service.act(code, ana, "offer", {"amount": 50})
        service.act(code, ben, "pass", {})
        service.act(code, eva, "pass", {})
        service.act(code, ben, "cut", {"position": 9})
        service.act(code, ana, "heaps", {"count": 4})
        service.act(code, ben, "bet", {"heap": 1, "amount": 20})
        service.act(code, eva, "bet", {"heap": 2, "amount": 7})
        service.act(code, eva, "choose", {"heap": 4})
        state = service.act(code, ana, "close", {}).state
        told = service.story(service.get_table(code))
    assert told["boldest_bet"] == {"player": seats["Ben"], "name": "Ben", "hand": 1, "amount": 20}
    gains = {seats[n]: state["players"][seats[n]]["chips"] - 100 for n in ("Ben", "Eva")}
    gains[seats["Ana"]] = state["bank"]["amount"] - 50
    best = max(gains.values())
    if best > 0:
        assert told["biggest_win"]["amount"] == best
        assert gains[told["biggest_win"]["player"]] == best
    else:
        assert told["biggest_win"] is None
    assert told["longest_bank"] is None  # one hand is no run


def test_the_story_names_the_longest_bank(app):
    code = montones_night(app, hands=4)
    with app.app_context():
        told = service.story(service.get_table(code))
    assert told["longest_bank"] == {"player": "p1", "name": "Ana", "hand": 4, "hands": 4}
    assert told["game"] == "montones"  # whose templates say what the numbers count


def test_the_story_names_who_broke_the_bank(app):
    """Monte with a bank of 1 and a bet of 1 on the top layout: the bank breaks when the top
    layout wins, about one night in two."""
    with app.app_context():
        for _ in range(40):
            code, _secret, seats = seated("monte", ("Anna", "Ben"), 50)
            service.act(code, HOST, "draw", {})
            state = service.get_table(code).state
            banker = Actor(seat=state["banker"])
            punter = next(s for s in seats.values() if s != state["banker"])
            service.act(code, banker, "bank", {"amount": 1})
            state = service.get_table(code).state
            service.act(code, Actor(seat=state["cutter"]), "cut", {"position": 13})
            service.act(code, Actor(seat=punter), "bet", {"layout": "top", "amount": 1})
            state = service.act(code, banker, "gate", {}).state
            told = service.story(service.get_table(code))
            if state["players"][punter]["chips"] == 51:  # the top layout won: the bank broke
                break
            assert told["broke_bank"] is None
        else:
            pytest.fail("the top layout lost 40 times running")
    assert told["game"] == "monte"  # its templates count coups
    names = {seat: name for name, seat in seats.items()}
    assert told["broke_bank"] == {
        "player": punter,
        "name": names[punter],
        "hand": 1,
        "amount": 1,
        "banker": banker.seat,
        "banker_name": names[banker.seat],
    }


def test_a_new_night_seats_everyone_still_at_the_table_with_fresh_chips(app):
    with app.app_context():
        code, secret, seats = seated(settings={"min_bet": 2})
        service.act(code, HOST, "top_up", {"seat": seats["Ben"], "amount": 30})
        service.act(code, HOST, "kick", {"seat": seats["Eva"]})
        service.host_action(code, HOST, "end")
        old = service.get_table(code)
        ledger = service.ledger_totals(old)
        new = service.new_night(code, HOST)
        assert service.new_night(code, HOST) == new  # asked twice: the same new night
        old_after = service.get_table(code)
        assert old_after.next_code == new.code and service.ledger_totals(old_after) == ledger
        assert (new.game, new.name, new.starting_chips) == ("montones", "Night", 100)
        assert new.state["settings"] == old.state["settings"] and not new.ended_at
        assert [(p["name"], p["chips"]) for p in new.state["players"].values()] == [
            ("Ana", 100),
            ("Ben", 100),
        ]
        assert service.ledger_totals(new) == {"house": -200, "player:p1": 100, "player:p2": 100}
        assert service.is_host(new, secret)  # the host's secret opens the new night too


def test_a_new_night_is_the_hosts_once_the_night_is_over(app):
    with app.app_context():
        code, _secret, seats = seated()
        with pytest.raises(service.ServiceError, match="End the night first"):
            service.new_night(code, HOST)
        service.host_action(code, HOST, "end")
        with pytest.raises(service.NotAllowed):
            service.new_night(code, Actor(seat=seats["Ana"]))
        assert service.get_table(code).next_code is None


def test_each_phone_takes_its_own_seat_at_the_new_night_once(app):
    with app.app_context():
        table, _secret = service.create_table("montones", "Night", 100, {})
        tokens = {}
        for name in ("Ana", "Ben", "Eva"):
            seat, tokens[name] = service.join(table.code, name)
        service.act(table.code, HOST, "kick", {"seat": seat.seat})  # Eva, the last one
        assert service.follow(table.code, tokens["Ana"]) is None  # no new night yet
        service.host_action(table.code, HOST, "end")
        new = service.new_night(table.code, HOST)
        ben, token = service.follow(table.code, tokens["Ben"])
        assert (ben.seat, ben.name) == ("p2", "Ben")
        assert service.player_by_token(new, token) == ben
        with pytest.raises(service.ServiceError, match="taken already"):
            service.follow(table.code, tokens["Ben"])
        assert service.follow(table.code, tokens["Eva"]) is None  # sent away: not seated again
        assert service.follow(table.code, "not a token") is None
        assert service.player_by_token(new, token) == ben  # the first phone keeps it


@pytest.mark.parametrize(
    "kind, params",
    [("top_up", {"amount": 10}), ("kick", {}), ("close_doors", {})],
)
def test_the_host_cannot_change_a_night_that_is_over(app, kind, params):
    with app.app_context():
        code, _secret, seats = seated()
        service.host_action(code, HOST, "end")
        before = service.get_table(code)
        with pytest.raises(service.ServiceError, match="The night is over"):
            service.act(code, HOST, kind, {"seat": seats["Ben"], **params})
        after = service.get_table(code)
    assert (after.version, after.state) == (before.version, before.state)


def test_the_export_carries_each_players_final_chips_and_buy_ins_and_still_verifies(
    app, tmp_path, capsys
):
    code = montones_night(app, hands=3)
    with app.app_context():
        service.act(code, HOST, "top_up", {"seat": "p3", "amount": 25})
        service.host_action(code, HOST, "end")
        table = service.get_table(code)
        data = json.loads(json.dumps(history.export(table)))
        state = table.state
    rows = {row["player"]: row for row in data["standings"]}
    assert set(rows) == set(data["players"]) == set(state["players"])
    for seat, row in rows.items():
        assert row["chips"] == state["players"][seat]["chips"]
        assert row["net"] == row["chips"] - row["bought"]
    assert rows["p3"]["bought"] == 225 and rows["p3"]["name"] == "Eva"
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    assert main(["verify", str(path)]) == 0, capsys.readouterr().out
