"""A screen kept up to date by its stream's updates (only the parts that changed, swapped by id)
shows what a fresh load of its page shows: a random night of bets, withdraws, refused taps and
choices of the banker's heap, with a TV, phones that reload or lose the network for a moment,
and a phone on a slow network whose stream misses versions. After each step every region a
stream keeps (the phones' #tap, #felt and #odds; the TV's status, felt, players and recent
hands; a phone's own #status and bar, fetched in parts) must, within a few seconds, equal the
same region of the same page loaded afresh."""

import random
import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_montones_night import create_table, heap, tap_heap
from tests.helpers.liveserver import SERVERS
from tests.helpers.screens import TV, join

TIMEOUT = 10_000
SETTLE = 10.0  # seconds a screen has to show what a fresh load shows

# Each region as markup, without the white space between tags (a part inserted in a list comes
# without the space the template wrote before it) and with runs of white space as one (the
# stream sends each update on one line); a clock without the time left the page counts down
# from its deadline (data-until, which is compared), a second apart on two pages; the choices
# of a phone's #intent (its stake, its kind of bet: a fresh page starts at the first) and the
# notice its bar says of a tap refused (a fresh page made none); a reveal's
# steps without the marks of how far the page has played it (a fresh page plays it again), and
# a result without its flash (played once, with its sound, by a page that saw it come).
REGIONS = """(ids) => ids.map((id) => {
    const found = document.getElementById(id);
    if (!found) { return null; }
    const el = found.cloneNode(true);
    el.querySelectorAll("time[data-until]").forEach((clock) => { clock.textContent = ""; });
    el.querySelectorAll("#intent input").forEach((input) => { input.removeAttribute("checked"); });
    el.querySelectorAll(".notice").forEach((notice) => { notice.remove(); });
    el.querySelectorAll(".flash").forEach((result) => { result.classList.remove("flash"); });
    el.querySelectorAll("[data-after-reveal]").forEach((line) => { line.hidden = false; });
    el.querySelectorAll("[data-rv]").forEach((step) => {
      step.classList.remove("is-shown");
      step.removeAttribute("data-scheduled");
      step.removeAttribute("data-noted");
      step.querySelectorAll(".flip").forEach((flip) => { flip.classList.remove("is-turned"); });
    });
    return el.outerHTML.replace(/>\\s+</g, "><").replace(/\\s+/g, " ");
})"""
PHONE_REGIONS = ["tap", "felt", "odds", "status", "bar"]
TV_REGIONS = ["tv_status", "felt", "players", "recent"]


def fresh(page, ids):
    """The regions as a new page of the same browser (the same seat) shows them."""
    other = page.context.new_page()
    try:
        other.goto(page.url)
        other.wait_for_load_state("networkidle")
        return other.evaluate(REGIONS, ids)
    finally:
        other.close()


def same_as_fresh(name, page, ids):
    """Wait until ``page`` shows what a fresh load shows; the last difference if it never does."""
    deadline = page.evaluate("Date.now()") + SETTLE * 1000
    while True:
        want = fresh(page, ids)
        have = page.evaluate(REGIONS, ids)
        if have == want:
            return None
        if page.evaluate("Date.now()") > deadline:
            for region, mine, theirs in zip(ids, have, want, strict=True):
                if mine != theirs:
                    return f"{name} #{region}:\n  shown: {mine}\n  fresh: {theirs}"
        page.wait_for_timeout(300)


def every_screen_as_fresh(screens: dict):
    """Every live region of every screen (``{name: page}``, the TV's name "tv") as a fresh load
    of its page shows it: for the other games' nights, at their steps."""
    for name, page in screens.items():
        problem = same_as_fresh(name, page, TV_REGIONS if name == "tv" else PHONE_REGIONS)
        assert problem is None, problem


def slow_network(page):
    """A phone on a network so slow that its stream is still being written an update when the
    next versions come: the server sends it only the newest once it has taken that one."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 300, "downloadThroughput": 3000, "uploadThroughput": 3000},
    )


@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_every_screen_shows_what_a_fresh_load_shows_through_a_random_night(chromium, server):
    base, _process, _folder, _port = server
    _host, _host_page, code = create_table(chromium, base)
    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    join_url = tv.locator(".join-corner__url").inner_text()
    ana, ben, eva, ivo = (join(chromium, join_url, n) for n in ("Ana", "Ben", "Eva", "Ivo"))
    ana.get_by_label("Offer for the bank").fill("60")
    ana.get_by_role("button", name="Offer", exact=True).click()
    for punter in (ben, eva, ivo):
        expect(punter.get_by_role("button", name="I don't want the bank")).to_be_visible(
            timeout=TIMEOUT
        )
        punter.get_by_role("button", name="I don't want the bank").click()
    expect(ben.get_by_role("button", name="Cut", exact=True)).to_be_visible(timeout=TIMEOUT)
    ben.get_by_role("button", name="Cut", exact=True).click()
    expect(ana.get_by_role("button", name="3", exact=True)).to_be_visible(timeout=TIMEOUT)
    ana.get_by_role("button", name="3", exact=True).click()
    expect(tv.locator("#felt .heap")).to_have_count(3, timeout=TIMEOUT)
    slow_network(ivo)

    screens = {"tv": (tv, TV_REGIONS)} | {
        name: (page, PHONE_REGIONS)
        for name, page in zip("Ana Ben Eva Ivo".split(), (ana, ben, eva, ivo), strict=True)
    }
    punters = {"Ben": ben, "Eva": eva, "Ivo": ivo}
    rng = random.Random(27)
    done = []
    # Every kind of step once or twice, in a random order after the first bet.
    steps = ["bet", "against", "withdraw", "refused", "reload", "offline", "bet", "withdraw"]
    rng.shuffle(steps)
    for step, what in enumerate(["bet", *steps]):
        name = rng.choice(list(punters))
        page = punters[name]
        if what == "bet":
            expect(page.locator("#intent")).to_be_visible(timeout=TIMEOUT)
            tap_heap(page, rng.choice([1, 2]), "bet", rng.choice([5, 10]))
        elif what == "against" and page.locator('#intent input[value="against"]').count():
            tap_heap(page, rng.choice([1, 2]), "against", 5)
        elif what == "withdraw" and page.locator(".chip.is-mine .chip__withdraw").count():
            page.locator(".chip.is-mine .chip__withdraw").first.click()
        elif what == "refused":  # a bet that leaves the banker no heap: every region answered
            expect(page.locator("#intent")).to_be_visible(timeout=TIMEOUT)
            tap_heap(page, 3, "bet", 5)
        elif what == "reload":
            name, (page, _ids) = rng.choice(list(screens.items()))
            page.reload()
        elif what == "offline":  # the stream drops and the browser connects again
            name, (page, _ids) = rng.choice(list(screens.items()))
            page.context.set_offline(True)
            page.wait_for_timeout(500)
            page.context.set_offline(False)
        else:
            what = "nothing"
        done.append(f"{step}: {what} ({name})")
        page.wait_for_timeout(rng.choice([0, 100, 400]))
        for screen, (shown, ids) in screens.items():
            problem = same_as_fresh(screen, shown, ids)
            assert problem is None, "after " + "; ".join(done) + "\n" + problem
    # The night did something: bets lie on the felt everywhere.
    assert re.search(r"chip__amount", tv.locator("#felt").inner_html())
    expect(heap(tv, 1)).to_be_visible()
