"""A table of Monte Bank in a browser: created on the host's phone, cut until a deal is dealt,
and a player's taps on it (a choice of the bar, a position, a side)."""

import re

from playwright.sync_api import expect

from tests.helpers.screens import PHONE, screenshot

TIMEOUT = 10_000


# After a cut the TV says the deal is on ("Place your bets"), or shows a void deal under a
# new seal (the deck shuffled and sealed again): either way not the seal the cut was made on.
CUT_DONE = """(sealed) => {
  const line = document.querySelector("#tv_status .tv-status__line");
  const seal = document.querySelector("#felt .seal code");
  return (!!line && line.innerText.includes("Place your bets"))
    || (!!seal && seal.textContent !== sealed);
}"""


def create_table(browser, base):
    host = browser.new_context(viewport=PHONE)
    page = host.new_page()
    page.goto(base + "/?lang=en")
    page.get_by_label("Monte Bank", exact=True).check()
    page.get_by_label("Table name").fill("Casino night")
    page.get_by_label("Bank size offered").fill("60")
    page.get_by_role("button", name="Create the table").click()
    expect(page.get_by_text("Your host link")).to_be_visible()
    code = re.search(r"/t/([A-Z]{4})/host", page.url).group(1)
    return page, code


def cut_until_dealt(tv, phones, number):
    """The punter on the banker's right cuts; a void deal is said on the TV and cut again."""
    status = tv.locator("#tv_status .tv-status__line")
    for _attempt in range(12):
        expect(status).to_contain_text(
            re.compile("cuts the deck|Void deal|Place your bets"), timeout=TIMEOUT
        )
        if "Place your bets" in status.inner_text():
            return
        if "Void deal" in status.inner_text():
            screenshot(tv, f"monte-bank-tv-void-{number}")
            expect(tv.locator("#felt .mb-void")).to_be_visible()
        cutter_row = tv.locator("#players .player", has=tv.locator(".player__tag", has_text="cuts"))
        cutter = phones[cutter_row.locator(".player__name").inner_text().strip()]
        cut = cutter.get_by_role("button", name="Cut", exact=True)
        expect(cut).to_be_visible(timeout=TIMEOUT)
        sealed = tv.locator("#felt .seal code").inner_text()
        cut.click()
        # The TV has the cut: the deal is dealt, or void and the deck shuffled and sealed again.
        tv.wait_for_function(CUT_DONE, arg=sealed, timeout=TIMEOUT)
    raise AssertionError("twelve void deals in a row")


def choose(page, field, value):
    """Tap the choice's label, as a player does (the radio inside it is drawn as the label);
    then it is the one checked."""
    radio = f'input[name="{field}"][value="{value}"]'
    page.locator(f"#intent label:has({radio})").click()
    expect(page.locator(f"#intent {radio}")).to_be_checked()


def placed(page, button):
    """Tap, and wait for my bar to list the new bet (the answer redraws the bar: a choice made
    while it is on its way would be drawn over)."""
    mine = page.locator("#bar .my-bets > li")
    count = mine.count()
    page.locator(button).click()
    expect(mine).to_have_count(count + 1, timeout=TIMEOUT)


def choose_position(page, position):
    """The first tap of a round or a cross: it only chooses the card."""
    page.locator(f"#felt .mb__pos--{position} label.mb__pick").click()
    expect(page.locator(f"#felt .mb__pos--{position} button.mb__cards")).to_be_visible()


def tap_position(page, position):
    placed(page, f"#felt .mb__pos--{position} button.mb__cards")


def tap_side(page, side):
    placed(page, f"#felt .mb__side--{side} button.mb__side-btn")
