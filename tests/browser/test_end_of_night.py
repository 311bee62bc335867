"""The end of a night, in every game, through the real UI: every phone and the TV show the
standings and the night's story, and the host's "New night, same players" seats everyone again (and takes a watcher's phone to the
new night's watch page).

The hands before the end are played through the service layer on the server's own database
file (real rules, real ledger), so that each game's night has a story to tell; the end and the
new night are the host's taps, which the server pushes to the screens.
"""

import re

import pytest
from playwright.sync_api import expect

from montones import service
from montones.service import Actor
from tests.helpers.fit import FITS, FRAMES, ROWS
from tests.helpers.liveserver import database_app
from tests.helpers.screens import PHONE, TV, at_rest, join, screenshot, serious_violations

TIMEOUT = 15_000
HOST = Actor(is_host=True)
SMALL_PHONE = {"width": 360, "height": 800}


def montones_hand(code, seats):
    ana, ben, eva = (Actor(seat=seats[n]) for n in ("Ana", "Ben", "Eva"))
    service.act(code, ana, "offer", {"amount": 60})
    service.act(code, ben, "pass", {})
    service.act(code, eva, "pass", {})
    state = service.get_table(code).state
    service.act(code, Actor(seat=state["hand"]["cutter"]), "cut", {"position": 9})
    service.act(code, ana, "heaps", {"count": 4})
    service.act(code, ben, "bet", {"heap": 1, "amount": 20})
    service.act(code, eva, "against", {"heap": 2, "amount": 10})
    service.act(code, eva, "choose", {"heap": 4})
    service.act(code, ana, "close", {})


def rotation_hand(code, seats, put_up, bet, settle):
    """The games whose bank goes round: the host draws, the banker puts up, the deck is cut
    (a Monte Bank deal found void is dealt again), every punter bets ``bet`` and the banker
    settles (``settle``: the game's action)."""
    service.act(code, HOST, "draw", {})
    state = service.get_table(code).state
    banker = Actor(seat=state["banker"])
    service.act(code, banker, "bank", {"amount": put_up})
    state = service.get_table(code).state
    while state["phase"] != "betting":
        if state["phase"] == "cut":
            state = service.act(code, Actor(seat=state["cutter"]), "cut", {"position": 13}).state
        else:
            state = service.act(code, banker, "next", {}).state
    for seat in seats.values():
        if seat != state["banker"]:
            service.act(code, Actor(seat=seat), "bet", bet)
    service.act(code, banker, settle, {})


def monte_hand(code, seats):
    rotation_hand(code, seats, 40, {"layout": "top", "amount": 5}, "gate")


def monte_bank_hand(code, seats):
    bet = {"at": "ul", "bet_kind": "layout", "against": "", "side": "", "amount": 5}
    rotation_hand(code, seats, 100, bet, "close")


HANDS = {"montones": montones_hand, "monte": monte_hand, "monte_bank": monte_bank_hand}


@pytest.mark.parametrize("game", sorted(HANDS))
def test_a_night_ends_with_standings_and_story_everywhere_and_a_new_night_seats_everyone(
    chromium, server, game
):
    base, _process, folder, _port = server

    app = database_app(folder)
    with app.app_context():
        table, secret = service.create_table(game, "Last night", 200, {})
    code = table.code

    host_context = chromium.new_context(viewport=PHONE, locale="en-GB")
    host = host_context.new_page()
    host.goto(f"{base}/t/{code}/host/claim/{secret}")
    phones = {name: join(chromium, f"{base}/t/{code}/join", name) for name in ("Ana", "Ben", "Eva")}
    with app.app_context():
        seats = {name: seat for seat, name in _names(service.get_table(code)).items()}
        HANDS[game](code, seats)
        service.act(code, HOST, "top_up", {"seat": seats["Eva"], "amount": 50})
    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    watcher = chromium.new_context(viewport=PHONE, locale="en-GB").new_page()
    watcher.goto(f"{base}/t/{code}/watch")
    for phone in phones.values():
        phone.reload()

    # The host ends the night: every screen shows it, pushed.
    host.reload()
    host.get_by_role("button", name="End the night…").click()
    host.get_by_role("button", name="Yes, end the night").click()
    for screen in (*phones.values(), tv):
        expect(screen.locator("#felt .finale .final li")).to_have_count(3, timeout=TIMEOUT)
        expect(screen.locator("#felt .story")).to_contain_text("Boldest bet")
        expect(screen.locator("#felt .final")).to_contain_text("bought in 250")
        expect(screen.locator("#felt .chart__img")).to_be_visible()
    expect(phones["Ana"].locator("#felt .final li.is-mine")).to_contain_text("Ana")
    problems = []
    for phone in phones.values():
        at_rest(phone)
        problems += serious_violations(phone)
    screenshot(phones["Ben"], f"end-{game}-phone")
    phones["Ben"].set_viewport_size(SMALL_PHONE)
    assert phones["Ben"].evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(phones["Ben"], f"end-{game}-phone-360", full_page=True)
    at_rest(tv)
    problems += serious_violations(tv)
    screenshot(tv, f"end-{game}-tv")
    # The host lands on the standings, and goes back to the host page from there, where
    # top-up and send-away are gone.
    expect(host).to_have_url(f"{base}/t/{code}/standings")
    expect(host.get_by_role("link", name="History and download")).to_be_visible()
    screenshot(host, f"end-{game}-host-standings", full_page=True)
    host.get_by_role("link", name="Back to the host page").click()
    expect(host.get_by_role("button", name="Top up")).to_have_count(0)
    expect(host.get_by_role("button", name="Send away…")).to_have_count(0)
    problems += serious_violations(host)
    screenshot(host, f"end-{game}-host", full_page=True)
    assert not problems, problems

    # A new night with the same players: the host, every phone and the TV go to it.
    host.get_by_role("button", name="New night, same players…").click()
    host.get_by_role("button", name="Yes, start the new night").click()  # it asks first
    expect(host).not_to_have_url(re.compile(f"/t/{code}/"))
    new_code = re.search(r"/t/([A-Z]{4})/host", host.url).group(1)
    for name, phone in phones.items():
        expect(phone).to_have_url(f"{base}/t/{new_code}", timeout=TIMEOUT)
        expect(phone.locator("#status")).to_contain_text(name)
        expect(phone.locator("#status")).to_contain_text("200")
    expect(tv).to_have_url(f"{base}/t/{new_code}/tv", timeout=TIMEOUT)
    # A watcher's phone goes on to the new night's page for watching, not to its TV page.
    expect(watcher).to_have_url(f"{base}/t/{new_code}/watch", timeout=TIMEOUT)
    expect(watcher.locator("#players")).to_contain_text("Ana")
    for name in phones:
        expect(tv.locator("#players")).to_contain_text(name)
    with app.app_context():
        new = service.get_table(new_code)
        assert [p["chips"] for p in new.state["players"].values()] == [200, 200, 200]
        assert service.get_table(code).next_code == new_code
    screenshot(phones["Ben"], f"new-night-{game}-phone")


def _names(table) -> dict[str, str]:
    return {seat: p["name"] for seat, p in table.state["players"].items()}


# Names as long as the join form takes (24 letters), in each language's letters.
LONG = {
    "en": ("Christopher Montgomery", "Elizabeth Worthington", "Alexander Featherstone"),
    "es": ("María Ángeles de la Cruz", "Guadalupe Fernández Ruiz", "Jacinto Rodríguez Pérez"),
    "de": ("Hans-Joachim Zimmermann", "Bartholomäus Großmann", "Annemarie Schwarzkopf"),
    "ru": ("Александра Константинова", "Владимир Святославович", "Екатерина Владимировна"),
}
# Each row of the TV's ranking: its place, face, name and net on one line, the name on one line
# and whole (``whole``), or cut short with an ellipsis where its row has no room (eight letters'
# room at least), its title the name.
ONE_LINE = """(whole) => {
  const problems = [];
  for (const row of document.querySelectorAll("#felt .final > li")) {
    const parts = [".final__place", "svg.face", ".chip__name", ".chip__amount"].map((s) => row.querySelector(s));
    const name = parts[2], who = name.textContent.trim();
    const boxes = parts.map((el) => el.getBoundingClientRect());
    const middle = (r) => (r.top + r.bottom) / 2;
    for (const [i, r] of boxes.entries()) {
      if (boxes.some((s) => middle(s) < r.top || middle(s) > r.bottom)) { problems.push(`${who}: ${parts[i].className.baseVal ?? parts[i].className} not on the line`); break; }
    }
    const size = parseFloat(getComputedStyle(name).fontSize);
    if (boxes[2].height > size * 1.6) problems.push(`${who}: the name on ${Math.round(boxes[2].height / size)} lines`);
    if (name.scrollWidth > name.clientWidth + 1 && name.title !== who) problems.push(`${who}: cut, and no title says it`);
    if (name.scrollWidth > name.clientWidth + 1 && (whole || name.clientWidth < size * 8)) problems.push(`${who}: cut short (${name.clientWidth}px of ${name.scrollWidth})`);
  }
  return problems;
}"""


LOADED = "() => [...document.querySelectorAll('#felt img')].every((img) => img.complete && img.naturalWidth)"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("language", ["en", "es", "de", "ru"])
def test_the_tv_s_ranking_keeps_each_player_to_one_line(chromium, server, language):
    """fits36: on the TV's end of the night a player's net went onto a line of its own, and a
    very long name below its face. Two, seven and twelve players of names 21-24 letters long,
    nets of five figures ("+12 345"): each row is its place, face, name and net on one line, the
    name whole (an ellipsis only where a row has no room, and then its title says the name)."""
    base, _process, folder, _port = server
    app = database_app(folder)
    names = [f"{name}"[:24] for name in LONG[language]]
    held = []  # the chart's requests, held (below)
    for players in (2, 7, 12):
        with app.app_context():
            table, _secret = service.create_table("montones", "Noche", 50_000, {})
            code = table.code
            seats = [
                service.join(code, f"{names[n % 3]}"[: 24 - len(str(n))] + str(n))[0].seat
                for n in range(players)
            ]
            banker, punters = Actor(seat=seats[0]), [Actor(seat=s) for s in seats[1:]]
            service.act(code, banker, "offer", {"amount": 50_000})
            for punter in punters:
                service.act(code, punter, "pass", {})
            state = service.get_table(code).state
            service.act(code, Actor(seat=state["hand"]["cutter"]), "cut", {"position": 9})
            service.act(code, banker, "heaps", {"count": 4})
            for n, punter in enumerate(punters):
                service.act(code, punter, "bet", {"heap": 1 + n % 3, "amount": 12_345 + 1_111 * n})
            service.act(code, punters[0], "choose", {"heap": 4})
            service.act(code, banker, "close", {})
            service.host_action(code, HOST, "tv_language", language)
            service.host_action(code, HOST, "end")
        tv = chromium.new_context(viewport=TV, locale=language).new_page()
        # The chart comes once the rest is laid out and fitted, as a slow drawing's does: it
        # takes its size then (a German finale once ran its story off the felt).
        held.clear()
        tv.route("**/standings.svg*", lambda route: held.append(route))
        tv.goto(f"{base}/t/{code}/tv", wait_until="domcontentloaded")
        expect(tv.locator("#felt .final > li")).to_have_count(players, timeout=TIMEOUT)
        at_rest(tv)
        tv.evaluate(FRAMES)
        assert held, "the chart was not asked for"
        for route in held:
            route.continue_()
        tv.wait_for_function(LOADED, timeout=TIMEOUT)
        tv.evaluate(FRAMES)
        screenshot(tv, f"end-ranking-{language}-{players}-tv")
        assert re.search(r"[+-]\d{2}\D\d{3}\n", tv.locator("#felt .final").inner_text())
        # One column up to six players, each name whole; two of seven or more, where a name of
        # 24 letters beside a net of five figures is more than half the felt.
        assert tv.evaluate(ONE_LINE, players < 7) == [], players
        cut = [
            p
            for p in tv.evaluate(FITS, True)
            if not (players >= 7 and "chip__name" in p and "its text cut" in p)
        ]
        assert cut == [], players
        assert tv.evaluate(ROWS)["problems"] == [], players
        tv.context.close()
