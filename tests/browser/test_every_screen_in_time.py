"""Every screen shows each change within a second: three phones and a TV, on both games.

A change is a tap on one phone. Within ``LIMIT`` of the click, the felt of every screen shows
it, and so do the status line and the action bar of every phone whose own part changed (the
banker's bar once the banker's heap is chosen, the punters' results after the turn). One phone
once showed its own regions 3 s after the others: its stream had the change at once, but the
page fetched its regions only after a fallback timer (a tap of its own, whose form the pushed
felt had replaced, was never seen to end).
"""

import itertools
import re
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.helpers.screens import TV, host_table, join

pytestmark = pytest.mark.timed

LIMIT = 1.0  # seconds from the click to the last screen showing the change
SETUP = 10_000  # ms: the steps before the timed ones

# Set on a screen before the click: the page notes (``shownAt[key]``, its ``Date.now()``) the
# moment its document first has an element matching the selector that holds the text ("" for
# any element at all). True if it has one already.
WATCH = """([key, selector, text]) => {
    const shows = () => Array.from(document.querySelectorAll(selector))
        .some((el) => el.textContent.includes(text));
    window.shownAt = window.shownAt || {};
    if (shows()) { return true; }
    const observer = new MutationObserver(() => {
        if (shows()) { window.shownAt[key] = Date.now(); observer.disconnect(); }
    });
    observer.observe(document, {subtree: true, childList: true, characterData: true});
    return false;
}"""
WATCHES = itertools.count()


def in_time(click, screens):
    """Click, then see each (screen name, page, selector, text) show the change; every one must
    within ``LIMIT`` of the click. Each page notes when it showed it, so the screens are timed
    side by side, not one after another through the test's round trips to the browser. A late
    one is waited for a few seconds more, to say how late."""
    keys = []
    for name, page, selector, text in screens:
        keys.append(str(next(WATCHES)))
        # A screen that shows it before the click would prove nothing.
        assert not page.evaluate(WATCH, [keys[-1], selector, text]), (name, selector, text)
    started = time.time()  # the pages' Date.now() is this machine's clock too
    click()
    late = []
    for key, (name, page, selector, text) in zip(keys, screens, strict=True):
        try:
            shown = page.wait_for_function(
                "(key) => window.shownAt[key]", arg=key, polling=25, timeout=5000
            ).json_value()
        except PlaywrightTimeout:
            late.append(f"{name} never showed {text!r} in {selector}")
            continue
        took = shown / 1000 - started
        if took < -0.01:  # between the watch and the click: something else made the change
            late.append(f"{name} showed {text!r} in {selector} before the click")
        elif took > LIMIT:
            late.append(f"{name} showed {text!r} in {selector} after {took:.2f} s")
    assert not late, "; ".join(late)


def tv_and_phones(base, chromium, code):
    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    join_url = tv.locator(".join-corner__url").inner_text()
    phones = {name: join(chromium, join_url, name) for name in ("Ana", "Ben", "Eva")}
    expect(tv.locator("#players")).to_contain_text("Eva", timeout=SETUP)
    return tv, phones


def everywhere(tv, phones, selector, text):
    return [("TV", tv, selector, text)] + [(n, p, selector, text) for n, p in phones.items()]


def others(phones, name):
    return {n: p for n, p in phones.items() if n != name}


def test_every_screen_shows_each_change_within_a_second_in_montones(chromium, server):
    base, _process, _folder, _port = server
    _host, code = host_table(
        chromium, base, **{"Table name": "Lag", "Fewest heaps": "3", "Most heaps": "3"}
    )
    tv, phones = tv_and_phones(base, chromium, code)
    ana, ben, eva = phones["Ana"], phones["Ben"], phones["Eva"]

    def heap(number):
        return f"#felt .heap:nth-child({number})"

    def tap(page, number, mode, stake=None):
        page.locator(f'#intent input[name="mode"][value="{mode}"]').check()
        if stake is not None:
            page.locator(f'#intent input[name="amount"][value="{stake}"]').check(force=True)
        return lambda: page.locator(heap(number)).locator("button.heap__card").click()

    in_time(
        lambda: (
            ana.get_by_label("Offer for the bank").fill("30")
            or ana.get_by_role("button", name="Offer", exact=True).click()
        ),
        everywhere(tv, phones, "#felt .chip", "Ana 30"),
    )
    ben.get_by_role("button", name="I don't want the bank").click()
    in_time(
        eva.get_by_role("button", name="I don't want the bank").click,
        everywhere(tv, others(phones, "Ben"), "#tv_status, #status", "Ben cuts the deck")
        + [
            ("Ben", ben, "#status", "Your turn to cut the deck"),
            ("Ben", ben, "#bar button", "Cut"),
        ],
    )
    in_time(
        ben.get_by_role("button", name="Cut", exact=True).click,
        [("Ana", ana, "#bar", "How many heaps?"), ("Eva", eva, "#status", "Ana makes the heaps")],
    )
    in_time(
        ana.get_by_role("button", name="3", exact=True).click,
        everywhere(tv, phones, "#tv_status, #status", "Hagan sus apuestas")
        + [("Ben", ben, "#intent", "A tap on a heap"), ("Eva", eva, "#intent", "A tap on a heap")],
    )

    # Bets: every felt shows each one, and the punter's own chips go down.
    in_time(
        tap(ben, 1, "bet", 10),
        everywhere(tv, phones, heap(1), "Ben") + [("Ben", ben, "#status .status__chips", "90")],
    )
    in_time(
        tap(eva, 2, "against", 5),
        everywhere(tv, phones, heap(2), "Eva") + [("Eva", eva, "#status .status__chips", "95")],
    )
    in_time(tap(ben, 1, "bet", 1), everywhere(tv, phones, f"{heap(1)} .chip", "Ben 11"))
    # The banker's heap: every felt marks it; each bar changes (the banker may close now).
    in_time(
        tap(eva, 3, "choose"),
        everywhere(tv, phones, f"{heap(3)} .badge--bank", "")
        + [
            ("Ana", ana, "#bar", "Close bets and turn the heaps"),
            ("Ben", ben, "#bar", "Banker's heap: 3"),
            ("Eva", eva, "#bar", "Banker's heap: 3"),
        ],
    )
    in_time(
        ana.get_by_role("button", name="Close bets and turn the heaps").click,
        everywhere(tv, phones, "#felt .heap__verdict", "")
        + [
            ("Ana", ana, "#bar", "Gather and deal the next hand"),
            ("Ben", ben, "#status .status__result", ""),
            ("Eva", eva, "#status .status__result", ""),
        ],
    )
    # The banker's bar waits for the TV's reveal, as every phone does (show.js).
    expect(ana.locator("#bar")).to_have_css("visibility", "visible", timeout=10_000)
    in_time(
        ana.get_by_role("button", name="Gather and deal the next hand").click,
        everywhere(tv, phones, "#tv_status, #status", "cut"),  # "Your turn to cut" on its phone
    )


def test_every_screen_shows_each_change_within_a_second_in_monte(chromium, server):
    base, _process, _folder, _port = server
    host, code = host_table(
        chromium,
        base,
        **{"Monte": True, "Table name": "Lag", "Bank size": "50", "Maximum bet": "10"},
    )
    tv, phones = tv_and_phones(base, chromium, code)

    host.reload()
    in_time(
        host.get_by_role("button", name="Draw for the first banker").click,
        everywhere(tv, phones, "#tv_status, #status", "up the bank"),
    )
    line = tv.locator("#tv_status .tv-status__line").inner_text()
    banker_name = line.split(" puts up")[0]
    banker = phones[banker_name]
    first, second = (n for n in phones if n != banker_name)
    in_time(
        banker.get_by_role("button", name="Put up the bank").click,
        everywhere(tv, phones, "#tv_status, #status", "the deck"),
    )
    cutter_name = re.search(r"(\w+) cuts the deck", tv.locator("#tv_status").inner_text())[1]
    in_time(
        phones[cutter_name].get_by_role("button", name="Cut", exact=True).click,
        everywhere(tv, phones, "#tv_status, #status", "Hagan sus apuestas")
        + [(n, phones[n], "#intent", "room for 50") for n in (first, second)],
    )

    def bet(name, layout, stake):
        page = phones[name]
        page.locator(f'#intent input[name="amount"][value="{stake}"]').check(force=True)
        return lambda: page.locator(f"#felt .layout--{layout} button.layout__cards").click()

    # A bet shows on every felt, and leaves less room under the bank in every punter's bar.
    in_time(
        bet(first, "top", 5),
        everywhere(tv, phones, "#felt .layout--top .chip", first)
        + [(n, phones[n], "#intent", "room for 45") for n in (first, second)],
    )
    in_time(
        bet(second, "bottom", 1),
        everywhere(tv, phones, "#felt .layout--bottom .chip", second)
        + [(n, phones[n], "#intent", "room for 44") for n in (first, second)]
        + [(banker_name, banker, "#bar", "On the table: 6")],
    )
    in_time(
        bet(first, "bottom", 5),
        everywhere(tv, phones, "#felt .layout--bottom .chip", first)
        + [(n, phones[n], "#intent", "room for 39") for n in (first, second)],
    )
    in_time(
        banker.get_by_role("button", name="Turn the gate").click,
        everywhere(tv, phones, "#felt .layout__verdict", "")
        + [(banker_name, banker, "#bar button", "Next coup")]
        + [(n, phones[n], "#status .status__result", "") for n in (first, second)],
    )
    expect(banker.locator("#bar")).to_have_css("visibility", "visible", timeout=10_000)
    in_time(
        banker.get_by_role("button", name="Next coup").click,
        everywhere(tv, phones, "#tv_status, #status", "coup 2 of 8")
        + [(n, phones[n], "#intent", "Stake") for n in (first, second)],
    )
