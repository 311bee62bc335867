"""What each screen is sent: its regions whole when its stream opens, then only the parts that
changed since what it was last sent (montones/live/updates.py, montones/live/parts.py)."""

from __future__ import annotations

import gc
import random
import re

import pytest

from montones import create_app
from montones.config import TestConfig
from montones.live import channel, parts, updates
from montones.live.fanout import Screen
from tests.bench.common import swap_oob
from tests.helpers.nights import HX, MonteBankNight, MonteNight, Night
from tests.views.test_stream import Stream, url


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    class Config(TestConfig):
        SQLALCHEMY_DATABASE_URI = f"sqlite:///{tmp_path_factory.mktemp('upd') / 'm.sqlite'}"
        STREAM_MAX_SECONDS = 10

    return create_app(Config)


def betting(app) -> Night:
    night = Night(app, "Ana", "Ben", "Eva", "Ivo")
    night.to_betting("Ana", bank=60)
    return night


def data(events, name="update") -> str:
    (found,) = [d for n, d in events if n == name]
    return found


def test_a_bet_sends_each_screen_only_the_parts_it_changed(app):
    night = betting(app)
    version = night.state()["version"]
    phone = Stream(night.clients["Ben"], url(night, "phone", version))
    tv = Stream(night.host, url(night, "tv", version))
    try:
        night.ok("Eva", "bet", heap=2, amount=3)  # the first since the streams opened: whole
        assert 'id="felt"' in data(phone.events(until="mine"))
        assert 'id="players"' in data(tv.events(until="update"))
        night.ok("Eva", "bet", heap=2, amount=2)  # her pile on heap 2 grows
        mine = data(phone.events(until="update"))
        theirs = data(tv.events(until="update"))
        p3 = night.seats["Eva"]
        assert 'id="felt"' not in mine and 'id="felt"' not in theirs
        sent = [piece.split('"')[3] for piece in mine.split("<")[1:] if "hx-swap-oob" in piece]
        assert sent == ["tap", f"pile-2-{p3}-heap"]
        assert f'id="pile-2-{p3}-heap"' in theirs and f'id="player-{p3}"' in theirs
        assert 'id="players"' not in theirs and 'id="tv_status"' not in theirs
        assert len(mine) < 1000 and len(theirs) < 1000
        # A new pile on a heap is inserted after the last one; a pile taken back is deleted.
        night.ok("Ivo", "bet", heap=2, amount=1)
        ivo = night.seats["Ivo"]
        assert f'hx-swap-oob="afterend:#pile-2-{p3}-heap"><li id="pile-2-{ivo}-heap"' in data(
            phone.events(until="update")
        )
        night.ok("Ivo", "withdraw", bet=night.state()["hand"]["bets"][-1]["id"])
        assert f'<li hx-swap-oob="delete" id="pile-2-{ivo}-heap"></li>' in data(
            phone.events(until="update")
        )
    finally:
        phone.close()
        tv.close()


def between_tags(html: str) -> str:
    """HTML without the white space between its tags: a part inserted among others comes
    without the space the template wrote before it (the lists are grids, where it shows
    nothing)."""
    return re.sub(r">\s+<", "><", html)


def render_of(app, night, kind):
    with app.test_request_context():
        return updates.shared(channel.of(app).broker.latest(night.code), kind, "en")


@pytest.mark.parametrize("kind", ["phone", "tv"])
def test_a_screen_that_missed_versions_is_brought_to_the_newest_from_what_it_holds(app, kind):
    """A screen that skipped versions (a slow one: its stream had not taken the last update)
    is sent what brings what it holds to the newest: swapped as htmx swaps it, what it then
    holds is the newest render whole, at every step of a random night of bets and withdraws."""
    night = betting(app)
    rng = random.Random(27)
    screen = Screen(night.code, night.state()["version"], screen=kind, seat=None, locale="en")
    held = ""
    for step in range(40):
        for _ in range(rng.choice([1, 1, 2, 3])):  # the versions it misses (a refusal: none)
            name = rng.choice(["Ben", "Eva", "Ivo"])
            mine = [b for b in night.state()["hand"]["bets"] if b["player"] == night.seats[name]]
            if mine and rng.random() < 0.4:
                night.do(name, "withdraw", bet=rng.choice(mine)["id"])
            else:
                mode = rng.choice(["bet", "bet", "against", "choose"])
                heap, amount = rng.choice([1, 2, 3]), rng.randint(1, 3)
                night.do(name, "tap", mode=mode, heap=heap, amount=amount, custom="")
        render = render_of(app, night, kind)
        sent = updates._sent(screen.about, render).decode()
        whole = render.whole.decode()
        head = "event: update\ndata: "
        assert sent.startswith(head) or (sent == "" and step)
        held = swap_oob(held, sent[len(head) : -2])
        newest = whole[len(head) : -2].replace(' hx-swap-oob="true"', "")
        assert between_tags(held) == between_tags(newest)
        assert step == 0 or len(sent) <= len(whole)


def test_a_phone_that_fetched_its_regions_is_sent_them_whole_next(app):
    """What a phone fetched (every region, back in the foreground) is not what its stream
    last sent it: the stream sends its regions whole next, not the parts since."""
    night = betting(app)
    phone = Stream(night.clients["Ben"], url(night, "phone", night.state()["version"]))
    try:
        night.ok("Eva", "bet", heap=1, amount=1)
        phone.events(until="mine")
        night.clients["Ben"].get(f"/t/{night.code}/p/all", headers=HX)
        night.ok("Eva", "bet", heap=1, amount=1)
        assert 'id="felt"' in data(phone.events(until="update"))
        night.ok("Eva", "bet", heap=1, amount=1)
        assert 'id="felt"' not in data(phone.events(until="update"))
    finally:
        phone.close()


def tables(app):
    montones = betting(app)
    montones.ok("Ben", "bet", heap=1, amount=2)
    monte = MonteNight(app, "Ana", "Ben", "Eva")
    monte.betting()
    monte.tap(monte.punters[0], "top", 5)
    bank = MonteBankNight(app, "Ana", "Ben", "Eva")
    bank.betting()
    bank.tap(bank.punters[0], "ul", 5)
    return [montones, monte, bank]


def test_every_region_sent_is_one_element_named_by_its_block_whose_parts_are_split(app):
    """Swapped out of band by its id, a region must be one element with the block's name for
    its id; a game's felt and the TV's players come in parts, none split in error."""
    for night in tables(app):
        for kind in ("phone", "tv"):
            render = render_of(app, night, kind)
            for name, html in render.blocks.items():
                if not html.strip():
                    continue
                one_line = updates.one_line(html)
                assert render.parts[name][name].html == one_line
                assert parts.split(one_line)  # its tags nest and its ids are one each
            assert len(render.parts["felt"]) > 3
            if kind == "tv":
                assert any(ident.startswith("player-") for ident in render.parts["players"])


def test_a_screen_holds_one_render_and_a_render_holds_no_older_one(app):
    """What a screen was last sent is one render; the steps a render keeps are bytes, keyed by
    the older render's key, so the renders of a long night are not held one by another once
    the render cache lets them go."""
    night = betting(app)
    screen = Screen(night.code, night.state()["version"], screen="tv", seat=None, locale="en")
    for _ in range(20):
        night.ok("Eva", "bet", heap=1, amount=1)
        updates._sent(screen.about, render_of(app, night, "tv"))
    channel.of(app).renders._renders.clear()
    gc.collect()
    alive = [
        o for o in gc.get_objects() if isinstance(o, updates.Render) and o.key[0] == night.code
    ]
    assert alive == [screen.about["shown"]]
