"""The host's page as the host sees it on a phone and on a laptop (issue 36's minors): the codes
to join and to watch each beside its address, each player's checkbox on the line of the name it
chooses, and on a 1366 px laptop a page that uses the width, not a phone's column."""

import pytest
from playwright.sync_api import expect

from montones import create_app, service
from montones.config import TestConfig
from tests.helpers.screens import PHONE, screenshot

LAPTOP = {"width": 1366, "height": 768}
SMALL_PHONE = {"width": 360, "height": 800}


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE, SMALL_PHONE], ids=["1366", "390", "360"])
def test_the_host_page_shows_both_codes_and_lines_up_each_checkbox_with_its_name(
    chromium, server, viewport
):
    base, _process, folder, _port = server

    class Config(TestConfig):
        SQLALCHEMY_DATABASE_URI = f"sqlite:///{folder / 'montones.sqlite'}"

    app = create_app(Config)
    with app.app_context():
        table, secret = service.create_table("montones", "Friday", 200, {})
        for name in ("Ana", "Benedikt Alexandrowitsch", "Eva"):
            service.join(table.code, name)
    host = chromium.new_context(viewport=viewport, locale="en-GB").new_page()
    host.goto(f"{base}/t/{table.code}/host/claim/{secret}")
    screenshot(host, f"host-page-{viewport['width']}", full_page=True)

    for code in (host.get_by_alt_text("QR code to join"), host.get_by_alt_text("QR code to watch")):
        expect(code).to_be_visible()
        assert code.evaluate("img => img.complete && img.naturalWidth > 0")
    expect(host.locator(".join-link a")).to_have_attribute("href", f"/t/{table.code}/join")
    assert host.evaluate("document.documentElement.scrollWidth") <= viewport["width"]

    boxes = host.locator(".host-player .pick").evaluate_all(
        """picks => picks.map(pick => [pick.querySelector('input').getBoundingClientRect(),
                                       pick.querySelector('strong').getBoundingClientRect()])"""
    )
    assert len(boxes) == 3
    for box, name in boxes:
        middle = box["top"] + box["height"] / 2
        assert name["top"] <= middle <= name["bottom"], (box, name)  # on the name's first line
        assert box["right"] <= name["left"]  # before it, not above it
    if viewport is LAPTOP:
        page = host.locator("main.page").bounding_box()
        assert page["width"] >= 0.75 * LAPTOP["width"], page
        tops = host.locator(".host-player").evaluate_all(
            "players => players.map(p => p.getBoundingClientRect().top)"
        )
        assert tops[0] == tops[1], tops  # side by side: the players in columns
