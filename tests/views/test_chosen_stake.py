"""Each seat's chosen stake and mode live with its seat on the server (``players.choices``):
a redraw of its phone's bar by another worker, or after a restart, keeps them; what a form
says beyond the known choices, or too long, changes nothing (issue 37)."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from montones.data.models import CHOICE_MOST, Player
from montones.extensions import db
from tests.helpers.apps import make_app
from tests.helpers.nights import Night
from tests.helpers.streams import Stream, url

APP_CONFIG = {"STREAM_MAX_SECONDS": 10}
CHOSEN = re.compile(r'<input type="radio" name="amount" value="(\w+)" checked')


@pytest.fixture(scope="module")
def night(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    return night


def stored(app, night, name: str) -> dict | None:
    with app.app_context():
        return db.session.execute(
            select(Player.choices).where(Player.seat == night.seats[name])
        ).scalar_one()


def as_on(other, client):
    """A test client of app ``other`` holding ``client``'s cookies: the same phone, served by
    another process."""
    moved = other.test_client()
    for cookie in client._cookies.values():
        moved.set_cookie(cookie.key, cookie.value, domain=cookie.domain, path=cookie.path)
    return moved


def first_update(client, night, version: int) -> str:
    stream = Stream(client, url(night, "phone", version))
    try:
        return stream.events(until="update")[-1][1]
    finally:
        stream.close()


def test_a_chosen_stake_is_kept_by_another_app_on_the_same_database(app, night, database_url):
    """Ben's tap chooses 5: another app on the same SQLite file (a restart, another worker)
    draws his bar from its stream with 5 chosen, as this one does."""
    night.ok("Ben", "tap", heap=3, mode="bet", amount=5, custom="")
    assert stored(app, night, "Ben") == {"mode": "bet", "amount": "5", "custom": ""}
    other = make_app(database_url, **APP_CONFIG)
    try:
        data = first_update(as_on(other, night.clients["Ben"]), night, 0)
        assert 'id="bar"' in data and CHOSEN.findall(data) == ["5"]
        # and a fetch of his regions there, saying nothing of the stake, keeps it too
        page = as_on(other, night.clients["Ben"]).get(f"/t/{night.code}")
        assert CHOSEN.findall(page.get_data(as_text=True)) == ["5"]
    finally:
        with other.app_context():
            db.session.remove()
            db.engine.dispose()


def test_a_hostile_choice_changes_nothing(app, night):
    """A name that is not a choice, or a value past ``CHOICE_MOST`` characters, is not kept:
    the stake chosen before stays, stored and drawn."""
    night.ok("Eva", "tap", heap=2, mode="bet", amount=5, custom="")
    before = stored(app, night, "Eva")
    night.ok(
        "Eva",
        "tap",
        heap=2,
        mode="bet",
        amount=5,
        custom="",
        side="z" * (CHOICE_MOST + 1),
        evil="y" * 100,
    )
    assert stored(app, night, "Eva") == before == {"mode": "bet", "amount": "5", "custom": ""}
    refused = night.do(
        "Eva", "tap", heap=2, mode="bet", amount="9" * (CHOICE_MOST + 1), custom="x" * 10_000
    )
    assert refused.status_code == 422 and CHOSEN.findall(refused.get_data(as_text=True)) == ["5"]
    assert stored(app, night, "Eva") == before
    page = night.clients["Eva"].get(f"/t/{night.code}?amount={'7' * 5000}&side=" + "z" * 41)
    assert CHOSEN.findall(page.get_data(as_text=True)) == ["5"]
    assert stored(app, night, "Eva") == before


def test_a_stake_chosen_without_a_tap_is_stored_and_drawn_by_the_stream(app, night):
    """A fetch of the phone's regions that says a new stake (its bar's radio, as the page's
    resync sends #intent) stores it: the next redraw from its stream keeps it."""
    client = night.clients["Ben"]
    answer = client.get(
        f"/t/{night.code}/p/seat?mode=bet&amount=10&custom=", headers={"HX-Request": "true"}
    )
    assert answer.status_code == 200
    assert stored(app, night, "Ben")["amount"] == "10"
    assert CHOSEN.findall(first_update(client, night, 0)) == ["10"]
