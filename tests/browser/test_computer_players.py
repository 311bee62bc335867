"""A table with computer players through the real UI: the host seats three from the host page,
one person joins from a phone, and a hand of Montones is played to its result, the computers
at a person's pace, marked on every screen."""

import re
import time

import pytest
from playwright.sync_api import expect

from montones.rules import computer
from tests.helpers.liveserver import free_port, kill_server, start_server
from tests.helpers.screens import PHONE, TV, at_rest, join, screenshot, serious_violations

TIMEOUT = 40_000


@pytest.fixture
def patient_server(tmp_path):
    """A server whose computer banker gives a person its full patience (12 s), as at a night:
    the test looks at a settled hand while it stands (the test servers' 2 s would deal again)."""
    port = free_port()
    process = start_server(tmp_path, port, MONTONES_COMPUTER_PATIENCE=str(computer.PATIENCE))
    yield f"http://127.0.0.1:{port}"
    kill_server(process)


def test_three_computer_players_and_a_person_play_a_hand_of_montones(chromium, patient_server):
    base = patient_server
    host = chromium.new_context(viewport=PHONE).new_page()
    host.goto(base + "/?lang=en")
    host.get_by_label("Fewest heaps").fill("3")
    host.get_by_label("Most heaps").fill("4")
    host.get_by_role("button", name="Create the table").click()
    expect(host.get_by_text("Your host link")).to_be_visible()
    code = re.search(r"/t/([A-Z]{4})/host", host.url).group(1)
    for name in ("Lola", "Paco", "Carmen"):
        host.get_by_role("button", name="Add a computer player").click()
        expect(host.locator(".flash")).to_contain_text(
            f"{name}, a computer player, has sat down.", timeout=TIMEOUT
        )
    expect(host.locator(".host-player .computer-mark")).to_have_count(3)
    expect(host.get_by_role("button", name="Remove")).to_have_count(3)

    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    join_url = tv.locator(".join-corner__url").inner_text()
    expect(tv.locator(".lobby__players .computer-mark")).to_have_count(3)
    screenshot(tv, "computers-tv-lobby")

    ana = join(chromium, join_url, "Ana")
    expect(tv.locator("#players .computer-mark")).to_have_count(3, timeout=TIMEOUT)
    expect(tv.locator("#players")).to_contain_text("Ana")
    # The computers play from the moment a screen watches the table (the TV): Ana joins a
    # table already under way, and answers what is hers to answer, once each.
    pass_bank = ana.get_by_role("button", name="I don't want the bank")
    cut = ana.get_by_role("button", name="Cut", exact=True)
    deadline = time.monotonic() + TIMEOUT / 1000
    while "Hagan sus apuestas" not in tv.locator("#tv_status").inner_text():
        assert time.monotonic() < deadline, "the computers never dealt a hand"
        if pass_bank.is_visible():
            pass_bank.click()
            expect(pass_bank).to_have_count(0, timeout=TIMEOUT)
        if cut.is_visible():
            cut.click()
        time.sleep(0.3)
    # A computer punter chooses the banker's heap, the others bet, and the computer banker
    # closes the bets once Ana has had its patience's time (she does not bet).
    expect(tv.locator("#felt .heap .badge--bank")).to_have_count(1, timeout=TIMEOUT)
    expect(tv.locator("#felt .heap .chip").first).to_be_visible(timeout=TIMEOUT)
    # A computer's bet says on the felt that the computer placed it, on the TV and the phone,
    # in words a reader hears too ("bot"; the robot drawing is hidden from it).
    for screen in (tv, ana):
        mark = screen.locator("#felt .heap .chip .chip__name .computer-mark").first
        expect(mark).to_be_visible(timeout=TIMEOUT)
        expect(mark).to_contain_text("bot")
    at_rest(tv)
    screenshot(tv, "computers-tv-betting")
    screenshot(ana, "computers-phone-betting")
    expect(tv.locator("#players .paid li").first).to_be_visible(timeout=TIMEOUT)
    at_rest(tv, 30_000)
    screenshot(tv, "computers-tv-settled")
    problems = serious_violations(tv) + serious_violations(host)

    host.reload()
    expect(host.locator(".host-player .computer-mark")).to_have_count(3)
    screenshot(host, "computers-host", full_page=True)
    host.set_viewport_size({"width": 360, "height": 800})
    screenshot(host, "computers-host-360", full_page=True)
    assert host.evaluate("document.documentElement.scrollWidth <= innerWidth")
    host.get_by_role("button", name="Remove").first.click()
    expect(host.locator(".flash")).to_contain_text("a computer player, has left the table.")
    expect(tv.locator("#players .computer-mark")).to_have_count(2, timeout=TIMEOUT)
    assert not problems, problems
