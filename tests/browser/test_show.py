"""The TV as a show and the phone as a controller (issue 14), at 8 heaps: the TV's felt holds every
heap and bet, large enough to read from the sofa; the phone's bar leaves the table to the
table; the lobby and the end of the night; axe-core finds nothing serious on any of them."""

import re

from playwright.sync_api import expect

from tests.helpers.fit import check_phone, check_tv
from tests.helpers.montones_page import WATCH_REVEAL, heap, tap_heap
from tests.helpers.screens import (
    TV,
    host_table,
    join,
    screenshot,
    serious_violations,
)
from tests.helpers.sound import NO_SOUND_BEFORE_A_CLICK

TIMEOUT = 10_000


def test_eight_heaps_fill_the_tv_and_leave_the_phone_its_table(chromium, server):
    base, _process, _folder, _port = server
    host, code = host_table(
        chromium, base, **{"Table name": "Eight", "Fewest heaps": "8", "Most heaps": "8"}
    )
    host.on("dialog", lambda dialog: dialog.accept())
    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    join_url = tv.locator(".join-corner__url").inner_text()
    ana, ben, eva = (join(chromium, join_url, name) for name in ("Ana", "Ben", "Eva"))
    expect(tv.locator(".lobby__players .chip")).to_have_count(3, timeout=TIMEOUT)
    expect(tv.locator(".lobby__title")).to_contain_text("Everyone's in? 3 players")
    screenshot(tv, "show-tv-lobby")
    problems = serious_violations(tv) + serious_violations(ana)

    ana.get_by_label("Offer for the bank").fill("60")
    ana.get_by_role("button", name="Offer", exact=True).click()
    ben.get_by_role("button", name="I don't want the bank").click()
    eva.get_by_role("button", name="I don't want the bank").click()
    expect(ben.get_by_role("button", name="Cut", exact=True)).to_be_visible(timeout=TIMEOUT)
    ben.get_by_role("button", name="Cut", exact=True).click()
    expect(ana.get_by_role("button", name="8", exact=True)).to_be_visible(timeout=TIMEOUT)
    ana.get_by_role("button", name="8", exact=True).click()
    expect(tv.locator("#felt .heap")).to_have_count(8, timeout=TIMEOUT)

    # Bets on seven heaps, two on the first; Eva chooses the eighth for the banker.
    expect(ben.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    for number in (1, 2, 3, 4):
        tap_heap(ben, number, "bet", 1)
        expect(heap(tv, number)).to_contain_text("Ben", timeout=TIMEOUT)
    expect(eva.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    for number, mode in ((5, "bet"), (6, "bet"), (7, "bet"), (1, "against")):
        tap_heap(eva, number, mode, 5)
        expect(heap(tv, number)).to_contain_text("Eva", timeout=TIMEOUT)
    tap_heap(eva, 8, "choose")
    expect(heap(tv, 8).locator(".badge--bank")).to_be_visible(timeout=TIMEOUT)
    expect(ben.locator("#bar")).to_contain_text("Banker's heap: 8", timeout=TIMEOUT)
    screenshot(tv, "show-tv-8-heaps-betting")
    screenshot(ben, "show-phone-8-heaps-betting")
    check_tv(tv, least=30)
    check_phone(ben)
    problems += serious_violations(tv) + serious_violations(ben)

    ana.get_by_role("button", name="Close bets and turn the heaps").click()
    expect(tv.locator("#players .paid li")).to_have_count(8, timeout=TIMEOUT)
    expect(tv.locator("body")).to_have_attribute("data-reveal", "done", timeout=20_000)
    screenshot(tv, "show-tv-8-heaps-settled")
    screenshot(ben, "show-phone-8-heaps-settled")
    check_tv(tv, least=45)
    problems += serious_violations(tv) + serious_violations(ben) + serious_violations(ana)

    # The host ends the night: the TV shows the winner, the ranking and the chart, no QR code.
    host.reload()
    host.get_by_role("button", name="End the night").click()
    host.get_by_role("button", name="Yes, end the night").click()  # it asks first, on a page
    expect(tv.locator(".finale__winner")).to_be_visible(timeout=TIMEOUT)
    expect(tv.locator(".final .chip")).to_have_count(3)
    expect(tv.locator(".finale .chart__img")).to_be_visible()
    expect(tv.locator(".join-corner")).to_have_count(0)
    screenshot(tv, "show-tv-end-of-night")
    # One winner, several who end level, or (the deck is random) nobody up.
    first = re.search(
        r"(\w+) wins: (\d+) chips? up|share the win: (\d+) chips? up each|Nobody ends the night up",
        tv.locator(".finale__winner").inner_text(),
    )
    assert first, tv.locator(".finale__winner").inner_text()
    problems += serious_violations(tv) + serious_violations(host)
    assert not problems, "\n".join(problems)


# Counts the sounds a page makes (each is built from oscillators) and the buzzes it asks for.
LISTEN = """
window.sounds = 0;
window.buzzes = [];
const make = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () { window.sounds += 1; return make.call(this); };
Object.defineProperty(Navigator.prototype, "vibrate", {
  configurable: true, value: (pattern) => { window.buzzes.push(pattern); return true; },
});
"""


def overlap(page, a, b):
    return page.evaluate(
        """([a, b]) => {
          const r = document.querySelector(a).getBoundingClientRect();
          const s = document.querySelector(b).getBoundingClientRect();
          return r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom;
        }""",
        [a, b],
    )


def test_two_heaps_turn_without_motion_with_sound_a_buzz_and_one_mute(chromium, server):
    base, _process, _folder, _port = server
    _host, code = host_table(
        chromium, base, **{"Table name": "Two", "Fewest heaps": "2", "Most heaps": "2"}
    )
    context = chromium.new_context(viewport=TV, locale="en-GB", reduced_motion="reduce")
    context.add_init_script(LISTEN)
    tv = context.new_page()
    tv.goto(f"{base}/t/{code}/tv")
    join_url = tv.locator(".join-corner__url").inner_text()
    ana, ben = (join(chromium, join_url, name) for name in ("Ana", "Ben"))
    ben.context.add_init_script(LISTEN)
    ben.reload()

    # The connection light, while the stream is down, hides neither the TV's join address
    # nor a phone's chips.
    for page, hidden in ((tv, ".join-corner__url"), (ben, "#status .status__chips")):
        offline = page.context.new_page()
        chromium.cut_off_page(offline)
        offline.route("**/stream*", lambda route: route.abort())
        offline.goto(page.url)
        expect(offline.locator(".conn")).to_be_visible()
        expect(offline.locator(hidden)).to_be_in_viewport(ratio=1)
        assert not overlap(offline, ".conn", hidden), f"the connection light covers {hidden}"
        screenshot(offline, f"show-connecting-{'tv' if page is tv else 'phone'}")
        offline.close()

    ana.get_by_label("Offer for the bank").fill("40")
    ana.get_by_role("button", name="Offer", exact=True).click()
    ben.get_by_role("button", name="I don't want the bank").click()
    expect(ben.get_by_role("button", name="Cut", exact=True)).to_be_visible(timeout=TIMEOUT)
    ben.get_by_role("button", name="Cut", exact=True).click()
    expect(ana.get_by_role("button", name="2", exact=True)).to_be_visible(timeout=TIMEOUT)
    ana.get_by_role("button", name="2", exact=True).click()
    expect(ben.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    tap_heap(ben, 1, "bet", 5)
    expect(heap(tv, 1)).to_contain_text("Ben", timeout=TIMEOUT)
    tap_heap(ben, 2, "choose")
    expect(heap(tv, 2).locator(".badge--bank")).to_be_visible(timeout=TIMEOUT)
    screenshot(tv, "show-tv-2-heaps-betting")
    check_tv(tv, least=8)
    check_phone(ben)
    buzzed_for_turns = ben.evaluate("window.buzzes.length")
    assert buzzed_for_turns >= 1, "no buzz when Ben's turn came (the bets)"

    tv.evaluate(WATCH_REVEAL)
    ana.get_by_role("button", name="Close bets and turn the heaps").click()
    expect(tv.locator("body")).to_have_attribute("data-reveal", "playing", timeout=TIMEOUT)
    expect(tv.locator("body")).to_have_attribute("data-reveal", "done", timeout=TIMEOUT)
    steps = tv.evaluate("window.reveal")
    assert [s["what"] for s in steps if s["what"].startswith("heap ")] == ["heap 1", "heap 2"]
    assert not any(s["secret_shown"] for s in steps if s["what"] == "heap 1"), steps
    # No motion: the cards are turned without a rotation or a lift, in the same order.
    motion = tv.evaluate(
        """() => [...document.querySelectorAll("#felt .flip.is-turned")].map((flip) =>
          getComputedStyle(flip.querySelector(".flip__inner")).transform + " "
          + getComputedStyle(flip.parentElement).animationName)"""
    )
    assert motion == ["none none", "none none"], motion
    screenshot(tv, "show-tv-2-heaps-settled")
    check_tv(tv, least=10)
    assert tv.evaluate("window.sounds") >= 3, "the turns and the payment made no sound"
    expect(ben.locator("#status .status__result")).to_be_visible(timeout=TIMEOUT)
    ben.wait_for_function("(n) => window.buzzes.length > n", arg=buzzed_for_turns)

    # One switch mutes the TV, and it stays muted after a reload.
    tv.get_by_role("button", name="Sound on").click()
    expect(tv.get_by_role("button", name="Sound off")).to_have_attribute("aria-pressed", "false")
    tv.reload()
    expect(tv.get_by_role("button", name="Sound off")).to_be_visible()
    assert tv.evaluate("window.sounds") == 0
    ana.get_by_role("button", name="Gather and deal the next hand").click()
    expect(ben.get_by_role("button", name="Cut", exact=True)).to_be_visible(timeout=TIMEOUT)
    ben.get_by_role("button", name="Cut", exact=True).click()
    expect(ana.get_by_role("button", name="2", exact=True)).to_be_visible(timeout=TIMEOUT)
    ana.get_by_role("button", name="2", exact=True).click()
    expect(ben.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    tap_heap(ben, 2, "bet", 5)
    expect(heap(tv, 2)).to_contain_text("Ben", timeout=TIMEOUT)
    tap_heap(ben, 1, "choose")
    expect(heap(tv, 1).locator(".badge--bank")).to_be_visible(timeout=TIMEOUT)
    ana.get_by_role("button", name="Close bets and turn the heaps").click()
    expect(tv.locator("body")).to_have_attribute("data-reveal", "playing", timeout=TIMEOUT)
    expect(tv.locator("body")).to_have_attribute("data-reveal", "done", timeout=TIMEOUT)
    assert tv.evaluate("window.sounds") == 0, "a muted TV made a sound"


def test_the_tv_says_when_it_needs_one_click_for_sound(chromium, server):
    base, _process, _folder, _port = server
    _host, code = host_table(chromium, base, **{"Table name": "Quiet"})
    context = chromium.new_context(viewport=TV, locale="en-GB")
    context.add_init_script(NO_SOUND_BEFORE_A_CLICK)
    tv = context.new_page()
    tv.goto(f"{base}/t/{code}/tv")
    note = tv.get_by_text("Click once anywhere on this screen to let it play sound.")
    expect(note).to_be_visible()
    tv.mouse.click(900, 500)
    expect(note).to_be_hidden()
    expect(tv.get_by_role("button", name="Sound on")).to_have_attribute("aria-pressed", "true")
