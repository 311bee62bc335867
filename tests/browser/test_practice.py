"""A practice table through the real UI: one tap on the home page, and a hand of each game is
played to its result by a phone and three computer players, nothing else open."""

import re
import time

import pytest
from playwright.sync_api import expect

from tests.helpers.screens import PHONE, at_rest, guide_drawing, screenshot, serious_violations

TIMEOUT = 60
# The phone plays at a person's pace (it waits 2.5 s after each tap), so its computer banker
# waits a person's time for its bet, as at a practice table (the test servers' banker waits 2 s):
# on a loaded machine the guided bet's window passed before the phone saw it, seven deals running.
SERVER_ENV = {"MONTONES_COMPUTER_PATIENCE": "12"}

# What the phone answers when the table waits for it (the bank is the computers' to take: it
# passes the auction; drawn for the first bank, it puts one up, deals and goes on).
ANSWERS = (
    "I don't want the bank",
    "Cut",
    "Put up the bank",
    "Turn the gate",
    "Bets are done: turn the cards",
    "Next coup",
    "Next deal",
)
# A banker's answers, given once a bet lies on the felt (the computers bet at a person's pace).
CLOSES = ("Turn the gate", "Bets are done: turn the cards")


@pytest.mark.parametrize(
    ("game", "title"), [("montones", "Montones"), ("monte", "Monte"), ("monte_bank", "Monte Bank")]
)
def test_one_tap_and_a_practice_hand_is_played_to_its_result(chromium, server, game, title):
    base, _process, _folder, _port = server
    phone = chromium.new_context(viewport=PHONE, locale="en-GB", has_touch=True).new_page()
    phone.goto(base + "/?lang=en")
    phone.locator("#practice-title").scroll_into_view_if_needed()
    if game == "montones":
        screenshot(phone, "practice-home")
    phone.get_by_role("button", name=title, exact=True).first.click()
    expect(phone.locator(".practice-note")).to_contain_text("you and three computer players")
    code = re.search(r"/t/([A-Z]{4})$", phone.url).group(1)
    expect(phone.locator("#status")).to_contain_text("Player")
    # No TV needed, but one can be opened: the table's TV view, linked where it is said.
    tv_link = phone.get_by_role("link", name="Open the table's TV view on a laptop or a TV")
    expect(tv_link).to_be_visible()
    assert tv_link.get_attribute("href") == f"/t/{code}/tv"
    # A computer's bet may lie on the felt for a moment only (its deal decided at once): the
    # page itself notes the first one it shows, with the words a reader hears ("bot").
    phone.evaluate("""() => {
      const seen = () => [...document.querySelectorAll("#felt .chip .chip__name .computer-mark")]
        .some((mark) => mark.textContent.includes("bot"));
      window.sawComputerBet = seen();
      new MutationObserver(() => { window.sawComputerBet ||= seen(); })
        .observe(document.body, {childList: true, subtree: true});
    }""")
    buttons = {
        name: phone.get_by_role("button", name=re.compile(rf"^\s*{re.escape(name)}\s*$"))
        for name in ANSWERS
    }
    # The first hand is guided; a step the rules need a picture for offers it ("Show me"):
    # opened once, where it first comes, it fits a 360 px phone beside the felt and the bar.
    show = phone.locator("#guide:not([hidden]) [data-guide-show]")
    drawn = []
    deadline = time.monotonic() + TIMEOUT
    # Until the guide's drawing was opened, a hand is recorded and a computer's bet was seen (a
    # void Casino deal is recorded before anyone bets: the next deal is played on, and its
    # computers may bet before this loop comes round to the guide).
    while not (
        drawn
        and "recall__hand" in phone.request.get(f"{base}/t/{code}/history").text()
        and phone.evaluate("window.sawComputerBet")
    ):
        if time.monotonic() > deadline:
            screenshot(phone, f"practice-{game}-stuck")
            bet = phone.evaluate("window.sawComputerBet")
            raise AssertionError(
                f"no hand of {title} was played to its result (bet seen: {bet}, drawn: {drawn})"
            )
        if not drawn and show.count() and show.first.is_visible():
            drawn = guide_drawing(phone, f"practice-{game}-guide")
            continue
        for name, button in buttons.items():
            if name in CLOSES:
                if not phone.locator("#felt .chip").count():
                    continue
                # The bet that lets the banker close may come with the step's drawing: it is
                # drawn first (the close would end the step before the loop came round).
                if not drawn and show.count() and show.first.is_visible():
                    break
            if button.count() and button.first.is_visible() and button.first.is_enabled():
                button.first.click()
                # A person's pace: every move of the table gives the computers their second or
                # two again.
                time.sleep(2.5)
                break
        time.sleep(0.5)
    assert len(drawn) >= 4, drawn  # the heaps, the layouts and the gate, a layout of four
    at_rest(phone, 30_000)
    screenshot(phone, f"practice-{game}")
    problems = serious_violations(phone)
    phone.get_by_role("button", name="Leave the practice").click()
    expect(phone.locator("#practice-title")).to_be_visible()
    assert phone.url.rstrip("/") == base
    assert not problems, problems
