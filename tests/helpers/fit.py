"""Whether a screen fits what it shows: the TV's words large enough to read from the sofa and
none cut off or drawn over another (``check_tv``), the phone's bar leaving the table to the
table (``check_phone``), and nothing running over a screen's edges (``OVERFLOW``)."""

from tests.helpers.screens import PHONE, at_rest

# What the room must read on the TV: nothing of it under 24 px, none of it cut off.
IMPORTANT = (
    "#felt .heap__size, #felt .heap__no, #felt .badge, #felt .chip__name, #felt .chip__amount,"
    " #felt .chip__kind, #felt .res, #felt .heap__verdict, #felt .seal, #players .paid li,"
    " #players .player__name, #players .player__chips, .tv-status__line, .tv-status__bank,"
    " .join-corner__code, .join-corner__url, .lobby__title, .finale__winner, .final .chip,"
    " #felt .heap__card, #felt .layout__cards, #felt .monte__gate"
)
MEASURE = """(selector) => {
  const screen = {left: 0, top: 0, right: innerWidth, bottom: innerHeight};
  const inside = (r, box) => r.left >= box.left - 0.5 && r.top >= box.top - 0.5
    && r.right <= box.right + 0.5 && r.bottom <= box.bottom + 0.5;
  const problems = [];
  let seen = 0;
  for (const el of document.querySelectorAll(selector)) {
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    seen += 1;
    const r = el.getBoundingClientRect(), size = parseFloat(getComputedStyle(el).fontSize);
    const what = `${el.className || el.tagName} "${el.textContent.trim().slice(0, 30)}"`;
    if (size < 24) problems.push(`${what}: ${size}px`);
    const box = el.closest(".heap, .layout") || el.closest("#felt");
    if (!inside(r, screen) || (box && !inside(r, box.getBoundingClientRect()))) problems.push(`${what}: cut off`);
  }
  // Nothing drawn over anything else (a chip over a card, a verdict over a chip).
  const shown = [...document.querySelectorAll(selector)].filter((el) => el.checkVisibility());
  for (const [i, a] of shown.entries()) {
    for (const b of shown.slice(i + 1)) {
      if (a.contains(b) || b.contains(a)) continue;
      const r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
      if (r.left < s.right - 1 && s.left < r.right - 1 && r.top < s.bottom - 1 && s.top < r.bottom - 1)
        problems.push(`"${a.textContent.trim().slice(0, 20)}" over "${b.textContent.trim().slice(0, 20)}"`);
    }
  }
  return {seen, problems};
}"""


def check_tv(tv, least):
    # Measure what the room reads once it stands still: a verdict that is still sliding in (its
    # "appear" animation, later under load) is not cut off.
    # And once fit.js has fitted the boxes to what the last swap brought (it does so in the
    # next frame after a change, later under load): the page at rest, then two frames.
    tv.evaluate("Promise.all(document.getAnimations().map((a) => a.finished))")
    at_rest(tv)
    tv.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    shown = tv.evaluate(MEASURE, IMPORTANT)
    assert shown["seen"] >= least, shown
    assert not shown["problems"], shown["problems"]


def check_phone(phone, parts="#felt .heap", most=1 / 3):
    """The bar takes at most a third of the screen (``most``), and every heap (the banker's too),
    or each layout and the gate, can be scrolled to where neither the bar nor the status covers it."""
    share = (
        phone.evaluate("document.getElementById('bar').getBoundingClientRect().height")
        / PHONE["height"]
    )
    assert share <= most, f"the bar takes {share:.0%} of the screen"
    print(f"the bar takes {share:.1%} of the screen")
    covered = phone.evaluate(
        """(parts) => [...document.querySelectorAll(parts)].map((heap, i) => {
          const status = document.getElementById("status").getBoundingClientRect().height;
          scrollTo(0, heap.getBoundingClientRect().top + scrollY - status);
          const r = heap.getBoundingClientRect(), bar = document.getElementById("bar").getBoundingClientRect();
          return r.bottom <= bar.top + 0.5 && r.top >= status - 0.5 ? null : `${parts} ${i + 1}`;
        }).filter(Boolean)""",
        parts,
    )
    assert not covered, f"covered by the bar or the status: {covered}"
    phone.evaluate("scrollTo(0, 0)")


# What overflows: the page wider than the screen, or a control (or its words) past the
# screen's edges or its own box.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const found = [];
  if (document.documentElement.scrollWidth > width) {
    found.push(`the page is ${document.documentElement.scrollWidth}px wide`);
  }
  const controls = "button, a.btn, input, select, label, summary, .chip, .heap, .layout, "
    + ".notice, .waiting, .turn, .status__line, .tv-status__line, .tv-status__hint, h1, h2";
  for (const el of document.querySelectorAll(controls)) {
    const box = el.getBoundingClientRect();
    if (!box.width || getComputedStyle(el).visibility === "hidden") continue;
    const what = `${el.tagName.toLowerCase()}.${el.className} "${(el.innerText || el.value || "").slice(0, 40)}"`;
    if (box.left < -1 || box.right > width + 1) {
      found.push(`${what} runs from ${Math.round(box.left)} to ${Math.round(box.right)}`);
    } else if (el.tagName !== "INPUT" && el.tagName !== "SELECT" && el.scrollWidth > el.clientWidth + 1
               && getComputedStyle(el).overflowX !== "visible") {
      found.push(`${what} is cut: ${el.scrollWidth}px in ${el.clientWidth}px`);
    }
  }
  return found;
}"""


# Every word the TV shows that is broken across lines (chips36: the bet chips beside a heap's
# card broke "Maximilia / no", "Александ / ра"), or runs past the right edge of its heap. A word
# is a run of letters, digits and their marks, so a line may break at a space, a hyphen or a
# slash (an address) but never inside a word, whatever the CSS allows: each word's rectangles
# (Range.getClientRects) lie on one line. What is hidden (display, visibility) is not read.
WORDS_BROKEN = """(root) => { const out = [];
  const start = root ? document.querySelector(root) : document.body;
  const walk = document.createTreeWalker(start, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    const parent = node.parentElement;
    if (!parent || !parent.checkVisibility({visibilityProperty: true})) continue;
    const heap = parent.closest(".heap");
    const edge = heap ? heap.getBoundingClientRect().right : Infinity;
    for (const word of node.textContent.matchAll(/[\\p{L}\\p{N}\\p{M}]{2,}/gu)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0);
      if (rects.some((r) => Math.abs(r.top - rects[0].top) > rects[0].height / 2)) out.push(`${word[0]}: two lines`);
      else if (rects.some((r) => r.right > edge + 1)) out.push(`${word[0]}: past its heap`);
    }
  }
  return out; }"""
