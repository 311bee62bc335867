"""A Monte Bank phone's small things, as a player meets them (issue 28): a double tap, a word
typed as a stake, a tap lost to the network and tried again, the host's pause, a card back
whose sprite never arrived."""

import json
import re

import pytest
from playwright.sync_api import expect

from tests.helpers.liveserver import Phone
from tests.helpers.nights import monte_bank_form
from tests.helpers.screens import PHONE, join, screenshot

TIMEOUT = 10_000
SMALL = {"width": 360, "height": 800}


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
        assert act(cutter, base, code, "cut", position=20).status == 200
        expect(stage).not_to_have_attribute("value", was, timeout=TIMEOUT)
        if stage.get_attribute("value").endswith("betting"):
            break
    punters = [p for p in phones if p is not banker]
    for page in punters:
        expect(page.locator("#intent.intent")).to_be_visible(timeout=TIMEOUT)
    return base, code, host, banker, punters


def whose_turn(phones, button):
    """The phone whose bar offers ``button``, once the stream has brought it."""
    for _tries in range(50):
        for page in phones:
            if page.locator("#bar").get_by_role("button", name=button, exact=True).count():
                return page
        phones[0].wait_for_timeout(200)
    raise AssertionError(f"no phone offers {button!r}")


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
        punter.wait_for_timeout(800)
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
    punter.wait_for_timeout(300)
    assert held, "the first tap did not leave"
    punter.locator("#felt .mb__side--lower button.mb__side-btn").click()
    expect(punter.locator("#bar .my-bets > li")).to_have_count(4, timeout=TIMEOUT)
    held[0].abort()
    punter.wait_for_timeout(1000)
    expect(note).to_be_hidden()
    punter.unroute(re.compile(r"/a/tap$"))
    # A fetch of the phone's own regions that fails sent nothing to the table: not said so.
    punter.route(re.compile(r"/p/all"), lambda route: route.fulfill(status=503, body="busy"))
    punter.evaluate("htmx.trigger(document.getElementById('resync'), 'resync')")
    punter.wait_for_timeout(1000)
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
