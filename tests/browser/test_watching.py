"""Watching without a seat (issue 29) through the real UI: a guest opens the watch page on a
phone; the TV says one is watching; a player bets and the watcher's phone shows the bet with
nobody touching it; then the watcher sits down, and the TV says nobody watches any more. The
watch page is photographed at 390x844 and 360x800 and the TV at 1920x1080, with nothing wider
than the phone's screen."""

import re

from playwright.sync_api import expect

from tests.helpers.fit import OVERFLOW
from tests.helpers.montones_page import heap, tap_heap
from tests.helpers.screens import (
    NARROW,
    PHONE,
    TV,
    at_rest,
    host_table,
    join,
    screenshot,
    serious_violations,
)

TIMEOUT = 10_000


# How much of the felt is cut off at its bottom, in pixels.
CLIPPED = """() => {
  const felt = document.getElementById("felt");
  return Math.max(0, felt.scrollHeight - felt.clientHeight);
}"""


def test_a_guest_watches_the_table_live_from_a_phone_then_sits_down(chromium, server):
    base, _process, _folder, _port = server
    host, code = host_table(
        chromium, base, **{"Table name": "Watched", "Fewest heaps": "3", "Most heaps": "3"}
    )
    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    expect(tv.locator(".join-corner__watch")).to_contain_text("Just watch")
    expect(tv.locator("#watching")).to_be_hidden()  # nobody watches: nothing said
    ana, ben, eva = (join(chromium, f"{base}/t/{code}/join", n) for n in ("Ana", "Ben", "Eva"))

    # The guest follows the address the host page gives (the TV's QR code holds the same).
    watch_url = host.locator(".watch-link a").get_attribute("href")
    screenshot(host, "host-watch-link", full_page=True)
    guest = chromium.new_context(viewport=PHONE, locale="en-GB", has_touch=True, is_mobile=True)
    watcher = guest.new_page()
    watcher.goto(base + watch_url)
    expect(watcher.locator("#players")).to_contain_text("Eva")
    expect(tv.locator("#watching")).to_have_text("1 watching", timeout=TIMEOUT)

    # A hand to the bets: every step reaches the watcher's phone as it reaches the TV.
    ana.get_by_label("Offer for the bank").fill("30")
    ana.get_by_role("button", name="Offer", exact=True).click()
    ben.get_by_role("button", name="I don't want the bank").click()
    eva.get_by_role("button", name="I don't want the bank").click()
    expect(watcher.locator("#tv_status")).to_contain_text("Ben cuts the deck", timeout=TIMEOUT)
    ben.get_by_role("button", name="Cut", exact=True).click()
    ana.get_by_role("button", name="3", exact=True).click()
    expect(watcher.locator("#felt .heap")).to_have_count(3, timeout=TIMEOUT)
    expect(ben.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    tap_heap(ben, 1, "bet", 10)
    expect(heap(watcher, 1)).to_contain_text("Ben", timeout=TIMEOUT)
    expect(heap(watcher, 1)).to_contain_text("10")
    expect(watcher.locator("#players")).to_contain_text("90")  # Ben's chips, as on the TV
    # What the TV shows and no more: no player's bar, status or rejoin code.
    expect(watcher.locator("#bar, #status, #intent")).to_have_count(0)
    expect(tv.locator("#watching")).to_have_text("1 watching")

    at_rest(watcher, timeout=TIMEOUT)
    at_rest(tv, timeout=TIMEOUT)
    screenshot(watcher, "watch-390", full_page=True)
    assert watcher.evaluate(OVERFLOW) == []
    assert watcher.evaluate(CLIPPED) == 0  # the felt whole (it once shrank to a strip)
    watcher.set_viewport_size(NARROW)
    at_rest(watcher, timeout=TIMEOUT)
    screenshot(watcher, "watch-360", full_page=True)
    assert watcher.evaluate(OVERFLOW) == []
    assert watcher.evaluate(CLIPPED) == 0
    screenshot(tv, "tv-watched")
    problems = serious_violations(watcher) + serious_violations(tv)

    # The watcher sits down: the join page, a name, a seat; the TV counts one player more and
    # nobody watching.
    watcher.get_by_role("link", name="Sit down and play").click()
    watcher.get_by_label("Your name").fill("Zoe")
    watcher.get_by_role("button", name=re.compile("Sit down")).click()
    expect(watcher.locator("#status")).to_contain_text("Zoe", timeout=TIMEOUT)
    expect(tv.locator("#players")).to_contain_text("Zoe", timeout=TIMEOUT)
    expect(tv.locator("#watching")).to_be_hidden(timeout=TIMEOUT)
    assert not problems, problems
