"""Whether a screen kept up to date by its stream shows what a fresh load of its page shows
(tests/browser/test_same_as_a_fresh_load.py plays random nights with it; the scripted nights
compare at their steps)."""

SETTLE = 10.0  # seconds a screen has to show what a fresh load shows

# Each region as markup, without the white space between tags (a part inserted in a list comes
# without the space the template wrote before it) and with runs of white space as one (the
# stream sends each update on one line); a clock without the time left the page counts down
# from its deadline (data-until, which is compared), a second apart on two pages; the choices
# of a phone's #intent (its stake, its kind of bet: a fresh page starts at the first; the amount
# it typed, which the answer to a refused tap gives back to be mended) and the
# notice its bar says of a tap refused (a fresh page made none); a reveal's
# steps without the marks of how far the page has played it (a fresh page plays it again), and
# a result without its flash (played once, with its sound, by a page that saw it come); every
# element's attributes in one order (idiomorph, merging an element, may set one after the rest).
REGIONS = """(ids) => ids.map((id) => {
    const found = document.getElementById(id);
    if (!found) { return null; }
    const el = found.cloneNode(true);
    el.querySelectorAll("time[data-until]").forEach((clock) => { clock.textContent = ""; });
    el.querySelectorAll("#intent input").forEach((input) => { input.removeAttribute("checked"); });
    el.querySelectorAll('#intent input[type="text"]').forEach((input) => { input.removeAttribute("value"); });
    el.querySelectorAll(".notice").forEach((notice) => { notice.remove(); });
    el.querySelectorAll(".flash").forEach((result) => { result.classList.remove("flash"); });
    el.querySelectorAll("[data-rv]").forEach((step) => {
      step.classList.remove("is-shown");
      step.removeAttribute("data-scheduled");
      step.removeAttribute("data-noted");
      step.querySelectorAll(".flip").forEach((flip) => { flip.classList.remove("is-turned"); });
    });
    [el, ...el.querySelectorAll("*")].forEach((node) => {
      const attributes = Array.from(node.attributes, (a) => [a.name, a.value]).sort();
      attributes.forEach(([name]) => node.removeAttribute(name));
      attributes.forEach(([name, value]) => node.setAttribute(name, value));
    });
    return el.outerHTML.replace(/>\\s+</g, "><").replace(/\\s+/g, " ");
})"""
PHONE_REGIONS = ["tap", "felt", "odds", "status", "bar"]
TV_REGIONS = ["tv_status", "felt", "players", "recent"]


def fresh(screens: dict) -> dict:
    """The regions of every screen (``{name: (page, ids)}``) as a new page of the same browser
    (the same seat) shows them: all loaded at once, so a step costs one load, not one a screen."""
    others = {}
    try:
        for name, (page, _ids) in screens.items():
            others[name] = page.context.new_page()
            others[name].goto(page.url, wait_until="commit")
        found = {}
        for name, (_page, ids) in screens.items():
            others[name].wait_for_load_state("load")
            found[name] = others[name].evaluate(REGIONS, ids)
        return found
    finally:
        for other in others.values():
            other.close()


def same_as_fresh(screens: dict) -> str | None:
    """Wait until every screen (``{name: (page, ids)}``) shows what a fresh load shows; each
    last difference if some never does."""
    waiting = dict(screens)
    clock = next(iter(screens.values()))[0]
    deadline = clock.evaluate("Date.now()") + SETTLE * 1000
    while True:
        want = fresh(waiting)
        problems = []
        for name, (page, ids) in list(waiting.items()):
            have = page.evaluate(REGIONS, ids)
            if have == want[name]:
                del waiting[name]
                continue
            for region, mine, theirs in zip(ids, have, want[name], strict=True):
                if mine != theirs:
                    problems.append(f"{name} #{region}:\n  shown: {mine}\n  fresh: {theirs}")
        if not waiting:
            return None
        if clock.evaluate("Date.now()") > deadline:
            return "\n".join(problems)
        clock.wait_for_timeout(300)


def every_screen_as_fresh(screens: dict):
    """Every live region of every screen (``{name: page}``, the TV's name "tv") as a fresh load
    of its page shows it: for the scripted nights, at their steps."""
    problem = same_as_fresh(
        {
            name: (page, TV_REGIONS if name == "tv" else PHONE_REGIONS)
            for name, page in screens.items()
        }
    )
    assert problem is None, problem


def slow_network(page):
    """A phone on a network so slow that its stream is still being written an update when the
    next versions come: the server sends it only the newest once it has taken that one."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 300, "downloadThroughput": 3000, "uploadThroughput": 3000},
    )
