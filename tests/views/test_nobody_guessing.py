"""Issue 14, "Nobody left guessing": a phone that loses its seat is told so and what it can do;
drastic switches ask first; the host page says where the table is; the phone says when it sits
out, when the bank is closing and when the clock cut the deck."""

from __future__ import annotations

import html
import re

from montones import service
from montones.web import chart
from tests.helpers.nights import HX, Night, csrf_of, flashed, notice, put_state


def betting(app) -> Night:
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", 30, 3)
    return night


def standings_names(night) -> list[str]:
    html = night.host.get(f"/t/{night.code}/standings").get_data(as_text=True)
    return re.findall(r'<span class="chip__name"[^>]*>([^<]+)</span>', html)


# --- sent away: told, kept out, let back in with the same seat and chips --------------------------


def test_a_sent_away_player_cannot_sit_down_again_until_the_host_lets_them(app):
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=5)
    assert night.host_do("kick", seat=night.seats["Ben"]).status_code == 303
    assert night.chips_of("Ben") == 100  # the open bet went back

    # His own phone: every page says why, and offers no join form.
    for path in ("", "/join"):
        page = night.clients["Ben"].get(f"/t/{night.code}{path}")
        html = page.get_data(as_text=True)
        assert "The host sent you away from this table" in html, path
        assert 'name="name"' not in html, path
    # A tap from it, with htmx or without: said over the whole screen, nothing changed.
    before = night.snapshot()
    tapped = night.do("Ben", "tap", mode="bet", heap=2, amount=5, custom="")
    assert tapped.status_code == 403 and 'id="gone"' in tapped.get_data(as_text=True)
    assert 'hx-swap-oob="true"' in tapped.get_data(as_text=True)
    plain = night.do("Ben", "bet", heap=2, amount=5, hx=False)
    assert plain.status_code == 303
    assert "The host sent you away" in night.clients["Ben"].get(plain.location).get_data(True)
    assert night.snapshot() == before

    # Another phone under his name is refused, in words: one name, one line in the standings.
    other = app.test_client()
    token = csrf_of(other.get(f"/t/{night.code}/join"))
    refused = other.post(f"/t/{night.code}/join", data={"csrf_token": token, "name": " ben "})
    assert refused.status_code == 422
    assert notice(refused) == "Ben was sent away by the host: only the host can let them back in."
    assert night.snapshot() == before

    # The host lets him back in: the same seat and the chips he had, never fresh chips.
    response = night.host_do("readmit", seat=night.seats["Ben"])
    assert response.status_code == 303
    page = night.host.get(response.location)
    assert flashed(page) == "Ben may come back: their seat and chips are theirs again."
    state = night.state()
    assert "left" not in state["players"][night.seats["Ben"]]
    assert night.chips_of("Ben") == 100
    assert night.ledger()["player:" + night.seats["Ben"]] == 100
    assert night.actions()[-1][1:] == ("host", "readmit")
    assert sum(night.ledger().values()) == 0  # no chips came from the house
    html = night.page("Ben").get_data(as_text=True)
    assert 'data-chips="100"' in html and "sent you away" not in html
    night.ok("Ben", "bet", heap=2, amount=5)
    assert standings_names(night).count("Ben") == 1
    # His line in the chart keeps its colour: the same seat, not a new one.
    svg = night.host.get(f"/t/{night.code}/standings.svg").get_data(as_text=True)
    assert chart.seat_colour(night.seats["Ben"]) in svg
    assert sorted(night.state()["players"]) == ["p1", "p2", "p3"]


def test_a_phone_whose_seat_moved_says_so_and_offers_the_rejoin_code(app):
    night = betting(app)
    phone = app.test_client()
    token = csrf_of(phone.get(f"/t/{night.code}/rejoin"))
    phone.post(
        f"/t/{night.code}/rejoin", data={"rejoin": night.rejoin_code("Ben"), "csrf_token": token}
    )
    old = night.clients["Ben"]
    for response in (
        old.get(f"/t/{night.code}"),
        old.get(f"/t/{night.code}/p/seat", headers=HX),  # the fetch its stream's tell makes
        night.do("Ben", "withdraw", bet=1),
    ):
        html = response.get_data(as_text=True)
        assert "Your seat moved to another device" in html
        assert f'href="/t/{night.code}/rejoin"' in html


# --- drastic switches ask first ---------------------------------------------------------------


def test_sending_a_player_away_and_ending_the_night_ask_the_host_first(app):
    night = betting(app)
    before = night.snapshot()
    asked = night.host_do("kick", seat=night.seats["Ben"], confirm="")
    assert asked.status_code == 303 and night.snapshot() == before
    page = night.host.get(asked.location).get_data(as_text=True)
    assert "Send Ben away?" in page and 'name="confirm" value="yes"' in page
    assert "Yes, send Ben away" in page
    asked = night.host_do("end", confirm="")
    assert asked.status_code == 303 and night.snapshot() == before
    page = night.host.get(asked.location).get_data(as_text=True)
    assert "End the night for everyone?" in page and "Yes, end the night" in page
    # Answered yes, it is done.
    assert night.host_do("end").location == f"/t/{night.code}/standings"


def test_tres_ultimas_manos_asks_the_banker_first(app):
    night = betting(app)
    before = night.snapshot()
    asked = night.do("Ana", "tres")
    html = asked.get_data(as_text=True)
    assert asked.status_code == 200 and notice(asked) is None
    assert 'role="alertdialog"' in html and "Exactly three more hands are dealt" in html
    assert night.snapshot() == before
    # Without htmx the same question, on the page.
    plain = night.do("Ana", "tres", hx=False)
    assert plain.status_code == 303 and night.snapshot() == before
    page = night.clients["Ana"].get(plain.location).get_data(as_text=True)
    assert "Exactly three more hands are dealt" in page
    night.ok("Ana", "tres", confirm="yes")
    assert night.state()["bank"]["last_hands"] == 3


# --- the host page says where the table is, and answers ------------------------------------------


def test_the_host_page_shows_the_stage_and_the_bank(app):
    night = Night(app, "Ana", "Ben")
    page = night.host.get(f"/t/{night.code}/host").get_data(as_text=True)
    assert "The bank is up for auction" in page and "no bank yet" in page
    night.to_betting("Ana", 30, 3)
    page = night.host.get(f"/t/{night.code}/host").get_data(as_text=True)
    assert "Hagan sus apuestas" in page and "Bank 30 · Ana" in page


def test_a_refused_top_up_is_answered_on_the_host_page(app):
    night = betting(app)
    response = night.host_do("top_up", seat=night.seats["Ben"], amount="0")
    assert flashed(night.host.get(response.location)) == "A top-up must be at least 1 chip."


# --- the phone says what is going on --------------------------------------------------------------


def test_a_phone_that_sits_out_says_so_with_play_again_one_tap_away(app):
    night = betting(app)
    response = night.ok("Eva", "sit_out")
    html = response.get_data(as_text=True)
    assert "You are sitting out." in html
    # "Play again" is a form in the bar itself, not inside the "More" menu.
    bar = html.split('id="bar"')[1]
    assert bar.index("Play again") < bar.index('<details id="bar-more" class="more">')
    assert '/a/sit_in"' in bar.split('<details id="bar-more" class="more">')[0]
    night.ok("Eva", "sit_in")
    assert night.state()["players"][night.seats["Eva"]]["sitting_out"] is False


def test_at_the_last_of_tres_ultimas_manos_the_punters_are_told_the_bank_is_closing(app):
    night = betting(app)
    night.ok("Ana", "tres", confirm="yes")
    state = night.state()
    state["bank"]["last_hands"] = 0  # two hands on: this is the last
    with night.app.app_context():
        put_state(night.table(), state)
    night.ok("Eva", "choose", heap=3)
    night.ok("Ana", "close")
    html = night.page("Ben").get_data(as_text=True)
    assert "The bank is closing" in html
    assert "Waiting for Ana to deal again" not in html
    assert "the last hand, then the bank closes" in html


def test_when_the_cut_clock_runs_out_every_screen_says_so(app, clock):
    night = Night(app, "Ana", "Ben", "Eva", cut_timeout=30)
    night.open_bank("Ana", 30)
    cutter = night.cutter()
    clock.advance(31)
    with app.app_context():
        service.tick(night.code)  # what the live fan-out does when the clock falls due
    assert night.state()["phase"] == "heaps"
    said = f"{cutter}'s time to cut ran out: the deck was cut for them at random."
    own = "Your time to cut ran out: the deck was cut for you at random."
    screens = {
        "phone": night.page("Eva"),
        "tv": night.host.get(f"/t/{night.code}/tv"),
        "host": night.host.get(f"/t/{night.code}/host"),
    }
    for screen, page in screens.items():
        assert said in page.get_data(as_text=True).replace("&#39;", "'"), screen
    mine = night.page(cutter).get_data(as_text=True).replace("&#39;", "'")
    assert own in mine and said not in mine  # the cutter's own phone says it to them
    night.ok("Ana", "heaps", count=3)
    assert said in night.page("Eva").get_data(as_text=True).replace("&#39;", "'")


# --- rules that surprise, explained where they happen ---------------------------------------------


def status_text(night, name) -> str:
    html = night.page(name).get_data(as_text=True)
    return re.sub(r"\s+", " ", html.split('id="status"')[1].split("</section>")[0])


def test_a_bet_the_bank_covered_only_in_part_is_explained_to_its_punter(app):
    """Bank 30. Eva 20 on heap 1 (lifted first: less money), Ben 25 on heap 2; both heaps beat
    the banker's 4 de oros: Eva is paid 20, and the bank holds only 10 of Ben's 25."""
    night = betting(app)
    night.ok("Eva", "bet", heap=1, amount=20)
    night.ok("Ben", "bet", heap=2, amount=25)
    night.ok("Eva", "choose", heap=3)
    night.arrange({3: "4o", 1: "6c", 2: "7e"})
    night.ok("Ana", "close")
    assert "you won 25, but the bank held only 10: paid 10." in status_text(night, "Ben")
    assert "the bank held only" not in status_text(night, "Eva")  # paid in full: nothing to say
    felt = night.page("Ben").get_data(as_text=True)
    assert "the least money first; it changes a result only when the bank runs short" in felt


def test_a_losing_bet_partly_covered_says_what_came_back(app):
    """Bank 30. Ben 20 on heap 1 wins (bank 10), then Eva's 25 on heap 2 loses: the bank held
    10 of it, 15 back."""
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=20)
    night.ok("Eva", "bet", heap=2, amount=25)
    night.ok("Eva", "choose", heap=3)
    night.arrange({3: "5o", 1: "7c", 2: "2e"})
    night.ok("Ana", "close")
    assert "Heap 2: the bank held 10 of your 25: 15 back." in status_text(night, "Eva")


def test_a_pagando_y_cobrando_says_what_it_played_for_and_why(app):
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=5)
    night.ok("Eva", "declare", heap=2)
    night.ok("Ben", "choose", heap=3)
    night.arrange({3: "4o", 1: "6c", 2: "7e"})
    night.ok("Ana", "close")
    # Ben's 5 was paid first (bank 25); Eva's heap, lifted last, played for the 25 left.
    said = "Pagando y cobrando on heap 2 played for 25: what the bank held when your heap"
    assert said in status_text(night, "Eva")


def test_a_bet_on_the_bankers_card_says_why_it_won_against_a_losing_heap(app):
    night = betting(app)
    night.ok("Eva", "against", heap=1, amount=5)
    night.ok("Eva", "choose", heap=3)
    night.arrange({3: "6o", 1: "2c"})
    night.ok("Ana", "close")
    assert "the bank beat that heap, so your bet won." in status_text(night, "Eva")
    felt = night.page("Ben").get_data(as_text=True)
    assert "bank wins" in felt and "wins when the bank wins" in felt


def test_an_auction_tie_decided_by_lot_is_said(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.ok("Ana", "offer", amount=30)
    night.ok("Ben", "offer", amount=30)
    night.ok("Eva", "pass")
    banker = night.banker()
    said = f"Ana, Ben offered the same: the bank went to {banker} by lot."
    for page in (night.page("Eva"), night.host.get(f"/t/{night.code}/host")):
        assert said in html_text(page)
    assert said in html_text(night.host.get(f"/t/{night.code}/tv"))


def html_text(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def tv_payments(night) -> str:
    page = html_text(night.host.get(f"/t/{night.code}/tv"))
    paid = page.split('class="paid"')[1].split("</ol>")[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", paid))


def test_the_tv_payments_say_which_bets_the_bank_covered_only_in_part(app):
    """As on the phones: Ben's 20 on heap 1 wins (bank 10), Eva's 25 on heap 2 loses, the bank
    holding 10 of it; Ben's win paid in full says nothing more."""
    night = betting(app)
    night.ok("Ben", "bet", heap=1, amount=20)
    night.ok("Eva", "bet", heap=2, amount=25)
    night.ok("Eva", "choose", heap=3)
    night.arrange({3: "5o", 1: "7c", 2: "2e"})
    night.ok("Ana", "close")
    paid = tv_payments(night)
    assert "Eva · heap 2 · ▼ -10 the bank held 10 of 25: 15 back" in paid
    assert "Ben · heap 1 · ▲ +20 Eva" in paid  # nothing to explain


def test_the_tv_payments_say_a_win_the_bank_could_pay_only_in_part(app):
    night = betting(app)
    night.ok("Eva", "bet", heap=1, amount=20)
    night.ok("Ben", "bet", heap=2, amount=25)
    night.ok("Eva", "choose", heap=3)
    night.arrange({3: "4o", 1: "6c", 2: "7e"})
    night.ok("Ana", "close")
    assert "Ben · heap 2 · ▲ +10 won 25, but the bank held only 10: paid 10" in tv_payments(night)


def test_the_sent_away_page_goes_back_to_the_table_once_the_host_lets_the_player_in(app):
    """Issue 36: a player let back in was not told until they tapped: the full page saying they
    were sent away has no stream, so it asks every few seconds, and is sent back to the table."""
    night = betting(app)
    assert night.host_do("kick", seat=night.seats["Ben"]).status_code == 303
    html = night.clients["Ben"].get(f"/t/{night.code}").get_data(as_text=True)
    assert f'hx-get="/t/{night.code}/back" hx-trigger="every 3s"' in html
    asked = night.clients["Ben"].get(f"/t/{night.code}/back", headers={"HX-Request": "true"})
    assert asked.status_code == 204 and "HX-Redirect" not in asked.headers
    assert night.host_do("readmit", seat=night.seats["Ben"]).status_code == 303
    asked = night.clients["Ben"].get(f"/t/{night.code}/back", headers={"HX-Request": "true"})
    assert asked.status_code == 200 and asked.headers["HX-Redirect"] == f"/t/{night.code}"
    # Another phone, never seated here, is told nothing.
    other = app.test_client().get(f"/t/{night.code}/back", headers={"HX-Request": "true"})
    assert other.status_code == 204
