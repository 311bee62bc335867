"""The TV's demonstration (issue 29): while nobody has sat down, the TV's demo region shows a
step of a demonstration hand, chosen by the clock, and asks for the next; once someone sits
down it is gone, and it never left a trace on the table (its version, ledger, history, export)."""

import re

import pytest

from montones import service
from montones.data import history
from montones.rules import demo
from montones.rules.games import GAMES

HX = {"HX-Request": "true"}
CAPTION = re.compile(r'<p class="demo__caption"[^>]*>(.*?)</p>', re.S)


def fragment(client, code, **headers):
    return client.get(f"/t/{code}/tv/p/demo", headers={**HX, **headers}).get_data(as_text=True)


def new_table(app, name="montones"):
    with app.app_context():
        table, _secret = service.create_table(name, "Demo", 100, {})
    return table.code


def test_the_tv_of_an_empty_table_plays_steps_and_asks_for_the_next(app, client, clock):
    code = new_table(app)
    page = client.get(f"/t/{code}/tv").get_data(as_text=True)
    assert '<div id="demo" class="demo"' in page
    # The real felt is still there, alone with its id: the live streams swap it by id.
    assert len(re.findall(r'\sid="felt"', page)) == 1 and 'data-demo-id="felt"' in page
    shown = fragment(client, code)
    assert shown.startswith('<div id="demo" class="demo"') and "<html" not in shown
    # It asks for its step when due (by the clock), and at once when the table moves.
    assert re.search(r'hx-trigger="load delay:[0-9.]+s, sse:update"', shown)
    # Without htmx (a reload of the region's address): the whole page.
    assert "<html" in client.get(f"/t/{code}/tv/p/demo").get_data(as_text=True)
    captions = []
    for _ in range(8):
        captions.append(CAPTION.search(fragment(client, code)).group(1).strip())
        clock.advance(demo.STEP_SECONDS)
    assert all(captions) and len(set(captions)) > 3
    # Two TVs at one time show the same step.
    assert fragment(client, code) == fragment(client, code)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_step_of_every_hand_is_captioned_in_words(app, client, clock, name):
    code = new_table(app, name)
    lengths = [len(steps) for steps in demo.cycle(GAMES[name], code)]
    ticks = sum(lengths) + demo.CYCLE * demo.RESULT_HOLD
    clock.advance(demo.STEP_SECONDS - clock.time() % demo.STEP_SECONDS + 0.1)
    for language in ("en", "es"):
        for _ in range(ticks if language == "en" else 6):
            caption = CAPTION.search(fragment(client, code, **{"Accept-Language": language}))
            assert caption.group(1).strip(), caption.group(0)
            clock.advance(demo.STEP_SECONDS)


def test_the_results_are_captioned_by_the_rule_that_decided_them(app):
    # Each game's template words a step from its kind and the TV's view of the table
    # (templates/games/<game>/_demo.html): the settling step by the rule that decided it.
    said = {
        "montones": {
            "turned": "a heap higher than the banker's card wins",
            "rey_banker": "The banker's card is a Rey",
            "rey_de_oros": "A heap shows the Rey de oros",
        },
        "monte": {
            "gate_none": "neither layout holds a card of its suit",
            "gate_one": "the layout with a card of its suit wins",
            "gate_both": "both layouts hold a card of its suit",
        },
        "monte_bank": {
            "turned": "Bets are closed",
            "void_lower_matches_upper": "A lower card has the rank of an upper one",
        },
    }
    with app.test_request_context():
        for name, rules in GAMES.items():
            words = app.jinja_env.get_template(f"games/{name}/_demo.html").module
            captions = set()
            # A Rey de oros paid double is the rarest (one hand in twenty or so).
            for n in range(120 if name == "montones" else 40):
                for step in demo.hand(rules, demo.seed("R", n)):
                    captions.add(str(words.caption(step.kind, rules.view(step.state))).strip())
            assert "" not in captions, name
            for rule, text in said[name].items():
                assert any(text in caption for caption in captions), (name, rule)


def test_the_first_player_ends_it_and_it_left_nothing_behind(app, client, clock):
    code = new_table(app)
    for _ in range(20):  # most of a hand, from bets to the result
        fragment(client, code)
        clock.advance(demo.STEP_SECONDS)
    with app.app_context():
        table = service.get_table(code)
        assert table.version == 0 and table.state["players"] == {}
        assert service.ledger_totals(table) == {}
        assert history.hands(table) == [] and history.export(table)["hands"] == []
        service.join(code, "Ana")
    gone = fragment(client, code)
    assert gone.startswith('<div id="demo">') and "hx-trigger" not in gone  # no more asking
    assert "demo__caption" not in gone
    page = client.get(f"/t/{code}/tv").get_data(as_text=True)
    assert 'class="demo"' not in page and "Ana" in page


SPELLED = {"Lola": "Лола", "Paco": "Пако", "Carmen": "Кармен"}


@pytest.mark.parametrize("language", ["ru", "de"])
def test_the_demonstration_s_computers_are_named_in_the_tv_s_language(app, client, clock, language):
    """Issue 36: the demonstration's computer players kept the rules' Latin names on a
    Russian TV."""
    code = new_table(app)
    shown, other = (SPELLED.values(), SPELLED) if language == "ru" else (SPELLED, SPELLED.values())
    pages = []
    for _ in range(20):
        pages.append(fragment(client, code, **{"Accept-Language": language}))
        clock.advance(demo.STEP_SECONDS)
    assert any(name in page for name in shown for page in pages)
    assert not any(name in page for name in other for page in pages)


SIDE_CARD = {"en": "side card", "es": "lateral", "de": "Seitenkarte", "ru": "боков"}


@pytest.mark.parametrize("sides", [1, 2])
def test_a_side_card_is_dealt_bet_on_and_paid_in_the_captions_in_every_language(app, sides):
    """Issue 41: at a Monte Bank table with side cards its demonstration captions the side
    cards' dealing, a bet on one and its payment, in each of the four languages."""
    from flask_babel import force_locale

    rules = GAMES["monte_bank"]
    hands = [demo.hand(rules, demo.seed("S", n), {"side_cards": sides}) for n in range(12)]
    pays = 3 + sides  # a round on a side card: 4 to 1 with one, 5 to 1 with two
    with app.test_request_context():
        words = app.jinja_env.get_template("games/monte_bank/_demo.html").module
        for language, side_card in SIDE_CARD.items():
            with force_locale(language):
                said = {
                    (step.kind, str(words.caption(step.kind, rules.view(step.state))).strip())
                    for steps in hands
                    for step in steps
                }
            sided = {kind for kind, caption in said if side_card in caption}
            assert {"cut", "bet", "close"} <= sided, (language, sided)
            closes = [c for kind, c in said if kind == "close" and side_card in c]
            assert all(f"{pays} " in c for c in closes), (language, closes)


def test_the_tv_of_a_side_card_table_shows_its_side_card_in_the_demonstration(app, client, clock):
    with app.app_context():
        table, _secret = service.create_table("monte_bank", "Demo", 100, {"side_cards": 1})
    shown = []
    for _ in range(40):
        shown.append(fragment(client, table.code))
        clock.advance(demo.STEP_SECONDS)
    assert any('data-demo-id="pos-s1"' in page for page in shown)
    captions = [CAPTION.search(page).group(1) for page in shown]
    assert any("then 1 side card from the top" in caption for caption in captions)
