"""The live stream through Flask's test client: the same loop as under gunicorn, a screen's
regions whole in each update (montones/web/stream.py)."""

from __future__ import annotations

import re
import zlib
from dataclasses import replace

import pytest

from montones import service
from montones.live import channel
from montones.web import host, screens
from tests.helpers.apps import make_app
from tests.helpers.nights import Night, csrf_of
from tests.helpers.streams import Stream, url

# A region as a tap's answer or a stream sends it, each on one line: its id, and it whole.
MORPHED = re.compile(r'<\w+ hx-swap-oob="morph" id="(\w+)".*?(?=<\w+ hx-swap-oob="morph"|$)')
APP_CONFIG = {"STREAM_MAX_SECONDS": 10}  # a stream that never sends what a test waits for ends


@pytest.fixture(scope="module")
def night(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    return night


def updates_of(stream, count: int = 1) -> list[str]:
    """The data of the stream's next ``count`` updates (heartbeats skipped)."""
    return [stream.events(until="update")[-1][1] for _ in range(count)]


def test_every_change_reaches_a_phone_as_its_regions_whole_its_own_when_they_change(night):
    version = night.state()["version"]
    stream = Stream(night.clients["Ben"], url(night, "phone", version))
    try:
        # The first change since the stream opened: the felt whole, and Ben's own regions
        # (what the phone showed before is not known to the stream).
        night.ok("Eva", "tap", heap=2, mode="bet", amount=3, custom="")
        (data,) = updates_of(stream)
        regions = ("tap", "felt", "status", "guide", "bar", "seat_version")
        assert all(f'id="{region}"' in data for region in regions)
        assert data.count('hx-swap-oob="morph"') == len(regions) and "Eva" in data
        # Eva takes her bet back: every felt changes, Ben's chips and bar do not: the felt
        # alone. The host pauses the table: Ben's bar changes, and comes with the felt.
        night.ok("Eva", "withdraw", bet=night.state()["hand"]["bets"][-1]["id"])
        (data,) = updates_of(stream)
        assert 'id="felt"' in data and 'id="bar"' not in data and 'id="status"' not in data
        assert night.host_do("pause").status_code == 303
        (data,) = updates_of(stream)
        assert 'id="felt"' in data and 'id="bar"' in data
    finally:
        stream.close()
        night.host_do("resume")


def test_a_phone_is_sent_the_stake_its_seat_chose(night):
    """A redraw of the bar from the stream keeps the stake the player chose with a tap."""
    night.ok("Ben", "tap", heap=3, mode="bet", amount=5, custom="")
    stream = Stream(night.clients["Ben"], url(night, "phone", 0))
    try:
        (data,) = updates_of(stream)
        assert '<input type="radio" name="amount" value="5" checked>' in data
    finally:
        stream.close()


def test_the_tv_gets_its_regions(night):
    stream = Stream(night.host, url(night, "tv", 0))
    try:
        (data,) = updates_of(stream)
        regions = ["tv_status", "party", "felt", "players", "recent"]
        at = [data.find(f'id="{region}"') for region in regions]
        assert -1 not in at and at == sorted(at)
        assert data.count('hx-swap-oob="morph"') == len(regions)
    finally:
        stream.close()


HOST_REGIONS = ("host-now", "host-switches", "host-players", "host-away")


def test_the_host_page_gets_its_regions_then_only_what_changed(night, monkeypatch):
    """The host's page, drawn before the table moved, is sent its regions whole; then a bet
    draws and sends the bettor's card alone (the host's line, switches and the rest of the
    players drawn from what the bet did not change), and a version that changes nothing the
    host's page shows draws and sends nothing."""
    drawn = []
    drawer = host.block_drawer

    def counting(template, context):
        draw = drawer(template, context)
        return lambda block, **values: drawn.append(block) or draw(block, **values)

    monkeypatch.setattr(host, "block_drawer", counting)
    stream = Stream(night.host, url(night, "host", 0))
    try:
        (data,) = updates_of(stream)
        at = [data.find(f'id="{region}"') for region in HOST_REGIONS]
        assert -1 not in at and at == sorted(at) and data.count('hx-swap-oob="morph"') == 4
        assert drawn == ["host_now", "host_switches", "host_players", "host_away"]
        drawn.clear()
        night.ok("Eva", "tap", heap=2, mode="bet", amount=4, custom="")
        (data,) = updates_of(stream)
        eva = night.seats["Eva"]
        assert data.count('hx-swap-oob="morph"') == 1 and f'id="host-player-{eva}"' in data
        assert f'data-chips="{night.state()["players"][eva]["chips"]}"' in data
        assert drawn == ["host_player"]
        drawn.clear()
        # The host pauses the table: the line and the switches say so, the players do not.
        assert night.host_do("pause").status_code == 303
        (data,) = updates_of(stream)
        assert 'id="host-now"' in data and 'id="host-switches"' in data
        assert "host-player" not in data and drawn == ["host_now", "host_switches"]
    finally:
        stream.close()
        night.host_do("resume")


def test_a_version_that_changes_nothing_on_the_host_page_draws_nothing(night, app):
    """What the host's stream does at each version (``host.live_regions``): nothing drawn
    again, nothing sent, for a version whose inputs of every region are as drawn."""
    with app.test_request_context():
        table = service.get_table(night.code)
        actor = service.Actor(seat=None, is_host=True)
        drawn: dict = {}
        assert host.live_regions(table, actor, drawn).count('hx-swap-oob="morph"') == 4
        same = replace(table, version=table.version + 1)  # as another version would be
        assert host.live_regions(same, actor, drawn) == ""
        paused = replace(same, version=same.version + 1, paused=True)
        again = host.live_regions(paused, actor, drawn)
        assert 'id="host-now"' in again and "host-player" not in again


def test_the_phones_of_one_language_share_one_render_of_a_version(night, monkeypatch):
    rendered = []
    render = screens._render
    monkeypatch.setattr(screens, "_render", lambda *a: rendered.append(a[1:2]) or render(*a))
    night.ok("Eva", "tap", heap=2, mode="bet", amount=1, custom="")  # a version not rendered yet
    streams = [Stream(night.clients[name], url(night, "phone", 0)) for name in ("Ben", "Eva")]
    try:
        felts = [updates_of(stream)[0] for stream in streams]
        felt = [data[data.index('id="felt"') : data.index('id="status"')] for data in felts]
        assert felt[0] == felt[1]
        assert rendered == [("phone",)]
    finally:
        for stream in streams:
            stream.close()


def test_a_stream_is_counted_while_open_and_the_scheduler_runs(app, night):
    stream = Stream(night.clients["Ben"], url(night, "phone", 0))
    updates_of(stream)
    live = channel.of(app)
    assert live.serving() and live.scheduler._thread.is_alive()
    stream.close()
    assert not live.serving()


def test_two_apps_share_no_live_channel(app, tmp_path):
    other = make_app(tmp_path)
    assert channel.of(other) is not channel.of(app)
    assert channel.of(other).broker is not channel.of(app).broker


def test_a_phone_whose_answer_is_a_version_behind_is_sent_it_with_its_mark_drawn_again(
    app, monkeypatch
):
    """At a table of many tappers a phone's stream finds its tap's answer a version or more
    behind: it sends the answer's regions as drawn, #seat_version alone drawn again at the
    table's version with a fresh nonce, without drawing the phone's context again."""
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    stream = Stream(night.clients["Ben"], url(night, "phone", night.state()["version"]))
    try:
        answer = night.do("Ben", "tap", heap=1, mode="bet", amount=2, custom="")
        assert answer.status_code == 200
        night.ok("Eva", "tap", heap=2, mode="bet", amount=1, custom="")  # the table moves on
        monkeypatch.setattr(screens, "phone_context", lambda *a, **k: pytest.fail("drawn"))
        (data,) = updates_of(stream)
    finally:
        stream.close()
    answered = {m[1]: m[0] for m in MORPHED.finditer(answer.get_data(as_text=True))}
    sent = {m[1]: m[0] for m in MORPHED.finditer(data)}
    assert [sent[region] for region in ("status", "guide", "bar")] == [
        answered[region] for region in ("status", "guide", "bar")
    ]
    mark = re.compile(r'data-v="(\d+)".*name="drawing_nonce" value="([\w-]+)"')
    (v_answered, nonce_answered), (v_sent, nonce_sent) = (
        mark.search(answered["seat_version"]).groups(),
        mark.search(sent["seat_version"]).groups(),
    )
    assert int(v_sent) == night.state()["version"] == int(v_answered) + 1
    assert nonce_sent != nonce_answered


# --- a phone that loses its seat is told at once, by its stream ----------------------------------


def test_a_phone_sent_away_by_the_host_is_told_by_its_stream(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    stream = Stream(night.clients["Ben"], url(night, "phone", night.state()["version"]))
    try:
        assert night.host_do("kick", seat=night.seats["Ben"]).status_code == 303
        (gone,) = updates_of(stream)
        assert "The host sent you away from this table" in gone and 'role="alertdialog"' in gone
        assert "Only the host can let you back in" in gone
        # Told once, and then the felt alone: no regions of a seat it no longer holds.
        night.ok("Eva", "bet", heap=1, amount=3)
        (data,) = updates_of(stream)
        assert 'id="felt"' in data and 'id="gone"' not in data and 'id="bar"' not in data
    finally:
        stream.close()


def test_a_phone_let_back_in_by_the_host_is_told_by_its_stream_without_a_tap(app):
    """Issue 36: a player let back in saw "sent away" until they tapped. The stream that told
    the phone it had gone tells it it is back: what said so goes, and its own regions come
    again; and from then on its own changes come too."""
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    stream = Stream(night.clients["Ben"], url(night, "phone", night.state()["version"]))
    try:
        assert night.host_do("kick", seat=night.seats["Ben"]).status_code == 303
        assert "sent you away" in updates_of(stream)[0]
        assert night.host_do("readmit", seat=night.seats["Ben"]).status_code == 303
        (back,) = updates_of(stream)
        assert "sent you away" not in back and 'id="gone"' in back and 'id="bar"' in back
        assert night.host_do("top_up", seat=night.seats["Ben"], amount=10).status_code == 303
        (data,) = updates_of(stream)
        assert 'id="status"' in data and 'id="gone"' not in data
    finally:
        stream.close()


def test_a_phone_whose_seat_moved_to_another_device_is_told_by_its_stream(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    stream = Stream(night.clients["Ben"], url(night, "phone", night.state()["version"]))
    try:
        phone = app.test_client()
        token = csrf_of(phone.get(f"/t/{night.code}/rejoin"))
        response = phone.post(
            f"/t/{night.code}/rejoin",
            data={"rejoin": night.rejoin_code("Ben"), "csrf_token": token},
        )
        assert response.status_code == 303
        (gone,) = updates_of(stream)
        assert "Your seat moved to another device" in gone
        assert f"/t/{night.code}/rejoin" in gone  # what it can do: take it back
        # The new phone's stream is not told so: the seat is its own.
        version = night.state()["version"]
        other = Stream(phone, url(night, "phone", version))
        try:
            night.ok("Eva", "bet", heap=1, amount=3)
            (data,) = updates_of(other)
            assert 'id="bar"' in data and "moved to another device" not in data
        finally:
            other.close()
    finally:
        stream.close()


def test_every_phone_gets_its_own_language_in_every_pushed_region(app):
    """One language per device: Ben's phone is in Spanish, Eva's in English; what their
    streams push (the felt, and the notice when the host sends Ben away) is each in its own,
    whoever's tap rendered it first."""
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    night.clients["Ben"].get(f"/t/{night.code}?lang=es")
    version = night.state()["version"]
    ben = Stream(night.clients["Ben"], url(night, "phone", version))
    eva = Stream(night.clients["Eva"], url(night, "phone", version))
    try:
        night.ok("Eva", "bet", heap=1, amount=3)  # rendered first for Eva, in English
        (felt_es,) = updates_of(ben)
        (felt_en,) = updates_of(eva)
        assert "Montón 1" in felt_es and "Heap 1" not in felt_es
        assert "Heap 1" in felt_en and "Montón 1" not in felt_en
        assert night.host_do("kick", seat=night.seats["Ben"]).status_code == 303
        (gone,) = updates_of(ben)
        assert "El anfitrión te ha echado de esta mesa" in gone
    finally:
        ben.close()
        eva.close()


def test_a_stream_is_gzipped_for_a_browser_that_takes_it_and_each_update_reads_at_once(night):
    """Each chunk, decompressed as it comes, holds whole events: a screen need not wait for
    the next update (or the stream's end) to read this one."""
    headers = {"Accept-Language": "en", "Accept-Encoding": "gzip, deflate, br"}
    stream = Stream(night.host, url(night, "tv", 0), headers=headers)
    try:
        assert stream.response.headers["Content-Encoding"] == "gzip"
        assert "Accept-Encoding" in stream.response.headers["Vary"]
        unzip = zlib.decompressobj(16 + zlib.MAX_WBITS)
        # The stream's first two chunks: how soon to reconnect, then every region whole.
        assert unzip.decompress(next(stream.chunks)) == b"retry: 1500\n\n"
        read = unzip.decompress(next(stream.chunks)).decode()
        assert read.startswith("event: update\n") and read.endswith("\n\n")
        assert 'id="recent"' in read
        plain = Stream(night.host, url(night, "tv", 0))
        assert "Content-Encoding" not in plain.response.headers
        plain.close()
    finally:
        stream.close()


def test_the_tv_is_sent_the_end_of_its_lobby_and_a_reaction_without_a_version(app):
    """Issue 40: the host's start redraws the TV's party (the lobby goes); a phone's reaction
    reaches the TV as its own region, the table's version unchanged."""
    party = Night(app, "Ana", "Ben")
    stream = Stream(party.host, url(party, "tv", 0))
    try:
        (data,) = updates_of(stream)
        assert 'class="party-lobby"' in data
        assert party.host_do("start").status_code == 303
        (data,) = updates_of(stream)
        assert 'id="party"' in data and 'class="party-lobby"' not in data
        answer = party.clients["Ben"].post(
            f"/t/{party.code}/react/gasp",
            data={"csrf_token": party.tokens["Ben"]},
            headers={"HX-Request": "true"},
        )
        assert answer.status_code == 204
        (data,) = updates_of(stream)
        assert data.count('hx-swap-oob="morph"') == 1 and 'id="reactions"' in data
        assert f'data-seat="{party.seats["Ben"]}"' in data and "#gasp" in data
    finally:
        stream.close()


def test_the_host_regions_the_stream_sends_are_the_page_s_own(night):
    """A region of the host's page as its stream sends it is the same markup as a fresh load
    of the page draws (the nonces of its forms aside): a reload and a live update agree."""
    nonce = re.compile(r'name="nonce" value="[\w-]{16}')
    page = screens.one_line(night.host.get(f"/t/{night.code}/host").get_data(as_text=True))
    stream = Stream(night.host, url(night, "host", -1))
    try:
        (data,) = updates_of(stream)
    finally:
        stream.close()
    regions = data.split('<div hx-swap-oob="morph" id="host-')[1:]
    assert len(regions) == 4
    for region in regions:
        region = '<div id="host-' + region
        assert nonce.sub("N", region) in nonce.sub("N", page)
