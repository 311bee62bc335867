"""A seat tapping faster than a person: its taps past a burst of a few are refused at once, in
words on its phone, and nobody else is held back (montones/web/limits.py, ``actions``)."""

from __future__ import annotations

from types import SimpleNamespace

import limits.storage.memory
import pytest

from montones.config import Config
from montones.data.clock import ManualClock
from montones.live import channel
from tests.helpers.nights import Night

# A person's pace, as a night has it.
APP_CONFIG = {"ACTIONS_LIMIT": Config.ACTIONS_LIMIT, "REACTIONS_LIMIT": Config.REACTIONS_LIMIT}


@pytest.fixture
def clock(app, monkeypatch):
    """The app's clock, read by Flask-Limiter's in-memory storage too."""
    kept = app.extensions["clock"]
    app.extensions["clock"] = manual = ManualClock()
    monkeypatch.setattr(limits.storage.memory, "time", SimpleNamespace(time=manual.time))
    yield manual
    app.extensions["clock"] = kept


def bet(night, name: str):
    return night.do(name, "tap", heap=1, mode="bet", amount=1, custom="")


def test_a_seat_taps_a_burst_then_waits_its_turn_and_is_told_so(app, clock):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    chips = night.chips_of("Ben")
    clock.advance(60)  # the taps that brought the table here are a minute old
    assert [bet(night, "Ben").status_code for _ in range(4)] == [200] * 4
    refused = bet(night, "Ben")
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
    html = refused.get_data(as_text=True)
    assert 'id="tap-refused"' in html and 'hx-swap-oob="true"' in html
    assert "Too many taps at once: wait a moment and tap again." in html
    assert night.chips_of("Ben") == chips - 4  # the refused tap changed nothing
    # Another seat at the same table is not held back, from the same address.
    assert bet(night, "Eva").status_code == 200
    # Said in the phone's language.
    night.clients["Ben"].get(f"/t/{night.code}?lang=es")
    assert "espera un momento" in bet(night, "Ben").get_data(as_text=True)
    # A person's pace goes on: about one a second once the burst is spent.
    clock.advance(2.1)
    assert bet(night, "Ben").status_code == 200


def react(night, name: str):
    return night.clients[name].post(
        f"/t/{night.code}/react/laugh",
        data={"csrf_token": night.tokens[name]},
        headers={"HX-Request": "true"},
    )


def test_a_seat_reacts_a_burst_then_waits_its_turn_and_the_tv_is_never_flooded(app, clock):
    """Issue 40: a guest cannot flood the TV; the refusal is said, and costs no read."""
    night = Night(app, "Ana", "Ben")
    clock.advance(60)
    assert [react(night, "Ben").status_code for _ in range(3)] == [204] * 3
    refused = react(night, "Ben")
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
    html = refused.get_data(as_text=True)
    assert 'id="tap-refused"' in html and "Too many reactions at once: wait a moment." in html
    with app.app_context():
        assert len(channel.of(app).reactions(night.code)) == 3
    assert react(night, "Ana").status_code == 204  # another seat has its own
    # Apart from the seat's taps: its reactions spent, it still bets.
    night.to_betting("Ana", bank=30)
    assert bet(night, "Ben").status_code == 200
    clock.advance(2.1)
    assert react(night, "Ben").status_code == 204
