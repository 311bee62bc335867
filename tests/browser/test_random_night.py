"""The random nights' one driver on the real server (tests/helpers/random_night.py): the steps
the standings' property test applies through the service (computers playing, a top-up, a
computer taken off, the end of the night) applied over HTTP, by the host's switches and the
players' taps, add up the same way: each player's buy-ins are what the driver gave, the nets add
up to minus what the house kept, and the night's export verifies."""

import json

import pytest

from montones import service
from montones.data import history
from montones.rules import audit
from montones.rules.games import game
from tests.helpers.random_night import FIELDS, NAMES, RandomNight

STEPS = [("play", 12), ("top_up", 1, 7), ("remove", 0), ("play", 12), ("top_up", 3, 50), ("end",)]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("game_name", FIELDS)
def test_the_driver_s_steps_over_http_add_up_as_the_service_s(server, game_name):
    base, _process, folder, _port = server
    night = RandomNight(base, folder, game_name, f"driver {game_name}", "ru")
    night.sit(NAMES[:3])
    night.add_computer()
    if "draw" in game(game_name).ACTIONS:
        assert night.host_do("draw") < 400
    for step in STEPS:
        night.apply(step)
    with night.app.app_context():
        table = service.get_table(night.code)
        assert table.ended_at, night.moves[-10:]
        rows = service.standings(table)
        assert {row["player"]: row["bought"] for row in rows} == dict(night.bought)
        kept = game(game_name).balances(table.state).get("house", 0)
        assert sum(row["net"] for row in rows) == -kept, rows
        assert table.state["players"][night.computers[0]].get("left")
        assert audit.verify(json.loads(json.dumps(history.export(table)))) == []
