"""Every number a guest sets is bounded by what a night at one table comes to (issue 38): each of
the lobby's fields, in each game, and the host's top-up; past its bound it is refused in words,
in every language, and nothing changes (montones/rules/table.py, BOUNDS)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from montones.data.models import GameTable
from montones.extensions import db
from montones.rules.table import MOST_CHIPS, MOST_MINUTES, MOST_ROUNDS, MOST_SECONDS
from tests.helpers.nights import Night, flashed, fresh_token, notice

FORMS = {
    "montones": {
        "min_bet": "1",
        "heaps_min": "3",
        "heaps_max": "5",
        "tenure": "60",
        "cut_timeout": "30",
    },
    "monte": {"bank_size": "50", "min_bet": "1", "max_bet": "10", "banks_each": "1"},
    "monte_bank": {"min_bet": "1", "mb_bank_size": "50", "mb_banks_each": "1", "mb_levy": "on"},
}

CHIPS = "Bank size can be at most 1,000,000 chips."
# (game, field, its largest value, what past it is refused with)
BOUNDED = [
    ("montones", "chips", MOST_CHIPS, "Starting chips must be between 1 and 1,000,000."),
    ("montones", "min_bet", MOST_CHIPS, "Min bet can be at most 1,000,000 chips."),
    ("montones", "tenure", MOST_MINUTES, "The bank's time can be at most 1,440 minutes (a day)."),
    (
        "montones",
        "cut_timeout",
        MOST_SECONDS,
        "The time to cut can be at most 3,600 seconds (an hour).",
    ),
    ("montones", "most_players", 40, "A table seats from 2 to 40 players."),
    ("monte", "bank_size", MOST_CHIPS, CHIPS),
    ("monte", "max_bet", MOST_CHIPS, "Max bet can be at most 1,000,000 chips."),
    ("monte", "banks_each", MOST_ROUNDS, "Banks each can be at most 1,000."),
    ("monte", "short_bank", MOST_ROUNDS, "Short bank can be at most 1,000."),
    ("monte", "cut_timeout", MOST_SECONDS, "The time to cut can be at most 3,600 seconds"),
    ("monte_bank", "mb_bank_size", MOST_CHIPS, CHIPS),
    ("monte_bank", "min_bet", MOST_CHIPS, "Min bet can be at most 1,000,000 chips."),
    ("monte_bank", "mb_banks_each", MOST_ROUNDS, "Banks each can be at most 1,000."),
    ("monte_bank", "mb_deals_per_bank", MOST_ROUNDS, "Deals per bank can be at most 1,000."),
    ("monte_bank", "cut_timeout", MOST_SECONDS, "The time to cut can be at most 3,600 seconds"),
    ("monte_bank", "mb_side_cards", 2, "A table deals 0, 1 or 2 side cards."),
]


def tables(app) -> int:
    with app.app_context():
        found = db.session.scalar(select(func.count()).select_from(GameTable))
        db.session.remove()
        return found


def create(client, game: str, **fields):
    form = {"csrf_token": fresh_token(client), "game": game, "chips": "100", **FORMS[game]}
    return client.post("/tables", data={**form, **fields})


@pytest.mark.parametrize(("game", "field", "most", "refusal"), BOUNDED)
def test_a_setting_past_its_bound_is_refused_and_makes_no_table(app, game, field, most, refusal):
    client = app.test_client()
    before = tables(app)
    # A bank (and a bet's limit) at its largest needs the chips to cover it.
    big = {"chips": str(MOST_CHIPS), "bank_size": str(MOST_CHIPS), "mb_bank_size": str(MOST_CHIPS)}
    refused = create(client, game, **{**big, field: str(most + 1)})
    assert refused.status_code == 422
    assert notice(refused).startswith(refusal), notice(refused)
    assert tables(app) == before
    # At its bound it is taken.
    taken = create(client, game, **{**big, field: str(most)})
    assert taken.status_code == 303, notice(taken)
    assert tables(app) == before + 1


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("es", "El número de bancas por jugador puede ser como mucho 1.000."),
        ("de", "Die Zahl der Banken pro Spieler darf höchstens 1.000 sein."),
        ("ru", "Число банков на игрока: не больше 1000."),
        ("en", "Banks each can be at most 1,000."),
    ],
)
def test_a_bound_is_said_in_the_guests_language(app, language, words):
    client = app.test_client()
    refused = client.post(
        "/tables",
        data={
            "csrf_token": fresh_token(client),
            "game": "monte",
            "chips": "100",
            **FORMS["monte"],
            "banks_each": str(MOST_ROUNDS + 1),
        },
        headers={"Accept-Language": language},
    )
    assert notice(refused) == words


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("es", "La banca corta puede ser como mucho 1.000."),
        ("de", "Die kürzere Bank darf höchstens 1.000 sein."),
        ("ru", "Короткий банк: не больше 1000."),
    ],
)
def test_the_chips_and_times_bounds_are_said_in_every_language(app, language, words):
    client = app.test_client()
    headers = {"Accept-Language": language}
    cases = {
        "es": ("El tiempo de la banca puede ser como mucho de 1.440 minutos (un día).", "fichas"),
        "de": ("Die Zeit der Bank darf höchstens 1.440 Minuten (ein Tag) betragen.", "Chips"),
        "ru": ("Время банка — не больше 1440 минут (суток).", "фишек"),
    }
    tenure, chips_word = cases[language]
    refused = client.post(
        "/tables",
        data={
            "csrf_token": fresh_token(client),
            "game": "montones",
            "chips": "100",
            **{**FORMS["montones"], "tenure": str(MOST_MINUTES + 1)},
        },
        headers=headers,
    )
    assert notice(refused) == tenure
    refused = client.post(
        "/tables",
        data={
            "csrf_token": fresh_token(client),
            "game": "monte",
            "chips": "100",
            **FORMS["monte"],
            "short_bank": str(MOST_ROUNDS + 1),
        },
        headers=headers,
    )
    assert notice(refused) == words
    refused = client.post(
        "/tables",
        data={
            "csrf_token": fresh_token(client),
            "game": "monte",
            "chips": "100",
            **FORMS["monte"],
            "max_bet": str(MOST_CHIPS + 1),
        },
        headers=headers,
    )
    assert chips_word in notice(refused) and "1" in notice(refused)


def test_a_top_up_past_its_bound_is_refused_and_gives_nothing(app):
    night = Night(app, "Ana", "Ben")
    before = night.snapshot()
    answer = night.host_do("top_up", seat="p2", amount=str(MOST_CHIPS + 1))
    assert flashed(night.host.get(answer.location)) == ("A top-up can be at most 1,000,000 chips.")
    assert night.snapshot() == before
    night.host_do("top_up", seat="p2", amount=str(MOST_CHIPS))
    assert night.chips_of("Ben") == 100 + MOST_CHIPS
