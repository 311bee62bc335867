"""The TV's boxes fit again when something in them shows through a class (fit.js): a reveal's
verdicts and payments appear through show.js's .is-shown, and a felt fitted before they showed
ran what is under them (the deck's seal) past its edge."""

import re

from playwright.sync_api import expect

from tests.helpers.fit import FRAMES
from tests.helpers.screens import TV, host_table

SHOW = """() => new Promise((done) => {
  // What a reveal holds back (display: none until .is-shown), in one of the boxes fit.js fits.
  const box = document.querySelector(".tv-side > .players");
  const held = document.createElement("div");
  held.className = "reveal-hold";
  held.dataset.at = "0";
  box.append(held);
  const frames = (n, then) => (n ? requestAnimationFrame(() => frames(n - 1, then)) : then());
  frames(3, () => {
    // A zoom no fit gives (through the CSSOM: the CSP allows it): a fit sets its own or none.
    held.style.zoom = "0.77";
    held.classList.add("is-shown");
    frames(3, () => done(held.style.zoom));
  });
})"""


def test_a_box_fits_again_when_a_class_shows_what_it_held(chromium, server):
    base, _process, _folder, _port = server
    _host, code = host_table(chromium, base, **{"Table name": "Refit"})
    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    expect(tv.locator(".tv-side > .players")).to_be_visible()
    assert tv.evaluate(SHOW) != "0.77", "no fit after .is-shown showed what a box held"


# The players' box made to need a fit (a dozen lines more, through the DOM: the CSP
# refuses a style attribute), fitted; then the stream's merge of the box as the server draws
# it now, the same lines with it: an update that changes no word, only attributes (a new
# version the TV shows as it was). What the box holds, after it, within the box.
MERGE_UNCHANGED = """async (selector) => {
  const frames = (n) => new Promise((done) => {
    const next = (k) => (k ? requestAnimationFrame(() => next(k - 1)) : done());
    next(n);
  });
  const felt = document.querySelector(selector);
  const lines = 12;
  const probe = "<div class='probe'>" + "<p>A line that needs room</p>".repeat(lines) + "</div>";
  felt.insertAdjacentHTML("beforeend", probe);
  await frames(3);
  const fitted = [felt.dataset.fit, [...felt.children].map((el) => el.style.zoom).join(",")];
  const page = new DOMParser().parseFromString(await (await fetch(location.href)).text(), "text/html");
  const drawn = page.querySelector(selector);
  drawn.insertAdjacentHTML("beforeend", probe);
  Idiomorph.morph(felt, drawn.outerHTML);
  await frames(3);
  const box = felt.getBoundingClientRect(), last = felt.querySelector(".probe p:last-child").getBoundingClientRect();
  return {fitted, after: [felt.dataset.fit, [...felt.children].map((el) => el.style.zoom).join(",")],
          past: last.bottom - box.bottom};
}"""


def test_a_fitted_box_stays_fitted_when_the_stream_merges_it_unchanged(chromium, server):
    """Issue 36 (a flake of test_show's two heaps): idiomorph takes away the attributes the
    server's HTML does not have, fit.js's zoom and data-fit among them, and an update that
    changes nothing the observer watches left the felt unfitted: a 33-card heap's pile ran the
    deck's seal past the felt's edge. A box's zoom and dense layout (the players', here: the
    lobby shows no felt) stay through such a merge, and what it holds stays inside it."""
    base, _process, _folder, _port = server
    _host, code = host_table(chromium, base, **{"Table name": "Merge"})
    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    box = ".tv-side > .players"
    expect(tv.locator(box)).to_be_visible()
    found = tv.evaluate(MERGE_UNCHANGED, box)
    assert found["fitted"][0] == "dense" and found["fitted"][1].strip(","), found  # it needed a fit
    assert found["after"] == found["fitted"], found
    assert found["past"] <= 0.5, found


# The players' box made to need a fit, as above (a probe of lines added through the DOM).
NEED_A_FIT = """(selector) => document.querySelector(selector).insertAdjacentHTML("beforeend",
  "<div class='probe'>" + "<p>A line that needs room</p>".repeat(14) + "</div>")"""
# A zoom set on the probe as the browser computes it at once (as fit.js measures each zoom it
# tries); the zoom fit.js gave it is put back.
ZOOMED_AT_ONCE = """() => {
  const part = document.querySelector(".probe"), set = part.style.zoom;
  part.style.zoom = "0.5";
  const computed = getComputedStyle(part).zoom;
  part.style.zoom = set;
  return computed;
}"""
# How far the probe's last line ends past the box's bottom.
PAST = """(selector) => document.querySelector(".probe p:last-child").getBoundingClientRect().bottom
  - document.querySelector(selector).getBoundingClientRect().bottom"""


def test_a_box_fits_without_motion(chromium, server):
    """Issue 36: a browser asking for reduced motion made every change of style a transition
    (the usual snippet's transition-duration of 0.01ms on every element, whose transitions
    cover "all" properties), fit.js's zoom too. Each zoom it tried was measured at the one
    before, and 8 of 72 steps of random Spanish tables left the deck's seal under a Montones
    felt's edge. Without motion a zoom set is the zoom drawn at once, and a box that needs a
    fit is fitted."""
    base, _process, _folder, _port = server
    _host, code = host_table(chromium, base, **{"Table name": "Still"})
    tv = chromium.new_context(viewport=TV, locale="en-GB", reduced_motion="reduce").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    box = ".tv-side > .players"
    expect(tv.locator(box)).to_be_visible()
    tv.evaluate(NEED_A_FIT, box)
    expect(tv.locator(".probe")).to_have_attribute("style", re.compile("zoom"))  # fitted
    assert tv.evaluate(ZOOMED_AT_ONCE) == "0.5"
    tv.evaluate(FRAMES)
    assert tv.evaluate(PAST, box) <= 0.5
