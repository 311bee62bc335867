"""Sound on a TV nobody touches (issue 40, item 6), with Chromium's real autoplay policy rather
than a stand-in: a page may not start sound before someone has clicked on it, and no click
given on another device (the host's page) counts for it. What the host can do is start the
TV's Chromium with ``--autoplay-policy=no-user-gesture-required`` (docs/hosting.md): its page
then plays at once and never shows the line asking for a click; without it, the line shows.

Nothing here is evaluated in the TV's page before its state is read: Playwright's evaluate
counts as a user's gesture, which would let the page play."""

import pytest
from playwright.sync_api import expect

from montones import service
from tests.browser.conftest import CHROMIUM
from tests.helpers.liveserver import database_app
from tests.helpers.screens import TV

# Each AudioContext the page makes, and its state half a second after the page loaded, noted
# on the page itself (an init script is no gesture).
NOTE_AUDIO = """
const made = [];
const Real = window.AudioContext;
window.AudioContext = function (...args) { const c = new Real(...args); made.push(c); return c; };
window.AudioContext.prototype = Real.prototype;
document.addEventListener("DOMContentLoaded", () => setTimeout(() => {
  document.body.dataset.audio = made.map((c) => c.state).join(",") || "none";
}, 500));
"""
NOTE = "Click once anywhere on this screen to let it play sound."


@pytest.mark.parametrize(
    ("flags", "state"),
    [((), "suspended"), (("--autoplay-policy=no-user-gesture-required",), "running")],
    ids=["as-installed", "autoplay-flag"],
)
def test_a_tv_whose_chromium_may_autoplay_plays_without_a_click(
    browser_session, server, flags, state
):
    base, _process, folder, _port = server
    app = database_app(folder)
    with app.app_context():
        table, _secret = service.create_table("montones", "Friday", 100, {})
        service.join(table.code, "Ana")
    browser = browser_session.browser_type.launch(
        executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", *flags]
    )
    try:
        context = browser.new_context(viewport=TV, locale="en-GB")
        context.add_init_script(NOTE_AUDIO)
        tv = context.new_page()
        tv.goto(f"{base}/t/{table.code}/tv")
        expect(tv.locator("body")).to_have_attribute("data-audio", state)
        note = tv.get_by_text(NOTE)
        if state == "running":
            expect(note).to_be_hidden()
        else:
            expect(note).to_be_visible()
            box = note.bounding_box()
            assert box["height"] <= 60, box  # one line above the felt, not a banner
    finally:
        browser.close()
