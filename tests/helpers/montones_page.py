"""A table of Montones in a browser: created on the host's phone, a heap of its felt, a tap on
one, and the TV's reveal watched as it shows."""

import re

from playwright.sync_api import expect

from tests.helpers.screens import PHONE, serious_violations

# Notes on the TV each part of the reveal as it shows, and whether anything that tells the
# banker's card (the card itself, a heap's verdict, a payment) could be seen at that moment.
WATCH_REVEAL = """() => {
  window.reveal = [];
  const secret = () => [...document.querySelectorAll(
      "#tv_status svg[data-card], #felt .heap--bank svg[data-card], #felt .heap__verdict, #players .paid li")]
    .some((el) => el.checkVisibility({visibilityProperty: true}));
  const name = (el) => el.matches(".heap__turn") ? "heap " + el.closest("[data-heap]").dataset.heap
    : el.matches(".tv-status__sub") ? "banker's card" : el.closest(".paid") ? "paid"
    : el.matches(".heap__verdict") ? "verdict" : el.matches(".heap") ? "mark" : el.className;
  new MutationObserver((changes) => {
    for (const change of changes) {
      const el = change.target;
      if (el.classList.contains("is-shown") && !el.dataset.noted) {
        el.dataset.noted = "1";
        window.reveal.push({what: name(el), secret_shown: secret()});
      }
    }
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ["class"]});
}"""


def create_table(browser, base):
    host = browser.new_context(viewport=PHONE)
    page = host.new_page()
    page.goto(base + "/?lang=en")
    assert not serious_violations(page)
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
