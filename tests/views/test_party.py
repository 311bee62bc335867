"""The party (issue 40), through the routes: a face chosen when sitting down and shown
everywhere, the lobby on the TV until the host or the first bank offer starts the night, the
reactions (limited by seat, off at the host's word, never a version of the table), the TV's big
moment after a reveal and the standings between rounds, the host's music switch."""

import re

import pytest

from montones import service
from montones.live import channel
from montones.web import screens
from tests.helpers.nights import HX, MonteNight, Night, csrf_of, shown_text


def tv(night, region=None):
    client = night.app.test_client()
    if region:
        answer = client.get(f"/t/{night.code}/tv/p/{region}?lang=en", headers=HX)
    else:
        answer = client.get(f"/t/{night.code}/tv?lang=en")
    return answer.get_data(as_text=True)


def sit(night, name, **fields):
    client = night.app.test_client()
    token = csrf_of(client.get(f"/t/{night.code}/join"))
    answer = client.post(
        f"/t/{night.code}/join", data={"csrf_token": token, "name": name, **fields}
    )
    return client, token, answer


def version_of(night) -> int:
    with night.app.app_context():
        return night.table().version


def react(night, name, reaction="laugh"):
    return night.clients[name].post(
        f"/t/{night.code}/react/{reaction}",
        data={"csrf_token": night.tokens[name]},
        headers=HX,
    )


def test_the_face_chosen_when_sitting_down_is_beside_the_name_on_the_tv_phone_and_standings(app):
    night = Night(app, "Ana")
    client, token, answer = sit(night, "Ben", face="owl", colour="5")
    assert answer.status_code == 303
    seat = next(s for s, p in night.state()["players"].items() if p["name"] == "Ben")
    drawn = '<svg class="face seat-5 '
    face = '#owl"'
    players = tv(night, "players")
    row = re.search(rf'<li id="player-{seat}".*?</li>', players, re.S).group(0)
    assert drawn in row and face in row
    phone = client.get(f"/t/{night.code}").get_data(as_text=True)
    me = re.search(r'<span class="status__name">.*?</span>', phone, re.S).group(0)
    assert drawn in me and face in me
    standings = client.get(f"/t/{night.code}/standings").get_data(as_text=True)
    assert drawn in standings and face in standings
    # Ana chose none: her seat's own face and colour.
    first = re.search(r'<li id="player-p1".*?</li>', players, re.S).group(0)
    assert '<svg class="face seat-1 ' in first and '#cat"' in first


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"face": "dragon", "colour": "1"}, "Choose one of the faces."),
        ({"face": "owl", "colour": "9"}, "Choose one of the colours."),
        ({"face": "owl", "colour": "red"}, "Choose one of the colours."),
    ],
)
def test_a_face_or_colour_not_offered_is_refused_in_words_and_nobody_sits(app, fields, message):
    night = Night(app, "Ana")
    before = night.snapshot()
    _client, _token, answer = sit(night, "Ben", **fields)
    assert answer.status_code == 422
    assert message in shown_text(answer.get_data(as_text=True))
    assert night.snapshot() == before


def test_the_join_form_offers_every_face_and_colour_with_a_name_each(app):
    night = Night(app, "Ana")
    page = night.app.test_client().get(f"/t/{night.code}/join?lang=en").get_data(as_text=True)
    assert page.count('name="face"') == 10 and page.count('name="colour"') == 8
    assert "Face 10" in page and "Colour 8" in page
    assert page.count("checked") == 2  # one face, one colour, chosen already


def test_the_tv_shows_the_lobby_until_the_host_starts_the_night(app):
    night = Night(app, "Ana", "Ben")
    party = tv(night, "party")
    assert 'class="party-lobby"' in party and "2 players at the table" in shown_text(party)
    assert "Ana" in party and "Ben" in party and 'data-music="lobby"' in party
    host = night.host.get(f"/t/{night.code}/host?lang=en").get_data(as_text=True)
    assert "Start the night" in host
    version = version_of(night)
    assert night.host_do("start").status_code == 303
    assert 'class="party-lobby"' not in tv(night, "party")
    assert version_of(night) == version + 1
    assert "Start the night" not in night.host.get(f"/t/{night.code}/host").get_data(as_text=True)
    assert night.state()["players"]  # nothing of the game changed: no chip moved
    assert night.ledger()


def test_the_first_bank_offer_starts_the_night_without_the_host(app):
    night = Night(app, "Ana", "Ben")
    assert 'class="party-lobby"' in tv(night, "party")
    night.ok("Ana", "offer", amount=30)
    assert 'class="party-lobby"' not in tv(night, "party")


def test_a_reaction_reaches_the_tv_beside_its_face_and_is_no_version_of_the_table(app):
    night = Night(app, "Ana", "Ben")
    phone = night.page("Ben").get_data(as_text=True)
    row = re.search(r'<div id="cheer".*?</div>', phone, re.S).group(0)
    assert row.count("<button") == 4 and 'aria-label="Applause"' in night.clients["Ben"].get(
        f"/t/{night.code}?lang=en"
    ).get_data(as_text=True)
    before = night.snapshot()
    version = version_of(night)
    answer = react(night, "Ben", "clap")
    assert answer.status_code == 204
    assert night.snapshot() == before and version_of(night) == version
    with app.app_context():
        recent = channel.of(app).reactions(night.code)
        assert [(seat, kind) for _n, seat, kind, _at in recent] == [(night.seats["Ben"], "clap")]
        with app.test_request_context("/"):
            html = screens.reactions(service.get_table(night.code), recent)
    assert f'data-seat="{night.seats["Ben"]}"' in html and '#clap"' in html
    assert 'hx-swap-oob="morph"' in html
    assert len(html.encode()) < 600  # a few hundred bytes on the TV


def test_a_reaction_is_refused_to_a_phone_without_a_seat_and_an_unknown_one(app):
    night = Night(app, "Ana")
    stranger = night.app.test_client()
    token = csrf_of(stranger.get(f"/t/{night.code}/join"))
    answer = stranger.post(f"/t/{night.code}/react/laugh", data={"csrf_token": token}, headers=HX)
    assert answer.status_code == 403 and "Join the table first." in answer.get_data(as_text=True)
    answer = react(night, "Ana", "boo")
    assert answer.status_code == 422 and "That is not a reaction." in answer.get_data(as_text=True)
    with app.app_context():
        assert channel.of(app).reactions(night.code) == ()


def test_the_host_turns_reactions_off_and_the_phones_lose_their_row(app):
    night = Night(app, "Ana", "Ben")
    phone = night.page("Ben").get_data(as_text=True)
    assert "data-quiet" not in re.search(r'<div id="tap".*?</div>', phone, re.S).group(0)
    assert night.host_do("reactions_off").status_code == 303
    # The felt's #tap says so, on every phone's next update (CSS hides the row then).
    phone = night.page("Ben").get_data(as_text=True)
    assert "data-quiet" in re.search(r'<div id="tap".*?</div>', phone, re.S).group(0)
    answer = react(night, "Ben")
    assert answer.status_code == 422
    assert "The host has turned reactions off." in answer.get_data(as_text=True)
    host = night.host.get(f"/t/{night.code}/host?lang=en").get_data(as_text=True)
    assert "Turn reactions on" in host
    assert night.host_do("reactions_on").status_code == 303
    assert react(night, "Ben").status_code == 204


def test_only_the_host_switches_the_party(app):
    night = Night(app, "Ana", "Ben")
    before = night.snapshot()
    answer = night.clients["Ben"].post(
        f"/t/{night.code}/host/music_on", data={"csrf_token": night.tokens["Ben"]}
    )
    assert answer.status_code == 403
    assert night.snapshot() == before


def test_the_music_is_off_until_the_host_turns_it_on(app):
    night = Night(app, "Ana", "Ben")
    assert "data-music-on" not in tv(night, "party")
    assert "music/lobby.ogg" in tv(night)
    assert night.host_do("music_on").status_code == 303
    assert "data-music-on" in tv(night, "party")
    assert night.host_do("music_off").status_code == 303
    assert "data-music-on" not in tv(night, "party")


def hand(night, bottoms, stake, banker="Ana"):
    night.ok("Ben", "bet", heap=1, amount=stake)
    night.ok("Eva", "choose", heap=3)
    night.arrange(bottoms)
    night.ok(banker, "close")
    assert night.state()["phase"] == "settled"


def moment_of(party):
    found = re.search(r'<div class="moment (.*?)</div>', party, re.S)
    return found and found.group(0)


def test_the_rey_de_oros_paid_double_is_celebrated_after_the_reveal_not_before(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", 30, 3)
    hand(night, {3: "4o", 1: "Ro"}, 5)
    party = tv(night, "party")
    moment = moment_of(party)
    assert moment and "Rey de oros! Ben is paid double: +10" in shown_text(moment)
    # Shown when the reveal is done (show.js), not before: held, with the reveal's own time.
    felt = tv(night, "felt")
    done = re.search(r'data-done="(\d+)"', felt).group(1)
    assert f'data-at="{done}"' in moment and "reveal-hold" in moment
    assert 'data-sound="cheer"' in moment


def test_a_broken_bank_is_the_biggest_moment(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", 30, 3)
    hand(night, {3: "4o", 1: "6c"}, 30)
    moment = moment_of(tv(night, "party"))
    assert "moment--huge" in moment and "Ben broke the bank!" in shown_text(moment)
    assert 'data-sound="broke"' in moment


def test_an_ordinary_hand_has_no_moment(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", 30, 3)
    hand(night, {3: "4o", 1: "6c"}, 2)
    assert moment_of(tv(night, "party")) is None


def test_the_standings_show_between_rounds_every_third_hand_with_what_moved(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", 30, 3)
    boards = []
    for number in range(1, 4):
        hand(night, {3: "4o", 1: "6c"}, 2)
        boards.append('class="board ' in tv(night, "party"))
        if number < 3:
            night.ok("Ana", "next")
            night.ok(night.cutter(), "cut", position=10)
            night.ok("Ana", "heaps", count=3)
    assert boards == [False, False, True]
    board = re.search(r'<div class="board .*?</ol>', tv(night, "party"), re.S).group(0)
    text = shown_text(board)
    # Ben won 2 a hand, three hands: +6 since the board was last due; Ana's bank paid them.
    assert re.search(r"Ben 106 ▲ \+6", text), text
    assert re.search(r"Ana 9\d ▼ −6", text), text
    felt = tv(night, "felt")
    done = int(re.search(r'data-done="(\d+)"', felt).group(1))
    assert f'data-at="{done + 600}"' in board  # after the reveal, never before


def test_in_monte_a_broken_bank_is_celebrated_and_the_bank_passing_brings_the_standings(app):
    night = MonteNight(app, "Ana", "Ben", "Eva")
    night.draw()
    night.put_up(10)
    night.stack(top=["7H", "KC"], bottom=["3S", "2S"], gate="QH")
    night.cut()
    broken, punter = night.banker, night.punters[0]
    assert night.tap(punter, "top", 10).status_code == 200
    assert night.do(broken, "gate", stage=night.stage()).status_code == 200
    party = tv(night, "party")
    moment = moment_of(party)
    assert moment and f"{punter} broke the bank!" in shown_text(moment)
    assert 'class="board ' in party  # the bank passed: the standings, after the moment


def test_in_monte_bank_a_monte_carlo_that_landed_is_celebrated(app):
    from tests.helpers.nights import monte_bank_betting as betting
    from tests.helpers.tables import monte_bank_deck

    # The first card turned is an ace, the upper right's: its round, its cross against the
    # lower left and the upper side's double all win.
    night = betting(app, deck=monte_bank_deck(["5S"], "AD", "3C", "KH", ["AH", "5H", "3H", "KD"]))
    ana = night.punters[0]
    answer = night.tap(ana, "ur", 2, kind="monte_carlo", against="ll", side="upper")
    assert answer.status_code == 200
    assert night.do(night.banker, "close", stage=night.stage()).status_code == 200
    moment = moment_of(tv(night, "party"))
    assert moment and f"{ana} landed a Monte Carlo!" in shown_text(moment)
