"""Watching without a seat (issue 29): a guest's phone shows the TV's picture, live, and may sit
down later; the TV says how many watch, and no guest can make it say more than a few for each
device."""

from __future__ import annotations

import io
import re

import pytest
import segno

from montones.web import limits, screens
from tests.helpers.nights import Night, put_state
from tests.helpers.streams import Stream, url

HX = {"HX-Request": "true"}
SPANISH = {"Accept-Language": "es"}


APP_CONFIG = {"STREAM_MAX_SECONDS": 10}  # a stream that never sends what a test waits for ends


@pytest.fixture
def night(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    night.ok("Ben", "tap", heap=1, mode="bet", amount=4, custom="")
    return night


def regions(html: str) -> dict[str, str]:
    """Each TV region of a page or a fragment, by its id, as drawn (out of band or not)."""
    found = {}
    for region in ("tv_status", "felt", "players", "recent"):
        start = html.index(f'id="{region}"')
        found[region] = html[start : html.index(f'id="{region}"', start) + 1]
    return found


# --- the page -----------------------------------------------------------------------------------


def test_a_watcher_sees_the_tv_s_regions_in_the_phone_s_language_and_a_way_to_sit_down(night):
    guest = night.app.test_client()
    response = guest.get(f"/t/{night.code}/watch", headers=SPANISH)
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    for region in ("tv_status", "felt", "players", "recent"):
        assert f'id="{region}"' in page
    assert "Hagan sus apuestas" in page and "Sentarse a jugar" in page
    assert f'href="/t/{night.code}/join"' in page
    # Its stream is a watcher's, from the version the page shows.
    version = night.state()["version"]
    assert f'sse-connect="/t/{night.code}/stream?v={version}&amp;screen=watch"' in page
    assert 'class="watch"' in page


def test_a_watcher_is_shown_exactly_what_the_tv_shows_even_a_seated_player(night):
    """Drawn from the view every screen shares, never a seat's: Ben, seated, watching from his
    phone, sees the TV's regions to the byte, and nothing of his seat (his bar, his status)."""
    tv = night.host.get(f"/t/{night.code}/tv/p/all", headers={**HX, **SPANISH})
    for client in (night.app.test_client(), night.clients["Ben"]):
        watched = client.get(f"/t/{night.code}/watch/p/all", headers={**HX, **SPANISH})
        assert watched.status_code == 200
        assert watched.get_data(as_text=True) == tv.get_data(as_text=True)
        page = client.get(f"/t/{night.code}/watch").get_data(as_text=True)
        assert 'id="bar"' not in page and 'id="status"' not in page
        assert night.rejoin_code("Ben") not in page


def test_a_watcher_s_regions_come_alone_to_htmx_and_as_the_page_without_it(night):
    guest = night.app.test_client()
    felt = guest.get(f"/t/{night.code}/watch/p/felt", headers=HX)
    assert felt.status_code == 200 and "HX-Request" in felt.headers["Vary"]
    body = felt.get_data(as_text=True)
    first = body.lstrip().split(">", 1)[0]  # the region itself, swapped in place
    assert 'id="felt"' in first and "hx-swap-oob" not in first and "<html" not in body
    everything = guest.get(f"/t/{night.code}/watch/p/all", headers=HX).get_data(as_text=True)
    assert everything.count('hx-swap-oob="true"') >= 4 and "<html" not in everything
    assert guest.get(f"/t/{night.code}/watch/p/nope", headers=HX).status_code == 404
    # Without htmx (a reload of an address htmx fetched), the whole page.
    page = guest.get(f"/t/{night.code}/watch/p/felt")
    assert page.status_code == 200 and "<html" in page.get_data(as_text=True)


def test_a_watcher_is_told_why_there_is_no_seat_and_the_join_page_still_decides(night):
    guest = night.app.test_client()
    assert night.host_do("close_doors").status_code == 303
    page = guest.get(f"/t/{night.code}/watch").get_data(as_text=True)
    assert "The host has closed this table to new players." in page
    assert f'href="/t/{night.code}/join"' in page  # the doors may open again while it watches
    joining = guest.get(f"/t/{night.code}/join")  # which says so too, before a name is typed
    assert joining.status_code == 200
    assert "The host has closed this table to new players." in joining.get_data(as_text=True)
    assert night.host_do("open_doors").status_code == 303
    page = guest.get(f"/t/{night.code}/watch").get_data(as_text=True)
    assert "closed this table" not in page
    assert "closed this table" not in guest.get(f"/t/{night.code}/join").get_data(as_text=True)
    assert night.host_do("end").status_code == 303
    page = guest.get(f"/t/{night.code}/watch").get_data(as_text=True)
    assert "This table has ended." in page and f'href="/t/{night.code}/join"' not in page


def test_a_watcher_goes_on_to_the_new_night_s_watch_page_not_its_tv(night):
    """Issue 36, item 7: the end screen a watcher's phone shows is the TV's, and asks as the TV
    does; it is sent to the new table's page for watching, laid out for a phone."""
    guest = night.app.test_client()
    watching = {**HX, "HX-Current-URL": f"http://localhost/t/{night.code}/watch"}
    assert night.host_do("end").status_code == 303
    page = guest.get(f"/t/{night.code}/watch").get_data(as_text=True)
    asks = f'hx-get="/t/{night.code}/tv/next" hx-trigger="load"'
    assert asks not in page  # no new night yet: nothing to go on to
    waiting = guest.get(f"/t/{night.code}/tv/next", headers=watching)
    assert waiting.location == f"/t/{night.code}/watch"
    assert night.host_do("new_night").status_code == 303
    with night.app.app_context():
        new_code = night.table().next_code
    assert asks in guest.get(f"/t/{night.code}/watch").get_data(as_text=True)
    answer = guest.get(f"/t/{night.code}/tv/next", headers=watching)
    assert answer.headers["HX-Redirect"] == f"/t/{new_code}/watch"
    # The TV itself still goes on to the new night's TV page.
    tv = {**HX, "HX-Current-URL": f"http://localhost/t/{night.code}/tv"}
    answer = night.host.get(f"/t/{night.code}/tv/next", headers=tv)
    assert answer.headers["HX-Redirect"] == f"/t/{new_code}/tv"


def test_a_full_table_says_so_to_a_watcher(app):
    night = Night(app, "Ana", "Ben")
    state = night.state()
    state["settings"]["most_players"] = 2
    with app.app_context():
        put_state(night.table(), state)
    page = app.test_client().get(f"/t/{night.code}/watch").get_data(as_text=True)
    assert "The table is full: it seats 2 players." in page


def test_the_tv_and_the_host_page_show_the_code_to_watch(night):
    tv = night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)
    assert f'src="/t/{night.code}/watch/qr.svg"' in tv and 'id="watching"' in tv
    host = night.host.get(f"/t/{night.code}/host").get_data(as_text=True)
    assert f'src="/t/{night.code}/watch/qr.svg"' in host
    assert f"http://localhost/t/{night.code}/watch" in host
    # The code is the watch page's address, as the join code is the join page's.
    qr = night.host.get(f"/t/{night.code}/watch/qr.svg")
    assert qr.mimetype == "image/svg+xml"
    out = io.BytesIO()
    segno.make(f"http://localhost/t/{night.code}/watch", error="m").save(
        out, kind="svg", scale=10, border=2
    )
    assert qr.get_data() == out.getvalue()


# --- the stream and the count -------------------------------------------------------------------


def watching(events) -> list[str]:
    """What each event said of the watchers (the #watching line's text), in order."""
    said = []
    for name, data in events:
        found = re.search(r'<p hx-swap-oob="morph" id="watching" class="watching">(.*?)</p>', data)
        if name == "update" and found:
            said.append(found.group(1))
    return said


def test_a_watcher_s_stream_pushes_the_tv_s_regions(night):
    watcher = Stream(night.app.test_client(), url(night, "watch", 0), SPANISH)
    try:
        (name, data), *_ = watcher.events(until="update")
        assert name == "update"
        for region in ("tv_status", "felt", "players", "recent"):
            assert f' hx-swap-oob="morph" id="{region}"' in data
        assert "Hagan sus apuestas" in data
        # A bet reaches it as it reaches the TV.
        night.ok("Eva", "tap", heap=2, mode="bet", amount=3, custom="")
        update = ""
        while "Eva" not in update:
            update = watcher.events(until="update")[-1][1]
    finally:
        watcher.close()


def test_the_tv_says_how_many_watch_as_they_come_and_go(night):
    version = night.state()["version"]
    tv = Stream(night.host, url(night, "tv", version))
    try:
        first, said = watcher(night.app.test_client(), url(night, "watch", version), 1)
        assert said == ["1 watching"]  # the watcher's phone shows the count too
        assert watching(tv.events(until="update")) == ["1 watching"]
        second, _said = watcher(night.app.test_client(), url(night, "watch", version), 2)
        assert watching(tv.events(until="update")) == ["2 watching"]
        first.close()
        assert watching(tv.events(until="update")) == ["1 watching"]
        second.close()
        assert watching(tv.events(until="update")) == [""]
    finally:
        tv.close()


def watcher(client, stream_url, device: int) -> tuple[Stream, list[str]]:
    """A watcher's stream from device ``device`` (its address), open, and what its first update
    said of the watchers: the server runs a stream as its reader reads."""
    opened = Stream(client, stream_url, environ_base={"REMOTE_ADDR": f"192.168.1.{device}"})
    return opened, watching(opened.events(until="update"))


def test_one_device_counts_for_a_few_watchers_at_most(night):
    """A guest who opens stream after stream from one phone is refused past the few a phone
    may hold (429: its browser does not try again), so the TV's count is bounded by the
    devices in the room; another device is not held back."""
    version = night.state()["version"]
    tv = Stream(night.host, url(night, "tv", version))
    guest = night.app.test_client()
    opened = []
    try:
        for n in range(limits.DEVICE_STREAMS):
            opened.append(watcher(guest, url(night, "watch", version), 7)[0])
            assert watching(tv.events(until="update")) == [f"{n + 1} watching"]
        at = {"REMOTE_ADDR": "192.168.1.7"}
        refused = guest.get(url(night, "watch", version), environ_base=at)
        assert refused.status_code == 429 and refused.mimetype != "text/event-stream"
        opened.append(watcher(guest, url(night, "watch", version), 8)[0])
        said = watching(tv.events(until="update"))
        assert said == [f"{limits.DEVICE_STREAMS + 1} watching"]
        # The TV's own stream from that device is no watcher's: not refused.
        more_tv = night.host.get(url(night, "tv", version), buffered=False, environ_base=at)
        assert more_tv.status_code == 200 and more_tv.mimetype == "text/event-stream"
        more_tv.close()
    finally:
        for one in opened:
            one.close()
        tv.close()


def test_the_count_is_said_in_each_screens_language(app):
    with app.app_context():
        assert "1 watching" in screens.watching(1, "en")
        assert "1 зритель" in screens.watching(1, "ru")
        assert "5 зрителей" in screens.watching(5, "ru")
        assert "5 schauen zu" in screens.watching(5, "de")
        assert 'id="watching"' in screens.watching(0, "en")


def test_the_tv_says_the_count_again_in_the_language_the_host_sets(night):
    version = night.state()["version"]
    tv = Stream(night.host, url(night, "tv", version))
    one, _said = watcher(night.app.test_client(), url(night, "watch", version), 3)
    try:
        assert watching(tv.events(until="update")) == ["1 watching"]
        assert night.host_do("tv_language", language="ru").status_code == 303
        said = []
        while not said:  # the TV's regions in Russian, then the count in it
            said = watching(tv.events(until="update"))
        assert said == ["1 зритель"]
    finally:
        one.close()
        tv.close()
        night.host_do("tv_language", language="")
