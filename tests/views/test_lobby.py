import re

import pytest

from montones.rules import monte_bank
from tests.helpers.nights import fresh_token


def test_home_page_in_english_by_default(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert '<html lang="en">' in html
    assert "<h1>Montones</h1>" in html
    assert "For chips only, never money." in html


def test_home_page_follows_the_browser_language(client):
    html = client.get("/", headers={"Accept-Language": "es-ES,es;q=0.9"}).get_data(as_text=True)
    assert '<html lang="es">' in html
    assert "Solo con fichas, nunca con dinero." in html


def test_lang_switch_is_remembered_over_the_browser_language(client):
    client.get("/?lang=es")
    html = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert '<html lang="es">' in html
    assert "Los juegos" in html


def test_unknown_lang_is_ignored(client):
    html = client.get("/?lang=xx", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert '<html lang="en">' in html


def test_page_loads_the_vendored_htmx(client):
    html = client.get("/").get_data(as_text=True)
    assert "/static/js/htmx-2." in html
    assert '"selfRequestsOnly":true' in html


def test_a_game_the_lobby_does_not_offer_is_refused_with_the_form_kept(client):
    token = fresh_token(client)
    response = client.post(
        "/tables", data={"csrf_token": token, "game": "poker", "chips": "100", "name": "Mus"}
    )
    assert response.status_code == 422
    assert "Choose one of the games." in response.get_data(as_text=True)


def test_each_game_is_named_by_its_title_on_the_home_page(client):
    html = client.get("/").get_data(as_text=True)
    for title in ("Montones", "Monte", "Monte Bank"):
        assert f"> {title}</label>" in html


def test_a_wrong_host_link_is_said_on_a_page_of_the_apps_in_the_readers_language(app):
    from tests.helpers.nights import Night

    night = Night(app, "Ana")
    guest = app.test_client()
    answer = guest.get(f"/t/{night.code}/host/claim/not-the-secret")
    assert answer.status_code == 403
    assert "Only the host can open this page" in answer.get_data(as_text=True)
    spanish = guest.get(f"/t/{night.code}/host", headers={"Accept-Language": "es"})
    assert spanish.status_code == 403
    assert "Solo el anfitrión puede abrir esta página" in spanish.get_data(as_text=True)


def test_every_game_on_the_home_page_links_its_rules(client):
    html = client.get("/").get_data(as_text=True)
    for name in ("montones", "monte", "monte_bank"):
        assert f'href="/rules/{name}"' in html, name


@pytest.mark.parametrize("language", ["en", "es", "de", "ru"])
def test_monte_banks_rules_draw_the_layout_and_what_matches_each_card_as_the_engine_does(
    client, language
):
    html = client.get(f"/rules/monte_bank?lang={language}").get_data(as_text=True)
    # The layout, three bets, two on a side card, three stacks.
    assert html.count('class="mb-pic"') == 9
    # The colour rule's pictures: what each shows under each card is what the engine matches.
    shown = re.findall(r'data-live="([^"]+)"', html)
    assert len(shown) == 3
    stacks = [["7S"], ["7S", "7C"], ["7S", "7C", "7H"]]
    for drawn, stack in zip(shown, stacks, strict=True):
        layout = {"ul": stack, "ur": ["AD"], "ll": ["3C"], "lr": ["KH"]}
        engine = {row["position"]: row["cards"] for row in monte_bank.live_words(layout)}
        pictured = dict(part.split(":") for part in drawn.split(";"))
        assert {p: cards.split() for p, cards in pictured.items()} == engine


@pytest.mark.parametrize(
    ("name", "refusal"),
    [
        ("Fri\u202eyad", "A name can only have letters, digits, spaces and punctuation."),
        ("Friday\nnight", "A name can only have letters, digits, spaces and punctuation."),
        ("Friday" + "\u0301" * 17, "A name can have at most 3 marks on one letter."),
        ("F" * 61, "A table&#39;s name can have at most 60 characters."),
    ],
)
def test_a_tables_name_that_is_not_plain_text_is_refused_and_no_table_made(app, name, refusal):
    from sqlalchemy import func, select

    from montones.data.models import GameTable
    from montones.extensions import db

    client = app.test_client()
    token = fresh_token(client)
    with app.app_context():
        before = db.session.scalar(select(func.count()).select_from(GameTable))
    response = client.post(
        "/tables",
        data={
            "csrf_token": token,
            "game": "montones",
            "chips": "100",
            "name": name,
            "min_bet": "1",
            "heaps_min": "3",
            "heaps_max": "5",
            "tenure": "60",
            "cut_timeout": "30",
        },
    )
    assert response.status_code == 422
    assert refusal in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(GameTable)) == before
