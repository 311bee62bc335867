"""The host's say over who sits at the table: a limit set in the lobby, doors closed and opened,
several players sent away at once."""

from __future__ import annotations

import re

from tests.helpers.nights import Night, csrf_of, flashed, fresh_token


def join(app, code: str, name: str):
    """A name sent to the join form, even when the page offers none (a page drawn earlier)."""
    client = app.test_client()
    token = fresh_token(client)
    return client.post(f"/t/{code}/join", data={"csrf_token": token, "name": name})


def refusal_of(response) -> str:
    found = re.search(r'class="notice" role="alert">([^<]*)<', response.get_data(as_text=True))
    return found.group(1) if found else ""


def test_the_lobby_sets_how_many_players_a_table_seats(app):
    host = app.test_client()
    response = host.post(
        "/tables",
        data={"csrf_token": fresh_token(host), "game": "montones", "chips": "100",
              "min_bet": "1", "heaps_min": "3", "heaps_max": "8", "tenure": "60",
              "cut_timeout": "30", "most_players": "2"},
    )  # fmt: skip
    assert response.status_code == 303
    code = re.search(r"/t/([A-Z]{4})/host", response.location).group(1)
    assert join(app, code, "Ana").status_code == 303
    assert join(app, code, "Ben").status_code == 303
    refused = join(app, code, "Eva")
    assert refused.status_code == 422
    assert refusal_of(refused) == "The table is full: it seats 2 players."


def test_a_table_closed_to_new_players_refuses_a_join_until_it_opens(app):
    night = Night(app, "Ana")
    assert night.host_do("close_doors").status_code == 303
    refused = join(app, night.code, "Ben")
    assert refused.status_code == 422
    assert refusal_of(refused) == "The host has closed this table to new players."
    assert night.host_do("open_doors").status_code == 303
    assert join(app, night.code, "Ben").status_code == 303
    assert night.host_do("open_doors").status_code == 303
    assert flashed(night.host.get(f"/t/{night.code}/host")) == (
        "The table is open to new players already."
    )


def test_the_host_sends_several_players_away_at_once(app):
    night = Night(app, "Ana", "Ben", "Eva", "Dan")
    seats = [night.seats["Ben"], night.seats["Dan"]]
    asked = night.host.post(
        f"/t/{night.code}/host/kick", data={"csrf_token": night.host_token, "seat": seats}
    )
    assert asked.status_code == 303 and not any(
        p.get("left") for p in night.state()["players"].values()
    )  # asked first: nothing changed yet
    question = night.host.get(asked.location).get_data(as_text=True)
    assert "Send Ben, Dan away?" in question
    response = night.host.post(
        f"/t/{night.code}/host/kick",
        data={"csrf_token": night.host_token, "seat": seats, "nonce": "n1", "confirm": "yes"},
    )
    assert response.status_code == 303
    players = night.state()["players"]
    assert [pid for pid, p in players.items() if p.get("left")] == seats
    assert not players[night.seats["Ana"]].get("left")
    assert night.ledger()["house"] == -400  # the chips they had went back to the house


def test_an_empty_name_is_refused_by_the_app_in_the_phones_language_not_by_the_browser(app):
    night = Night(app, "Ana", "Ben")
    client = app.test_client()
    page = client.get(f"/t/{night.code}/join?lang=es").get_data(as_text=True)
    # The browser's own check would say it in the browser's language, whatever the page's.
    assert re.search(r"<form [^>]*novalidate>", page)
    token = csrf_of(client.get(f"/t/{night.code}/join"))
    refused = client.post(f"/t/{night.code}/join", data={"csrf_token": token, "name": ""})
    assert refused.status_code == 422
    assert refusal_of(refused) == "Hace falta un nombre."  # the app's words, in Spanish
