"""The TV's demonstration: a seeded hand of computer play, in memory (montones.rules.demo)."""

import secrets

import pytest

from montones.rules import chance, demo, montones
from montones.rules.games import GAMES, game

# The step that ends a hand, by game: its settling action (Monte Bank's cut when it finds the
# deal void, which is shuffled again).
SETTLING = {"montones": {"close"}, "monte": {"gate"}, "monte_bank": {"close", "cut"}}
SEEDS = range(40)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_hand_is_played_to_its_result_seen_by_the_tv_at_every_step(name):
    rules = game(name)
    for n in SEEDS:
        steps = demo.hand(rules, demo.seed("DEMO", n))
        assert steps[0].kind == demo.SEATED and len(steps[0].state["seats"]) == demo.PLAYERS
        assert steps[-1].kind in SETTLING[name]
        for step in steps:
            assert rules.view(step.state)["me"] is None  # the TV's view: nobody's own
        # Chips are conserved: a demonstration is played by the rules, to the chip.
        assert sum(rules.balances(steps[-1].state).values()) == demo.PLAYERS * demo.CHIPS


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_seed_plays_the_same_hand_and_another_seed_another(name):
    rules = game(name)
    first = demo.hand(rules, demo.seed("ABCD", 0))
    assert demo.hand(rules, demo.seed("ABCD", 0)) == first
    others = [demo.hand(rules, demo.seed("ABCD", n)) for n in range(1, 4)]
    assert any(other[-1].state != first[-1].state for other in others)


def test_a_rehearsal_leaves_the_real_deals_to_the_system():
    demo.hand(montones, demo.seed("ABCD", 0))
    assert chance.source() is chance.SYSTEM
    assert isinstance(chance.SYSTEM, secrets.SystemRandom)
    with pytest.raises(RuntimeError), chance.rehearsal("x"):
        raise RuntimeError("a rehearsal that fails half-way")
    assert chance.source() is chance.SYSTEM


def test_inside_a_rehearsal_the_cards_come_from_its_seed():
    def dealt():
        state = montones.new_table()
        for seat in ("p1", "p2"):
            state, _ = montones.join(state, seat, seat, 100)
        state, _ = montones.ACTIONS["offer"].call(state, "p1", {"amount": 10}, 0.0)
        state, _ = montones.ACTIONS["pass"].call(state, "p2", {}, 0.0)
        state, _ = montones.ACTIONS["close_auction"].call(state, "host", {}, 0.0)
        return state["hand"]["deck"], state["hand"]["shuffle"]["commitment"]

    with chance.rehearsal("same"):
        once = dealt()
    with chance.rehearsal("same"):
        assert dealt() == once
    assert dealt() != once  # out of it, a system shuffle


def test_every_tv_of_a_table_shows_the_same_step_and_the_steps_go_round():
    rules = game("monte")
    lengths = [len(steps) for steps in demo.cycle(rules, "ABCD")]
    ticks = sum(lengths) + demo.CYCLE * demo.RESULT_HOLD
    shown = [demo.step_at(rules, "ABCD", t * demo.STEP_SECONDS + 0.1) for t in range(ticks)]
    # Each step in turn, the result held a little longer, each hand after the one before.
    assert [(number, index) for number, index, _ in shown] == [
        (number, min(index, length - 1))
        for number, length in enumerate(lengths)
        for index in range(length + demo.RESULT_HOLD)
    ]
    again = demo.step_at(rules, "ABCD", ticks * demo.STEP_SECONDS + 0.1)
    assert again[:2] == (0, 0) and again[2] == shown[0][2]
    assert demo.step_at(rules, "ABCD", 1.0) == demo.step_at(rules, "ABCD", 2.0)
    last = (lengths[0] - 1) * demo.STEP_SECONDS + 0.1
    assert demo.step_at(rules, "WXYZ", last)[2] != shown[lengths[0] - 1][2]  # other hands


@pytest.mark.parametrize("sides", [1, 2])
def test_a_side_card_table_s_demonstration_deals_its_side_cards(sides):
    """Monte Bank's side cards change what a hand shows: its TV's demonstration deals them,
    and its computers bet on them now and then."""
    rules = game("monte_bank")
    settings = demo.settings_of(rules, {**rules.new_table()["settings"], "side_cards": sides})
    assert settings == {"side_cards": sides}
    hands = [demo.hand(rules, demo.seed("SIDE", n), settings) for n in range(20)]
    layouts = [s.state["deal"]["layout"] for steps in hands for s in steps if s.state["deal"]]
    assert layouts and all(
        ("s2" in layout) == (sides == 2) and "s1" in layout for layout in layouts
    )
    bets = [b for steps in hands for b in (steps[-1].state["last_deal"] or {}).get("bets", [])]
    assert any({b.get("on"), b.get("against")} & {"s1", "s2"} for b in bets)


def test_a_demonstration_plays_the_game_s_defaults_for_the_rest_of_a_table_s_settings():
    """A table's bank far over the demonstration's chips, its own deck: the computers play
    the game's defaults (a demonstration must play any table's hand)."""
    for name, table_settings in (
        ("monte", {"bank_size": 5_000, "own_deck": "banker"}),
        ("montones", {"min_bet": 500}),
        ("monte_bank", {"min_bet": 500, "bank_size": 600, "side_cards": 1}),
    ):
        rules = game(name)
        settings = demo.settings_of(rules, rules.new_table(table_settings)["settings"])
        assert set(settings) == set(rules.DEMO_SETTINGS)
        steps = demo.hand(rules, demo.seed("ANY", 0), settings)
        assert steps[-1].kind in SETTLING[name]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_table_s_cycle_shows_its_game_played_by_every_player(name):
    """A third of Monte Bank's deals are void at the cut, before any punter bets: a table
    whose three hands all fell so (one in twenty) showed only cuts, and no side card. The
    cycle's first hand is one in which every player acts."""
    rules = game(name)
    settings = {"side_cards": 1} if "side_cards" in rules.DEMO_SETTINGS else {}
    for n in range(60):
        first = demo.cycle(rules, f"T{n:03d}", settings)[0]
        acted = {step.seat for step in first}
        assert set(first[-1].state["seats"]) <= acted, (n, [step.kind for step in first])
        if settings:
            assert any("s1" in (step.state["deal"] or {}).get("layout", {}) for step in first)
