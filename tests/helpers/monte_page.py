"""A table of Monte in a browser: created on the host's phone, a layout of its felt, a bet on one."""

import re

from playwright.sync_api import expect

from tests.helpers.screens import PHONE


def create_table(browser, base):
    host = browser.new_context(viewport=PHONE)
    page = host.new_page()
    page.goto(base + "/?lang=en")
    page.get_by_label("Monte", exact=True).check()
    page.get_by_label("Table name").fill("Monte <i>night</i>")
    page.get_by_label("Bank size", exact=True).fill("50")
    page.get_by_label("Maximum bet").fill("10")
    page.get_by_role("button", name="Create the table").click()
    expect(page.get_by_text("Your host link")).to_be_visible()
    code = re.search(r"/t/([A-Z]{4})/host", page.url).group(1)
    return page, code


def layout(page, name):
    return page.locator(f"#felt .layout--{name}")


def bet(page, name, stake):
    page.locator(f'#intent input[name="amount"][value="{stake}"]').check(force=True)
    layout(page, name).locator("button.layout__cards").click()
