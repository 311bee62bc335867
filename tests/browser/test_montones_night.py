"""A full hand of Montones through the real UI: three phones and a TV nobody touches."""

import re

import pytest
from playwright.sync_api import expect

from tests.helpers.liveserver import SERVERS
from tests.helpers.montones_page import WATCH_REVEAL, create_table, heap, tap_heap
from tests.helpers.screens import (
    PHONE,
    TV,
    at_rest,
    guide_drawing,
    join,
    screenshot,
    serious_violations,
)

TIMEOUT = 10_000


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
    problems = serious_violations(tv) + serious_violations(host_page)
    joining = chromium.new_context(viewport=PHONE).new_page()
    joining.goto(join_url)
    problems += serious_violations(joining)

    ana, ben, eva = (join(chromium, join_url, name) for name in ("Ana", "Ben", "Eva"))
    expect(tv.locator("#players")).to_contain_text("Eva", timeout=TIMEOUT)

    # The auction: Ana offers, the others pass, and the bank is hers.
    ana.get_by_label("Offer for the bank").fill("30")
    ana.get_by_role("button", name="Offer", exact=True).click()
    expect(tv.locator("#felt")).to_contain_text("Ana", timeout=TIMEOUT)
    screenshot(ana, "phone-auction")
    problems += serious_violations(ana) + serious_violations(tv)
    ben.get_by_role("button", name="I don't want the bank").click()
    eva.get_by_role("button", name="I don't want the bank").click()
    expect(tv.locator("#tv_status")).to_contain_text("Ben cuts the deck", timeout=TIMEOUT)

    # Ben, the first punter in rotation, cuts; Ana makes three heaps.
    expect(ben.get_by_role("button", name="Cut", exact=True)).to_be_visible(timeout=TIMEOUT)
    problems += serious_violations(ben)
    ben.get_by_role("button", name="Cut", exact=True).click()
    expect(ana.get_by_role("button", name="3", exact=True)).to_be_visible(timeout=TIMEOUT)
    problems += serious_violations(ana)
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
    problems += serious_violations(ben)

    # The punters choose the banker's heap; every screen marks it.
    tap_heap(eva, 3, "choose")
    expect(heap(tv, 3).locator(".badge--bank")).to_be_visible(timeout=TIMEOUT)
    expect(heap(ana, 3).locator(".badge--bank")).to_be_visible(timeout=TIMEOUT)
    # Ben's bar is drawn again (the banker's heap is in it): his refusal goes with the old bar.
    expect(ben.locator("#bar")).to_contain_text("Banker's heap: 3", timeout=TIMEOUT)
    expect(ben.locator("#bar .notice")).to_have_count(0)
    screenshot(ben, "phone-betting")
    screenshot(tv, "tv-betting")
    problems += serious_violations(ben) + serious_violations(tv) + serious_violations(ana)

    # The banker closes bets: the TV turns the heaps one by one in the lifting order (the least
    # money first: Eva's 5 on heap 2, then Ben's 10 on heap 1), then the banker's heap, and only
    # then shows the banker's card, the verdicts and the payments, in the order settled.
    tv.evaluate(WATCH_REVEAL)
    ben_chips = ben.locator("#status .status__chips >> visible=true").inner_text()
    ana.get_by_role("button", name="Close bets and turn the heaps").click()
    # The TV is the show: while it turns the heaps, Ben's phone says to watch it and tells
    # nothing of the hand (his chips as they were, no result, no bar), until the TV pays him.
    expect(ben.locator("#status [data-watch]")).to_be_visible(timeout=TIMEOUT)
    expect(ben.locator("#status .status__result")).to_be_attached()
    expect(ben.locator("#status .status__result")).to_be_hidden()
    expect(ben.locator("#status .status__chips >> visible=true")).to_have_text(ben_chips)
    expect(ben.locator("#bar")).to_have_css("visibility", "hidden")
    expect(tv.locator("body")).to_have_attribute("data-reveal", "playing")
    screenshot(ben, "phone-watch-the-tv")
    expect(tv.locator("#felt .heap__verdict")).to_have_count(2, timeout=TIMEOUT)
    expect(tv.locator("#players .paid li")).to_have_count(2)
    expect(tv.locator("#tv_status")).to_contain_text("Turning the heaps")
    # Mid-reveal: the first heap lifted has turned, the banker's has not yet (it turns 2.7 s
    # later). Photographed with the turned card's lift and flip at their end (fast-forwarded):
    # a TV-sized screenshot can take longer than the wait for the banker's heap.
    tv.locator("#felt .heap__turn.is-shown").first.wait_for(timeout=TIMEOUT)
    expect(heap(tv, 3).locator(".heap__turn")).not_to_have_class(re.compile(r"\bis-shown\b"))
    assert ben.locator("#status .status__result").is_hidden()
    screenshot(tv, "tv-mid-reveal", animations="disabled")
    expect(tv.locator("body")).to_have_attribute("data-reveal", "done", timeout=TIMEOUT)
    steps = tv.evaluate("window.reveal")
    turned = [s["what"] for s in steps if s["what"].startswith("heap ")]
    assert turned == ["heap 2", "heap 1", "heap 3"], steps
    bank_turn = [s["what"] for s in steps].index("heap 3")
    for step in steps[:bank_turn]:
        assert not step["secret_shown"], f"the banker's card or a verdict showed early: {steps}"
    after = [s["what"] for s in steps[bank_turn + 1 :]]
    assert after.index("banker's card") < after.index("paid"), steps
    assert after.count("paid") == 2 and after.count("verdict") == 2, steps
    expect(ben.locator("#status .status__result")).to_be_visible(timeout=TIMEOUT)
    expect(ben.locator("#status [data-watch]")).to_be_hidden()
    expect(ben.locator("#bar")).to_have_css("visibility", "visible")
    # Every screen has played the reveal to its end, and Ben's phone given his result's cue.
    for page in (tv, ben, ana):
        expect(page.locator("#felt")).to_have_attribute(
            "data-reveal", re.compile(r"\d"), timeout=TIMEOUT
        )
    expect(ben.locator("#status .status__result")).to_have_class(
        re.compile(r"\bflash\b"), timeout=TIMEOUT
    )
    for page in (tv, ben, ana):
        at_rest(page, timeout=TIMEOUT)
    screenshot(tv, "tv-settled")
    screenshot(ben, "phone-settled")
    screenshot(ana, "phone-banker-settled")
    problems += serious_violations(ben) + serious_violations(tv) + serious_violations(ana)

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
    problems += serious_violations(ben)
    ana.get_by_role("button", name="Gather and deal the next hand").click()
    expect(tv.locator("#recent li")).to_have_count(1, timeout=TIMEOUT)
    screenshot(tv, "tv-last-hands")
    problems += serious_violations(tv)
    verify = ben.context.new_page()
    verify.goto(f"{base}/t/{code}/verify/1")
    expect(verify.locator("body")).to_have_attribute("data-verified", "yes", timeout=TIMEOUT)
    expect(verify.locator("#verdict")).to_contain_text("It matches")
    screenshot(verify, "phone-verify")
    problems += serious_violations(verify)
    history = host_page.context.new_page()
    history.goto(f"{base}/t/{code}/host/history")
    problems += serious_violations(history)
    assert not problems, "\n".join(problems)

    # The table name is escaped everywhere it appears.
    expect(host_page.locator("h1")).to_contain_text("Friday <b>night</b>")


def test_what_a_player_is_typing_survives_a_live_update(chromium, server):
    """Ana types her offer while her bar is merged again whole (Ben sits down; her phone comes
    back to the foreground and is sent every region): her 30 stays, and so does her focus."""
    base, _process, _folder, _port = server
    _host, _host_page, code = create_table(chromium, base)
    join_url = f"{base}/t/{code}/join"
    ana = join(chromium, join_url, "Ana")
    ana.get_by_label("Offer for the bank").fill("30")
    join(chromium, join_url, "Ben")
    ana.wait_for_function("() => window.htmx !== undefined")
    with ana.expect_response(re.compile(r"/p/all"), timeout=TIMEOUT) as fetched:
        ana.evaluate("() => htmx.trigger('#resync', 'resync')")
    assert 'id="bar"' in fetched.value.text()
    at_rest(ana, timeout=TIMEOUT)
    expect(ana.get_by_label("Offer for the bank")).to_have_value("30")
    expect(ana.get_by_label("Offer for the bank")).to_be_focused()


# Counts the answers to fetches of my regions the page has handled (swapped in or not):
# htmx's afterRequest comes once the answer's swap is done or refused.
COUNT_ANSWERS = """() => {
  window.answers = 0;
  document.addEventListener("htmx:afterRequest", (event) => {
    if (event.detail.pathInfo.requestPath.includes("/p/all")) { window.answers += 1; }
  });
}"""


def test_an_answer_older_than_what_my_phone_shows_is_not_swapped_in(chromium, server):
    """A fetch of my regions started before my tap can be answered after my tap's answer: an
    answer drawn at an older version (#seat_version's data-v) than the one shown is not swapped in."""
    base, _process, _folder, _port = server
    _host, _host_page, code = create_table(chromium, base)
    ana = join(chromium, f"{base}/t/{code}/join", "Ana")
    status, own = ana.locator("#status"), ana.locator("#seat_version")
    shown = int(own.get_attribute("data-v"))
    asked = []  # the fetches of every region (the phone back in the foreground), answered here
    ana.route(re.compile(r"/p/all"), lambda route: asked.append(route))
    ana.wait_for_function("() => window.htmx !== undefined")  # its script may still load

    def fetch():
        for tick in range(200):
            if tick % 10 == 0:
                ana.evaluate("() => htmx.trigger('#resync', 'resync')")
            if asked:
                return asked.pop()
            ana.wait_for_timeout(50)
        raise AssertionError("the phone never fetched its regions")

    def answer(route, version: int, text: str) -> None:
        route.fulfill(
            status=200,
            content_type="text/html",
            body=f'<section hx-swap-oob="morph" id="status" class="status">{text}</section>'
            f'<div hx-swap-oob="morph" id="seat_version" hidden data-v="{version}"></div>',
        )

    ana.evaluate(COUNT_ANSWERS)
    answer(fetch(), shown - 1, "older")
    ana.wait_for_function("() => window.answers === 1", timeout=TIMEOUT)  # the page has had it
    expect(status).to_contain_text("Ana")
    expect(own).to_have_attribute("data-v", str(shown))
    answer(fetch(), shown + 1, "newer")
    expect(status).to_have_text("newer")
    expect(own).to_have_attribute("data-v", str(shown + 1))


def test_a_phone_is_brought_its_regions_by_its_stream_and_fetches_nothing(chromium, server):
    """The answer to Ben's bet redraws his chips and his bar; Ana's close changes them (the
    hand is settled), and his stream brings them: his phone asks for nothing."""
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
    fetched = []
    ben.on("request", lambda r: fetched.append(r.url) if "/p/" in r.url else None)
    chips = ben.locator("#status .status__chips")
    before = int(re.sub(r"\D", "", chips.inner_text()))
    with ben.expect_response(re.compile(r"/a/tap")):
        tap_heap(ben, 1, "bet", 10)
    expect(heap(ben, 1)).to_contain_text("Ben", timeout=TIMEOUT)
    expect(chips).to_contain_text(str(before - 10))

    # The ✕ on his pile takes his bet back (his chips with it), and he bets again.
    with ben.expect_response(re.compile(r"/a/withdraw")) as answer:
        heap(ben, 1).get_by_role("button", name="Withdraw this bet").click()
    assert answer.value.status == 200
    sent = answer.value.request.post_data or ""
    assert all(f"{field}=" in sent for field in ("stage", "seen", "key", "bet")), sent
    expect(chips).to_contain_text(str(before), timeout=TIMEOUT)
    expect(heap(ana, 1)).not_to_contain_text("Ben", timeout=TIMEOUT)
    tap_heap(ben, 1, "bet", 10)
    expect(chips).to_contain_text(str(before - 10), timeout=TIMEOUT)

    ana.get_by_role("button", name="Close bets and turn the heaps").click()
    expect(ben.locator("#status .status__result")).to_be_visible(timeout=TIMEOUT)
    assert fetched == [], fetched


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
    # The status shows while the page is still parsed; its deferred scripts (NoSleep's and
    # the tap's listener) run after. A tap before that starts nothing; the next one would.
    ana.wait_for_load_state("domcontentloaded")
    assert ana.evaluate("'wakeLock' in navigator") is False
    assert ana.evaluate("window.played.length") == 0
    ana.get_by_text("How to play").click()  # any tap
    ana.wait_for_function(
        "() => window.played.some(v => v.title === 'No Sleep' && !v.paused && v.currentTime > 0)",
        timeout=TIMEOUT,
    )


def test_a_phone_at_a_table_whose_tv_is_not_open_is_not_kept_waiting(chromium, server):
    """Without a TV to watch, the phones play no reveal: the result shows as soon as the hand
    is settled, and nobody is told to watch a TV."""
    base, _process, _folder, _port = server
    _host, _host_page, code = create_table(chromium, base)
    join_url = f"{base}/t/{code}/join"
    ana, ben = (join(chromium, join_url, name) for name in ("Ana", "Ben"))
    # A first hand is guided: a hint for each step, which can be dismissed.
    guide = ben.locator("#guide")
    expect(guide).to_be_visible(timeout=TIMEOUT)
    expect(guide).to_contain_text("Offer chips from your own to hold the bank")
    guide.get_by_role("button", name="Hide this hint").click()
    expect(guide).to_be_hidden()
    ana.get_by_label("Offer for the bank").fill("30")
    ana.get_by_role("button", name="Offer", exact=True).click()
    expect(ben.get_by_role("button", name="I don't want the bank")).to_be_visible(timeout=TIMEOUT)
    ben.get_by_role("button", name="I don't want the bank").click()
    expect(ben.get_by_role("button", name="Cut", exact=True)).to_be_visible(timeout=TIMEOUT)
    expect(guide).to_contain_text("only each heap's bottom card counts")
    expect(guide).to_be_visible()
    screenshot(ben, "phone-guide-cut")
    # The heaps, drawn on a tap of "Show me": three turned over and the Rey that beats them.
    assert guide_drawing(ben, "phone-guide-cut-drawing") == ["7o", "5c", "3e", "Rb"]
    expect(guide).to_have_css("position", "sticky")
    ben.get_by_role("button", name="Cut", exact=True).click()
    expect(ana.get_by_role("button", name="3", exact=True)).to_be_visible(timeout=TIMEOUT)
    ana.get_by_role("button", name="3", exact=True).click()
    expect(ben.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    tap_heap(ben, 1, "bet", 10)
    tap_heap(ben, 3, "choose")
    expect(ana.get_by_role("button", name="Close bets and turn the heaps")).to_be_visible(
        timeout=TIMEOUT
    )
    expect(ben.locator("#seat_version")).to_have_attribute("data-tv", "0")
    ana.get_by_role("button", name="Close bets and turn the heaps").click()
    # The whole reveal takes about five seconds on a TV; without one, a second is plenty.
    expect(ben.locator("#status .status__result")).to_be_visible(timeout=1500)
    expect(ben.locator("#status [data-watch]")).to_be_hidden()
    expect(ben.locator("#bar")).to_have_css("visibility", "visible")
    expect(guide).to_contain_text("what you won or lost, and why")
    # The next hand is not guided; "Show the hints again", under More, guides it.
    ana.get_by_role("button", name="Gather and deal the next hand").click()
    expect(ben.get_by_role("button", name="Cut", exact=True)).to_be_visible(timeout=TIMEOUT)
    expect(guide).to_be_hidden()
    ben.locator("#bar .more summary").click()
    ben.get_by_role("button", name="Show the hints again").click()
    expect(guide).to_be_visible()
    expect(guide).to_contain_text("Your turn to cut the deck")
    # A TV opened now is known to the phones at once, with nobody tapping: from their next
    # hand on, they defer to its reveal (a phone kept the old word until the next action).
    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    expect(ben.locator("#seat_version")).to_have_attribute("data-tv", "1", timeout=TIMEOUT)
    tv.close()
