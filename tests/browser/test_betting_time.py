"""The betting time on the screens (issue 40): the host sets it from the host page; once the heaps
are made the TV counts it down large and the banker's phone counts it down too, and at zero the
server's scheduler closes the bets as the banker's close would, nobody tapping. The TV and the
banker's phone are photographed counting (/tmp/shots/party40/)."""

import re
import time
from pathlib import Path

from playwright.sync_api import expect

from montones import service
from montones.service import Actor
from tests.helpers.liveserver import database_app
from tests.helpers.screens import TV, join

SHOTS = Path("/tmp/shots/party40")
SECONDS = 20  # the shortest the host page offers


def test_the_tv_and_the_bankers_phone_count_down_and_bets_close_at_zero(chromium, server):
    base, _process, folder, _port = server
    app = database_app(folder)
    with app.app_context():
        table, secret = service.create_table("montones", "Friday", 100, {})
    code = table.code
    host = chromium.new_context(viewport={"width": 390, "height": 844}, locale="en-GB").new_page()
    host.goto(f"{base}/t/{code}/host/claim/{secret}")
    host.get_by_label("Betting time").select_option(str(SECONDS))
    host.locator("form.betting-time button").click()
    expect(host.get_by_label("Betting time")).to_have_value(str(SECONDS))

    phones = {name: join(chromium, f"{base}/t/{code}/join", name) for name in ("Ana", "Ben", "Eva")}
    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    with app.app_context():
        seats = {p["name"]: pid for pid, p in service.get_table(code).state["players"].items()}
        service.act(code, Actor(seat=seats["Ana"]), "offer", {"amount": 40})
        service.act(code, Actor(is_host=True), "close_auction", {})
        cutter = service.get_table(code).state["hand"]["cutter"]
        service.act(code, Actor(seat=cutter), "cut", {"position": 9})
        service.act(code, Actor(seat=seats["Ana"]), "heaps", {"count": 3})
        opened = time.time()
        due = service.get_table(code).state["betting_since"] + SECONDS

    big = tv.locator(".tv-countdown--bets .clock")
    expect(big).to_have_text(re.compile(r"^0:(1\d|20)$"))
    size = big.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
    assert size >= 96, size  # large: read from the sofa
    banker = phones["Ana"].locator("#status .countdown--bets .clock")
    expect(banker).to_have_text(re.compile(r"^0:(1\d|20)$"))
    assert abs(int(big.get_attribute("data-until")) - int(due)) <= 1
    with app.app_context():
        service.act(code, Actor(seat=seats["Ben"]), "bet", {"heap": 1, "amount": 5})
        service.act(code, Actor(seat=seats["Eva"]), "choose", {"heap": 3})
    SHOTS.mkdir(parents=True, exist_ok=True)
    tv.screenshot(path=str(SHOTS / "betting-time-tv.png"))
    phones["Ana"].screenshot(path=str(SHOTS / "betting-time-banker.png"))

    # Nobody taps close: at zero the server closes the bets, and the countdowns go.
    expect(big).to_have_count(0, timeout=(SECONDS + 10) * 1000)
    closed = time.time()
    assert closed >= due - 0.5, (closed, due)
    expect(banker).to_have_count(0, timeout=5_000)
    with app.app_context():
        state = service.get_table(code).state
        assert state["phase"] == "settled" and state["hand"]["result"] is not None
    assert closed - opened <= SECONDS + 5
