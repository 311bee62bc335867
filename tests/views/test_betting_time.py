"""The betting time through the routes (issue 40): set when the table is made or from the host's
page; while bets are open the TV shows its countdown large and the phones (the banker's among
them) in their status line; when it runs out the scheduler's tick closes bets as the banker's
close would. The cut's clock shows on the TV the same way."""

import re

from montones import service
from tests.helpers.nights import HX, Night, shown_text


def tv_status(night) -> str:
    client = night.app.test_client()
    return client.get(f"/t/{night.code}/tv/p/tv_status?lang=en", headers=HX).get_data(as_text=True)


def countdown(html: str, kind: str) -> int | None:
    """The time a countdown of ``kind`` ("bets", "cut") counts to, if the page shows one."""
    found = re.search(rf'data-countdown="{kind}".*?data-until="(\d+)"', html, re.S)
    return int(found.group(1)) if found else None


def tick(night) -> bool:
    with night.app.app_context():
        return service.tick(night.code)


def test_bets_close_by_the_clock_when_the_betting_time_runs_out(app, clock):
    night = Night(app, "Ana", "Ben", "Eva", betting_time="30")
    night.to_betting("Ana", 30, 3)
    opened = clock.time()
    night.ok("Ben", "bet", heap=1, amount=10)
    night.ok("Eva", "choose", heap=3)
    due = int(opened + 30)
    tv = tv_status(night)
    assert countdown(tv, "bets") == due and 'class="tv-countdown tv-countdown--bets"' in tv
    assert "Bets close in" in shown_text(tv)
    banker = night.page("Ana").get_data(as_text=True)
    assert countdown(banker, "bets") == due  # the banker's phone counts down too
    assert countdown(night.page("Ben").get_data(as_text=True), "bets") == due
    with app.app_context():
        assert service.clock_deadline(night.table()) == opened + 30
    clock.advance(29.5)
    assert not tick(night) and night.state()["phase"] == "betting"
    clock.advance(0.5)
    assert tick(night)
    state = night.state()
    assert state["phase"] == "settled" and state["hand"]["result"] is not None
    assert night.actions()[-1][1:] == ("system", "bets_timeout")
    assert sum(night.ledger().values()) == 0
    assert countdown(tv_status(night), "bets") is None  # closed: no clock left


def test_a_table_without_a_betting_time_shows_no_countdown_and_waits_for_its_banker(app, clock):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", 30, 3)
    night.ok("Eva", "choose", heap=3)
    assert countdown(tv_status(night), "bets") is None
    assert countdown(night.page("Ana").get_data(as_text=True), "bets") is None
    clock.advance(3600)
    assert not tick(night) and night.state()["phase"] == "betting"


def test_the_host_sets_the_betting_time_from_the_host_page_and_it_runs_from_then(app, clock):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", 30, 3)
    page = night.host.get(f"/t/{night.code}/host?lang=en").get_data(as_text=True)
    assert 'name="seconds"' in page and "Off: the banker closes" in page
    clock.advance(100)
    assert night.host_do("betting_time", seconds=20).status_code == 303
    assert night.state()["settings"]["betting_time"] == 20
    assert countdown(tv_status(night), "bets") == int(clock.time() + 20)
    page = night.host.get(f"/t/{night.code}/host?lang=en").get_data(as_text=True)
    assert '<option value="20" selected>' in page
    assert night.host_do("betting_time").status_code == 303  # none again
    assert night.state()["settings"]["betting_time"] is None
    assert countdown(tv_status(night), "bets") is None


def test_a_betting_time_out_of_bounds_is_refused_in_words_when_the_table_is_made(app):
    client = app.test_client()
    from tests.helpers.nights import fresh_token

    answer = client.post(
        "/tables",
        data={
            "csrf_token": fresh_token(client),
            "game": "monte",
            "chips": "100",
            "min_bet": "1",
            "bank_size": "50",
            "max_bet": "10",
            "banks_each": "1",
            "betting_time": "5",
        },
    )
    assert answer.status_code == 422
    assert "from 10 to 600 seconds" in shown_text(answer.get_data(as_text=True))


def test_the_tv_shows_the_cuts_clock_large_as_it_shows_the_betting_time(app, clock):
    night = Night(app, "Ana", "Ben", "Eva", cut_timeout="40")
    night.open_bank("Ana", 30)
    tv = tv_status(night)
    assert countdown(tv, "cut") == int(clock.time() + 40)
    assert 'class="tv-countdown tv-countdown--cut"' in tv and "Time to cut" in shown_text(tv)
