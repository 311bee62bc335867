"""The host page waits for the TV's reveal as the TV's own regions do (issue 36): a just-turned
coup's page carries the reveal's clock, the same as the TV's felt, and marks what tells the
outcome (its line, the bank, each player's chips) to be held until the reveal reaches it; and
every live page says how old its version is, so that one drawn after a reveal shows it over."""

import re

from montones import service
from tests.helpers.nights import MonteNight


def attribute(html, element, name):
    found = re.search(rf"<{element}\b[^>]*\s{name}=\"([^\"]*)\"", html)
    return found.group(1) if found else None


def test_the_host_page_times_a_turned_coup_by_the_tvs_clock(app):
    night = MonteNight(app, "Ana", "Ben", "Eva")
    night.betting()
    night.tap(night.punters[0], "top", 5)
    night.do(night.banker, "gate", stage=night.stage())
    with app.app_context():
        version = service.get_table(night.code).version
    host = night.host.get(f"/t/{night.code}/host").get_data(as_text=True)
    tv = app.test_client().get(f"/t/{night.code}/tv").get_data(as_text=True)

    clock = re.search(r"<i hidden data-reveal-clock[^>]*>", host)
    assert clock, "no reveal clock on the host page"
    assert attribute(clock.group(0), "i", "data-reveal") == str(version)
    assert attribute(clock.group(0), "i", "data-done") == attribute(tv, "section", "data-done")
    assert re.search(r'<p class="host-now"[^>]*data-keep="host-now"', host)
    # Every player's chips are inside what is held.
    for seat in night.seats.values():
        held = rf'data-keep="host-{seat}">(?:(?!</p>).)*<span data-chips='
        assert re.search(held, host, re.S), seat

    # Every live page says which version it was drawn at and how long ago that was made.
    for html in (host, tv):
        assert attribute(html, "body", "data-page-version") == str(version)
        assert 0 <= int(attribute(html, "body", "data-age")) < 60_000

    # The next coup's page has nothing to time.
    night.do(night.banker, "next", stage=night.stage())
    assert "data-reveal-clock" not in night.host.get(f"/t/{night.code}/host").get_data(as_text=True)
