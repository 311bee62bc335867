"""The catalogues' wording, where a slip is mechanical enough to be seen without a reader: one
register in each language (tú, du, ты), no gender brackets, and no English left on a Spanish,
German or Russian screen but the games' own terms of art (UX.md: "never a third language's
phrase on a screen")."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from tests.helpers.nights import Night

TRANSLATIONS = Path(__file__).resolve().parents[2] / "montones/translations"
PLACEHOLDER = re.compile(r"%(?:\(\w+\))?[-#0 +]*\d*(?:\.\d+)?[sdrif%]")

# Montones is a Spanish game: its calls, its cards and its banker's words stay Spanish in every
# language (docs/contributing.md, "Translations"), explained once on its rules page.
SPANISH_TERMS = {
    "Hagan sus apuestas",
    "Se abona",
    "se abona",
    "Tres últimas manos",
    "Tres últimas manos?",
    "tres últimas manos",
    "pagando y cobrando",
}
# Names that are the same words in the language itself: the game Monte Bank, and the Monte
# Carlo bet in German (the city's German name).
SAME_NAME = {"es": {"Monte Bank"}, "de": {"Monte Bank", "Monte Carlo"}, "ru": set()}
# Latin letters a Russian screen may show: the Spanish terms and cards above, codes and commands.
RUSSIAN_LATIN = {
    *"Hagan sus apuestas Se se abona Tres tres últimas manos Pagando pagando y cobrando".split(),
    *"Montones la banca Rey de oros copas espadas bastos As Sota Caballo".split(),
    *"montones replay verify EXPORT json JSON QR SHA K A ul ur ll lr".split(),
    "s",  # the side cards' codes, s1 and s2, as the layout's positions are ul, ur, ll, lr
}


def entries(language: str):
    """(English, translation) for every form of every message of a catalogue."""
    with open(TRANSLATIONS / language / "LC_MESSAGES/messages.po", "rb") as f:
        catalogue = read_po(f)
    for m in catalogue:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, (list, tuple)) else (m.id,)
        forms = m.string if isinstance(m.string, (list, tuple)) else (m.string,)
        for i, form in enumerate(forms):
            yield ids[min(i, len(ids) - 1)], form


def words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", PLACEHOLDER.sub(" ", text))


# --- one register ------------------------------------------------------------------------------

RUSSIAN_VY = re.compile(r"(?<![а-яё])(вы|вас|вам|вами|ваш[а-яё]*)(?![а-яё])", re.IGNORECASE)
# The plural imperative and present say вы without the pronoun ("выберите", "хотите"). A noun
# that ends so ("на сайте") would go here, with a word on why.
RUSSIAN_VY_VERB = re.compile(r"(?<![а-яё])[а-яё]+(?:ите|йте)(?![а-яё])", re.IGNORECASE)
NOT_A_VERB: set[str] = set()
# Sie, Ihnen, Ihr... are capitalised only as the formal "you" but at the start of a sentence
# (where "Sie schließt" is the bank, "Ihr Mitspieler" the informal plural).
GERMAN_SIE = re.compile(r"\b(Sie|Ihnen|Ihre?[mnrs]?)\b")
SPANISH_USTED = re.compile(r"\busted(?:es)?\b", re.IGNORECASE)


def russian_vy(text: str) -> list[str]:
    verbs = [w for w in RUSSIAN_VY_VERB.findall(text) if w.lower() not in NOT_A_VERB]
    return RUSSIAN_VY.findall(text) + verbs


def german_sie(text: str) -> list[str]:
    return [m.group(1) for m in GERMAN_SIE.finditer(text) if not _starts_sentence(text, m)]


def _starts_sentence(text: str, match) -> bool:
    before = text[: match.start(1)].rstrip()
    return not before or before[-1] in ".:!?…„("


def test_russian_says_ty_never_vy():
    said = [(english, ru) for english, ru in entries("ru") if russian_vy(ru)]
    assert said == []


def test_german_says_du_never_sie():
    said = [(english, de) for english, de in entries("de") if german_sie(de)]
    assert said == []


def test_spanish_says_tu_never_usted():
    said = [(english, es) for english, es in entries("es") if SPANISH_USTED.search(es)]
    assert said == []


def test_the_register_checks_see_the_formal_forms_and_leave_the_rest():
    assert russian_vy("Ваша очередь держать банк")
    assert russian_vy("Когда ставки сделаны, откройте ворота")
    assert russian_vy("Отсканируй код: стол ваш, как только вы сядете")
    assert not russian_vy("Твоя очередь: выбери стопку, открой ворота; выигрыш и выплаты")
    assert german_sie("Wählen Sie einen Haufen")
    assert german_sie("Das höchste Gebot bekommt die Bank, Ihre Chips bleiben")
    assert not german_sie("Die Zeit der Bank ist um: Sie schließt.")
    assert not german_sie("Ihr Mitspieler wählt den Haufen. Sie zahlt zuerst.")
    assert SPANISH_USTED.search("Elija usted un montón")
    assert not SPANISH_USTED.search("Elige un montón")


# --- gender ------------------------------------------------------------------------------------


def test_russian_writes_around_a_players_gender_not_with_brackets():
    """ "выиграл(а)" reads as a form; the story of the night says "выигрывает", "ставит"."""
    bracketed = [
        (english, ru) for english, ru in entries("ru") if re.search(r"[а-яё]\([а-яё]{1,3}\)", ru)
    ]
    assert bracketed == []


# --- no English left behind ----------------------------------------------------------------------


@pytest.mark.parametrize("language", ["es", "de", "ru"])
def test_no_phrase_is_left_in_english_but_a_term_of_art(language):
    kept = SPANISH_TERMS | SAME_NAME[language]
    left = [
        english
        for english, text in entries(language)
        if text == english and len(words(english)) > 1 and english not in kept
    ]
    assert left == []


QUOTED = re.compile(r"[“«„\"]([^”»“\"]+)[”»“\"]")


@pytest.mark.parametrize("language", ["es", "de", "ru"])
def test_a_word_the_english_quotes_is_said_in_the_language(language):
    """A call the banker makes ("Aces") is quoted in the English: copied into a translation, it is
    an English word on a Spanish, German or Russian screen."""
    copied = [
        (english, text)
        for english, text in entries(language)
        for quoted in QUOTED.findall(english)
        if quoted in QUOTED.findall(text) and quoted not in SPANISH_TERMS
    ]
    assert copied == []


def test_a_russian_screen_has_latin_letters_only_for_terms_of_art_and_codes():
    latin = sorted(
        {
            (word, english)
            for english, ru in entries("ru")
            for word in re.findall(r"[A-Za-zÁÉÍÓÚáéíóúñ]+", PLACEHOLDER.sub(" ", ru))
            if word not in RUSSIAN_LATIN
        }
    )
    assert latin == []


# --- one word for one thing ----------------------------------------------------------------------


def test_russian_names_a_deal_one_way():
    """A deal, a coup, a hand: "сдача" in Russian, never "раздача", "кон" or "талья"."""
    other = re.compile(r"(?<![а-яё])(раздач[а-яё]*|кон|коном|талья|тальей)(?![а-яё])", re.I)
    assert [ru for _, ru in entries("ru") if other.search(ru)] == []


def test_russian_names_a_heap_one_way():
    """A heap is "стопка" on every Russian screen, never "кучка"."""
    assert [ru for _, ru in entries("ru") if re.search(r"кучк", ru, re.I)] == []


# --- the top bar -------------------------------------------------------------------------------


def brand(response) -> str:
    return re.search(r'class="brand"[^>]*>([^<]*)<', response.get_data(as_text=True)).group(1)


@pytest.mark.parametrize(
    ("language", "names"),
    [
        ("en", {"montones": "Montones", "monte": "Monte", "monte_bank": "Monte Bank"}),
        ("ru", {"montones": "Montones", "monte": "Монте", "monte_bank": "Монте-банк"}),
    ],
)
def test_the_top_bar_names_the_game_the_table_plays(app, language, names):
    """A Monte table's bar said "Montones", the app's name, as every other page's did."""
    from tests.helpers.nights import MonteBankNight, MonteNight, Night

    headers = {"Accept-Language": language}
    for name, night in (
        ("montones", Night(app, "Ana", "Ben")),
        ("monte", MonteNight(app, "Ana", "Ben")),
        ("monte_bank", MonteBankNight(app, "Ana", "Ben")),
    ):
        client = night.clients["Ana"]
        assert brand(client.get(f"/t/{night.code}", headers=headers)) == names[name]
        assert brand(client.get(f"/t/{night.code}/history", headers=headers)) == names[name]
        assert brand(night.host.get(f"/t/{night.code}/host", headers=headers)) == names[name]
        assert brand(client.get(f"/rules/{name}", headers=headers)) == names[name]
    assert brand(app.test_client().get("/", headers=headers)) == "Montones"


# --- the rules pages, written whole in each language -----------------------------------------------

RULES = Path(__file__).resolve().parents[2] / "templates/games"


def rules_text(language: str) -> dict[str, str]:
    """Each game's rules page in ``language`` as a reader sees it: no markup, no template code."""
    pages = {}
    for path in sorted(RULES.glob(f"*/rules/{language}.html")):
        source = re.sub(r"\{[{%#].*?[}%#]\}", " ", path.read_text(), flags=re.S)
        pages[path.parent.parent.name] = html.unescape(re.sub(r"<[^>]+>", " ", source))
    return pages


def test_the_rules_pages_hold_the_register_of_the_screens():
    assert len(rules_text("ru")) == len(rules_text("de")) == len(rules_text("es")) == 3
    said = {
        **{("ru", game): russian_vy(text) for game, text in rules_text("ru").items()},
        **{("de", game): german_sie(text) for game, text in rules_text("de").items()},
        **{("es", game): SPANISH_USTED.findall(text) for game, text in rules_text("es").items()},
    }
    assert {page: found for page, found in said.items() if found} == {}


def test_a_russian_rules_page_has_latin_letters_only_for_terms_of_art_codes_and_its_source():
    # Monte's source, by its title; Montones' words, quoted where the page explains them.
    allowed = RUSSIAN_LATIN | {"Complete", "Hoyle", "hagan", "montón", "J", "Q", "S", "H", "D", "C"}
    latin = {
        game: sorted(set(re.findall(r"[A-Za-zÁÉÍÓÚáéíóúñ]+", text)) - allowed)
        for game, text in rules_text("ru").items()
    }
    assert {game: words for game, words in latin.items() if words} == {}


def test_the_spanish_games_call_is_spanish_on_every_phone_and_marked_so(app):
    """Issue 36: a Russian phone at a Montones table showed «Hagan sus apuestas» with nothing to
    say it was meant: the call of a Spanish game stays Spanish (docs/contributing.md, "Translations"), marked
    Spanish for a reader; Monte Bank, the Russian casino's game, says it in the phone's words."""
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=20)
    for language in ("ru", "de", "en", "es"):
        night.clients["Ben"].get(f"/t/{night.code}?lang={language}")
        page = night.page("Ben").get_data(as_text=True)
        assert '<span lang="es">Hagan sus apuestas</span>' in page, language
