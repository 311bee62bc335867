"""A party night (issue 40), once per game, its screens in the four languages: two phones sit down
with a face and a colour chosen on the join form, the TV shows them in its lobby until the host
starts the night from the host page, a phone's reaction floats over the TV beside its player's
line, and the table plays hands until the TV has shown a hand's big moment (with its sound) and
the standings between rounds; neither shows before the TV's reveal is over. The TV is
photographed at each moment (/tmp/shots/party40/), and axe finds nothing serious on the new
screens."""

import time
from pathlib import Path

import pytest

from montones import service
from tests.helpers.random_night import RandomNight
from tests.helpers.screens import PHONE, TV, at_rest, serious_violations

SHOTS = Path("/tmp/shots/party40")
SLACK = 300  # ms

# On the TV: when its felt brought each reveal (and how long that reveal is), when a moment or
# the standings first came into sight, and how many sounds the page made (each is oscillators).
SPY = """
(() => {
  window.came = {}; window.ends = {}; window.party = []; window.sounds = 0;
  const make = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () { window.sounds += 1; return make.call(this); };
  const look = () => {
    const felt = document.getElementById("felt");
    if (felt && felt.dataset.reveal && !(felt.dataset.reveal in window.came)) {
      window.came[felt.dataset.reveal] = Date.now();
      window.ends[felt.dataset.reveal] = Number(felt.dataset.done || 0);
    }
    for (const el of document.querySelectorAll(".moment, .board")) {
      const key = el.className.split(" ")[0] + " " + el.dataset.rv;
      if (el.checkVisibility({opacityProperty: true, visibilityProperty: true})
          && !window.party.some((p) => p.key === key)) {
        window.party.push({key, at: Date.now(), version: el.dataset.rv, words: el.innerText});
      }
    }
  };
  document.addEventListener("DOMContentLoaded", () => window.setInterval(look, 30));
})();
"""

NIGHTS = [
    ("montones", ("en-GB", "es-ES", "de-DE", "ru-RU")),
    ("monte", ("ru-RU", "de-DE", "en-GB", "es-ES")),
    ("monte_bank", ("de-DE", "ru-RU", "es-ES", "en-GB")),
]
# Ana's bet when she may bet: as much as the bank lets her, at least what a big win is made of
# (a quarter of the starting chips; the computer players' strategies bet a chip or two).
BIG = 20 // 4
BIG_BET = {
    "montones": {"mode": "bet", "heap": 1, "amount": 6},
    "monte": {"layout": "top", "amount": 6},
    "monte_bank": {
        "at": "upper",
        "bet_kind": "layout",
        "against": "ll",
        "side": "upper",
        "amount": 6,
    },
}


def big_bet(night, seat, game):
    """``seat`` stakes big once a round, when its view lets it bet (a refusal is let be); a
    player left with less than a big stake is topped up by the host first, so the night goes on
    making big wins (with 20 chips each, both watched players were soon broke)."""
    table = night.table()
    if table.state["players"][seat]["chips"] < 2 * BIG:
        night.top_up(seat, 20)
        table = night.table()
    view = night.rules.view(table.state, seat, time.time())
    mine = view.get("me") or {}
    most = min(mine.get("most") or 0, 10)
    if "bet" in mine.get("can", []) and not mine.get("bets") and most >= BIG:
        stage = service.stage(table.state)
        night.seats[seat].tap("tap", stage=stage, **{**BIG_BET[game], "amount": most})


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def sit_with_a_face(browser, base, code, name, locale, face, colour):
    context = browser.new_context(viewport=PHONE, locale=locale, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(f"{base}/t/{code}/join")
    page.locator("input[name=name]").fill(name)
    page.locator(f".pick--faces label:has(input[value={face}])").click()
    page.locator(f".pick--colours label:has(input[value='{colour}'])").click()
    return page


def animated_for(page, selector: str, ms: int) -> None:
    """Wait until ``selector``'s animation has played ``ms`` (a shot then shows it come in
    whole), or it is gone."""
    page.wait_for_function(
        """([selector, ms]) => {
          const el = document.querySelector(selector);
          return !el || el.getAnimations().some((a) => a.currentTime >= ms);
        }""",
        arg=[selector, ms],
        timeout=10_000,
    )


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("game", "languages"), NIGHTS, ids=[n[0] for n in NIGHTS])
def test_a_party_night_with_faces_reactions_a_moment_and_the_standings(
    chromium, server, game, languages
):
    base, _process, folder, _port = server
    night = RandomNight(base, folder, game, f"party {game}", settings={}, chips=20)
    code = night.code
    tv_context = chromium.new_context(viewport=TV, locale=languages[0])
    tv_context.add_init_script(SPY)
    tv = tv_context.new_page()
    tv.goto(f"{base}/t/{code}/tv")
    host = chromium.new_context(viewport=PHONE, locale=languages[1]).new_page()
    host.goto(f"{base}/t/{code}/host/claim/{night.secret}")
    night.host_page = host

    # Two phones choose a face and a colour; the join form is looked at by axe first.
    ana = sit_with_a_face(chromium, base, code, "Ana", languages[2], "owl", 5)
    problems = serious_violations(ana)
    if game == "montones":
        shot(ana, "phone-join-faces")
    ana.locator("form.join-form button[type=submit]").click()
    ana.wait_for_selector("#status")
    seat_ana = night.sit_page(ana, "Ana")
    ben = sit_with_a_face(chromium, base, code, "Ben", languages[3], "king", 2)
    ben.locator("form.join-form button[type=submit]").click()
    ben.wait_for_selector("#status")
    seat_ben = night.sit_page(ben, "Ben")
    night.sit(["Eva"])

    # The lobby: every face on the TV, Ana's as she chose it; the phone shows hers too.
    tv.wait_for_selector(".party-lobby__face:nth-child(3)")
    assert tv.locator(".party-lobby svg.seat-5 use[href$='#owl']").count() == 1
    assert ana.locator("#status svg.face.seat-5 use[href$='#owl']").count() == 1
    at_rest(tv)  # the faces bob as they sit down, then rest
    shot(tv, f"tv-lobby-{game}")
    problems += serious_violations(tv)

    # The host starts the night from the host page; a Monte table then draws for the bank.
    host.reload()
    problems += serious_violations(host)
    if game == "montones":
        shot(host, "host-party-switches")
    host.locator("form[action$='/host/start'] button").click()
    host.wait_for_load_state()
    tv.wait_for_selector(".party-lobby", state="detached")
    if "draw" in night.rules.ACTIONS:
        assert night.host_do("draw") < 400

    # A reaction: Ana's phone row; it floats on the TV beside her line, then goes.
    ana.locator("#cheer button").nth(2).click()  # applause
    reaction = tv.locator(f".reaction[data-seat={seat_ana}]")
    reaction.wait_for(state="visible", timeout=5000)
    row = tv.locator(f"#player-{seat_ana}").bounding_box()
    floated = reaction.bounding_box()
    assert abs(floated["y"] - row["y"]) < row["height"] + 40, (floated, row)
    animated_for(tv, f".reaction[data-seat={seat_ana}]", 600)
    shot(tv, f"tv-reaction-{game}")
    shot(ana, f"phone-cheer-{game}")
    if game == "montones":  # the narrowest phone, in its language
        ana.set_viewport_size({"width": 360, "height": 800})
        shot(ana, "phone-cheer-360")
        ana.set_viewport_size(PHONE)
    problems += serious_violations(ana)
    reaction.wait_for(state="hidden", timeout=6000)

    # Hands until the TV has shown a big moment and the standings (every third hand, or when
    # a bank passes).
    started, idle, settled_versions, shown = time.monotonic(), time.monotonic(), [], {}
    while not ({"moment", "board"} <= set(shown)) and time.monotonic() - started < 300:
        for punter in (seat_ana, seat_ben):  # whichever of them is not the banker now
            big_bet(night, punter, game)
        made = night.step() or night.step(patient=True)
        if (
            made is None
        ):  # the server's own clock moves next (a bank passed on), or the night is over
            if night.table().ended_at or time.monotonic() - idle > 20:
                break
            time.sleep(0.25)
            continue
        idle = time.monotonic()
        version, settled = made
        if not settled:
            continue
        settled_versions.append(str(version))
        # Until the standings could have shown after a moment (4 s after the reveal's end): a
        # next hand played sooner takes both off the TV before they show (seen under load).
        tv.wait_for_function(
            "(v) => window.came[v] && Date.now() > window.came[v] + window.ends[v] + 4800",
            arg=str(version),
            timeout=60_000,
            polling=100,
        )
        # A moment or the standings of any hand settled so far (one may come after its reveal's
        # end was waited for), each checked against its own hand's reveal.
        for seen in tv.evaluate("window.party"):
            kind = seen["key"].split(" ")[0]
            if seen["version"] not in settled_versions or kind in shown:
                continue
            came = tv.evaluate("(v) => window.came[v] + window.ends[v]", seen["version"])
            assert seen["at"] >= came - SLACK, f"{kind} {came - seen['at']} ms before the reveal"
            shown[kind] = seen["words"]
            animated_for(tv, f".{kind}.is-shown", 700 if kind == "moment" else 1500)
            shot(tv, f"tv-{kind}-{game}")
    assert {"moment", "board"} <= set(shown), (settled_versions, shown, night.moves[-20:])
    assert tv.evaluate("window.sounds") > 0
    assert not problems, problems
