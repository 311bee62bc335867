"""The end of a night, in every game, through the real UI: every phone and the TV show the
standings and the night's story, and the host's "New night, same players" seats everyone again (and takes a watcher's phone to the
new night's watch page).

The hands before the end are played through the service layer on the server's own database
file (real rules, real ledger), so that each game's night has a story to tell; the end and the
new night are the host's taps, which the server pushes to the screens.
"""

import re

import pytest
from playwright.sync_api import expect

from montones import service
from montones.service import Actor
from tests.helpers.liveserver import database_app
from tests.helpers.screens import PHONE, TV, at_rest, join, screenshot, serious_violations

TIMEOUT = 15_000
HOST = Actor(is_host=True)
SMALL_PHONE = {"width": 360, "height": 800}


def montones_hand(code, seats):
    ana, ben, eva = (Actor(seat=seats[n]) for n in ("Ana", "Ben", "Eva"))
    service.act(code, ana, "offer", {"amount": 60})
    service.act(code, ben, "pass", {})
    service.act(code, eva, "pass", {})
    state = service.get_table(code).state
    service.act(code, Actor(seat=state["hand"]["cutter"]), "cut", {"position": 9})
    service.act(code, ana, "heaps", {"count": 4})
    service.act(code, ben, "bet", {"heap": 1, "amount": 20})
    service.act(code, eva, "against", {"heap": 2, "amount": 10})
    service.act(code, eva, "choose", {"heap": 4})
    service.act(code, ana, "close", {})


def rotation_hand(code, seats, put_up, bet, settle):
    """The games whose bank goes round: the host draws, the banker puts up, the deck is cut
    (a Monte Bank deal found void is dealt again), every punter bets ``bet`` and the banker
    settles (``settle``: the game's action)."""
    service.act(code, HOST, "draw", {})
    state = service.get_table(code).state
    banker = Actor(seat=state["banker"])
    service.act(code, banker, "bank", {"amount": put_up})
    state = service.get_table(code).state
    while state["phase"] != "betting":
        if state["phase"] == "cut":
            state = service.act(code, Actor(seat=state["cutter"]), "cut", {"position": 13}).state
        else:
            state = service.act(code, banker, "next", {}).state
    for seat in seats.values():
        if seat != state["banker"]:
            service.act(code, Actor(seat=seat), "bet", bet)
    service.act(code, banker, settle, {})


def monte_hand(code, seats):
    rotation_hand(code, seats, 40, {"layout": "top", "amount": 5}, "gate")


def monte_bank_hand(code, seats):
    bet = {"at": "ul", "bet_kind": "layout", "against": "", "side": "", "amount": 5}
    rotation_hand(code, seats, 100, bet, "close")


HANDS = {"montones": montones_hand, "monte": monte_hand, "monte_bank": monte_bank_hand}


@pytest.mark.parametrize("game", sorted(HANDS))
def test_a_night_ends_with_standings_and_story_everywhere_and_a_new_night_seats_everyone(
    chromium, server, game
):
    base, _process, folder, _port = server

    app = database_app(folder)
    with app.app_context():
        table, secret = service.create_table(game, "Last night", 200, {})
    code = table.code

    host_context = chromium.new_context(viewport=PHONE, locale="en-GB")
    host = host_context.new_page()
    host.goto(f"{base}/t/{code}/host/claim/{secret}")
    phones = {name: join(chromium, f"{base}/t/{code}/join", name) for name in ("Ana", "Ben", "Eva")}
    with app.app_context():
        seats = {name: seat for seat, name in _names(service.get_table(code)).items()}
        HANDS[game](code, seats)
        service.act(code, HOST, "top_up", {"seat": seats["Eva"], "amount": 50})
    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    watcher = chromium.new_context(viewport=PHONE, locale="en-GB").new_page()
    watcher.goto(f"{base}/t/{code}/watch")
    for phone in phones.values():
        phone.reload()

    # The host ends the night: every screen shows it, pushed.
    host.reload()
    host.get_by_role("button", name="End the night…").click()
    host.get_by_role("button", name="Yes, end the night").click()
    for screen in (*phones.values(), tv):
        expect(screen.locator("#felt .finale .final li")).to_have_count(3, timeout=TIMEOUT)
        expect(screen.locator("#felt .story")).to_contain_text("Boldest bet")
        expect(screen.locator("#felt .final")).to_contain_text("bought in 250")
        expect(screen.locator("#felt .chart__img")).to_be_visible()
    expect(phones["Ana"].locator("#felt .final li.is-mine")).to_contain_text("Ana")
    problems = []
    for phone in phones.values():
        at_rest(phone)
        problems += serious_violations(phone)
    screenshot(phones["Ben"], f"end-{game}-phone")
    phones["Ben"].set_viewport_size(SMALL_PHONE)
    assert phones["Ben"].evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(phones["Ben"], f"end-{game}-phone-360", full_page=True)
    at_rest(tv)
    problems += serious_violations(tv)
    screenshot(tv, f"end-{game}-tv")
    # The host lands on the standings, and goes back to the host page from there, where
    # top-up and send-away are gone.
    expect(host).to_have_url(f"{base}/t/{code}/standings")
    expect(host.get_by_role("link", name="History and download")).to_be_visible()
    screenshot(host, f"end-{game}-host-standings", full_page=True)
    host.get_by_role("link", name="Back to the host page").click()
    expect(host.get_by_role("button", name="Top up")).to_have_count(0)
    expect(host.get_by_role("button", name="Send away…")).to_have_count(0)
    problems += serious_violations(host)
    screenshot(host, f"end-{game}-host", full_page=True)
    assert not problems, problems

    # A new night with the same players: the host, every phone and the TV go to it.
    host.get_by_role("button", name="New night, same players…").click()
    host.get_by_role("button", name="Yes, start the new night").click()  # it asks first
    expect(host).not_to_have_url(re.compile(f"/t/{code}/"))
    new_code = re.search(r"/t/([A-Z]{4})/host", host.url).group(1)
    for name, phone in phones.items():
        expect(phone).to_have_url(f"{base}/t/{new_code}", timeout=TIMEOUT)
        expect(phone.locator("#status")).to_contain_text(name)
        expect(phone.locator("#status")).to_contain_text("200")
    expect(tv).to_have_url(f"{base}/t/{new_code}/tv", timeout=TIMEOUT)
    # A watcher's phone goes on to the new night's page for watching, not to its TV page.
    expect(watcher).to_have_url(f"{base}/t/{new_code}/watch", timeout=TIMEOUT)
    expect(watcher.locator("#players")).to_contain_text("Ana")
    for name in phones:
        expect(tv.locator("#players")).to_contain_text(name)
    with app.app_context():
        new = service.get_table(new_code)
        assert [p["chips"] for p in new.state["players"].values()] == [200, 200, 200]
        assert service.get_table(code).next_code == new_code
    screenshot(phones["Ben"], f"new-night-{game}-phone")


def _names(table) -> dict[str, str]:
    return {seat: p["name"] for seat, p in table.state["players"].items()}
