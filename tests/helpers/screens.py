"""Screen sizes and screenshots for the browser tests (a module: every test folder has a conftest)."""

import re
from pathlib import Path

from playwright.sync_api import expect

# Not test-results/: pytest-playwright empties that folder at the start of every run.
SCREENS = Path(__file__).resolve().parents[2] / "screenshots"  # the checkout's
PHONE = {"width": 390, "height": 844}
TV = {"width": 1920, "height": 1080}


# A screen at rest: no htmx request, swap or settle under way, show.js has scheduled every part of
# the reveal it was given and played them all (body[data-reveal] is "done"), and every CSS
# animation and transition has finished (one still waiting out its delay counts as running).
AT_REST = """() => {
  if (document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling")) return false;
  if (document.body.dataset.reveal === "playing") return false;
  if (document.querySelector("script[src*='/show.js']")
      && document.querySelector("[data-at][data-rv]:not([data-scheduled])")) return false;
  return document.getAnimations().every((a) => a.playState === "finished");
}"""


def at_rest(page, timeout: float = 10_000) -> None:
    """Wait, at most ``timeout`` ms, for the page to stop moving (see AT_REST): what a screenshot
    taken after a swap or a reveal should show."""
    page.wait_for_function(AT_REST, timeout=timeout)


def screenshot(page, name: str, **options) -> Path:
    """The page photographed to screenshots/<name>.png (``options``: Playwright's own)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}.png"
    page.screenshot(path=str(path), **options)
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


AXE = Path(__file__).resolve().parents[1] / "browser" / "vendor" / "axe-core-4.14.1.min.js"


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now (axe is injected by
    the test, never served by the app: evaluated through the browser's protocol, which the page's
    CSP does not govern, where a script tag would be refused)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate("() => { " + AXE.read_text() + "\n}")
        assert page.evaluate("typeof window.axe !== 'undefined'"), "axe-core did not load"
    found = page.evaluate(
        """async () => {
          // Judge the page as it rests: colours mid-fade are not what anyone reads.
          const still = Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));
          await Promise.race([still, new Promise((done) => setTimeout(done, 3000))]);
          return (await axe.run(document, {resultTypes: ["violations"]})).violations
            .filter((v) => v.impact === "serious" || v.impact === "critical")
            .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ") + (n.any[0] ? ` [${n.any[0].message}]` : "")).join(", ")}`);
        }"""
    )
    return [f"{page.url}: {line}" for line in found]


NARROW = {"width": 360, "height": 800}  # the narrowest phone the app is laid out for

# Where the guide and its drawing lie: the page's width, the drawing's right edge, the guide's
# place (static while the drawing shows) and its bottom against the bar's top, the felt's bottom
# against the guide's top (all in the viewport, after show.js has scrolled the drawing into sight).
GUIDE_BOXES = """() => {
  const box = (id) => document.getElementById(id).getBoundingClientRect();
  const guide = box("guide"), pic = box("guide-pic"), bar = box("bar"), felt = box("felt");
  return {page: document.documentElement.scrollWidth, view: window.innerWidth, right: pic.right,
          place: getComputedStyle(document.getElementById("guide")).position,
          gap: bar.top - guide.bottom, over: felt.bottom - guide.top};
}"""


def guide_drawing(page, name: str) -> list[str]:
    """Open the guide's drawing ("Show me") at the page's size and at 360 x 800, check that it
    fits (no sideways scroll) and covers neither the bar nor the felt, photograph it at both
    sizes (screenshots/<name>-390.png, -360.png), close it; the cards it draws, by code."""
    size = page.viewport_size
    show = page.locator("#guide [data-guide-show]")
    pic = page.locator("#guide-pic")
    for width, height in ((size["width"], size["height"]), (NARROW["width"], NARROW["height"])):
        page.set_viewport_size({"width": width, "height": height})
        show.click()
        expect(pic).to_be_visible()
        expect(show).to_have_attribute("aria-expanded", "true")
        boxes = page.evaluate(GUIDE_BOXES)
        assert boxes["page"] <= boxes["view"] == width, boxes
        assert boxes["right"] <= width, boxes
        assert boxes["place"] == "static" and boxes["gap"] >= 0 and boxes["over"] <= 0, boxes
        screenshot(page, f"{name}-{width}")
        show.click()
        expect(pic).to_be_hidden()
    page.set_viewport_size(size)
    return [c.get_attribute("data-card") for c in pic.locator("[data-card]").all()]
