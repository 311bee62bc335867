"""The rules engine is a library: importing it loads neither Flask nor SQLAlchemy."""

import subprocess
import sys


def test_importing_montones_rules_loads_neither_flask_nor_sqlalchemy():
    probe = (
        "import sys, montones.rules, montones.rules.scenario, montones.rules.monte, "
        "montones.rules.montones, montones.rules.odds; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('flask', 'sqlalchemy', 'flask_sqlalchemy', 'werkzeug', 'jinja2')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_shuffles_come_from_a_cspring():
    import secrets

    from montones.rules import cards, chance

    assert isinstance(chance.SYSTEM, secrets.SystemRandom)
    # A deck shuffled with no source given draws from chance's: a rehearsal's seed repeats it.
    with chance.rehearsal("seed"):
        once = cards.SPANISH.shuffled()
    with chance.rehearsal("seed"):
        assert cards.SPANISH.shuffled() == once
