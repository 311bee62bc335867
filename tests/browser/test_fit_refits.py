"""The TV's boxes fit again when something in them shows through a class (fit.js): a reveal's
verdicts and payments appear through show.js's .is-shown, and a felt fitted before they showed
ran what is under them (the deck's seal) past its edge."""

from playwright.sync_api import expect

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
