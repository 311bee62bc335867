"""Small things of the night's flow (issue 36's minors), through the routes: the join page says
which game is played and, while nobody new can sit down, offers no name to type; the TV stops
inviting with its code to join then."""

import re

from tests.helpers.nights import MonteNight, Night, csrf_of, flashed, shown_text


def test_the_join_page_says_which_game_is_played(app):
    for night, title in ((Night(app, "Ana"), "Montones"), (MonteNight(app, "Ana"), "Monte")):
        page = app.test_client().get(f"/t/{night.code}/join?lang=en").get_data(as_text=True)
        assert f"Game: {title} · How to play" in shown_text(page)
        rules = "montones" if title == "Montones" else "monte"
        assert f'href="/rules/{rules}">How to play</a>' in page
    page = app.test_client().get(f"/t/{night.code}/join?lang=es").get_data(as_text=True)
    assert "Juego: Monte · Cómo se juega" in shown_text(page)


def test_a_closed_table_s_join_page_offers_no_name_to_type_but_to_watch(app):
    night = Night(app, "Ana", "Ben")
    guest = app.test_client()
    token = csrf_of(guest.get(f"/t/{night.code}/join"))
    assert night.host_do("close_doors").status_code == 303
    page = guest.get(f"/t/{night.code}/join").get_data(as_text=True)
    assert "The host has closed this table to new players." in page
    assert 'name="name"' not in page and "Sit down with" not in page
    assert f'href="/t/{night.code}/watch">Watch the table</a>' in page
    assert f'href="/t/{night.code}/rejoin"' in page  # a seated player's other phone may
    # A form sent from an older page is refused in words, and still offers no form.
    before = night.snapshot()
    sent = guest.post(f"/t/{night.code}/join", data={"csrf_token": token, "name": "Eva"})
    assert sent.status_code == 422
    answer = sent.get_data(as_text=True)
    assert "closed this table" in answer and 'name="name"' not in answer
    assert night.snapshot() == before
    # Open again: the form is back.
    assert night.host_do("open_doors").status_code == 303
    page = guest.get(f"/t/{night.code}/join").get_data(as_text=True)
    assert 'name="name"' in page and "Watch the table" not in page


def test_the_tv_stops_inviting_to_join_while_nobody_new_can_sit_down(app):
    night = Night(app, "Ana", "Ben")
    tv = app.test_client()
    corner = re.compile(r'<section class="join-corner">(.*?)</section>', re.S)
    page = tv.get(f"/t/{night.code}/tv").get_data(as_text=True)
    assert 'alt="QR code to join"' in corner.search(page).group(1)
    assert night.host_do("close_doors").status_code == 303
    found = corner.search(tv.get(f"/t/{night.code}/tv").get_data(as_text=True)).group(1)
    assert "QR code to join" not in found and night.code not in shown_text(found)
    assert "The host has closed this table to new players." in found
    assert 'alt="QR code to watch"' in found  # watching stays open
    # The live stream's render of the TV says so too (the TV is never reloaded).
    fragment = tv.get(f"/t/{night.code}/tv/p/recent", headers={"HX-Request": "true"})
    assert "closed this table" in fragment.get_data(as_text=True)
    assert night.host_do("open_doors").status_code == 303
    page = tv.get(f"/t/{night.code}/tv").get_data(as_text=True)
    assert 'alt="QR code to join"' in corner.search(page).group(1)


def test_the_host_turns_the_tv_s_sound_off_and_on_and_no_chip_moves(app):
    night = Night(app, "Ana", "Ben")
    tv = app.test_client()
    silent = "data-tv-silent"
    assert silent not in tv.get(f"/t/{night.code}/tv").get_data(as_text=True)
    assert "Turn the TV's sound off" in night.host.get(f"/t/{night.code}/host").get_data(
        as_text=True
    )
    entries = night.entries()
    assert night.host_do("tv_sound_off").status_code == 303
    assert night.state()["tv_silent"] is True
    assert silent in tv.get(f"/t/{night.code}/tv").get_data(as_text=True)
    page = night.host.get(f"/t/{night.code}/host").get_data(as_text=True)
    assert "Turn the TV's sound on" in page and "does not ask for a click" in page
    # Asked again, refused in words, nothing changed.
    before = night.snapshot()
    answer = night.host_do("tv_sound_off")
    assert flashed(night.host.get(answer.location)) == "The TV's sound is off already."
    assert night.snapshot() == before
    assert night.host_do("tv_sound_on").status_code == 303
    assert night.state()["tv_silent"] is False
    assert silent not in tv.get(f"/t/{night.code}/tv").get_data(as_text=True)
    assert night.entries() == entries  # no chip moved
    # A player's phone cannot do it.
    refused = night.do("Ana", "tv_sound_off")
    assert refused.status_code == 403 and night.state()["tv_silent"] is False


def test_the_three_last_hands_are_counted_as_the_first_second_and_last_of_three(app):
    """Issue 36: during the first of the three last hands, the screens said "2 left"."""
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    night.ok("Ana", "tres", confirm="yes")

    def screens() -> list[str]:
        pages = (
            night.page("Ben"),
            night.host.get(f"/t/{night.code}/tv"),
            night.host.get(f"/t/{night.code}/host"),
        )
        return [shown_text(page.get_data(as_text=True)) for page in pages]

    def next_hand():
        night.ok("Eva", "choose", heap=3)
        night.ok("Ana", "close")
        night.ok("Ana", "next")
        night.ok(night.cutter(), "cut", position=10)
        night.ok("Ana", "heaps", count=3)

    # Announced in a hand that is not one of the three: three to come.
    assert all("tres últimas manos: 3 hands left" in said for said in screens())
    for n in (1, 2):
        next_hand()
        assert all(f"tres últimas manos: hand {n} of 3" in said for said in screens()), n
    next_hand()
    assert all("the last hand, then the bank closes" in said for said in screens())
    assert not any("of 3" in said or "hands left" in said for said in screens())
    # And after it, the bank closes: exactly three hands were dealt after the announcement.
    night.ok("Eva", "choose", heap=3)
    night.ok("Ana", "close")
    night.ok("Ana", "next")
    assert night.state()["bank"] is None


def test_in_monte_the_bank_may_be_declined_and_passes_on_as_a_turn_held(app):
    """Issue 36: Monte had no way to decline the bank when it came to you. Declined, it passes
    to the left, counted as one of that player's banks (so the night still ends), and no chip
    moves."""
    night = MonteNight(app, "Ana", "Ben", "Eva", banks_each=1)
    night.draw()
    first = night.banker
    others = [name for name in night.punters]
    bar = night.clients[first].get(f"/t/{night.code}").get_data(as_text=True)
    assert "Pass the bank on" in bar
    for name in others:  # only the banker is offered it
        page = night.clients[name].get(f"/t/{night.code}").get_data(as_text=True)
        assert "Pass the bank on" not in page
    chips = {p["name"]: p["chips"] for p in night.state()["players"].values()}
    # A punter cannot decline someone else's bank.
    before = night.snapshot()
    refused = night.do(others[0], "decline", stage=night.stage())
    assert refused.status_code != 200 and night.snapshot() == before
    response = night.do(first, "decline", stage=night.stage())
    assert response.status_code == 200
    state = night.state()
    assert state["phase"] == "bank" and night.banker != first
    assert state["banks"][night.seats[first]] == 1
    assert {p["name"]: p["chips"] for p in state["players"].values()} == chips
    tv = night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)
    assert f"{first} did not want the bank: it passes" in shown_text(tv)
    # Everyone declines in turn: each has had their one bank, and the night is over.
    for _ in range(2):
        assert night.do(night.banker, "decline", stage=night.stage()).status_code == 200
    assert night.state()["phase"] == "finished"
    assert {p["name"]: p["chips"] for p in night.state()["players"].values()} == chips
