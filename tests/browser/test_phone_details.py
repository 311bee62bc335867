"""A Monte Bank phone's small things, as a player meets them (issue 28): a double tap, a word
typed as a stake, a tap lost to the network and tried again, the host's pause, a card back
whose sprite never arrived."""

import json
import re

import pytest
from playwright.sync_api import expect

from tests.helpers.liveserver import Phone, create_table, seat
from tests.helpers.nights import monte_bank_form
from tests.helpers.screens import PHONE, at_rest, join, screenshot

TIMEOUT = 10_000
SMALL = {"width": 360, "height": 800}
LANGUAGES = ("en", "es", "de", "ru")


def act(page, base, code, kind, **data):
    """What the phone's own form for ``kind`` sends (setup; the taps under test are made on
    the screen)."""
    token = json.loads(page.locator("body").get_attribute("hx-headers"))["X-CSRF-Token"]
    stage = page.locator("#tap input[name=stage]").get_attribute("value")
    form = {"stage": stage, **{k: str(v) for k, v in data.items()}}
    headers = {"HX-Request": "true", "X-CSRF-Token": token}
    answer = page.request.post(f"{base}/t/{code}/a/{kind}", form=form, headers=headers)
    # The answer carried the phone's own regions, which its stream therefore does not send:
    # fetched as the phone does coming back to the foreground.
    page.evaluate("htmx.trigger(document.getElementById('resync'), 'resync')")
    return answer


@pytest.fixture
def dealt(chromium, server):
    """A Monte Bank table of three phones in its first deal's bets: (base, code, host, banker,
    punters). Each phone is touched once (a phone buzzes only after a tap) and never reloaded."""
    base = server[0]
    host = Phone(base)
    host.page("/")
    created = host.http.post("/tables", data=monte_bank_form(host.token))
    code = created.headers["location"].split("/")[2]
    host.page(f"/t/{code}/host")
    phones = [join(chromium, f"{base}/t/{code}/join?lang=en", n) for n in ("Ana", "Ben", "Eva")]
    for page in phones:
        page.locator("#status .status__name").tap()
    drawn = host.http.post(f"/t/{code}/host/draw", data={"csrf_token": host.token})
    assert drawn.status_code == 303
    banker = whose_turn(phones, "Put up the bank")
    assert act(banker, base, code, "bank", amount=50).status == 200
    for _attempt in range(20):  # a void deal is shuffled and cut again
        cutter = whose_turn(phones, "Cut")
        stage = banker.locator("#tap input[name=stage]")
        was = stage.get_attribute("value")
        answer = act(cutter, base, code, "cut", position=20)
        if answer.status == 409:  # the phone's step was behind the table's (a loaded machine's
            continue  # stream): refused as stale, and the phone brought up to date by act
        assert answer.status == 200
        expect(stage).not_to_have_attribute("value", was, timeout=TIMEOUT)
        if stage.get_attribute("value").endswith("betting"):
            break
    punters = [p for p in phones if p is not banker]
    for page in punters:
        expect(page.locator("#intent.intent")).to_be_visible(timeout=TIMEOUT)
    return base, code, host, banker, punters


def whose_turn(phones, button):
    """The phone whose bar offers ``button``, once the stream has brought it: after a void
    deal, once the TV has shown it (its cards turned one by one, later on a loaded machine)."""
    for _tries in range(150):
        for page in phones:
            if page.locator("#bar").get_by_role("button", name=button, exact=True).count():
                return page
        phones[0].wait_for_timeout(200)
    seen = [
        f"{page.locator('#tap input[name=stage]').get_attribute('value')}: "
        + " ".join(page.locator("#bar").inner_text().split())[:200]
        for page in phones
    ]
    raise AssertionError(f"no phone offers {button!r}; their steps and bars: {seen}")


def tap_at(page, locator):
    """Where a finger taps ``locator`` (its middle, on screen)."""
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_a_double_tap_on_a_chosen_card_places_one_round_and_leaves_no_card_chosen(dealt):
    _base, _code, _host, _banker, (punter, _other) = dealt
    # The first hand's guide is dismissed: the bar's own line says what the next tap does.
    expect(punter.locator("#guide")).to_be_visible(timeout=TIMEOUT)
    punter.locator("#guide [data-guide-close]").click()
    punter.locator('#intent label:has(input[name="amount"][value="5"])').click()
    bets = punter.locator("#bar .my-bets > li")
    for placed in (1, 2):
        punter.touchscreen.tap(*tap_at(punter, punter.locator("#felt .mb__pos--ur label.mb__pick")))
        button = punter.locator("#felt .mb__pos--ur button.mb__cards")
        expect(button).to_be_visible()  # the card chosen: "round here"
        x, y = tap_at(punter, button)
        punter.touchscreen.tap(x, y)  # a double tap on it: the first places the round,
        punter.wait_for_timeout(100)
        punter.touchscreen.tap(x, y)  # the second lands where a card's "choose" is again
        expect(bets).to_have_count(placed, timeout=TIMEOUT)
        expect(punter.locator("#first-none")).to_be_checked()
        expect(punter.locator("#intent .intent__hint:visible")).to_contain_text(
            "Tap a card to choose it"
        )
        # The choosers take taps again once the tap's moment is over (app.js: just-tapped).
        expect(punter.locator("body")).not_to_have_class(re.compile(r"\bjust-tapped\b"))
    expect(bets.first).to_contain_text("round on upper right")


def test_a_word_typed_as_the_stake_is_refused_in_words_and_nothing_is_bet(dealt):
    _base, _code, _host, _banker, (punter, _other) = dealt
    punter.get_by_placeholder("other").fill("abc")
    punter.locator("#felt .mb__side--upper button.mb__side-btn").click()
    expect(punter.locator("#bar .notice")).to_contain_text(
        "must be a whole number", timeout=TIMEOUT
    )
    expect(punter.locator("#bar .my-bets > li")).to_have_count(0)
    screenshot(punter, "details-phone-abc-refused")


# Counts the failed requests the page has been told of (htmx's events, after the page's own
# listeners of them): a wait for a failure to have been handled, before checking what it left.
COUNT_FAILURES = """() => {
  window.failures = 0;
  for (const name of ["htmx:sendError", "htmx:responseError"]) {
    document.addEventListener(name, () => { window.failures += 1; });
  }
}"""


def test_the_tap_that_did_not_reach_the_table_is_unsaid_once_a_retry_gets_through(chromium, dealt):
    base, code, _host, _banker, (punter, _other) = dealt
    chromium.cut_off_page(punter)
    note = punter.locator("#tap-failed")
    side = punter.locator("#felt .mb__side--upper button.mb__side-btn")
    punter.locator('#intent label:has(input[name="amount"][value="1"])').click()
    for placed in (1, 2, 3):
        punter.context.set_offline(True)
        side.click()
        expect(note).to_be_visible(timeout=TIMEOUT)
        punter.context.set_offline(False)
        side.click()
        expect(punter.locator("#bar .my-bets > li")).to_have_count(placed, timeout=TIMEOUT)
        expect(note).to_be_hidden()
    # A tap held up on a bad network, whose failure arrives after a later tap got through:
    # the table has the later one; the late failure does not bring the banner back.
    held = []

    def hold_the_first(route):
        if held:
            route.continue_()
        else:
            held.append(route)

    punter.route(re.compile(r"/a/tap$"), hold_the_first)
    side.click()
    for _tries in range(100):  # until the first tap has left (the route holds it)
        if held:
            break
        punter.wait_for_timeout(50)
    assert held, "the first tap did not leave"
    punter.locator("#felt .mb__side--lower button.mb__side-btn").click()
    expect(punter.locator("#bar .my-bets > li")).to_have_count(4, timeout=TIMEOUT)
    punter.evaluate(COUNT_FAILURES)
    held[0].abort()
    punter.wait_for_function("() => window.failures === 1", timeout=TIMEOUT)  # the page has it
    expect(note).to_be_hidden()
    punter.unroute(re.compile(r"/a/tap$"))
    # A fetch of the phone's own regions that fails sent nothing to the table: not said so.
    punter.route(re.compile(r"/p/all"), lambda route: route.fulfill(status=503, body="busy"))
    punter.evaluate("htmx.trigger(document.getElementById('resync'), 'resync')")
    punter.wait_for_function("() => window.failures === 2", timeout=TIMEOUT)  # the page has it
    expect(note).to_be_hidden()


@pytest.mark.parametrize("size", [PHONE, SMALL], ids=["390", "360"])
def test_while_paused_the_phone_says_so_and_offers_no_bet(dealt, size):
    base, code, host, banker, (punter, _other) = dealt
    punter.set_viewport_size(size)
    assert (
        host.http.post(f"/t/{code}/host/pause", data={"csrf_token": host.token}).status_code == 303
    )
    paused = "Paused by the host: nothing can be played until they resume."
    expect(punter.locator("#status")).to_contain_text("Paused by the host", timeout=TIMEOUT)
    expect(punter.locator("#bar")).to_contain_text(paused)
    expect(punter.locator("#intent.intent")).to_have_count(0)
    expect(punter.locator("#felt label.mb__pick")).to_have_count(0)
    # Nothing to play: the only button left is "Show the hints again", under More.
    expect(banker.locator("#bar button:not([data-guide-again])")).to_have_count(0)
    assert punter.evaluate("document.documentElement.scrollWidth") <= size["width"]
    screenshot(punter, f"details-phone-paused-{size['width']}")
    assert (
        host.http.post(f"/t/{code}/host/resume", data={"csrf_token": host.token}).status_code == 303
    )
    expect(punter.locator("#intent.intent")).to_be_visible(timeout=TIMEOUT)
    expect(punter.locator("#status")).not_to_contain_text("Paused")


def test_a_card_back_is_drawn_when_the_card_sprite_never_arrives(chromium, dealt):
    base, code, _host, _banker, (punter, _other) = dealt
    chromium.cut_off_page(punter)
    punter.route(re.compile(r"suits\.svg"), lambda route: route.abort())
    punter.reload()
    back = punter.locator("#felt svg.card use[href='#card-back']").first
    expect(back).to_be_attached(timeout=TIMEOUT)
    drawn = back.evaluate("use => use.getBBox().width")
    assert drawn > 0, "the card back drew nothing"


# Where each of the phone's parts lies on the screen, and, for every heap scrolled to the
# middle of the screen, whether a finger at its centre lands on it (not on the status, the
# guide, the bar or its notice).
HEAPS_ON_SCREEN = """() => {
  const box = (id) => { const b = document.getElementById(id).getBoundingClientRect();
                        return {top: b.top, height: b.height}; };
  const parts = {bar: box("bar"), status: box("status")};
  const missed = [...document.querySelectorAll("#felt .heap")].filter((heap) => {
    heap.scrollIntoView({block: "center", behavior: "instant"});
    const b = heap.getBoundingClientRect();
    const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    return !(hit && heap.contains(hit));
  }).map((heap) => heap.dataset.heap);
  return {parts, missed};
}"""


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size", [PHONE, SMALL], ids=["390", "360"])
def test_eight_heaps_stay_within_reach_beside_the_guide_and_a_refusal(
    chromium, server, size, language
):
    """Issue 36: on a small phone a Montones first hand left the heaps 80 px between the status,
    the guide and the bar, and the guide and a refusal lay over heap 4; then the bar alone
    took 297 px (37%) of a Russian 360x800 phone, its labels wrapping. With eight heaps, the
    first hand's guide and then a refusal showing, in every language, every heap can be
    scrolled to and tapped at its middle, and the bar keeps to a third of the screen (UX.md)."""
    base = server[0]
    code, _host = create_table(base, chips=1000, heaps_max=8)
    banker = seat(base, code, "Bank")
    context = chromium.new_context(viewport=size, locale=language, has_touch=True, is_mobile=True)
    ana = context.new_page()
    ana.goto(f"{base}/t/{code}/join?lang={language}")
    ana.locator('input[name="name"]').fill("Ana")
    ana.locator('form[action$="/join"] button[type="submit"]').click()
    expect(ana.locator("#status")).to_contain_text("Ana")
    assert banker.post(f"/t/{code}/a/offer", amount=1000).status_code == 200
    stage = ana.locator("#tap input[name=stage]")
    was = stage.get_attribute("value")
    assert act(ana, base, code, "pass").status == 200
    expect(stage).not_to_have_attribute("value", was, timeout=TIMEOUT)
    assert act(ana, base, code, "cut", position=11).status == 200
    assert banker.post(f"/t/{code}/a/heaps", count=8).status_code == 200
    expect(ana.locator("#felt .heap")).to_have_count(8, timeout=TIMEOUT)
    expect(ana.locator("#guide")).to_be_visible(timeout=TIMEOUT)
    at_rest(ana)
    screen = size["height"]
    label = f"{size['width']}-{language}"
    # Each thing a tap on a heap can do, chosen in turn (its line of help shows with it),
    # before the banker's heap is chosen and after (the help then names it).
    heights, wrong = {}, []

    def every_mode(when):
        for mode in ("choose", "against", "declare", "bet"):
            chosen = ana.locator(f'#bar label.mode:has(input[value="{mode}"])')
            if not chosen.count():
                continue
            chosen.click()
            at_rest(ana)
            first = ana.evaluate(HEAPS_ON_SCREEN)
            screenshot(ana, f"eight-heaps-{label}-{when}-{mode}")
            bar = first["parts"]["bar"]["height"]
            heights[f"{when} {mode}"] = f"{bar:.0f} px ({bar / screen:.0%})"
            if first["missed"] or bar > screen / 3:
                wrong.append((when, mode, first))

    every_mode("first")
    ana.locator('#bar label.mode:has(input[value="choose"])').click()
    ana.touchscreen.tap(*tap_at(ana, ana.locator("#heap-1")))
    expect(ana.locator("#bar-hint-bet")).to_contain_text("1", timeout=TIMEOUT)
    every_mode("chosen")

    # A stake over the bank, tapped on heap 4: refused in words, in the bar.
    ana.locator("#bar input[name=custom]").fill("5000")
    ana.touchscreen.tap(*tap_at(ana, ana.locator("#heap-4")))
    expect(ana.locator("#bar .notice")).to_contain_text("1", timeout=TIMEOUT)
    expect(ana.locator("#guide")).to_be_visible()
    at_rest(ana)
    refused = ana.evaluate(HEAPS_ON_SCREEN)
    screenshot(ana, f"eight-heaps-refused-{label}")
    bar = refused["parts"]["bar"]["height"]
    heights["refused"] = f"{bar:.0f} px ({bar / screen:.0%})"
    if refused["missed"] or bar > screen / 3:
        wrong.append(("refused", refused))
    assert not wrong, (heights, wrong)
    # "More", on the bar's first line, opens over the bar: all of it on the screen.
    ana.locator("#bar [data-notice-close]").click()
    ana.locator("#bar-more > summary").click()
    rejoin = ana.locator("#bar-more .rejoin")
    expect(rejoin).to_be_visible()
    screenshot(ana, f"eight-heaps-more-{label}")
    box = rejoin.bounding_box()
    assert 0 <= box["y"] and box["y"] + box["height"] <= screen, box
    context.close()
