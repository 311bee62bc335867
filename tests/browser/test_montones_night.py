"""A full hand of Montones through the real UI: three phones and a TV nobody touches."""

import re

import pytest
from playwright.sync_api import expect

from tests.helpers.liveserver import SERVERS
from tests.helpers.screens import PHONE, TV, join, screenshot

TIMEOUT = 10_000


def create_table(browser, base):
    host = browser.new_context(viewport=PHONE)
    page = host.new_page()
    page.goto(base + "/?lang=en")
    page.get_by_label("Table name").fill("Friday <b>night</b>")
    page.get_by_label("Fewest heaps").fill("3")
    page.get_by_label("Most heaps").fill("5")
    page.get_by_role("button", name="Create the table").click()
    expect(page.get_by_text("Your host link")).to_be_visible()
    code = re.search(r"/t/([A-Z]{4})/host", page.url).group(1)
    return host, page, code


def heap(page, number):
    return page.locator("#felt .heap").nth(number - 1)


def tap_heap(page, number, mode, stake=None):
    page.locator(f'#intent input[name="mode"][value="{mode}"]').check()
    if stake is not None:
        page.locator(f'#intent input[name="amount"][value="{stake}"]').check(force=True)
    heap(page, number).locator("button.heap__card").click()


@pytest.mark.parametrize("server", SERVERS, indirect=True)
def test_three_phones_and_a_tv_play_a_full_hand(chromium, server):
    base, _process, _folder, _port = server
    _host, host_page, code = create_table(chromium, base)

    tv_context = chromium.new_context(viewport=TV, locale="en-GB")
    tv = tv_context.new_page()
    tv.goto(f"{base}/t/{code}/tv")
    expect(tv.locator(".join-corner__code")).to_have_text(code)
    join_url = tv.locator(".join-corner__url").inner_text()
    screenshot(tv, "tv-waiting")

    ana, ben, eva = (join(chromium, join_url, name) for name in ("Ana", "Ben", "Eva"))
    expect(tv.locator("#players")).to_contain_text("Eva", timeout=TIMEOUT)

    # The auction: Ana offers, the others pass, and the bank is hers.
    ana.get_by_label("Offer for the bank").fill("30")
    ana.get_by_role("button", name="Offer", exact=True).click()
    expect(tv.locator("#felt")).to_contain_text("Ana", timeout=TIMEOUT)
    screenshot(ana, "phone-auction")
    ben.get_by_role("button", name="I don't want the bank").click()
    eva.get_by_role("button", name="I don't want the bank").click()
    expect(tv.locator("#tv_status")).to_contain_text("Ben cuts the deck", timeout=TIMEOUT)

    # Ben, the first punter in rotation, cuts; Ana makes three heaps.
    expect(ben.get_by_role("button", name="Cut", exact=True)).to_be_visible(timeout=TIMEOUT)
    ben.get_by_role("button", name="Cut", exact=True).click()
    expect(ana.get_by_role("button", name="3", exact=True)).to_be_visible(timeout=TIMEOUT)
    ana.get_by_role("button", name="3", exact=True).click()
    expect(tv.locator("#tv_status")).to_contain_text("Hagan sus apuestas", timeout=TIMEOUT)
    expect(tv.locator("#felt .heap")).to_have_count(3)

    # Bets appear on the TV as they are placed, with nobody touching it.
    expect(ben.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    tap_heap(ben, 1, "bet", 10)
    expect(heap(tv, 1)).to_contain_text("Ben", timeout=TIMEOUT)
    expect(heap(tv, 1)).to_contain_text("10")
    expect(eva.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    tap_heap(eva, 2, "against", 5)
    expect(heap(tv, 2)).to_contain_text("Eva", timeout=TIMEOUT)
    expect(heap(tv, 2)).to_contain_text("banker's card")
    expect(heap(ben, 2)).to_contain_text("Eva", timeout=TIMEOUT)  # and on the other phones

    # A bet on a heap that would leave the banker none is refused, with the reason.
    tap_heap(ben, 3, "bet", 5)
    expect(ben.locator("#bar .notice")).to_contain_text("stay free for the banker", timeout=TIMEOUT)

    # The punters choose the banker's heap; every screen marks it.
    tap_heap(eva, 3, "choose")
    expect(heap(tv, 3).locator(".badge--bank")).to_be_visible(timeout=TIMEOUT)
    expect(heap(ana, 3).locator(".badge--bank")).to_be_visible(timeout=TIMEOUT)
    # Ben's bar is drawn again (the banker's heap is in it): his refusal goes with the old bar.
    expect(ben.locator("#bar")).to_contain_text("Banker's heap: 3", timeout=TIMEOUT)
    expect(ben.locator("#bar .notice")).to_have_count(0)
    screenshot(ben, "phone-betting")
    screenshot(tv, "tv-betting")

    # The banker closes bets: the heaps turn over and the hand is settled everywhere.
    ana.get_by_role("button", name="Close bets and turn the heaps").click()
    expect(tv.locator("#felt .heap__verdict")).to_have_count(2, timeout=TIMEOUT)
    expect(tv.locator("#players .paid li")).to_have_count(2)
    expect(ben.locator("#status .status__result")).to_be_visible(timeout=TIMEOUT)
    tv.wait_for_timeout(2500)  # let the flips finish for the picture
    screenshot(tv, "tv-settled")
    screenshot(ben, "phone-settled")
    screenshot(ana, "phone-banker-settled")

    chips = [int(t) for t in tv.locator("#players .player__chips").all_inner_texts()]
    bank = int(tv.locator(".tv-status__bank strong").inner_text())
    assert sum(chips) + bank == 300

    # Ben looks back at the hand; once the cards are gathered its deck opens, and his own
    # browser hashes the order and the salt to the seal it showed before the cut.
    ben.get_by_text("Your last hands").first.click()
    expect(ben.locator("#recall .recall__hand")).to_have_count(1, timeout=TIMEOUT)
    expect(ben.locator("#recall")).to_contain_text("Hand 1")
    ben.locator("#recall").scroll_into_view_if_needed()
    screenshot(ben, "phone-last-hands")
    ana.get_by_role("button", name="Gather and deal the next hand").click()
    expect(tv.locator("#recent li")).to_have_count(1, timeout=TIMEOUT)
    screenshot(tv, "tv-last-hands")
    verify = ben.context.new_page()
    verify.goto(f"{base}/t/{code}/verify/1")
    expect(verify.locator("body")).to_have_attribute("data-verified", "yes", timeout=TIMEOUT)
    expect(verify.locator("#verdict")).to_contain_text("It matches")
    screenshot(verify, "phone-verify")

    # The table name is escaped everywhere it appears.
    expect(host_page.locator("h1")).to_contain_text("Friday <b>night</b>")


def test_what_a_player_is_typing_survives_a_live_update(chromium, server):
    """Someone sits down while Ana types her offer: her phone redraws its bar, her 30 stays."""
    base, _process, _folder, _port = server
    _host, _host_page, code = create_table(chromium, base)
    join_url = f"{base}/t/{code}/join"
    ana = join(chromium, join_url, "Ana")
    ana.get_by_label("Offer for the bank").fill("30")
    with ana.expect_response(re.compile(r"/p/mine"), timeout=TIMEOUT):
        join(chromium, join_url, "Ben")  # the table's seats change: every phone refetches its bar
    ana.wait_for_timeout(300)  # let the swap settle
    expect(ana.get_by_label("Offer for the bank")).to_have_value("30")
    expect(ana.get_by_label("Offer for the bank")).to_be_focused()


def test_an_answer_older_than_what_my_phone_shows_is_not_swapped_in(chromium, server):
    """A fetch of my regions started before my tap can be answered after my tap's answer: its
    older #status and bar (data-v, the version they were drawn at) must not replace the newer."""
    base, _process, _folder, _port = server
    _host, _host_page, code = create_table(chromium, base)
    ana = join(chromium, f"{base}/t/{code}/join", "Ana")
    status = ana.locator("#status")
    shown = int(status.get_attribute("data-v"))

    def answer(version: int, text: str) -> None:
        ana.wait_for_function("() => window.htmx !== undefined")  # its script may still load
        ana.evaluate(
            """([v, text]) => htmx.swap(document.body,
                `<section id="status" class="status" data-v="${v}" hx-swap-oob="true">${text}</section>`,
                {swapStyle: "none"})""",
            [version, text],
        )

    answer(shown - 1, "older")
    expect(status).to_contain_text("Ana")
    expect(status).not_to_contain_text("older")
    answer(shown + 1, "newer")
    expect(status).to_have_text("newer")


def test_every_change_at_the_table_fetches_my_regions_once(chromium, server):
    """The answer to Ben's bet redraws his chips and his bar; the stream's "mine" for it fetches
    them once more, as it does for every change at the table (Ana's close too): one way for a
    phone to learn what changed, whoever made the change."""
    base, _process, _folder, _port = server
    _host, _host_page, code = create_table(chromium, base)
    join_url = f"{base}/t/{code}/join"
    ana, ben = (join(chromium, join_url, name) for name in ("Ana", "Ben"))
    ana.get_by_label("Offer for the bank").fill("30")
    ana.get_by_role("button", name="Offer", exact=True).click()
    ben.get_by_role("button", name="I don't want the bank").click()
    ben.get_by_role("button", name="Cut", exact=True).click()
    expect(ana.get_by_role("button", name="3", exact=True)).to_be_visible(timeout=TIMEOUT)
    ana.get_by_role("button", name="3", exact=True).click()
    expect(ben.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    tap_heap(ben, 3, "choose")
    expect(heap(ana, 3).locator(".badge--bank")).to_be_visible(timeout=TIMEOUT)
    ben.wait_for_timeout(500)  # whatever the choice changed has been fetched

    fetched = []
    ben.on("request", lambda r: fetched.append(r.url) if "/p/mine" in r.url else None)
    chips = ben.locator("#status .status__chips")
    before = int(re.sub(r"\D", "", chips.inner_text()))
    with ben.expect_response(re.compile(r"/a/tap")):
        tap_heap(ben, 1, "bet", 10)
    expect(heap(ben, 1)).to_contain_text("Ben", timeout=TIMEOUT)
    expect(chips).to_contain_text(str(before - 10))
    ben.wait_for_timeout(1000)  # the stream's "mine" for the bet has come and been answered
    assert len(fetched) == 1, fetched

    with ben.expect_response(re.compile(r"/p/mine"), timeout=TIMEOUT):
        ana.get_by_role("button", name="Close bets and turn the heaps").click()
    expect(ben.locator("#status .status__result")).to_be_visible(timeout=TIMEOUT)

    # Back in the foreground, the phone fetches every region, the felt with its own.
    with ben.expect_response(re.compile(r"/p/all")) as answer:
        ben.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    assert 'id="felt"' in answer.value.text() and 'id="status"' in answer.value.text()


def test_a_phone_without_wake_lock_is_kept_awake_by_a_silent_video_from_its_first_tap(
    chromium, server
):
    """Phones join at a plain http:// LAN address, where browsers offer no Wake Lock: the first
    tap on the table starts NoSleep's silent video, which keeps the screen on."""
    base, _process, _folder, _port = server
    _host, _host_page, code = create_table(chromium, base)
    context = chromium.new_context(viewport=PHONE, locale="en-GB", has_touch=True, is_mobile=True)
    context.add_init_script(
        "delete Navigator.prototype.wakeLock;"
        "window.played = [];"  # NoSleep's video is never in the page: note what plays
        "const play = HTMLMediaElement.prototype.play;"
        "HTMLMediaElement.prototype.play = function () {"
        " window.played.push(this); return play.call(this); };"
    )
    ana = context.new_page()
    ana.goto(f"{base}/t/{code}/join")
    ana.get_by_label("Your name").fill("Ana")
    ana.get_by_role("button", name=re.compile("Sit down")).click()
    expect(ana.locator("#status")).to_contain_text("Ana")
    assert ana.evaluate("'wakeLock' in navigator") is False
    assert ana.evaluate("window.played.length") == 0
    ana.get_by_text("How to play").click()  # any tap
    ana.wait_for_function(
        "() => window.played.some(v => v.title === 'No Sleep' && !v.paused && v.currentTime > 0)",
        timeout=TIMEOUT,
    )
