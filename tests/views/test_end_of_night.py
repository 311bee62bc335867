"""The end of a night through the routes: the standings linked during play, a large top-up asked
about first, the host's page once the night is over, and the new night each phone finds."""

import re

from montones import service
from tests.helpers.nights import HX, Night, csrf_of, flashed


def host_page(night) -> str:
    return night.host.get(f"/t/{night.code}/host").get_data(as_text=True)


def ended(app) -> Night:
    night = Night(app, "Ana", "Ben", "Eva")
    assert night.host_do("end").status_code == 303
    return night


def test_the_standings_are_linked_from_the_phone_while_the_night_is_played(app):
    night = Night(app, "Ana", "Ben")
    page = night.page("Ana").get_data(as_text=True)
    assert f'href="/t/{night.code}/standings">The standings so far</a>' in page
    standings = night.clients["Ana"].get(f"/t/{night.code}/standings").get_data(as_text=True)
    assert "The night so far" in standings
    assert re.search(r'class="chip seat-1 is-mine" data-player="p1"', standings)


def test_a_top_up_up_to_the_starting_chips_is_given_at_once(app):
    night = Night(app, "Ana", "Ben")
    response = night.host_do("top_up", seat="p2", amount="100", confirm="")
    assert response.status_code == 303 and "confirm" not in response.location
    assert night.chips_of("Ben") == 200


def test_a_top_up_over_the_starting_chips_is_asked_about_first(app):
    night = Night(app, "Ana", "Ben")
    before = night.snapshot()
    response = night.host_do("top_up", seat="p2", amount="1000", confirm="")
    assert response.status_code == 303
    assert night.snapshot() == before  # asked, nothing given yet
    question = night.host.get(response.location).get_data(as_text=True)
    assert "Give Ben 1,000 chips?" in question
    assert "more than the 100 chips everyone started with" in question
    answer = night.host_do("top_up", seat="p2", amount="1000")
    assert flashed(night.host.get(answer.location)) == "Ben has 1,100 chips now."
    assert night.chips_of("Ben") == 1100


def test_the_host_writes_chips_as_the_phones_do(app):
    night = Night(app, "Ana", "Ben", chips=2000)
    night.host.get(f"/t/{night.code}/host?lang=de")
    night.clients["Ana"].get(f"/t/{night.code}?lang=de")
    answer = night.host_do("top_up", seat="p1", amount="500")
    assert flashed(night.host.get(answer.location)) == "Ana hat jetzt 2.500 Chips."
    assert "2.500 Chips" in host_page(night)
    assert "2.500" in night.page("Ana").get_data(as_text=True)  # the phone's own way


def test_the_hosts_checkboxes_are_labelled_with_each_players_name(app):
    night = Night(app, "Ana", "Ben")
    page = host_page(night)
    for seat, name in (("p1", "Ana"), ("p2", "Ben")):
        assert re.search(
            rf'<label class="pick"><input type="checkbox" name="seat" value="{seat}" '
            rf'form="send-away"> <strong>{name}</strong></label>',
            page,
        )


def test_once_the_night_is_over_the_host_is_offered_no_top_up_nor_send_away(app):
    night = ended(app)
    page = host_page(night)
    assert "Top up" not in page and "Send away" not in page and 'type="checkbox"' not in page
    assert "New night, same players…" in page
    before = night.snapshot()
    answer = night.host_do("top_up", seat="p2", amount="10")
    message = "The night is over: nobody can be given chips, sent away or let back in now."
    assert flashed(night.host.get(answer.location)) == message
    answer = night.host_do("kick", seat="p2")
    assert flashed(night.host.get(answer.location)) == message
    assert night.snapshot() == before


def test_the_phones_show_the_end_of_the_night_on_their_live_page(app):
    night = ended(app)
    page = night.page("Ben")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'class="finale finale--phone"' in html and "Nobody ends the night up." in html
    tv = night.host.get(f"/t/{night.code}/tv").get_data(as_text=True)
    assert 'class="finale finale--tv"' in tv and "Chips over the night" in tv


def test_the_new_night_is_asked_about_first(app):
    night = ended(app)
    before = night.snapshot()
    response = night.host_do("new_night", confirm="")
    assert response.status_code == 303 and response.location.endswith("?confirm=new_night")
    question = night.host.get(response.location).get_data(as_text=True)
    assert "Start a new night with the same players?" in question
    assert "Yes, start the new night" in question
    assert night.snapshot() == before
    with night.app.app_context():
        assert night.table().next_code is None


def test_the_new_night_takes_the_host_and_each_phone_to_their_seats(app):
    night = ended(app)
    response = night.host_do("new_night")
    new_code = re.search(r"/t/([A-Z]{4})/host$", response.location).group(1)
    assert new_code != night.code
    assert night.host.get(response.location).status_code == 200  # still the host there
    # The old table's end screen asks, as htmx, on each phone: it is sent to its seat.
    answer = night.clients["Ben"].get(f"/t/{night.code}/next", headers=HX)
    assert answer.headers["HX-Redirect"] == f"/t/{new_code}"
    status = night.clients["Ben"].get(f"/t/{new_code}").get_data(as_text=True)
    assert "Ben" in status and "Take your seat" not in status
    # A link followed by hand takes a phone there too; asked again, it is there already.
    answer = night.clients["Eva"].get(f"/t/{night.code}/next")
    assert answer.status_code == 303 and answer.location == f"/t/{new_code}"
    again = night.clients["Eva"].get(f"/t/{night.code}/next")
    assert again.location == f"/t/{new_code}"
    # A browser that had no seat stays put when asked by the screen, and may join by hand.
    stranger = app.test_client()
    assert stranger.get(f"/t/{night.code}/next", headers=HX).status_code == 204
    assert stranger.get(f"/t/{night.code}/next").location == f"/t/{new_code}/join"
    # The TV goes on by itself too.
    tv = night.host.get(f"/t/{night.code}/tv/next", headers=HX)
    assert tv.headers["HX-Redirect"] == f"/t/{new_code}/tv"
    with app.app_context():
        new = service.get_table(new_code)
    assert [p["name"] for p in new.state["players"].values()] == ["Ana", "Ben", "Eva"]


def test_the_end_screen_sends_each_phone_on_once_the_new_night_exists(app):
    night = ended(app)
    assert "Take your seat at the new night" not in night.page("Ana").get_data(as_text=True)
    night.host_do("new_night")
    page = night.page("Ana").get_data(as_text=True)
    assert f'hx-get="/t/{night.code}/next" hx-trigger="load"' in page
    # Last night's standings stay to be read on their own page: a link, not a move.
    standings = night.clients["Ana"].get(f"/t/{night.code}/standings").get_data(as_text=True)
    assert "Take your seat at the new night" in standings and 'hx-trigger="load"' not in standings


def test_a_top_up_of_words_is_refused_in_the_hosts_language_not_by_the_browser(app):
    """Every form on the host page is ``novalidate`` and the top-up is a text field: the
    browser's own tooltip (in the browser's language, English on a Spanish phone) never shows,
    what was typed reaches the server, and its refusal is in the page's language."""
    night = Night(app, "Ana", "Ben")
    page = night.host.get(f"/t/{night.code}/host?lang=es").get_data(as_text=True)
    forms = re.findall(r"<form\b[^>]*>", page)
    assert forms and all("novalidate" in form for form in forms)
    assert not re.search(r"<input[^>]*\b(required|min=|max=|pattern=)", page)
    for other in (
        night.page("Ana"),
        night.clients["Ana"].get("/"),
        night.host.get(f"/t/{night.code}/join"),
    ):
        forms = re.findall(r"<form\b[^>]*>", other.get_data(as_text=True))
        assert all("novalidate" in form for form in forms)  # the phones' and the lobby's too
    before = night.snapshot()
    for typed, said in (
        ("abc", "La recarga: tiene que ser un número entero."),
        (" ", "La recarga: falta el número."),
        ("-5", "Una recarga tiene que ser de al menos 1 ficha."),
    ):
        answer = night.host_do("top_up", seat="p2", amount=typed)
        assert flashed(night.host.get(answer.location)) == said
    assert night.snapshot() == before


def test_the_host_ending_the_night_finds_the_way_on_from_the_standings(app):
    """Item 8 of issue 36: "yes, end the night" lands the host on the standings, and from there
    the host page, the history and download, and a new night are each a tap away."""
    night = ended(app)
    response = night.host.get(f"/t/{night.code}/standings")
    page = response.get_data(as_text=True)
    assert f'href="/t/{night.code}/host">Back to the host page</a>' in page
    assert f'href="/t/{night.code}/host/history">History and download</a>' in page
    assert f'action="/t/{night.code}/host/new_night"' in page
    # The new night's button there asks first, as the host page's does, and then starts it.
    asked = night.host.post(
        f"/t/{night.code}/host/new_night", data={"csrf_token": csrf_of(response)}
    )
    assert asked.location.endswith(f"/t/{night.code}/host?confirm=new_night")
    night.host_do("new_night")
    with app.app_context():
        new_code = night.table().next_code
    page = night.host.get(f"/t/{night.code}/standings").get_data(as_text=True)
    assert f'href="/t/{new_code}/host">Go to the new night</a>' in page
    assert "/host/new_night" not in page
    # A player's standings offer none of the host's ways.
    theirs = night.clients["Ben"].get(f"/t/{night.code}/standings").get_data(as_text=True)
    assert "/host" not in theirs
