"""Nothing is shown before the TV's reveal shows it (issue 36): over random nights of every game,
in the four languages, at 2, 7 and 12 players, no screen (the TV's title, strips, lists and
sidebar, a phone, the watcher, the host page) shows a card, a result, a payment or a bank change
before the TV's reveal has reached it.

Every watched page notes, from its first load, each time something comes into sight or leaves
it (SPY): each card face by its code, and each piece of text by its region, its element and its
words. Seen means seen: laid out, not hidden, not transparent (a CSS reveal fades a card in from
nothing), not the face of a card still face down. A hand's reveal starts at the tap that settles
it; once the TV has played it, each screen's notes since that tap are compared with the TV's:

- a card is due when the TV's felt turns it (the part of the TV's reveal that holds it, a
  [data-at] part, comes into sight); a card the reveal never turns is due at its end;
- a text that is part of the reveal ([data-at]: a verdict, a payment) is due when the TV reaches
  that moment (its felt's coming plus data-at);
- a phone's own lines (its status and its bar) are due when the TV has shown that player's last
  result (the last part of the TV's felt that is theirs);
- any other text that the screen still shows once the reveal is over, and did not show at the
  tap (a title, a last hands' line, the chips, the bank), is due at the reveal's end.

A screen's reveal clock starts when its own felt comes, which can be sooner than the TV's: it
is let be as much sooner, and SLACK more (timers and frames on a loaded machine).

At 12 players the TV, the watcher, the host page and two phones (the first two seats) are
browsers; the other seats play through HTTP with their own cookies (tests/helpers/random_night).
"""

import time

import pytest

from tests.helpers.random_night import RandomNight, join_page
from tests.helpers.screens import PHONE, TV

SLACK = 300  # ms

SPY = """
(() => {
  // A phone buzzes for a result: no tap on this page has allowed it, and no buzz is looked at.
  Object.defineProperty(Navigator.prototype, "vibrate", {configurable: true, value: () => true});
  const log = window.spyLog = [];  // {at, key, on, due, player, region}
  const came = window.spyCame = {};  // reveal version -> when this page's felt brought it
  const ends = window.spyEnds = {};  // reveal version -> its declared length (ms)
  let shown = new Map();
  const REGIONS = "#felt, #tv_status, #players, #recent, #status, #bar, #odds, #host-live, main, body";
  const seen = (el) => el.checkVisibility({opacityProperty: true, visibilityProperty: true})
    && !el.closest(".flip:not(.is-turned)");
  const part = (el) => el.closest("[data-at]");
  const region = (el) => { const r = el.closest(REGIONS); return r.id || r.tagName.toLowerCase(); };
  const describe = (el, key) => {
    const p = part(el), who = el.closest("[data-player]");
    return {key, due: p ? Number(p.dataset.at) : null, player: who ? who.dataset.player : null,
            region: region(el)};
  };
  const look = () => {
    if (!document.body) return;
    const now = Date.now(), found = new Map();
    const felt = document.getElementById("felt");
    if (felt && felt.dataset.reveal && !(felt.dataset.reveal in came)) {
      came[felt.dataset.reveal] = now;
      ends[felt.dataset.reveal] = Number(felt.dataset.done || 0);
    }
    for (const card of document.querySelectorAll("svg[data-card]")) {
      if (seen(card)) {
        const key = "card " + card.dataset.card + " @" + region(card);
        if (!found.has(key) || part(card)) found.set(key, describe(card, key));
      }
    }
    for (const el of document.body.querySelectorAll("*")) {
      if (el.closest("svg, script, style, template")) continue;
      let words = "";
      for (const node of el.childNodes) if (node.nodeType === 3) words += node.textContent;
      words = words.replace(/\\s+/g, " ").trim();
      if (!words || !seen(el)) continue;
      const key = "text " + region(el) + " " + el.tagName + "." + el.className + " " + words;
      found.set(key, describe(el, key));
    }
    for (const [key, what] of found) if (!shown.has(key)) log.push({at: now, on: true, ...what});
    for (const [key, what] of shown) if (!found.has(key)) log.push({at: now, on: false, ...what});
    shown = found;
  };
  let asked = false;
  const soon = () => {
    if (!asked) { asked = true; requestAnimationFrame(() => { asked = false; look(); }); }
  };
  const start = () => {
    new MutationObserver(soon).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
    window.setInterval(look, 50);  // what CSS alone brings into sight (a delayed fade)
    look();
  };
  window.spyNow = () => { look(); return [...shown.keys()]; };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
"""


def watched(browser, viewport, locale, url, is_mobile=False):
    context = browser.new_context(viewport=viewport, locale=locale, is_mobile=is_mobile)
    context.add_init_script(SPY)
    page = context.new_page()
    page.goto(url)
    return page


def shown_at(log, since):
    """From a page's log: what it showed at ``since`` (a set), and each thing that came into
    sight after it, with its first such moment."""
    before, came = set(), {}
    for entry in log:
        if entry["at"] <= since:
            (before.add if entry["on"] else before.discard)(entry["key"])
        elif entry["on"] and entry["key"] not in came:
            came[entry["key"]] = entry
    return before, came


def spoilers(screens, tv, version, tapped, seat_of):
    """What any screen showed before the TV's reveal of ``version`` reached it (see above)."""
    tv_log = tv.evaluate("window.spyLog")
    tv_came = tv.evaluate("(v) => window.spyCame[v]", version)
    end = tv_came + tv.evaluate("(v) => window.spyEnds[v]", version)
    _, tv_new = shown_at(tv_log, tapped)
    turned, last_of = {}, {}
    for key, entry in tv_new.items():
        if entry["region"] == "felt" and entry["due"] is not None:
            end = max(end, entry["at"])
            if key.startswith("card "):
                turned[key.split(" ")[1]] = entry["at"]
            if entry["player"]:
                last_of[entry["player"]] = max(last_of.get(entry["player"], 0), entry["at"])
    found = []
    for name, page in screens.items():
        log = page.evaluate("window.spyLog")
        now = set(page.evaluate("window.spyNow()"))
        came = page.evaluate("(v) => window.spyCame[v]", version)
        lead = max(0, tv_came - came) if came else 0
        before, new = shown_at(log, tapped)
        for key, entry in new.items():
            if key in before:
                continue
            if key.startswith("card "):
                due = turned.get(key.split(" ")[1], end)
            elif key not in now:
                continue  # shown for a while and gone again ("Turning the gate…")
            elif entry["due"] is not None:
                due = tv_came + entry["due"]
            elif name in seat_of and entry["region"] in ("status", "bar"):
                due = last_of.get(seat_of[name], end)
            else:
                due = end
            early = due - lead - entry["at"]
            if early > SLACK:
                found.append(f"{name}: {key!r} {early} ms before the TV's reveal reached it")
    return found


# Each night: a game, a number of players, and the four languages spread over its screens
# (the TV, the watcher, the host page, the phones), a different one first each time.
LANGUAGES = ("en-GB", "es-ES", "de-DE", "ru-RU")
NIGHTS = [
    ("montones", 2, 0),
    ("monte", 7, 1),
    ("monte_bank", 12, 2),
    ("monte", 2, 3),
    ("monte_bank", 7, 0),
    ("montones", 12, 1),
    ("monte_bank", 2, 3),
    ("montones", 7, 2),
    ("monte", 12, 0),
]
HANDS = 2  # hands (coups, deals) played to their end each night


# Not yet held (seen at this commit): the host page has no reveal clock (no felt, no show.js) and
# shows the new bank, chips and the gate's verdict at the tap; Monte Bank's felt shows a bet's
# result mark (.res) before its card; and the text rule still takes some lines that tell nothing
# of the outcome for new (a phone's status line that comes back at the tap, its first-hand hint,
# the side names that stop being buttons). Remove this mark once they are fixed or told apart.
@pytest.mark.xfail(reason="the host page and Monte Bank's marks are not held yet", strict=False)
@pytest.mark.parametrize(("game", "players", "first"), NIGHTS)
def test_no_screen_shows_anything_before_the_tvs_reveal(chromium, server, game, players, first):
    base, _process, folder, _port = server
    night = RandomNight(base, folder, game, players, seed=f"reveal {game} {players}")
    code = night.code
    lang = [LANGUAGES[(first + i) % 4] for i in range(5)]
    tv = watched(chromium, TV, lang[0], f"{base}/t/{code}/tv")
    watcher = watched(chromium, PHONE, lang[1], f"{base}/t/{code}/watch", is_mobile=True)
    host = watched(chromium, PHONE, lang[2], f"{base}/t/{code}/host/claim/{night.secret}")
    night.host = host
    screens = {"TV": tv, "watcher": watcher, "host": host}
    seat_of = {}
    for i in range(players):
        name = f"P{i + 1}"
        if i < 2:
            page = join_page(chromium, base, code, name, lang[3 + i])
            page.context.add_init_script(SPY)
            page.reload()
            screens[name] = page
            seat_of[name] = night.sit_page(page, name)
        else:
            night.sit_http(name)
    if "draw" in night.rules.ACTIONS:
        assert night.host_do("draw").status < 400

    started, hands, problems, moves = time.monotonic(), 0, [], 0
    while hands < HANDS:
        assert time.monotonic() - started < 240, night.moves[-20:]
        tapped = int(time.time() * 1000)
        made = night.step()
        if made is None:
            made = night.step(patient=True)
        assert made is not None, f"nobody can move: {night.moves[-10:]}"
        moves += 1
        version, settled = made
        if not settled:
            # Every screen has the move before the next (the tap that settles a hand is timed
            # from a table every screen already shows).
            time.sleep(0.7)
            continue
        hands += 1
        # The TV plays the reveal; the screens then have a second more to show what follows.
        tv.wait_for_function(
            "(v) => window.spyCame[v] && Date.now() > window.spyCame[v] + window.spyEnds[v] + 1500",
            arg=str(version),
            timeout=60_000,
            polling=200,
        )
        problems += [
            f"hand {hands} (v{version}): {p}"
            for p in spoilers(screens, tv, str(version), tapped, seat_of)
        ]
    assert not problems, "\n".join(problems) + "\nmoves: " + "; ".join(night.moves[-12:])
    print(f"{game} at {players}: {moves} moves, {time.monotonic() - started:.0f} s")
