"""Screen sizes and screenshots for the browser tests (a module: every test folder has a conftest)."""

import re
from pathlib import Path

from playwright.sync_api import expect

# Not test-results/: pytest-playwright empties that folder at the start of every run.
SCREENS = Path(__file__).resolve().parents[2] / "screenshots"  # the checkout's
PHONE = {"width": 390, "height": 844}
TV = {"width": 1920, "height": 1080}

# What the TV shows after a hand's reveal, at most, in ms: a moment (a Monte Carlo landed, a bank
# broken, a big win), then 4 s in the standings board for its 8 s (templates/tv/_party.html).
# A TV comes to rest that long after its reveal's last card.
AFTER_THE_REVEAL = 4_000 + 8_000


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


def host_table(chromium, base, **fields):
    """The host's phone creates a table on the lobby's form, each field filled by its label (True
    ticks a box): the host's page and the table's code."""
    page = chromium.new_context(viewport=PHONE).new_page()
    page.goto(base + "/?lang=en")
    for label, value in fields.items():
        # exact: "Monte" is also in "Monte Bank", "Bank size" in "Bank size offered"
        if value is True:
            page.get_by_label(label, exact=True).check()
        else:
            page.get_by_label(label, exact=True).fill(value)
    page.get_by_role("button", name="Create the table").click()
    expect(page.get_by_text("Your host link")).to_be_visible()
    return page, re.search(r"/t/([A-Z]{4})/host", page.url).group(1)


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


# While the TV plays a hand's reveal, a phone says to watch it and keeps the player's result to
# itself until the TV shows it (issue 28). The reveal can be short (Monte Bank's first card is
# marked 500 ms in), so nothing is asked of a phone at a moment: each screen notes, from before
# the banker's tap, what it shows and when, and the notes are compared once the reveal is done.
# Date.now() is one clock for all: every page is in the one browser, on the one machine.

# A punter's phone notes, each time one changes, whether "Watch the TV", its result and its bar
# can be seen, and what its chips say. It looks in the frame about to be painted after a change:
# a region swapped in is held back by show.js in the same task, and a look between the two would
# see a result nobody could. It looks every 100 ms too, should frames be few.
PHONE_NOTES = """() => {
  if (window.stopNotes) window.stopNotes();
  const notes = window.notes = {watch: [], result: [], bar: [], chips: [], felt: null, own: null};
  const last = {};
  const note = (what, value) => {
    if (last[what] !== value) { last[what] = value; notes[what].push({at: Date.now(), value}); }
  };
  const seen = (selector) => {
    const el = document.querySelector(selector);
    return !!el && el.checkVisibility({visibilityProperty: true});
  };
  const look = () => {
    note("watch", seen("#status [data-watch]"));
    note("result", seen("#status .status__result"));
    note("bar", seen("#bar"));
    // Held, my chips show as a copy of what they were, the new ones hidden (show.js).
    const chips = [...document.querySelectorAll("#status .status__chips")].find((el) => el.checkVisibility());
    note("chips", chips ? chips.textContent : null);
  };
  let asked = false;
  const soon = () => {
    if (!asked) { asked = true; requestAnimationFrame(() => { asked = false; look(); }); }
  };
  // When the hand came: its felt (whose coming starts the phone's reveal clock) and my regions.
  const felt = () => document.getElementById("felt"), own = () => document.getElementById("seat_version");
  const before = {felt: felt() && felt().dataset.reveal, own: own() && own().dataset.v};
  const came = () => {
    const reveal = felt() && felt().dataset.reveal, version = own() && own().dataset.v;
    if (!notes.felt && reveal && reveal !== before.felt) notes.felt = Date.now();
    if (!notes.own && version && version !== before.own) notes.own = Date.now();
  };
  const observer = new MutationObserver(() => { came(); soon(); });
  observer.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  const timer = window.setInterval(look, 100);
  window.stopNotes = () => { observer.disconnect(); window.clearInterval(timer); };
  look();
}"""

# The TV notes when the hand came (its felt, which plays the reveal) and when each part of a
# punter's result showed: ``results`` is {name: [selector, the text it starts with or null]},
# the parts being those with a data-at (when they are due, in ms from the felt's coming).
# window.told(name) is when the TV showed that punter's last part: a part show.js plays (it has a
# data-rv) when it was given is-shown; another (a Monte Bank mark, which CSS delays from when the
# felt is drawn) when it is due.
TV_NOTES = """(results) => {
  if (window.stopNotes) window.stopNotes();
  const felt = () => document.getElementById("felt");
  const before = felt() && felt().dataset.reveal;
  const notes = window.notes = {came: null, shown: {}};
  const parts = (name) => {
    const [selector, text] = results[name];
    return [...document.querySelectorAll(selector)]
      .filter((el) => el.dataset.at && (!text || el.textContent.trim().startsWith(text)));
  };
  const observer = new MutationObserver(() => {
    const now = Date.now();
    const reveal = felt() && felt().dataset.reveal;
    if (notes.came === null && reveal && reveal !== before) notes.came = now;
    for (const name of Object.keys(results)) {
      const shown = notes.shown[name] = notes.shown[name] || {};
      for (const el of parts(name)) {
        // Noted once: a region swapped in again mid-reveal shows its parts again.
        if (el.classList.contains("is-shown") && !(el.dataset.at in shown)) shown[el.dataset.at] = now;
      }
    }
  });
  observer.observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ["class"]});
  window.stopNotes = () => observer.disconnect();
  window.told = (name) => {
    const last = parts(name).sort((a, b) => Number(a.dataset.at) - Number(b.dataset.at)).pop();
    if (!last) return null;
    if (last.dataset.rv) return notes.shown[name][last.dataset.at] ?? null;
    return notes.came === null ? null : notes.came + Number(last.dataset.at);
  };
}"""

# How much sooner than the TV a phone may show a result. Each screen times the reveal from when
# its own felt came (show.js), and the server writes the screens' streams one after another: a
# phone's can come before the TV's (by up to 400 ms seen here, the machine loaded), and is let
# be that much sooner, as measured. Besides that: timers fire late on a loaded machine, the TV's
# that shows a part as much as the phone's that lets the result go, and a phone's notes are
# taken at frames. A phone that did not wait shows its result as its regions come, mostly a
# second or more before the TV (Monte Bank marks its first card 500 ms in, Monte pays its first
# bet at 2.5 s), and never says to watch the TV.
SOONER = 250
CHANGES = ("watch", "result", "bar", "chips")  # what PHONE_NOTES notes as it changes


def note_the_reveal(tv, punters: dict) -> None:
    """Before the banker's tap: the TV and each punter's phone start their notes (TV_NOTES,
    PHONE_NOTES). ``punters``: {name: (phone, (selector, text))}, the selector of what on the TV
    is that punter's result and the text it starts with (None: any)."""
    tv.evaluate(TV_NOTES, {name: list(result) for name, (_phone, result) in punters.items()})
    for phone, _result in punters.values():
        phone.evaluate(PHONE_NOTES)


def waited_for_the_tv(tv, punters: dict) -> None:
    """Once the TV's reveal is done and each phone shows its result: no phone showed its
    punter's result, moved their chips or showed the bar again before the TV showed that result
    (SOONER ms aside); each said to watch the TV meanwhile; and each does show the result."""
    tv.wait_for_function("document.body.dataset.reveal === 'done'", timeout=10_000)
    shown = tv.evaluate("() => { window.stopNotes(); return window.notes; }")
    for name, (phone, _result) in punters.items():
        notes = phone.evaluate("() => { window.stopNotes(); return window.notes; }")
        told = tv.evaluate("(name) => window.told(name)", name)
        assert told and shown["came"] and notes["felt"] and notes["own"], f"{notes}\nTV: {shown}"
        lead = max(0, shown["came"] - notes["felt"])  # how much sooner the phone had the hand
        too_soon = told - lead - SOONER
        # What the phone showed, in ms from when the TV showed the result: for the messages.
        said = f"{name}'s phone, its stream {lead} ms ahead of the TV's: " + str(
            {what: [(n["at"] - told, n["value"]) for n in notes[what]] for what in CHANGES}
        )
        result = notes["result"]
        assert not result[0]["value"], f"a result showed before the banker's tap: {said}"
        assert result[-1]["value"], f"the result does not show: {said}"
        first = next(n["at"] for n in result if n["value"])
        assert first >= too_soon, f"the result showed {told - first} ms before the TV's: {said}"
        moved = [n for n in notes["chips"][1:] if n["at"] < too_soon]
        assert not moved, f"the chips moved before the TV showed the result: {said}"
        if notes["own"] >= too_soon:
            # The phone's own regions (a fetch of its own, after the felt) came only once the TV
            # had shown the result, as they can on a loaded machine: nothing was left to keep.
            continue
        hid = next((n["at"] for n in notes["bar"] if not n["value"]), None)
        assert hid is not None, f"the phone never hid the bar: {said}"
        back = [n for n in notes["bar"] if n["value"] and hid < n["at"] < too_soon]
        assert not back, f"the bar came back before the TV showed the result: {said}"
        watched = [n for n in notes["watch"] if n["value"] and n["at"] < first]
        assert watched, f"the phone never said to watch the TV: {said}"
