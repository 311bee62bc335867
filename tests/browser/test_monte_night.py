"""Two full coups of Monte through the real UI: two phones and a TV nobody touches."""

import re

from playwright.sync_api import expect

from tests.helpers.fit import check_phone, check_tv
from tests.helpers.monte_page import bet, create_table, layout
from tests.helpers.screens import (
    TV,
    join,
    note_the_reveal,
    screenshot,
    serious_violations,
    waited_for_the_tv,
)

TIMEOUT = 10_000

# Notes on the TV each part of the coup's reveal as it shows, and whether a verdict or a payment
# could be seen at that moment.
WATCH_GATE = """() => {
  window.reveal = [];
  const secret = () => [...document.querySelectorAll("#felt .layout__verdict, #felt .layout .res, #players .paid li")]
    .some((el) => el.checkVisibility({visibilityProperty: true}))
    || /The gate:/.test(document.querySelector("#tv_status .tv-status__line").innerText);
  const name = (el) => el.matches(".monte__turn") ? "gate" : el.matches(".layout__verdict") ? "verdict"
    : el.closest(".paid") ? "paid" : el.closest(".tv-status__line") ? "line" : "other";
  new MutationObserver((changes) => {
    for (const change of changes) {
      const el = change.target;
      if (el.classList.contains("is-shown") && !el.dataset.noted) {
        el.dataset.noted = "1";
        window.reveal.push({what: name(el), secret_shown: secret()});
      }
    }
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ["class"]});
}"""


def play_coup(number, banker, punter, tv, stakes):
    """The punter bets on both layouts, the banker turns the gate; the TV follows by itself."""
    expect(tv.locator("#tv_status")).to_contain_text("Hagan sus apuestas", timeout=TIMEOUT)
    expect(tv.locator("#tv_status")).to_contain_text(f"coup {number} of 8")
    expect(tv.locator("#felt .layout__odds")).to_have_count(2)
    for odds in tv.locator("#felt .layout__odds").all_inner_texts():
        assert re.fullmatch(r"\d+ of \d+ wins?", odds), odds
    expect(punter.locator("#intent")).to_be_visible(timeout=TIMEOUT)
    for name, stake in stakes.items():
        bet(punter, name, stake)
        chip = layout(tv, name).locator(".chip")
        expect(chip).to_contain_text(punter_name(punter), timeout=TIMEOUT)
        expect(chip).to_contain_text(str(stake))
    expect(layout(banker, "top").locator(".chip")).to_have_count(1, timeout=TIMEOUT)
    screenshot(punter, f"monte-phone-betting-{number}")
    screenshot(tv, f"monte-tv-betting-{number}")

    check_tv(tv, least=10)
    check_phone(punter, "#felt .layout, #felt .monte__gate")
    problems = serious_violations(tv) + serious_violations(punter) + serious_violations(banker)

    # The gate turns first; only then the verdicts, the line that names them and the payments.
    expect(banker.get_by_role("button", name="Turn the gate")).to_be_visible(timeout=TIMEOUT)
    tv.evaluate(WATCH_GATE)
    # The TV is the show: the punter's phone says to watch it, and keeps the result, the chips
    # and the bar as they were until the TV pays the punter's last bet (its line under Payments).
    name = punter_name(punter)
    watched = {name: (punter, ("#players .paid li", f"{name} · "))}
    note_the_reveal(tv, watched)
    banker.get_by_role("button", name="Turn the gate").click()
    expect(tv.locator("#tv_status")).to_contain_text("The gate:", timeout=TIMEOUT)
    expect(tv.locator("#felt .layout__verdict")).to_have_count(2)
    expect(tv.locator("#players .paid li")).to_have_count(2)
    expect(tv.locator("body")).to_have_attribute("data-reveal", "done", timeout=TIMEOUT)
    steps = tv.evaluate("window.reveal")
    whats = [s["what"] for s in steps]
    # The gate first: what shows with it (the gate among the cards seen, the deck one card
    # shorter) shows at its very moment, and nothing secret before it.
    gate = whats.index("gate")
    assert set(whats[:gate]) <= {"other"}, steps
    assert not any(step["secret_shown"] for step in steps[: gate + 1]), steps
    assert whats.index("verdict") < whats.index("paid") and whats.count("paid") == 2, steps
    expect(punter.locator("#status .status__result")).to_be_visible(timeout=TIMEOUT)
    waited_for_the_tv(tv, watched)
    check_tv(tv, least=12)
    problems += serious_violations(tv) + serious_violations(punter)
    assert not problems, "\n".join(problems)
    screenshot(tv, f"monte-tv-gate-{number}")
    screenshot(punter, f"monte-phone-gate-{number}")
    screenshot(banker, f"monte-phone-banker-gate-{number}")


def punter_name(page):
    return page.locator("#status .status__name").inner_text().split(" · ")[0]


def test_two_phones_and_a_tv_play_two_coups_of_monte(chromium, server):
    base, _process, _folder, _port = server
    host, code = create_table(chromium, base)

    tv = chromium.new_context(viewport=TV, locale="en-GB").new_page()
    tv.goto(f"{base}/t/{code}/tv")
    expect(tv.locator(".join-corner__code")).to_have_text(code)
    join_url = tv.locator(".join-corner__url").inner_text()
    phones = {name: join(chromium, join_url, name) for name in ("Ana", "Ben")}
    expect(tv.locator("#players")).to_contain_text("Ben", timeout=TIMEOUT)
    screenshot(tv, "monte-tv-seating")
    seen = serious_violations(tv) + serious_violations(host)

    # The host starts the draw; the TV shows who drew what, and the highest card banks.
    host.reload()
    host.get_by_role("button", name="Draw for the first banker").click()
    expect(tv.locator("#felt .draw__card--high")).to_have_count(1, timeout=TIMEOUT)
    status = tv.locator("#tv_status .tv-status__line")
    expect(status).to_contain_text("puts up the bank")
    banker_name = status.inner_text().split(" puts up")[0]
    punter_name_ = "Ben" if banker_name == "Ana" else "Ana"
    banker, punter = phones[banker_name], phones[punter_name_]
    expect(tv.locator("#felt .draw__winner")).to_contain_text(banker_name)
    screenshot(tv, "monte-tv-draw")
    seen += serious_violations(tv)

    # The banker puts up the table's bank; the other player cuts.
    expect(banker.get_by_label("Your bank: how much do you put up?")).to_have_value(
        "50", timeout=TIMEOUT
    )
    screenshot(banker, "monte-phone-bank")
    seen += serious_violations(banker)
    banker.get_by_role("button", name="Put up the bank").click()
    expect(tv.locator("#tv_status")).to_contain_text(
        f"{punter_name_} cuts the deck", timeout=TIMEOUT
    )
    expect(punter.get_by_role("button", name="Cut", exact=True)).to_be_visible(timeout=TIMEOUT)
    screenshot(punter, "monte-phone-cut")
    seen += serious_violations(punter)
    assert not seen, "\n".join(seen)
    punter.get_by_role("button", name="Cut", exact=True).click()

    play_coup(1, banker, punter, tv, {"top": 5, "bottom": 1})
    expect(tv.locator("#felt .monte__count >> visible=true")).to_contain_text("35 cards left")
    expect(tv.locator("#felt .discards .card")).to_have_count(5)

    banker.get_by_role("button", name="Next coup").click()
    play_coup(2, banker, punter, tv, {"top": 10, "bottom": 5})
    expect(tv.locator("#felt .monte__count >> visible=true")).to_contain_text("30 cards left")
    expect(tv.locator("#felt .discards .card")).to_have_count(10)

    chips = [int(t) for t in tv.locator("#players .player__chips").all_inner_texts()]
    bank = int(tv.locator(".tv-status__bank strong").inner_text())
    assert sum(chips) + bank == 200
    expect(host.locator("h1")).to_contain_text("Monte <i>night</i>")

    # The host ends the night mid-bank: the TV's end of night is Montones' (winner, ranking,
    # chart, no QR code), and the open bank counts as its banker's.
    host.on("dialog", lambda dialog: dialog.accept())
    host.reload()
    host.get_by_role("button", name="End the night").click()
    host.get_by_role("button", name="Yes, end the night").click()  # it asks first, on a page
    expect(tv.locator(".finale__winner")).to_be_visible(timeout=TIMEOUT)
    expect(tv.locator(".final .chip")).to_have_count(2)
    expect(tv.locator(".finale .chart__img")).to_be_visible()
    expect(tv.locator(".join-corner")).to_have_count(0)
    # Each row's net: what one won, the other lost.
    ranked = {
        row.locator(".chip__name").inner_text(): int(row.locator(".chip__amount").inner_text())
        for row in tv.locator(".final .chip").all()
    }
    assert sum(ranked.values()) == 0, ranked
    screenshot(tv, "monte-tv-end-of-night")
    check_tv(tv, least=5)
    assert not serious_violations(tv)
