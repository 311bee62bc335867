"""The night in German and in Russian, on 360 px phones: a hand of Montones and a coup of Monte
through the real UI, every screen photographed at 360x800 (screenshots/<lang>-*.png) and held
to the layout rule of issue 16: nothing wider than the screen, no control cut.

The steps find their controls by what they post and by their ids, never by their words: the
words are the other languages'.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.helpers.fit import OVERFLOW
from tests.helpers.screens import NARROW, SCREENS, TV, at_rest, screenshot

TIMEOUT = 10_000


def look(page, language, name):
    """The screen as it is now, photographed, with nothing running over its edges."""
    at_rest(page, timeout=TIMEOUT)  # the last swap settled, the reveal played, nothing moving
    screenshot(page, f"{language}-{name}")
    # And the whole page, at the same 360 px, for what lies below the fold.
    page.screenshot(path=str(SCREENS / f"{language}-{name}-full.png"), full_page=True)
    assert page.evaluate(OVERFLOW) == [], (language, name)


def settled(screens, results):
    """Each screen shows the settled hand's felt and has played its reveal to the end; each
    phone of ``results`` (a result of its own to show) has given its cue too: the result's
    flash, once the reveal has shown it."""
    for page in screens:
        expect(page.locator("#felt")).to_have_attribute(
            "data-reveal", re.compile(r"\d"), timeout=TIMEOUT
        )
    for page in results:
        expect(page.locator("#status .status__result")).to_have_class(
            re.compile(r"\bflash\b"), timeout=TIMEOUT
        )
    for page in screens:
        at_rest(page, timeout=TIMEOUT)


def phone(browser, language):
    context = browser.new_context(viewport=NARROW, locale=language, has_touch=True, is_mobile=True)
    return context.new_page()


def sit(browser, language, join_url, name):
    page = phone(browser, language)
    page.goto(join_url)
    page.locator('input[name="name"]').fill(name)
    page.locator('form[action$="/join"] button[type="submit"]').click()
    expect(page.locator("#status")).to_contain_text(name, timeout=TIMEOUT)
    return page


def post(page, kind):
    """The button of the bar's form that posts ``kind``."""
    return page.locator(f'#bar form[action$="/a/{kind}"] button')


def create(browser, base, language, game, **fields):
    host = phone(browser, language)
    host.goto(base + "/")
    assert host.locator("html").get_attribute("lang") == language
    look(host, language, f"{game}-lobby")
    host.locator(f'input[name="game"][value="{game}"]').check()
    host.locator('form[action$="/tables"] input[name="name"]').fill(fields.pop("name"))
    for field, value in fields.items():
        host.locator(f'form[action$="/tables"] input[name="{field}"]').fill(value)
    host.locator('form[action$="/tables"] button[type="submit"]').click()
    expect(host.locator(".card-note")).to_be_visible(timeout=TIMEOUT)
    code = re.search(r"/t/([A-Z]{4})/host", host.url).group(1)
    look(host, language, f"{game}-host")
    return host, code


def tv_screen(browser, base, language, code):
    tv = browser.new_context(viewport=TV, locale=language).new_page()
    tv.goto(f"{base}/t/{code}/tv")
    expect(tv.locator(".join-corner__code")).to_have_text(code)
    return tv


@pytest.mark.parametrize("language", ["de", "ru"])
def test_a_hand_of_montones_in_every_language_holds_at_360_px(chromium, server, language):
    base, _process, _folder, _port = server
    host, code = create(
        chromium, base, language, "montones", name="Freitagabend im Keller", heaps_max="5"
    )
    tv = tv_screen(chromium, base, language, code)
    join_url = tv.locator(".join-corner__url").inner_text()
    guest = phone(chromium, language)
    guest.goto(join_url)
    look(guest, language, "montones-join")
    guest.goto(f"{base}/rules/montones?t={code}")
    look(guest, language, "montones-rules")
    ana, ben, eva = (sit(chromium, language, join_url, n) for n in ("Ana", "Ben", "Eva"))
    expect(tv.locator("#players")).to_contain_text("Eva", timeout=TIMEOUT)

    # The auction: Ana offers, the others pass.
    ana.locator('#bar input[name="amount"]').fill("30")
    post(ana, "offer").click()
    expect(tv.locator("#felt .offers")).to_contain_text("Ana", timeout=TIMEOUT)
    look(ana, language, "montones-phone-auction")
    look(ben, language, "montones-phone-auction-punter")
    ana.locator("details.help summary").click()
    look(ana, language, "montones-phone-help")
    post(ben, "pass").click()
    post(eva, "pass").click()

    # Ben cuts, Ana makes three heaps.
    expect(post(ben, "cut")).to_be_visible(timeout=TIMEOUT)
    look(ben, language, "montones-phone-cut")
    post(ben, "cut").click()
    heaps = ana.locator('#bar form:has(input[name="count"][value="3"]) button')
    expect(heaps).to_be_visible(timeout=TIMEOUT)
    look(ana, language, "montones-phone-heaps")
    heaps.click()
    expect(tv.locator("#felt .heap")).to_have_count(3, timeout=TIMEOUT)
    screenshot(tv, f"{language}-montones-tv-betting")

    # Bets, the banker's heap, and a refusal in the phone's language.
    def tap(page, number, mode, stake=None):
        page.locator(f'#intent input[name="mode"][value="{mode}"]').check()
        if stake is not None:
            page.locator(f'#intent input[name="amount"][value="{stake}"]').check(force=True)
        page.locator("#felt .heap").nth(number - 1).locator("button.heap__card").click()

    expect(ben.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    look(ben, language, "montones-phone-betting")
    tap(ben, 1, "bet", 10)
    expect(tv.locator("#felt .heap").nth(0)).to_contain_text("Ben", timeout=TIMEOUT)
    expect(eva.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    tap(eva, 2, "against", 5)
    expect(tv.locator("#felt .heap").nth(1)).to_contain_text("Eva", timeout=TIMEOUT)
    tap(ben, 3, "bet", 5)  # the last free heap: refused, it must stay the banker's
    expect(ben.locator("#bar .notice")).to_be_visible(timeout=TIMEOUT)
    look(ben, language, "montones-phone-refused")
    tap(eva, 3, "choose")
    expect(ana.locator("#felt .heap").nth(2).locator(".badge--bank")).to_be_visible(timeout=TIMEOUT)
    look(eva, language, "montones-phone-chosen")
    look(ana, language, "montones-phone-banker-betting")

    # The banker closes bets: the heaps turn.
    post(ana, "close").click()
    expect(ben.locator("#status .status__result")).to_be_visible(timeout=TIMEOUT)
    # The heaps turned, the verdicts and the payments shown (the banker has no result of hers).
    settled([tv, ben, ana], results=[ben])
    look(ben, language, "montones-phone-settled")
    look(ana, language, "montones-phone-banker-settled")
    screenshot(tv, f"{language}-montones-tv-settled")
    assert tv.evaluate(OVERFLOW) == []

    ben.locator("details.recall-drawer summary").click()
    expect(ben.locator("#recall .recall__hand")).to_have_count(1, timeout=TIMEOUT)
    ben.locator("#recall").scroll_into_view_if_needed()
    look(ben, language, "montones-phone-last-hands")
    post(ana, "next").click()
    expect(tv.locator("#recent li")).to_have_count(1, timeout=TIMEOUT)
    verify = ben.context.new_page()
    verify.goto(f"{base}/t/{code}/verify/1")
    expect(verify.locator("body")).to_have_attribute("data-verified", "yes", timeout=TIMEOUT)
    look(verify, language, "montones-verify")

    host.goto(f"{base}/t/{code}/host")
    look(host, language, "montones-host-playing")
    host.goto(f"{base}/t/{code}/host/history")
    look(host, language, "montones-host-history")


@pytest.mark.parametrize("language", ["de", "ru"])
def test_a_coup_of_monte_in_every_language_holds_at_360_px(chromium, server, language):
    base, _process, _folder, _port = server
    host, code = create(
        chromium,
        base,
        language,
        "monte",
        name="Monte am Freitagabend",
        bank_size="50",
        max_bet="10",
    )
    tv = tv_screen(chromium, base, language, code)
    join_url = tv.locator(".join-corner__url").inner_text()
    guest = phone(chromium, language)
    guest.goto(f"{base}/rules/monte")
    look(guest, language, "monte-rules")
    phones = {name: sit(chromium, language, join_url, name) for name in ("Ana", "Ben")}
    expect(tv.locator("#players")).to_contain_text("Ben", timeout=TIMEOUT)
    look(phones["Ana"], language, "monte-phone-seating")

    host.reload()
    host.locator('form[action$="/host/draw"] button').click()
    expect(tv.locator("#felt .draw__card--high")).to_have_count(1, timeout=TIMEOUT)
    expect(tv.locator("#felt .draw__winner")).to_be_visible(timeout=TIMEOUT)
    # The banker's phone says so in its #status (data-banker), whatever its language.
    bankers = "#status[data-banker='true']"
    banker_name = tv.locator("#felt .draw__card--high .chip__name").inner_text().strip()
    banker = phones[banker_name]
    punter = phones["Ben" if banker_name == "Ana" else "Ana"]
    expect(banker.locator(bankers)).to_have_count(1, timeout=TIMEOUT)
    expect(punter.locator(bankers)).to_have_count(0)
    expect(post(banker, "bank")).to_be_visible(timeout=TIMEOUT)
    look(banker, language, "monte-phone-bank")
    look(punter, language, "monte-phone-draw")
    post(banker, "bank").click()
    expect(post(punter, "cut")).to_be_visible(timeout=TIMEOUT)
    look(punter, language, "monte-phone-cut")
    post(punter, "cut").click()

    expect(punter.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    look(punter, language, "monte-phone-betting")
    punter.locator('#intent input[name="amount"][value="5"]').check(force=True)
    punter.locator("#felt .layout--top button.layout__cards").click()
    expect(tv.locator("#felt .layout--top .chip")).to_have_count(1, timeout=TIMEOUT)
    expect(post(banker, "gate")).to_be_visible(timeout=TIMEOUT)
    look(banker, language, "monte-phone-banker-betting")
    screenshot(tv, f"{language}-monte-tv-betting")
    assert tv.evaluate(OVERFLOW) == []

    post(banker, "gate").click()
    expect(punter.locator("#status .status__result")).to_be_visible(timeout=TIMEOUT)
    # The gate turned over, the verdicts and the payments shown.
    settled([tv, punter, banker], results=[punter, banker])
    look(punter, language, "monte-phone-gate")
    look(banker, language, "monte-phone-banker-gate")
    screenshot(tv, f"{language}-monte-tv-gate")
    assert tv.evaluate(OVERFLOW) == []
