"""Nights with the table's own cards through the real UI (issue 42): the host makes the table
with "our own deck", the banker taps each card in the picker of their phone as it is shown, a
punter bets on theirs, and the TV, which nobody touches, shows each card as it is entered and
the result. In two languages: nothing here reads a word of the screen but what it checks."""

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.helpers.fit import FITS, FRAMES
from tests.helpers.screens import PHONE, TV, screenshot

TIMEOUT = 10_000
SHOTS = Path("/tmp/shots/deck42")


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(screenshot(page, name), SHOTS / f"{name}.png")


PHONES = ({"width": 360, "height": 800}, {"width": 390, "height": 844})


def picker_fits(page, name):
    """At both phones' sizes the picker's bar keeps to a third of the screen, with the felt
    in sight above it, and every card of the picker is on the screen to be tapped; a
    screenshot of each. Returns the bar's share of each screen's height."""
    shares = []
    for size in PHONES:
        page.set_viewport_size(size)
        page.evaluate("window.scrollTo(0, 0)")
        bar = page.locator("#bar").bounding_box()
        shares.append(round(bar["height"] / size["height"], 2))
        shot(page, f"{name}-{size['width']}")
        assert bar["height"] <= size["height"] / 3 + 1, (name, size, bar)
        felt = page.locator("#felt").bounding_box()
        assert felt["y"] + 100 < bar["y"], (name, size)  # the felt in sight above the bar
        boxes = page.locator("#picker button").evaluate_all(
            "bs => bs.map(b => { const r = b.getBoundingClientRect();"
            " return [r.left, r.top, r.right, r.bottom, r.width, r.height]; })"
        )
        for left, top, right, bottom, width, height in boxes:
            assert left >= 0 and top >= 0 and right <= size["width"], (name, size)
            assert bottom <= size["height"] and width >= 24 and height >= 24, (name, size)
    page.set_viewport_size(PHONE)
    print(name, shares)
    return shares


def create(browser, base, game, lang, by="banker", selects=None, **fields):
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(f"{base}/?lang={lang}")
    page.locator(f'input[name="game"][value="{game}"]').check()
    page.locator('select[name="own_deck"]').select_option(by)
    for name, value in fields.items():
        page.locator(f'.game-for input[name="{name}"] >> visible=true').fill(str(value))
    for name, value in (selects or {}).items():
        page.locator(f'.game-for select[name="{name}"] >> visible=true').select_option(value)
    page.locator('form[action$="/tables"] button[type="submit"]').click()
    code = re.search(r"/t/([A-Z]{4})/host", page.url).group(1)
    return page, code


def sit(browser, base, code, lang, name, viewport=PHONE):
    page = browser.new_context(viewport=viewport, has_touch=True, is_mobile=True).new_page()
    page.goto(f"{base}/t/{code}/join?lang={lang}")
    page.locator('input[name="name"]').fill(name)
    page.locator('form[action$="/join"] button[type="submit"]').first.click()
    expect(page.locator("#status")).to_contain_text(name, timeout=TIMEOUT)
    return page


def tv_of(browser, base, code, lang):
    tv = browser.new_context(viewport=TV).new_page()
    tv.goto(f"{base}/t/{code}/tv?lang={lang}")
    return tv


def pick(phone, tv, card):
    """The banker taps ``card`` in the picker; the TV shows it once it is entered."""
    phone.locator(f'#picker button[value="{card}"]').click()
    expect(tv.locator(f'svg[data-card="{card}"]').first).to_be_visible(timeout=TIMEOUT)
    expect(phone.locator(f'#picker button[value="{card}"]')).to_be_disabled(timeout=TIMEOUT)


def post(page, kind):
    page.locator(f'form[hx-post$="/a/{kind}"] button').first.click()


def banked(browser, base, host, code, lang):
    """A Monte or Monte Bank table of its own deck with its TV and two phones, Ana and Ben: the
    host draws the banker, who puts up the bank. Returns (tv, banker, punter)."""
    tv = tv_of(browser, base, code, lang)
    phones = {name: sit(browser, base, code, lang, name) for name in ("Ana", "Ben")}
    host.reload()
    host.locator('form[action$="/host/draw"] button').click()
    expect(tv.locator("#felt .draw__winner")).to_be_visible(timeout=TIMEOUT)
    banker_name = next(n for n in phones if n in tv.locator("#felt .draw__winner").inner_text())
    banker = phones[banker_name]
    punter = next(p for n, p in phones.items() if n != banker_name)
    post(banker, "bank")
    return tv, banker, punter


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_monte_night_with_our_own_deck(chromium, server, lang):
    base, *_ = server
    host, code = create(chromium, base, "monte", lang, bank_size=50, max_bet=10)
    tv, banker, punter = banked(chromium, base, host, code, lang)
    expect(banker.locator("#picker button")).to_have_count(40, timeout=TIMEOUT)
    shot(banker, f"own-monte-{lang}-phone-picker")
    picker_fits(banker, f"own-monte-{lang}-phone-picker")
    shot(punter, f"own-monte-{lang}-phone-waiting")
    coups = [(["2H", "3S"], ["4D", "5C"], "7H"), (["KH", "QS"], ["JD", "AC"], "6S")]
    for number, (bottom, top, gate) in enumerate(coups, start=1):
        if number > 1:
            post(banker, "next")
        for card in bottom + top:
            pick(banker, tv, card)
        shot(tv, f"own-monte-{lang}-tv-layouts-{number}")
        punter.locator('#intent input[name="amount"][value="5"]').check(force=True)
        punter.locator("#felt .layout--bottom button.layout__cards").click()
        expect(tv.locator("#felt .layout--bottom .chip")).to_have_count(1, timeout=TIMEOUT)
        shot(banker, f"own-monte-{lang}-phone-gate-{number}")
        banker.locator(f'#picker button[value="{gate}"]').click()
        expect(tv.locator("#felt .layout__verdict")).to_have_count(2, timeout=TIMEOUT)
        expect(tv.locator("body")).to_have_attribute("data-reveal", "done", timeout=TIMEOUT)
        shot(tv, f"own-monte-{lang}-tv-gate-{number}")
    # The deck is kept across coups: the first coup's cards stay greyed in the picker.
    post(banker, "next")
    expect(banker.locator('#picker button[value="7H"]')).to_be_disabled(timeout=TIMEOUT)
    expect(banker.locator("#picker button:disabled")).to_have_count(10)
    chips = [int(t) for t in tv.locator("#players .player__chips").all_inner_texts()]
    bank = int(tv.locator(".tv-status__bank strong").inner_text())
    assert sum(chips) + bank == 200


def test_a_monte_bank_night_with_our_own_deck_in_german(chromium, server):
    base, *_ = server
    lang = "de"
    host, code = create(chromium, base, "monte_bank", lang)
    tv, banker, punter = banked(chromium, base, host, code, lang)
    # The positions as they are laid out: a 7 stacked on the first, then J, 2 and 4.
    for card in ("7S", "7D"):
        banker.locator(f'#picker button[value="{card}"]').click()
        expect(banker.locator(f'#picker button[value="{card}"]')).to_be_disabled(timeout=TIMEOUT)
    shot(banker, "own-monte_bank-de-phone-picker")
    picker_fits(banker, "own-monte_bank-de-phone-picker")
    # Every screen shows the layout as it is entered (not the draw): the pair at ul, ur next.
    for screen in (punter, tv):
        expect(screen.locator('#pos-ul svg[data-card="7D"]')).to_be_visible(timeout=TIMEOUT)
        expect(screen.locator("#pos-ur .mb__slot--next")).to_be_visible()
        expect(screen.locator("#felt .draw")).to_have_count(0)
    shot(punter, "own-monte_bank-de-phone-entering")
    shot(tv, "own-monte_bank-de-tv-entering")
    for card in ("JD", "2C", "4C"):  # tapped as quickly as a hand can: entered in that order
        banker.locator(f'#picker button[value="{card}"]').click()
    expect(tv.locator('#pos-lr svg[data-card="4C"]')).to_be_visible(timeout=TIMEOUT)
    expect(tv.locator('#pos-ll svg[data-card="2C"]')).to_be_visible()  # ll before lr
    shot(tv, "own-monte_bank-de-tv-layout")
    punter.locator('#intent input[name="amount"][value="5"]').check(force=True)
    punter.locator('#felt form.mb__tap:has(input[name="at"][value="upper"]) button').click()
    expect(tv.locator("#felt .chip").first).to_be_visible(timeout=TIMEOUT)
    post(banker, "close")
    expect(banker.locator("#picker button")).to_have_count(40, timeout=TIMEOUT)
    pick(banker, tv, "5H")
    shot(tv, "own-monte_bank-de-tv-turning")
    shot(banker, "own-monte_bank-de-phone-turning")
    # The upper right's rank in the other colour (a pair at ul): the double wins.
    banker.locator('#picker button[value="JS"]').click()
    expect(tv.locator("body")).to_have_attribute("data-reveal", "done", timeout=TIMEOUT)
    expect(banker.locator("#picker")).to_have_count(0, timeout=TIMEOUT)
    shot(tv, "own-monte_bank-de-tv-decided")
    shot(punter, "own-monte_bank-de-phone-decided")


def test_a_monte_bank_night_with_our_own_deck_and_a_side_card_in_spanish(chromium, server):
    """Our own deck and a side card, made together on the lobby's form: after the four, the
    banker's picker asks for the side card; a card of a rank on show is entered and set aside
    face up on every screen; then the side card, a round on it, and the cards turned."""
    base, *_ = server
    lang = "es"
    host, code = create(chromium, base, "monte_bank", lang, selects={"mb_side_cards": "1"})
    tv, banker, punter = banked(chromium, base, host, code, lang)
    for card in ("7S", "JD", "2C", "4C"):
        pick(banker, tv, card)
    # The four are out: the side card is asked for by name, its place marked on every screen.
    expect(banker.locator("#picker .picker__what")).to_contain_text(
        "Una carta lateral", timeout=TIMEOUT
    )
    for screen in (punter, tv):
        expect(screen.locator("#pos-s1 .mb__slot--next")).to_be_visible(timeout=TIMEOUT)
    picker_fits(banker, "own-monte_bank-side-es-phone-picker")
    shot(tv, "own-monte_bank-side-es-tv-waiting")
    pick(banker, tv, "JS")  # the upper right's rank: set aside, face up
    for screen in (punter, tv):
        expect(screen.locator('#felt .mb__aside svg[data-card="JS"]')).to_be_visible(
            timeout=TIMEOUT
        )
        expect(screen.locator("#pos-s1 .mb__slot--next")).to_be_visible()
    expect(banker.locator("#picker .picker__what")).to_contain_text("carta lateral")
    # A bet before the side card is out has no place to go: the punter's phone offers none.
    expect(punter.locator("#felt form.mb__tap")).to_have_count(0)
    punter.set_viewport_size({"width": 360, "height": 800})
    shot(punter, "own-monte_bank-side-es-phone-aside")
    punter.set_viewport_size(PHONE)
    shot(tv, "own-monte_bank-side-es-tv-aside")
    banker.locator('#picker button[value="5D"]').click()  # the side card: bets open
    expect(tv.locator('#pos-s1 svg[data-card="5D"]')).to_be_visible(timeout=TIMEOUT)
    # No card is awaited; the side card can still be taken back until a bet is on the layout.
    expect(banker.locator("#picker .picker__cards")).to_have_count(0, timeout=TIMEOUT)
    expect(banker.locator("#picker .picker__undo")).to_be_visible()
    shot(tv, "own-monte_bank-side-es-tv-layout")
    # A round on the side card: chosen, then placed; it pays 4 to 1.
    punter.locator('#intent label:has(input[name="amount"][value="5"])').click()
    punter.locator("#felt .mb__pos--s1 label.mb__pick").click()
    punter.locator("#felt .mb__pos--s1 button.mb__cards").click()
    expect(tv.locator("#pos-s1-bets .chip")).to_have_count(1, timeout=TIMEOUT)
    shot(punter, "own-monte_bank-side-es-phone-bet")
    post(banker, "close")
    expect(banker.locator("#picker button")).to_have_count(40, timeout=TIMEOUT)
    pick(banker, tv, "3H")
    banker.locator('#picker button[value="5S"]').click()  # the side card's rank: the round wins
    expect(tv.locator("body")).to_have_attribute("data-reveal", "done", timeout=TIMEOUT)
    expect(banker.locator("#picker")).to_have_count(0, timeout=TIMEOUT)
    expect(tv.locator("#pos-s1-bets .chip--won")).to_have_count(1, timeout=TIMEOUT)
    # The TV's reveal played to its end: every card turned and every chip's outcome shown.
    expect(tv.locator("#felt [data-at][data-rv]:not(.is-shown)")).to_have_count(0, timeout=TIMEOUT)
    expect(tv.locator("body")).to_have_attribute("data-reveal", "done", timeout=TIMEOUT)
    shot(tv, "own-monte_bank-side-es-tv-decided")
    punter.set_viewport_size({"width": 360, "height": 800})
    shot(punter, "own-monte_bank-side-es-phone-decided")


def test_a_montones_night_with_our_own_deck_in_russian(chromium, server):
    base, *_ = server
    lang = "ru"
    host, code = create(chromium, base, "montones", lang)
    tv = tv_of(chromium, base, code, lang)
    ana, ben, eva = (sit(chromium, base, code, lang, n) for n in ("Ana", "Ben", "Eva"))
    ana.locator('form[hx-post$="/a/offer"] input[name="amount"]').fill("50")
    ana.locator('form[hx-post$="/a/offer"] button').click()
    post(ben, "pass")
    post(eva, "pass")
    ana.locator('form[hx-post$="/a/heaps"]:has(input[name="count"][value="3"]) button').click()
    expect(tv.locator("#felt .heap")).to_have_count(3, timeout=TIMEOUT)
    ben.locator('#intent input[name="mode"][value="choose"]').check(force=True)
    ben.locator("#heap-3 button.heap__card").click()
    expect(tv.locator("#heap-3.heap--bank")).to_have_count(1, timeout=TIMEOUT)
    ben.locator('#intent input[name="mode"][value="bet"]').check(force=True)
    ben.locator('#intent input[name="amount"][value="5"]').check(force=True)
    ben.locator("#heap-1 button.heap__card").click()
    expect(tv.locator("#heap-1 .chip")).to_have_count(1, timeout=TIMEOUT)
    shot(tv, "own-montones-ru-tv-betting")
    post(ana, "close")
    expect(ana.locator("#picker button")).to_have_count(40, timeout=TIMEOUT)
    shot(ana, "own-montones-ru-phone-picker")
    picker_fits(ana, "own-montones-ru-phone-picker")
    shot(ben, "own-montones-ru-phone-waiting")
    pick(ana, tv, "6o")
    shot(tv, "own-montones-ru-tv-entering")
    pick(ana, tv, "2c")
    ana.locator('#picker button[value="4e"]').click()
    expect(tv.locator("body")).to_have_attribute("data-reveal", "done", timeout=TIMEOUT)
    expect(tv.locator("#heap-1.heap--won")).to_have_count(1, timeout=TIMEOUT)
    # The cards shown as they were entered were the reveal: none is turned again.
    expect(tv.locator("#felt .heap__turn, #felt .flip")).to_have_count(0)
    shot(tv, "own-montones-ru-tv-settled")
    shot(ben, "own-montones-ru-phone-settled")
    # The next hand: the banker turns a Rey and keeps the heaps, counting them (the three and
    # a new one); the cards turned before stay greyed in the picker.
    post(ana, "next")
    ana.locator('form[hx-post$="/a/heaps"]:has(input[name="count"][value="3"]) button').click()
    expect(tv.locator("#felt .heap")).to_have_count(3, timeout=TIMEOUT)
    ben.locator('#intent input[name="mode"][value="choose"]').check(force=True)
    ben.locator("#heap-3 button.heap__card").click()
    expect(tv.locator("#heap-3.heap--bank")).to_have_count(1, timeout=TIMEOUT)
    post(ana, "close")
    for card in ("7o", "5c"):
        pick(ana, tv, card)
    ana.locator('#picker button[value="Rb"]').click()
    keep = ana.locator('form[hx-post$="/a/keep_entered"] button')
    expect(keep).to_have_count(3, timeout=TIMEOUT)  # 2, 3 or 4 heaps
    expect(tv.locator("body")).to_have_attribute("data-reveal", "done", timeout=TIMEOUT)
    expect(keep.last).to_be_visible(timeout=TIMEOUT)  # once the TV has shown the Rey
    for size in PHONES:
        ana.set_viewport_size(size)
        keep.last.scroll_into_view_if_needed()
        assert ana.evaluate("document.documentElement.scrollWidth") <= size["width"]
        shot(ana, f"own-montones-ru-phone-keep-{size['width']}")
    ana.set_viewport_size(PHONE)
    ana.locator(
        'form[hx-post$="/a/keep_entered"]:has(input[name="count"][value="4"]) button'
    ).click()
    expect(tv.locator("#felt .heap")).to_have_count(4, timeout=TIMEOUT)
    # Every screen says the heaps were kept, and how many there are now, while bets are made.
    expect(tv.locator("#tv_status [data-kept]")).to_contain_text("4", timeout=TIMEOUT)
    shot(tv, "own-montones-ru-tv-kept")
    kept = ben.locator("#status [data-kept]")
    for size in PHONES:
        ben.set_viewport_size(size)
        expect(kept).to_be_visible(timeout=TIMEOUT)
        box = kept.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], size
        assert ben.evaluate("document.documentElement.scrollWidth") <= size["width"]
        shot(ben, f"own-montones-ru-phone-kept-{size['width']}")
    ben.set_viewport_size(PHONE)
    ben.locator('#intent input[name="mode"][value="choose"]').check(force=True)
    ben.locator("#heap-4 button.heap__card").click()
    expect(tv.locator("#heap-4.heap--bank")).to_have_count(1, timeout=TIMEOUT)
    post(ana, "close")
    expect(ana.locator("#picker button:disabled")).to_have_count(3, timeout=TIMEOUT)
    for card in ("7o", "5c", "Rb"):
        expect(ana.locator(f'#picker button[value="{card}"]')).to_be_disabled()
    shot(ana, "own-montones-ru-phone-kept-picker")


def test_the_host_enters_the_cards_of_a_montones_hand_on_the_host_page(chromium, server):
    """A table where the host enters each card: the host's page has the picker (the phones
    none), each tap a card on the TV, the last one taken back and entered again; the hand
    settles as the cards say."""
    base, *_ = server
    lang = "es"
    host, code = create(chromium, base, "montones", lang, by="host")
    tv = tv_of(chromium, base, code, lang)
    ana, ben, eva = (sit(chromium, base, code, lang, n) for n in ("Ana", "Ben", "Eva"))
    ana.locator('form[hx-post$="/a/offer"] input[name="amount"]').fill("50")
    ana.locator('form[hx-post$="/a/offer"] button').click()
    post(ben, "pass")
    post(eva, "pass")
    ana.locator('form[hx-post$="/a/heaps"]:has(input[name="count"][value="3"]) button').click()
    expect(tv.locator("#felt .heap")).to_have_count(3, timeout=TIMEOUT)
    ben.locator('#intent input[name="mode"][value="choose"]').check(force=True)
    ben.locator("#heap-3 button.heap__card").click()
    expect(tv.locator("#heap-3.heap--bank")).to_have_count(1, timeout=TIMEOUT)
    ben.locator('#intent input[name="mode"][value="bet"]').check(force=True)
    ben.locator('#intent input[name="amount"][value="5"]').check(force=True)
    ben.locator("#heap-1 button.heap__card").click()
    expect(tv.locator("#heap-1 .chip")).to_have_count(1, timeout=TIMEOUT)
    post(ana, "close")
    host.goto(f"{base}/t/{code}/host?lang={lang}")
    expect(host.locator("#picker button[value]")).to_have_count(40, timeout=TIMEOUT)
    expect(ana.locator("#picker")).to_have_count(0)  # the banker's phone has none here
    shot(host, "own-montones-es-host-picker")
    for card in ("6o", "Ro"):  # a Rey entered by mistake, then taken back
        host.locator(f'#picker button[value="{card}"]').click()
        expect(tv.locator(f'#felt svg[data-card="{card}"]').first).to_be_visible(timeout=TIMEOUT)
    host.locator('#picker form[action$="/host_undo_card"] button').click()
    expect(tv.locator('#felt svg[data-card="Ro"]')).to_have_count(0, timeout=TIMEOUT)
    expect(host.locator('#picker button[value="Ro"]')).to_be_enabled()
    assert host.url.endswith("#picker")  # each tap lands back on the picker
    expect(host.locator('#picker button[value="2c"]')).to_be_in_viewport()
    shot(host, "own-montones-es-host-picker-after-undo")
    for card in ("2c", "4e"):
        host.locator(f'#picker button[value="{card}"]').click()
    expect(tv.locator("body")).to_have_attribute("data-reveal", "done", timeout=TIMEOUT)
    expect(tv.locator("#heap-1.heap--won")).to_have_count(1, timeout=TIMEOUT)
    expect(host.locator("#picker button[value]")).to_have_count(0)
    shot(tv, "own-montones-es-host-tv-settled")


def test_a_triple_s_words_keep_to_their_position_on_a_narrow_phone_in_german(chromium, server):
    """A triple on the upper left beside two side cards, German's long "Drilling", on the
    narrowest phone: every word of the felt keeps to its own position (CI's random night met
    "↖ · Drilling" running under the upper right's position), before and after a bet."""
    base, *_ = server
    lang = "de"
    host, code = create(chromium, base, "monte_bank", lang, selects={"mb_side_cards": "2"})
    tv, banker, punter = banked(chromium, base, host, code, lang)
    for card in ("6S", "6H", "6C", "KD", "2C", "5H", "QH"):
        pick(banker, tv, card)
    banker.locator('#picker button[value="4S"]').click()  # the last side card: bets open
    expect(punter.locator("#felt form.mb__tap").first).to_be_visible(timeout=TIMEOUT)
    for page in (punter, banker):
        page.set_viewport_size({"width": 360, "height": 800})
    punter.locator('#intent input[name="amount"][value="5"]').check(force=True)
    for at in ("ur", "ul"):
        punter.locator(f"#felt .mb__pos--{at} label.mb__pick").click()
        punter.locator(f"#felt .mb__pos--{at} button.mb__cards").click()
    expect(tv.locator("#felt .chip")).to_have_count(2, timeout=TIMEOUT)
    for size in PHONES:
        for who, page in (("punter", punter), ("banker", banker)):
            page.set_viewport_size(size)
            page.evaluate(FRAMES)
            shot(page, f"own-monte_bank-triple-de-{who}-{size['width']}")
            assert page.evaluate(FITS, False) == [], (who, size)
