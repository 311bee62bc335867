"""The live stream through Flask's test client: the same fan-out thread as under gunicorn,
writing to a socket pair the request relays (montones/live/stream.py)."""

from __future__ import annotations

import zlib

import pytest

from montones import create_app
from montones.config import TestConfig
from montones.live import channel, fanout, updates
from tests.helpers.nights import HX, Night, csrf_of


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    class Config(TestConfig):
        SQLALCHEMY_DATABASE_URI = f"sqlite:///{tmp_path_factory.mktemp('stream') / 'm.sqlite'}"
        STREAM_MAX_SECONDS = 10  # a stream that never sends what a test waits for ends

    return create_app(Config)


@pytest.fixture(scope="module")
def night(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    return night


class Stream:
    """An open stream, read an event at a time."""

    def __init__(self, client, url, headers=None, **options):
        headers = headers or {"Accept-Language": "en"}
        self.response = client.get(url, buffered=False, headers=headers, **options)
        assert self.response.mimetype == "text/event-stream"
        self.chunks = iter(self.response.response)
        self.pending = ""

    def events(self, until):
        """(name, data) of each event until one named ``until`` (that one included)."""
        got = []
        while True:
            while "\n\n" not in self.pending:
                chunk = next(self.chunks)
                self.pending += chunk.decode() if isinstance(chunk, bytes) else chunk
            block, self.pending = self.pending.split("\n\n", 1)
            fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
            if "event" in fields:
                got.append((fields["event"], fields.get("data", "")))
                if fields["event"] == until:
                    return got

    def close(self):
        self.response.close()


def url(night, screen: str, version: int) -> str:
    return f"/t/{night.code}/stream?screen={screen}&v={version}"


def test_every_change_reaches_a_phone_as_its_felt_and_mine_when_its_own_regions_change(night):
    version = night.state()["version"]
    stream = Stream(night.clients["Ben"], url(night, "phone", version))
    try:
        # The first change since the stream opened: the felt whole, then "mine" (what the
        # phone showed before is not known to the stream).
        night.ok("Eva", "tap", heap=2, mode="bet", amount=3, custom="")
        events = stream.events(until="mine")
        assert [name for name, _data in events] == ["update", "mine"]
        assert 'id="felt" ' in events[0][1]
        assert "Eva" in events[0][1] and events[1][1] == str(version + 1)
        # Eva takes her bet back: every felt changes, Ben's chips and bar do not, and he is
        # not told. Ben bets: his chips change, and his tap's answer drew them, so he is not
        # told either. The host pauses the table: Ben's bar changes, and he is told.
        night.ok("Eva", "withdraw", bet=night.state()["hand"]["bets"][-1]["id"])
        night.ok("Ben", "tap", heap=2, mode="bet", amount=2, custom="")
        assert night.host_do("pause").status_code == 303
        names = stream.events(until="mine")
        assert set(name for name, _ in names[:-1]) == {"update"}
        assert names[-1] == ("mine", str(version + 4))
    finally:
        stream.close()
        night.host_do("resume")


def test_a_phone_is_not_told_of_the_version_its_own_tap_made_though_its_answer_comes_later(
    app, night, monkeypatch
):
    """The fan-out may tell a version before the tap that made it has drawn its answer (on a
    busy machine): the tapping phone gets its regions in that answer and is not told too."""
    monkeypatch.setattr(updates, "drawn", lambda *args: None)  # no answer noted, as if later
    before = night.state()["version"]
    ben = fanout.Screen(night.code, before, screen="phone", seat=night.seats["Ben"])
    night.ok("Ben", "tap", heap=3, mode="bet", amount=2, custom="")
    with app.test_request_context():
        table = channel.of(app).broker.latest(night.code)
        assert (table.version, table.asked_by) == (before + 1, night.seats["Ben"])
        assert updates.tell([ben], table) == [b""]
        assert ben.about["drawn_at"] == before + 1  # what his answer shows: no tell for it


def test_the_tv_gets_its_regions_and_no_mine(night):
    stream = Stream(night.host, url(night, "tv", 0))
    try:
        ((name, data),) = stream.events(until="update")
        regions = ["tv_status", "felt", "players", "recent"]
        at = [data.find(f' hx-swap-oob="true" id="{region}"') for region in regions]
        assert -1 not in at and at == sorted(at)
    finally:
        stream.close()


def test_the_host_page_is_told_the_version(night):
    stream = Stream(night.host, url(night, "host", 0))
    try:
        assert stream.events(until="changed") == [("changed", str(night.state()["version"]))]
    finally:
        stream.close()


def test_the_phones_of_one_language_share_one_render_of_a_version(night, monkeypatch):
    rendered = []
    render = updates._render
    monkeypatch.setattr(updates, "_render", lambda *a: rendered.append(a[1:2]) or render(*a))
    night.ok("Eva", "tap", heap=2, mode="bet", amount=1, custom="")  # a version not rendered yet
    streams = [Stream(night.clients[name], url(night, "phone", 0)) for name in ("Ben", "Eva")]
    try:
        felts = [dict(stream.events(until="mine"))["update"] for stream in streams]
        assert felts[0] == felts[1]
        assert rendered == [("phone",)]
    finally:
        for stream in streams:
            stream.close()


def test_the_fan_out_thread_ends_with_the_last_stream(app, night):
    stream = Stream(night.clients["Ben"], url(night, "phone", 0))
    stream.events(until="mine")
    live = channel.of(app)
    assert live.serving()
    stream.close()
    thread = live._fanout.thread
    thread.join(5)
    assert not thread.is_alive() and not live.serving()


def test_two_apps_share_no_live_channel(app, tmp_path):
    class Other(TestConfig):
        SQLALCHEMY_DATABASE_URI = f"sqlite:///{tmp_path / 'other.sqlite'}"

    other = create_app(Other)
    assert channel.of(other) is not channel.of(app)
    assert channel.of(other).broker is not channel.of(app).broker


# --- a phone that loses its seat is told at once, by its stream ----------------------------------


def test_a_phone_sent_away_by_the_host_is_told_by_its_stream(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    stream = Stream(night.clients["Ben"], url(night, "phone", night.state()["version"]))
    try:
        assert night.host_do("kick", seat=night.seats["Ben"]).status_code == 303
        events = stream.events(until="gone")
        assert [name for name, _data in events] == ["update", "gone"]
        gone = events[-1][1]
        assert "The host sent you away from this table" in gone and 'role="alertdialog"' in gone
        assert "Only the host can let you back in" in gone
        # Told once, and then no "mine" for a seat it no longer holds.
        night.ok("Eva", "bet", heap=1, amount=3)
        assert [name for name, _ in stream.events(until="update")] == ["update"]
    finally:
        stream.close()


def test_a_phone_let_back_in_by_the_host_is_told_by_its_stream_without_a_tap(app):
    """Issue 36: a player let back in saw "sent away" until they tapped. The stream that told
    the phone it had gone tells it it is back: what said so goes, and its regions are
    fetched again; and from then on it is told of its own changes again."""
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    stream = Stream(night.clients["Ben"], url(night, "phone", night.state()["version"]))
    try:
        assert night.host_do("kick", seat=night.seats["Ben"]).status_code == 303
        assert [name for name, _ in stream.events(until="gone")] == ["update", "gone"]
        assert night.host_do("readmit", seat=night.seats["Ben"]).status_code == 303
        events = stream.events(until="gone")
        assert [name for name, _data in events] == ["update", "gone"]
        back = events[-1][1]
        assert "sent you away" not in back and 'id="gone"' in back
        assert f'hx-get="/t/{night.code}/p/all" hx-trigger="load"' in back
        # The phone's regions as that fetch gets them: Ben's seat, his chips.
        page = night.clients["Ben"].get(f"/t/{night.code}/p/all", headers=HX)
        assert page.status_code == 200 and "sent you away" not in page.get_data(as_text=True)
        # Its own changes are told again: the host's top-up changes Ben's chips.
        # The readmission's own tell comes at the tells' pace: it may still be on its way (or
        # not come at all, had that fetch drawn his regions first). Read to the top-up's.
        readmitted = str(night.state()["version"])
        assert night.host_do("top_up", seat=night.seats["Ben"], amount=10).status_code == 303
        topped, events = str(night.state()["version"]), []
        while not events or events[-1] != ("mine", topped):
            events += stream.events(until="mine")
        assert [name for name, data in events if (name, data) != ("mine", readmitted)] == [
            "update",
            "mine",
        ]
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
        events = stream.events(until="gone")
        assert [name for name, _data in events] == ["update", "gone"]
        assert "Your seat moved to another device" in events[-1][1]
        assert f"/t/{night.code}/rejoin" in events[-1][1]  # what it can do: take it back
        # The new phone's stream is not told so: the seat is its own.
        version = night.state()["version"]
        other = Stream(phone, url(night, "phone", version))
        try:
            night.ok("Eva", "bet", heap=1, amount=3)
            assert [name for name, _ in other.events(until="mine")] == ["update", "mine"]
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
        (_name, felt_es), _mine = ben.events(until="mine")
        # Eva's own regions came with her tap's answer: her stream sends the felt alone.
        ((_name, felt_en),) = eva.events(until="update")
        assert "Montón 1" in felt_es and "Heap 1" not in felt_es
        assert "Heap 1" in felt_en and "Montón 1" not in felt_en
        assert night.host_do("kick", seat=night.seats["Ben"]).status_code == 303
        gone = dict(ben.events(until="gone"))["gone"]
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
