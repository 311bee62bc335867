"""The host's page as the host sees it on a phone and on a laptop (issue 36's minors): the codes
to join and to watch each beside its address, each player's checkbox on the line of the name it
chooses, and on a 1366 px laptop a page that uses the width, not a phone's column."""

import pytest
from playwright.sync_api import expect

from montones import service
from tests.helpers.liveserver import database_app
from tests.helpers.screens import PHONE, TV, join, screenshot

LAPTOP = {"width": 1366, "height": 768}
SMALL_PHONE = {"width": 360, "height": 800}
TIMEOUT = 10_000


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE, SMALL_PHONE], ids=["1366", "390", "360"])
def test_the_host_page_shows_both_codes_and_lines_up_each_checkbox_with_its_name(
    chromium, server, viewport
):
    base, _process, folder, _port = server

    app = database_app(folder)
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


# A browser that plays no sound before a click on the page, until the test lets it
# (``window.soundAllowed``, as a TV whose browser allows sound does): the TV's own click is
# never made here, the TV being the screen nobody touches.
REFUSES_SOUND = """
window.soundAllowed = false;
let running = false;
Object.defineProperty(BaseAudioContext.prototype, "state", {
  configurable: true, get() { return running ? "running" : "suspended"; },
});
AudioContext.prototype.resume = function () {
  if (!window.soundAllowed) { return new Promise(() => {}); }
  running = true;
  window.soundStarted = true;
  this.dispatchEvent(new Event("statechange"));
  return Promise.resolve();
};
"""


def test_the_host_turns_off_the_tv_s_sound_and_its_line_asking_for_a_click(chromium, server):
    """Issue 36: on a TV nobody touches, "click once for sound" stayed all night. The host's
    switch turns the TV's sound off, and the line goes; turned on again, the TV tries to play:
    a browser that still refuses keeps the line, one that lets it play loses it."""
    base, _process, folder, _port = server

    app = database_app(folder)
    with app.app_context():
        table, secret = service.create_table("monte", "Quiet", 200, {})
        service.join(table.code, "Ana")
    host = chromium.new_context(viewport=LAPTOP, locale="en-GB").new_page()
    host.goto(f"{base}/t/{table.code}/host/claim/{secret}")
    context = chromium.new_context(viewport=TV, locale="en-GB")
    context.add_init_script(REFUSES_SOUND)
    tv = context.new_page()
    tv.goto(f"{base}/t/{table.code}/tv")
    note = tv.get_by_text("Click once anywhere on this screen to let it play sound.")
    toggle = tv.locator("[data-sound-toggle]")
    expect(note).to_be_visible()

    host.get_by_role("button", name="Turn the TV's sound off").click()
    expect(note).to_be_hidden(timeout=TIMEOUT)  # pushed: the TV is never touched
    expect(toggle).to_have_text("Sound off")
    expect(host.get_by_text("The TV plays no sound and does not ask for a click.")).to_be_visible()
    screenshot(tv, "tv-sound-off")
    screenshot(host, "host-tv-sound-off", full_page=True)

    host.get_by_role("button", name="Turn the TV's sound on").click()
    expect(note).to_be_visible(timeout=TIMEOUT)  # its browser still wants a click
    expect(toggle).to_have_text("Sound on")

    tv.evaluate("window.soundAllowed = true")  # a browser that lets the page play
    host.get_by_role("button", name="Turn the TV's sound off").click()
    expect(note).to_be_hidden(timeout=TIMEOUT)
    host.get_by_role("button", name="Turn the TV's sound on").click()
    expect(toggle).to_have_attribute("aria-pressed", "true", timeout=TIMEOUT)
    expect(toggle).to_have_text("Sound on")
    # The switch made the TV try, and the browser let it play (the page has had its answer).
    tv.wait_for_function("() => window.soundStarted === true", timeout=TIMEOUT)
    expect(note).to_be_hidden()


def test_a_player_let_back_in_sees_the_table_again_without_a_tap(chromium, server):
    """Issue 36: a player the host lets back in was told only at their next tap."""
    base, _process, folder, _port = server

    app = database_app(folder)
    with app.app_context():
        table, secret = service.create_table("montones", "Friday", 200, {})
    phones = {name: join(chromium, f"{base}/t/{table.code}/join", name) for name in ("Ana", "Ben")}
    ben = phones["Ben"]
    host = chromium.new_context(viewport=LAPTOP, locale="en-GB").new_page()
    host.goto(f"{base}/t/{table.code}/host/claim/{secret}")
    host.locator(".host-player", has_text="Ben").get_by_role("button", name="Send away…").click()
    host.get_by_role("button", name="Yes, send Ben away").click()
    gone = ben.get_by_role("heading", name="The host sent you away from this table")
    expect(gone).to_be_visible(timeout=TIMEOUT)
    host.get_by_role("button", name="Let Ben back in").click()
    expect(gone).to_be_hidden(timeout=TIMEOUT)  # the phone untouched
    expect(ben.locator("#gone")).to_be_hidden()  # nothing over the table
    expect(ben.locator("#status")).to_contain_text("Ben")
    expect(ben.locator("#bar")).to_be_visible()
    screenshot(ben, "let-back-in-phone")
