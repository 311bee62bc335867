"""Screen sizes and screenshots for the browser tests (a module: every test folder has a conftest)."""

import re
from pathlib import Path

from playwright.sync_api import expect

# Not test-results/: pytest-playwright empties that folder at the start of every run.
SCREENS = Path(__file__).resolve().parents[2] / "screenshots"  # the checkout's
PHONE = {"width": 390, "height": 844}
TV = {"width": 1920, "height": 1080}


def screenshot(page, name: str) -> Path:
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def join(browser, join_url: str, name: str):
    """A phone-sized browser that opens the join link, types a name and sits down."""
    context = browser.new_context(viewport=PHONE, locale="en-GB", has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(join_url)
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name=re.compile("Sit down")).click()
    expect(page.locator("#status")).to_contain_text(name)
    return page
