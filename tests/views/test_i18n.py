"""Refusals in the player's language: the rules and the service refuse in English templates,
and the screen that shows a refusal puts it into the language of the request."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from montones import service
from montones.config import Config
from montones.rules import RulesError
from tests.helpers.nights import HX, Night, flashed, fresh_token, notice

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "montones/translations"
SPANISH = {"Accept-Language": "es-ES,es;q=0.9"}
ENGLISH = {"Accept-Language": "en"}


def bet(night, name, headers, **fields):
    """A tap on ``name``'s phone, sent with the phone's own Accept-Language."""
    data = {"csrf_token": night.tokens[name], **{k: str(v) for k, v in fields.items()}}
    return night.clients[name].post(f"/t/{night.code}/a/bet", data=data, headers={**HX, **headers})


@pytest.fixture
def betting(app):
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=20)
    return night


# --- the refusal of a bet over the bank -----------------------------------------------------


def test_a_bet_over_the_bank_is_refused_in_spanish_to_a_spanish_phone(betting):
    response = bet(betting, "Ben", SPANISH, heap=1, amount=25)
    assert response.status_code == 422
    assert notice(response) == "La banca tiene 20: lo máximo que puedes apostar es 20."


def test_a_bet_over_the_bank_is_refused_in_spanish_after_the_lang_switch(betting):
    betting.clients["Ben"].get("/?lang=es", headers=ENGLISH)
    response = bet(betting, "Ben", ENGLISH, heap=1, amount=25)
    assert notice(response) == "La banca tiene 20: lo máximo que puedes apostar es 20."


def test_a_bet_over_the_bank_is_refused_in_english_as_before(betting):
    response = bet(betting, "Ben", ENGLISH, heap=1, amount=25)
    assert response.status_code == 422
    assert notice(response) == "The bank holds 20: the most you can bet is 20."


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("de", "Die Bank hält 20: Du kannst höchstens 20 setzen."),
        ("ru", "В банке 20: ставка не больше 20."),
    ],
)
def test_a_bet_over_the_bank_is_refused_in_german_and_in_russian(betting, language, sentence):
    response = bet(betting, "Ben", {"Accept-Language": language}, heap=1, amount=25)
    assert response.status_code == 422
    assert notice(response) == sentence


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "The bank holds 1,500: the most you can bet is 1,500."),
        ("de", "Die Bank hält 1.500: Du kannst höchstens 1.500 setzen."),
        ("ru", "В банке 1\xa0500: ставка не больше 1\xa0500."),
    ],
)
def test_a_refusal_writes_its_counts_as_the_phone_s_language_does(app, language, sentence):
    """Issue 36: a refusal said "1000" where every other line of the screen said "1,000"."""
    night = Night(app, "Ana", "Ben", "Eva", chips=5000)
    night.to_betting("Ana", bank=1500)
    response = bet(night, "Ben", {"Accept-Language": language}, heap=1, amount=2000)
    assert response.status_code == 422
    assert notice(response) == sentence


def test_the_words_a_refusal_is_built_from_are_german_and_russian_too(app):
    night = Night(app, "Ana", "Ben")
    data = {"csrf_token": night.tokens["Ana"], "amount": "0"}
    url = f"/t/{night.code}/a/offer"
    said = {
        language: notice(night.clients["Ana"].post(url, data=data, headers={**HX, **headers}))
        for language, headers in (
            ("de", {"Accept-Language": "de"}),
            ("ru", {"Accept-Language": "ru"}),
        )
    }
    assert said == {
        "de": "Ein Gebot muss mindestens 1 Chip betragen.",
        "ru": "Заявка: не меньше 1 фишки.",
    }


def test_the_same_table_refuses_each_phone_in_its_own_language(betting):
    assert notice(bet(betting, "Ben", SPANISH, heap=1, amount=25)).startswith("La banca tiene")
    assert notice(bet(betting, "Eva", ENGLISH, heap=1, amount=25)).startswith("The bank holds")


# --- words the rules pass into a refusal, and refusals from elsewhere -------------------------


def test_the_words_a_refusal_is_built_from_are_translated_too(app):
    night = Night(app, "Ana", "Ben")
    data = {"csrf_token": night.tokens["Ana"], "amount": "0"}
    url = f"/t/{night.code}/a/offer"
    spanish = night.clients["Ana"].post(url, data=data, headers={**HX, **SPANISH})
    english = night.clients["Ana"].post(url, data=data, headers={**HX, **ENGLISH})
    assert notice(spanish) == "Una puja tiene que ser de al menos 1 ficha."
    assert notice(english) == "An offer must be at least 1 chip."


def test_a_refusal_of_the_wrong_moment_is_in_spanish(app):
    night = Night(app, "Ana", "Ben")
    response = bet(night, "Ben", SPANISH, heap=1, amount=5)
    assert notice(response) == "Las apuestas están cerradas."
    assert notice(bet(night, "Ben", ENGLISH, heap=1, amount=5)) == "Bets are closed."


def test_a_refusal_without_htmx_is_flashed_in_spanish(betting):
    data = {"csrf_token": betting.tokens["Ben"], "heap": "1", "amount": "25"}
    client = betting.clients["Ben"]
    response = client.post(f"/t/{betting.code}/a/bet", data=data, headers=SPANISH)
    assert response.status_code == 303
    page = client.get(response.location, headers=SPANISH)
    assert flashed(page) == "La banca tiene 20: lo máximo que puedes apostar es 20."


def test_a_field_that_is_not_a_number_is_named_in_the_phones_language(betting):
    """A form's field is named in the refusal in the phone's language: the label is kept in
    English until the refusal is shown, like every word a refusal is built from."""
    spanish = bet(betting, "Ben", SPANISH, heap=1, amount="two")
    english = bet(betting, "Eva", ENGLISH, heap=1, amount="")
    assert spanish.status_code == english.status_code == 422
    assert notice(spanish) == "La cantidad: tiene que ser un número entero."
    assert notice(english) == "The amount is missing."


def test_a_setting_the_rules_refuse_is_named_in_spanish_in_the_lobby(client):
    form = {
        "csrf_token": fresh_token(client),
        "game": "monte",
        "chips": "100",
        "bank_size": "0",
        "min_bet": "1",
        "max_bet": "10",
        "banks_each": "1",
    }
    spanish = client.post("/tables", data=form, headers=SPANISH)
    english = client.post("/tables", data=form, headers=ENGLISH)
    assert spanish.status_code == english.status_code == 422
    assert notice(spanish) == (
        "El tamaño de la banca tiene que ser un número entero, como mínimo 1."
    )
    assert notice(english) == "Bank size must be a whole number, at least 1."


def test_a_refusal_of_the_service_is_in_spanish(client):
    response = client.get("/t/ZZZZ", headers=SPANISH)
    assert response.status_code == 404
    assert notice(response) == "No hay ninguna mesa con ese código."


# --- the errors keep their template ----------------------------------------------------------


def test_a_rules_error_is_english_and_keeps_its_template_and_params():
    error = RulesError(
        "the bank holds %(bank)s: the most you can bet is %(most)s", bank=20, most=20
    )
    assert str(error) == "the bank holds 20: the most you can bet is 20"
    assert error.template == "the bank holds %(bank)s: the most you can bet is %(most)s"
    assert error.params == {"bank": 20, "most": 20}
    assert str(RulesError("50% is not a stake")) == "50% is not a stake"


def test_a_service_error_is_an_english_sentence_until_it_is_shown():
    error = service.ServiceError("the table minimum is %(least)s", least=5)
    assert str(error) == "The table minimum is 5."
    assert error.sentence(lambda template, **params: "el mínimo es {least}".format(**params)) == (
        "El mínimo es 5."
    )


# --- the catalogue ----------------------------------------------------------------------------


def test_the_rules_import_neither_flask_nor_flask_babel():
    probe = (
        "import sys, montones.rules, montones.rules.scenario, montones.rules.monte, "
        "montones.rules.montones, montones.rules.errors; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('flask', 'flask_babel', 'babel', 'jinja2', 'werkzeug')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# Every language the switch offers, but the source language, has a catalogue of its own.
TRANSLATED = [code for code in Config.LANGUAGES if code != "en"]
PLACEHOLDER = re.compile(r"%(?:\((\w+)\))?[-#0 +]*\d*(?:\.\d+)?([sdrif%])")


def _catalogue(language: str = "es"):
    with open(TRANSLATIONS / language / "LC_MESSAGES/messages.po", "rb") as f:
        return read_po(f)


def _extracted() -> set[str]:
    with open(ROOT / "babel.cfg") as f:
        method_map, options_map = parse_mapping_cfg(f)
    return {
        found[2] if isinstance(found[2], str) else found[2][0]
        for found in extract_from_dir(str(ROOT), method_map, options_map)
        if not found[0].startswith(("tests", ".venv"))
    }


def test_every_language_the_switch_offers_but_english_has_a_catalogue():
    assert set(TRANSLATED) == {
        path.name for path in TRANSLATIONS.iterdir() if (path / "LC_MESSAGES").is_dir()
    }
    assert {"es", "de", "ru"} <= set(TRANSLATED)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_pybabel_extracts_is_translated_and_none_is_fuzzy(language):
    catalogue = _catalogue(language)
    untranslated = sorted(
        m.id if isinstance(m.id, str) else m.id[0]
        for m in catalogue
        if m.id and (m.fuzzy or not all(m.string if isinstance(m.string, tuple) else [m.string]))
    )
    known = {m.id if isinstance(m.id, str) else m.id[0] for m in catalogue if m.id}
    assert sorted(_extracted() - known) == []
    assert untranslated == []


def placeholders(text: str) -> list[str]:
    """The %-placeholders of a message, sorted (a named one by its name and kind)."""
    return sorted(f"{name}:{kind}" for name, kind in PLACEHOLDER.findall(text) if kind != "%")


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_translation_has_the_placeholders_of_its_english(language):
    """A translation that drops, adds or misspells a placeholder fails when it is shown (a
    KeyError) or shows the wrong number: each form of a plural has those of the English
    plural, every other message those of its English."""
    wrong = []
    for m in _catalogue(language):
        if not m.id:
            continue
        if isinstance(m.id, (list, tuple)):
            english, forms = placeholders(m.id[1]), list(m.string)
            assert placeholders(m.id[0]) == english, m.id  # the English forms agree too
        else:
            english, forms = placeholders(m.id), [m.string]
        wrong += [(m.id, form) for form in forms if placeholders(form) != english]
    assert wrong == []


def test_the_placeholder_check_sees_a_dropped_a_renamed_and_an_added_placeholder():
    english = placeholders("the bank holds %(bank)s: the most you can bet is %(most)s")
    assert placeholders("Die Bank hält %(bank)s: höchstens %(most)s.") == english
    assert placeholders("Die Bank hält %(bank)s.") != english
    assert placeholders("Die Bank hält %(bank)s: höchstens %(max)s.") != english
    assert placeholders("%(bank)s %(most)s %(n)d") != english
    assert placeholders("100%% sicher") == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_plural_has_as_many_forms_as_its_language_has(language):
    catalogue = _catalogue(language)
    expected = {"es": 3, "de": 2, "ru": 3}.get(language, catalogue.num_plurals)
    assert catalogue.num_plurals == expected
    plurals = [m for m in catalogue if m.id and isinstance(m.id, (list, tuple))]
    assert plurals
    assert [m.id for m in plurals if len(m.string) != expected] == []


def _pairs(catalogue) -> dict:
    def key(value):
        return tuple(value) if isinstance(value, (list, tuple)) else value

    return {key(m.id): key(m.string) for m in catalogue if m.id}


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_compiled_catalogue_is_the_catalogue(language):
    """A fresh clone works without a compile step: the committed .mo is the .po compiled."""
    with open(TRANSLATIONS / language / "LC_MESSAGES/messages.mo", "rb") as f:
        assert _pairs(read_mo(f)) == _pairs(_catalogue(language))


def test_a_template_renders_in_the_language_forced_on_it_and_then_in_the_requests_again(app):
    """The templates' translations are kept for the request (montones.factory._translations),
    with the language they are for: a render in another language (the live fan-out renders the
    blocks of every screen in that screen's language) gets its own, and the request's come back
    after it."""
    from flask import render_template_string
    from flask_babel import force_locale

    with app.test_request_context("/", headers={"Accept-Language": "es"}):
        assert render_template_string("{{ _('Bet on it') }}") == "Apostar a él"
        with force_locale("en"):
            assert render_template_string("{{ _('Bet on it') }}") == "Bet on it"
        assert render_template_string("{{ _('Bet on it') }}") == "Apostar a él"
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert render_template_string("{{ _('Bet on it') }}") == "Bet on it"


@pytest.mark.parametrize(
    ("language", "counts"),
    [
        ("ru", {1: "1 фишка", 2: "2 фишки", 5: "5 фишек", 21: "21 фишка", 1250: "1 250 фишек"}),
        ("de", {1: "1 Chip", 2: "2 Chips", 1250: "1.250 Chips"}),
        ("en", {1: "1 chip", 2: "2 chips", 1250: "1,250 chips"}),
    ],
)
def test_a_count_of_chips_takes_its_languages_plural_and_digits(app, language, counts):
    """The phone's chips, as _status.html writes them: the number in the locale's digits, the
    word in the form the number asks for (Russian has three)."""
    source = '{{ n | number }} {{ ngettext("chip", "chips", n) }}'
    with app.test_request_context("/", headers={"Accept-Language": language}):
        shown = {n: app.jinja_env.from_string(source).render(n=n) for n in counts}
    assert {n: text.replace("\u00a0", " ") for n, text in shown.items()} == counts


def test_a_time_of_the_history_is_written_as_the_language_writes_it(app):
    source = "{{ '2026-12-01T21:41:00+00:00' | hour }}"
    times = {}
    for language in ("en", "de", "ru"):
        with app.test_request_context("/", headers={"Accept-Language": language}):
            times[language] = app.jinja_env.from_string(source).render()
    assert times["de"] == times["ru"] == "21:41"
    assert times["en"].replace("\u202f", " ") == "9:41 PM"
