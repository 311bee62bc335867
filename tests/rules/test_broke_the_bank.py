"""Who broke the bank, as the night's story tells it: the punter whose winning line took the
bank's last chip, in the order the bank paid its lines; not whoever won the most in that hand."""

import json
from pathlib import Path

from montones.rules import monte_bank, montones
from montones.rules.scenario import replay

VALID = Path(__file__).parent.parent / "scenarios" / "valid"


def recorded(name: str) -> dict:
    scenario = json.loads((VALID / name).read_text())["scenario"]
    return {**scenario, "result": replay(scenario)}


def test_the_line_that_took_the_last_chip_broke_the_bank_not_the_biggest_win():
    """The worked example of the rules: Dan +6, Eva +8 (paid in full), then Ana is paid the
    bank's last 6 chips of the 16 she was owed: Ana broke it, though Eva won the most."""
    entry = recorded("montones_worked_example.json")
    gains = {p: entry["result"]["players"][p] - chips for p, chips in entry["players"].items()}
    assert max(gains, key=gains.get) == "eva" and entry["result"]["bank"] == 0
    assert montones.emptied_by(entry) == "ana"


def test_a_bank_not_emptied_was_broken_by_nobody():
    entry = recorded("montones_against_bet_wins_even_money_when_bank_wins.json")
    assert entry["result"]["bank"] > 0
    assert montones.emptied_by(entry) is None


def test_in_monte_bank_a_losing_line_first_fills_the_bank_the_winner_then_empties():
    """Bank 10: Dan's losing round adds 3, Carl's cross is paid 6, Anna's round the last 7 of
    the 12 she was owed; Ben's double is void."""
    entry = recorded("monte_bank_short_bank_pays_largest_stake_first.json")
    assert entry["result"]["bank"] == 0
    assert monte_bank.emptied_by(entry) == "anna"
