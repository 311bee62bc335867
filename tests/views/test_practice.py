"""A practice table: one tap on the home page, a game, three computer players, at once."""

import re

import pytest

from montones import service
from tests.helpers.nights import fresh_token


def practise(app, game):
    client = app.test_client()
    token = fresh_token(client)
    response = client.post("/practice", data={"csrf_token": token, "game": game})
    return client, token, response


@pytest.mark.parametrize("game", ["montones", "monte", "monte_bank"])
def test_one_tap_seats_me_with_three_computer_players_under_way(app, game):
    client, _token, response = practise(app, game)
    assert response.status_code == 303
    code = re.fullmatch(r"/t/([A-Z]{4})", response.location).group(1)
    with app.app_context():
        table = service.get_table(code)
    players = table.state["players"]
    assert [p.get("computer", False) for p in players.values()] == [False, True, True, True]
    assert players["p1"]["name"] == "Player"
    assert table.state["settings"]["practice"] is True
    assert table.state["phase"] != "seating"  # under way: the first bank drawn where it is
    page = client.get(response.location).get_data(as_text=True)
    assert "you and three computer players, for practice chips" in page
    assert "Leave the practice" in page
    assert "host link" not in page.lower()


def test_leaving_the_practice_ends_it(app):
    client, token, response = practise(app, "monte")
    code = response.location.rsplit("/", 1)[1]
    left = client.post(f"/t/{code}/leave-practice", data={"csrf_token": token})
    assert left.status_code == 303 and left.location == "/"
    with app.app_context():
        table = service.get_table(code)
        assert sum(service.ledger_totals(table).values()) == 0
    assert table.ended_at is not None


def test_only_a_practice_table_is_left_that_way(app):
    host = app.test_client()
    token = fresh_token(host)
    made = host.post(
        "/tables",
        data={
            "csrf_token": token,
            "game": "monte",
            "chips": "100",
            "min_bet": "1",
            "bank_size": "50",
            "max_bet": "10",
            "banks_each": "1",
            "cut_timeout": "30",
        },
    )
    code = re.search(r"/t/([A-Z]{4})/host", made.location).group(1)
    refused = host.post(f"/t/{code}/leave-practice", data={"csrf_token": token})
    assert refused.status_code == 403
    with app.app_context():
        assert service.get_table(code).ended_at is None


def test_the_home_page_offers_a_practice_of_each_game(app):
    page = app.test_client().get("/?lang=en").get_data(as_text=True)
    assert "Practise on your own" in page
    assert set(re.findall(r'name="game" value="(\w+)">', page)) == {
        "montones",
        "monte",
        "monte_bank",
    }


def test_an_unknown_game_is_refused_and_seats_nobody(app):
    _client, _token, response = practise(app, "poker")
    assert response.status_code == 422
    assert "Choose one of the games." in response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("language", "me", "computers"),
    [
        ("en", "Player", ["Lola", "Paco", "Carmen"]),
        ("es", "Jugador", ["Lola", "Paco", "Carmen"]),
        ("ru", "Игрок", ["Лола", "Пако", "Кармен"]),
    ],
)
def test_a_practice_table_names_its_players_in_the_phone_s_language(app, language, me, computers):
    """Issue 36: a Russian practice seated «Ты» ("Ты выиграл", "Ты wins" in English: a pronoun
    where the story speaks of a player) beside Lola and Paco in Latin letters. The table keeps
    the computers' names as the rules give them; the phone draws them in its language."""
    client = app.test_client()
    client.get(f"/?lang={language}")
    token = fresh_token(client)
    response = client.post("/practice", data={"csrf_token": token, "game": "monte"})
    code = re.fullmatch(r"/t/([A-Z]{4})", response.location).group(1)
    with app.app_context():
        players = service.get_table(code).state["players"]
    assert [p["name"] for p in players.values()] == [me, "Lola", "Paco", "Carmen"]
    page = client.get(response.location).get_data(as_text=True)
    assert all(name in page for name in computers)


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "Here the app shuffles and deals."),
        ("es", "Aquí la app baraja y reparte."),
        ("de", "Hier mischt und gibt die App."),
        ("ru", "Здесь приложение само тасует и сдаёт."),
    ],
)
def test_a_practice_table_says_in_a_line_what_a_table_of_one_s_own_cards_is(app, language, words):
    """Issue 42: the practice table says the app deals here, and where a table of a deck of
    one's own is made (its cards tapped in as they are turned)."""
    client = app.test_client()
    client.get(f"/?lang={language}")
    token = fresh_token(client)
    response = client.post("/practice", data={"csrf_token": token, "game": "montones"})
    page = client.get(response.location).get_data(as_text=True)
    assert words in page and "practice-note__own" in page
