"""The TV's demonstration (issue 29): while nobody has sat down, the TV plays a hand of its
game with computer players, captioned step by step, in the table's language; the first real
player to sit down brings the real table back at once. In each of the four languages, on one
game each, the TV at 1920x1080."""

import pytest
from playwright.sync_api import expect

from montones.rules import demo
from tests.helpers.liveserver import Phone, create_table
from tests.helpers.nights import monte_bank_form, monte_form
from tests.helpers.screens import TV, join, screenshot

TIMEOUT = 10_000
# The game each language plays the demonstration through to a player sitting down.
LANGUAGES = {"en-GB": "montones", "es-ES": "monte", "de-DE": "monte_bank", "ru-RU": "montones"}
DEMONSTRATION = {
    "en-GB": "Demonstration",
    "es-ES": "Demostración",
    "de-DE": "Vorführung",
    "ru-RU": "Демонстрация",
}


def new_table(base: str, name: str) -> str:
    if name == "montones":
        return create_table(base)[0]
    host = Phone(base)
    host.page("/")
    form = monte_form(host.token) if name == "monte" else monte_bank_form(host.token)
    return host.http.post("/tables", data=form).headers["location"].split("/")[2]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_tv_plays_its_demonstration_until_the_first_player_sits_down(
    chromium, server, language
):
    base, _process, _folder, _port = server
    played = LANGUAGES[language]
    code = new_table(base, played)
    tv = chromium.new_context(viewport=TV, locale=language).new_page()
    tv.goto(f"{base}/t/{code}/tv")
    expect(tv.locator(".demo__badge")).to_have_text(DEMONSTRATION[language])
    expect(tv.locator(".join-corner__code")).to_have_text(code)  # one can join meanwhile
    expect(tv.locator(".demo__caption")).not_to_be_empty()
    # The caption is large on the TV (>= 32 px at 1080p), the felt the game's own.
    # (Read in one go in the page: the region is swapped whole at every step.)
    size = "() => getComputedStyle(document.querySelector('.demo__caption')).fontSize"
    assert float(tv.evaluate(size).removesuffix("px")) >= 32
    expect(tv.locator(".demo__felt .felt")).to_be_visible()
    expect(tv.locator("#felt")).to_be_hidden()
    screenshot(tv, f"tv-demo-{played}-{language}")

    # It plays: the next step comes by itself, with another caption (a step lasts 3.5 s; a
    # hand's result stays for a few).
    step = tv.locator(".demo__caption").get_attribute("data-demo-step")
    wait = (demo.RESULT_HOLD + 2) * demo.STEP_SECONDS * 1000
    expect(tv.locator(".demo__caption")).not_to_have_attribute("data-demo-step", step, timeout=wait)
    screenshot(tv, f"tv-demo-{played}-{language}-next")

    # The first player sits down: the real table comes back at once, with them in it (its
    # lobby, laid over the felt until the night starts).
    join(chromium, f"{base}/t/{code}/join", "Ana")
    expect(tv.locator(".demo")).to_have_count(0, timeout=TIMEOUT)
    expect(tv.locator(".party-lobby")).to_contain_text("Ana", timeout=TIMEOUT)
    expect(tv.locator("#players")).to_contain_text("Ana", timeout=TIMEOUT)
    screenshot(tv, f"tv-demo-gone-{played}-{language}")


SIDE_CARDS_DEALT = {"de-DE": "Seitenkarten von oben", "ru-RU": "боковые карты"}


@pytest.mark.parametrize("language", SIDE_CARDS_DEALT)
def test_a_side_card_table_s_demonstration_deals_and_captions_its_side_cards(
    chromium, server, language
):
    """Issue 41: a Monte Bank table of two side cards plays them in its demonstration, the
    caption saying how they are dealt, the felt showing them, in the longest languages."""
    base, _process, _folder, _port = server
    host = Phone(base)
    host.page("/")
    form = monte_bank_form(host.token, mb_side_cards=2)
    code = host.http.post("/tables", data=form).headers["location"].split("/")[2]
    tv = chromium.new_context(viewport=TV, locale=language).new_page()
    tv.goto(f"{base}/t/{code}/tv")
    # A void deal is dealt again: the cycle's hands deal side cards within a few steps.
    wait = 3 * (demo.RESULT_HOLD + 8) * demo.STEP_SECONDS * 1000
    expect(tv.locator(".demo__caption")).to_contain_text(SIDE_CARDS_DEALT[language], timeout=wait)
    for side in ("s1", "s2"):
        expect(tv.locator(f'.demo__felt [data-demo-id="pos-{side}"] svg')).to_be_visible()
    size = "() => getComputedStyle(document.querySelector('.demo__caption')).fontSize"
    assert float(tv.evaluate(size).removesuffix("px")) >= 32
    bottom = "() => document.querySelector('.demo').getBoundingClientRect().bottom"
    assert tv.evaluate(bottom) <= TV["height"]
    screenshot(tv, f"tv-demo-side-cards-{language}")
