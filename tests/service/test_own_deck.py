"""Nights played with the table's own cards through the service layer (issue 42): each card an
action of its own (one transaction, a new version, the ledger as always), a refused card
changing nothing, and an export that `montones verify` re-settles from the cards entered and
that says no shuffle was sealed."""

import json
import random

import pytest

from montones import service
from montones.rules import FRENCH, SPANISH
from montones.service import Actor
from tests.helpers.exports import export, verify_file
from tests.helpers.services import HOST

_rng = random.Random(42)
NO_MC = {"against": "-", "side": "-"}  # a tap on the layout: no Monte Carlo


def seated(code, *names):
    return [Actor(seat=service.join(code, name)[0].seat) for name in names]


def enter(code, who, card, host=False):
    kind = "host_card" if host else "card"
    return service.act(code, HOST if host else who, kind, {"card": card})


def montones_night(app, hands=4, host=False):
    with app.app_context():
        own = "host" if host else "banker"
        table, _ = service.create_table("montones", "Ours", 200, {"own_deck": own})
        code = table.code
        ana, ben, eva = seated(code, "Ana", "Ben", "Eva")
        service.act(code, ana, "offer", {"amount": 100})
        service.act(code, ben, "pass", {})
        service.act(code, eva, "pass", {})
        for _ in range(hands):
            state = service.get_table(code).state
            assert state["phase"] == "heaps" and state["hand"]["shuffle"] is None
            service.act(code, ana, "heaps", {"count": 4})
            service.act(code, ben, "bet", {"heap": 1, "amount": _rng.randint(1, 20)})
            service.act(code, eva, "against", {"heap": 2, "amount": _rng.randint(1, 20)})
            service.act(code, ben, "choose", {"heap": 4})
            service.act(code, ana, "close", {})
            deck = _rng.sample(SPANISH.codes, 4)
            for card in deck:
                table = enter(code, ana, card, host)
            state = table.state
            assert state["phase"] == "settled"
            if state["bank"]["amount"] == 0:
                service.act(code, ana, "abona", {"amount": 50})
            service.act(code, ana, "next", {})
        return code


def test_an_own_deck_montones_night_records_each_card_and_verifies(app, tmp_path, capsys):
    code = montones_night(app)
    data = export(app, code)
    assert len(data["hands"]) == 4 and data["held_back"] == 0  # no seal holds anything back
    assert all(hand["shuffle"] == {"commitment": None, "own_deck": True} for hand in data["hands"])
    status, out = verify_file(tmp_path, data, capsys)
    assert status == 0, out
    assert "4 played with the table's own cards: re-settled from the cards entered" in out


def test_heaps_kept_after_a_rey_are_recorded_and_verified_hand_by_hand(app, tmp_path, capsys):
    """A hand whose banker turns a Rey, the heaps kept (the banker counts four), the next hand
    entered on them: each is a hand of the export, re-settled by `montones verify`, and the
    ledger follows both."""
    with app.app_context():
        table, _ = service.create_table("montones", "Ours", 200, {"own_deck": "banker"})
        code = table.code
        ana, ben, eva = seated(code, "Ana", "Ben", "Eva")
        service.act(code, ana, "offer", {"amount": 100})
        service.act(code, ben, "pass", {})
        service.act(code, eva, "pass", {})
        service.act(code, ana, "heaps", {"count": 3})
        service.act(code, ben, "bet", {"heap": 1, "amount": 10})
        service.act(code, eva, "choose", {"heap": 3})
        service.act(code, ana, "close", {})
        for card in ("7o", "6c", "Rb"):
            enter(code, ana, card)
        table = service.act(code, ana, "keep_entered", {"count": 4})
        assert table.state["hand"]["rey_kept"] and len(table.state["hand"]["heaps"]) == 4
        service.act(code, eva, "bet", {"heap": 4, "amount": 20})
        service.act(code, ben, "choose", {"heap": 2})
        service.act(code, ana, "close", {})
        with pytest.raises(service.ServiceError, match="Rb is on the table already"):
            enter(code, ana, "Rb")
        for card in ("Cc", "5o", "2e", "4b"):  # heap 4 (20), heaps 1 and 3, the banker's
            table = enter(code, ana, card)
        assert table.state["hand"]["result"]["cards"] == ["5o", "4b", "2e", "Cc"]
        chips = {
            name: table.state["players"][a.seat]["chips"]
            for name, a in (("Ben", ben), ("Eva", eva))
        }
        assert chips == {"Ben": 190, "Eva": 220}
    data = export(app, code)
    assert [hand["heaps"] for hand in data["hands"]] == [
        ["7o", "6c", "Rb"],
        ["5o", "4b", "2e", "Cc"],
    ]
    status, out = verify_file(tmp_path, data, capsys)
    assert status == 0, out


def test_verify_catches_an_altered_card_of_an_own_deck_hand(app, tmp_path, capsys):
    data = export(app, montones_night(app, hands=2))
    hand = data["hands"][0]
    winner = hand["result"]["settled"][0]
    heap = hand["bets"][winner["bet"]].get("heap") or hand["bets"][winner["bet"]]["against"]
    bank_card = hand["heaps"][hand["bank_heap"] - 1]
    # The heap's card turned to one that beats nothing or everything: its result changes.
    hand["heaps"][heap - 1] = next(
        c
        for c in (("Ao", "Ac", "Ae") if bank_card[0] != "A" else ("Co", "Cc", "Ce"))
        if c not in hand["heaps"]
    )
    hand["result"]["settled"][0]["net"] += 1
    status, out = verify_file(tmp_path, data, capsys)
    assert status == 1 and "hand 1" in out


def test_the_host_enters_the_cards_at_a_table_that_says_so(app):
    code = montones_night(app, hands=1, host=True)
    with app.app_context():
        assert service.get_table(code).state["hands"] == 2


def test_a_refused_card_changes_nothing_and_an_undo_is_a_version(app):
    with app.app_context():
        table, _ = service.create_table("montones", "Ours", 200, {"own_deck": "banker"})
        code = table.code
        ana, ben, eva = seated(code, "Ana", "Ben", "Eva")
        service.act(code, ana, "offer", {"amount": 100})
        service.act(code, ben, "pass", {})
        service.act(code, eva, "pass", {})
        service.act(code, ana, "heaps", {"count": 3})
        service.act(code, ben, "choose", {"heap": 3})
        service.act(code, ana, "close", {})
        version = enter(code, ana, "7o").version
        for who, card, words in (
            (ana, "7o", "7o is on the table already"),
            (ben, "6o", "only the banker enters the cards"),
            (ana, "KH", "unknown card"),
        ):
            with pytest.raises(service.ServiceError, match=f"(?i){words}"):
                enter(code, who, card)
            assert service.get_table(code).version == version
        table = service.act(code, ana, "undo_card", {})
        assert table.version == version + 1 and table.state["hand"]["entered"] == []


def test_an_own_deck_monte_night_keeps_its_deck_and_verifies(app, tmp_path, capsys):
    with app.app_context():
        table, _ = service.create_table("monte", "Ours", 300, {"own_deck": "banker", "max_bet": 10})
        code = table.code
        seated(code, "Anna", "Ben")
        service.act(code, HOST, "draw", {})
        decks = {}
        while (state := service.get_table(code).state)["phase"] != "finished":
            banker = Actor(seat=state["banker"])
            punter = Actor(seat=next(s for s in state["seats"] if s != state["banker"]))
            deck = decks.setdefault(state["banker"], _rng.sample(FRENCH.codes, 40))
            if state["phase"] == "bank":
                service.act(code, banker, "bank", {"amount": 40})
            elif state["phase"] == "entering":
                enter(code, banker, deck.pop())
            elif state["phase"] == "betting":
                service.act(code, punter, "bet", {"layout": "top", "amount": 1})
                enter(code, banker, deck.pop())  # the gate
            else:
                service.act(code, banker, "next", {})
    data = export(app, code)
    assert data["hands"] and all(hand["shuffle"]["own_deck"] for hand in data["hands"])
    status, out = verify_file(tmp_path, data, capsys)
    assert status == 0, out


def play_monte_bank_night(code, places) -> None:
    """Anna and Ben play a Monte Bank table of their own cards to its end: each deal (a void
    one's too) from a fresh random deck entered card by card, the punter betting 2 on each of
    ``places()`` a deal, the banker closing at once."""
    seated(code, "Anna", "Ben")
    service.act(code, HOST, "draw", {})
    deck, shuffles = [], None
    while (state := service.get_table(code).state)["phase"] != "finished":
        banker = Actor(seat=state["banker"])
        punter = Actor(seat=next(s for s in state["seats"] if s != state["banker"]))
        if state["shuffles"] != shuffles:  # a new deal (or one after a void): a new deck
            deck, shuffles = _rng.sample(FRENCH.codes, 40), state["shuffles"]
        if state["phase"] == "bank":
            service.act(code, banker, "bank", {"amount": 40})
        elif state["phase"] == "entering":
            enter(code, banker, deck.pop())
        elif state["phase"] == "betting":
            for at in places():
                bet = {"at": at, "bet_kind": "layout", **NO_MC, "amount": 2}
                service.act(code, punter, "bet", bet)
            service.act(code, banker, "close", {})
        else:
            service.act(code, banker, "next", {})


def test_an_own_deck_monte_bank_night_with_its_void_deals_verifies(app, tmp_path, capsys):
    with app.app_context():
        table, _ = service.create_table(
            "monte_bank", "Ours", 300, {"own_deck": "banker", "deals_per_bank": 6}
        )
        code = table.code
        play_monte_bank_night(
            code, lambda: [_rng.choice(("ul", "ur", "ll", "lr", "left", "upper"))]
        )
    data = export(app, code)
    assert len(data["hands"]) >= 12 and any(hand["result"].get("void") for hand in data["hands"])
    assert sum(len(hand["result"]["settled"]) for hand in data["hands"]) >= 12
    status, out = verify_file(tmp_path, json.loads(json.dumps(data)), capsys)
    assert status == 0, out


@pytest.mark.parametrize("sides", [1, 2])
def test_an_own_deck_monte_bank_night_with_side_cards_records_and_verifies(
    app, tmp_path, capsys, sides
):
    """The side cards entered after the four (a card whose rank shows set aside), bets on them
    as on the layout's: the export re-settles every deal from the cards entered."""
    with app.app_context():
        settings = {"own_deck": "banker", "deals_per_bank": 6, "side_cards": sides}
        table, _ = service.create_table("monte_bank", "Ours", 300, settings)
        code = table.code
        play_monte_bank_night(code, lambda: ["s1", "ur", f"s{sides}"])
    data = export(app, code)
    dealt = [hand for hand in data["hands"] if not hand["result"].get("void")]
    assert len(dealt) >= 6 and all(hand["side_cards"] == sides for hand in data["hands"])
    assert all(f"s{sides}" in hand["result"]["layout"] for hand in dealt)
    on_sides = [h for h in dealt for b in h["bets"] if b.get("on", "").startswith("s")]
    assert on_sides and any(hand["result"]["set_aside"] for hand in dealt)
    status, out = verify_file(tmp_path, json.loads(json.dumps(data)), capsys)
    assert status == 0, out


def test_a_side_card_refused_changes_nothing_and_its_undo_is_a_version(app):
    with app.app_context():
        settings = {"own_deck": "banker", "side_cards": 1}
        table, _ = service.create_table("monte_bank", "Ours", 300, settings)
        code = table.code
        seated(code, "Anna", "Ben")
        service.act(code, HOST, "draw", {})
        state = service.get_table(code).state
        banker = Actor(seat=state["banker"])
        punter = Actor(seat=next(s for s in state["seats"] if s != state["banker"]))
        service.act(code, banker, "bank", {"amount": 40})
        for card in ("7S", "JD", "2C", "4C", "JS"):  # JS: ur's rank shows, set aside
            table = enter(code, banker, card)
        assert table.state["phase"] == "entering" and table.state["deal"]["layout"]["set_aside"]
        version = table.version
        for who, kind, params, words in (
            (banker, "card", {"card": "JS"}, "JS is on the table already"),
            (banker, "card", {"card": "2C"}, "2C is on the table already"),
            (punter, "card", {"card": "5D"}, "only the banker enters the cards"),
            (banker, "close", {}, "the side cards are still being entered"),
            (punter, "bet", {"at": "s1", "bet_kind": "layout", **NO_MC, "amount": 2}, "side cards"),
        ):
            with pytest.raises(service.ServiceError, match=f"(?i){words}"):
                service.act(code, who, kind, params)
            assert service.get_table(code).version == version
        table = service.act(code, banker, "undo_card", {})
        assert table.version == version + 1 and table.state["deal"]["layout"]["set_aside"] == []
        table = enter(code, banker, "5D")
        assert table.state["phase"] == "betting" and table.state["deal"]["layout"]["s1"] == ["5D"]


def _night_with_computers(app, clock, game_name, settings, done, most=900):
    """One person (Ana) and two computer players at a table whose banker enters each card:
    the computers move by the clock, Ana by the computers' own strategy, and the cards by
    whoever the table's view says enters them now (the host for a computer banker). Returns
    the table's code and the cards the host entered for a computer banker."""
    from random import Random

    from montones.rules.computer import PATIENCE
    from montones.rules.games import game

    rules = game(game_name)
    deck_rng = Random(7)
    for_computers = 0
    with app.app_context():
        table, _ = service.create_table(game_name, "Ours", 300, {"own_deck": "banker", **settings})
        code = table.code
        (ana,) = seated(code, "Ana")
        for _ in range(2):
            service.add_computer(code, HOST)
        if "draw" in rules.ACTIONS:
            service.act(code, HOST, "draw", {})
        for step in range(most):
            table = service.get_table(code)
            if done(table.state):
                return code, for_computers
            view = rules.view(table.state, ana.seat, clock.time())
            entry = view.get("entry")
            if entry and entry["waiting"]:
                card = deck_rng.choice([c for c in entry["codes"] if c not in entry["seen"]])
                if entry["by"] == "host":
                    banker = table.state.get("banker") or table.state["bank"]["banker"]
                    assert table.state["players"][banker].get("computer")
                    enter(code, None, card, host=True)
                    for_computers += 1
                else:
                    enter(code, ana, card)
                continue
            move = rules.play(view, Random(step), PATIENCE)
            if move and move[0] == "offer":  # Ana leaves Montones' bank to the computers
                me = view["me"]
                move = None if "pass" not in me["can"] else ("pass", {})
            if move is not None:
                service.act(code, ana, *move)
                continue
            due = service.clock_deadline(table)
            assert due is not None, f"stalled at {table.state['phase']}"
            clock.advance(max(0.0, due - clock.time()))
            service.tick(code)
        raise AssertionError("the night never got there")


@pytest.mark.parametrize(
    ("game_name", "settings"),
    [
        ("monte", {"banks_each": 1, "max_bet": 10}),
        ("monte_bank", {"deals_per_bank": 3}),
        ("monte_bank", {"deals_per_bank": 3, "side_cards": 2}),
    ],
)
def test_a_night_with_computer_bankers_and_own_cards_plays_to_its_end(
    app, clock, game_name, settings
):
    """A computer never touches real cards: at a table whose banker enters them, the host
    enters a computer banker's, and the night plays to its end with nobody waiting for ever."""
    code, for_computers = _night_with_computers(
        app, clock, game_name, settings, lambda s: s["phase"] == "finished"
    )
    assert for_computers > 0
    with app.app_context():
        assert service.get_table(code).ended_at is not None


def test_a_montones_night_with_computer_bankers_and_own_cards_goes_on(app, clock):
    code, for_computers = _night_with_computers(
        app, clock, "montones", {}, lambda s: s["hands"] > 8
    )
    assert for_computers > 0


def test_the_host_enters_no_card_while_the_table_is_paused(app):
    """Entering a card is a move of the game: refused in words on a paused table, as every
    player's move is; the host's own switches (a top-up) still work."""
    with app.app_context():
        table, _ = service.create_table("montones", "Ours", 200, {"own_deck": "host"})
        code = table.code
        ana, ben, eva = seated(code, "Ana", "Ben", "Eva")
        service.act(code, ana, "offer", {"amount": 100})
        service.act(code, ben, "pass", {})
        service.act(code, eva, "pass", {})
        service.act(code, ana, "heaps", {"count": 3})
        service.act(code, ben, "choose", {"heap": 3})
        service.act(code, ana, "close", {})
        enter(code, None, "7o", host=True)
        service.host_action(code, HOST, "pause")
        version = service.get_table(code).version
        for kind, params in (("host_card", {"card": "6o"}), ("host_undo_card", {})):
            with pytest.raises(service.ServiceError, match="The host has paused the table"):
                service.act(code, HOST, kind, params)
            assert service.get_table(code).version == version
        service.act(code, HOST, "top_up", {"seat": ben.seat, "amount": 5})
        service.host_action(code, HOST, "resume")
        assert enter(code, None, "6o", host=True).state["hand"]["entered"] == ["7o", "6o"]
