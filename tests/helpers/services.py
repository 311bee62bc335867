"""Tables set up and nights played through the service layer (call them with an app)."""

from __future__ import annotations

import secrets

from sqlalchemy import select

from montones import service
from montones.data.models import Action
from montones.extensions import db
from montones.rules.games import GAMES
from montones.service import Actor

HOST = Actor(is_host=True)
_rng = secrets.SystemRandom()


def table_with(app, game="monte", people=("Ana",), computers=2, chips=100):
    with app.app_context():
        table, _secret = service.create_table(game, "Test", chips, {})
        seats = {name: service.join(table.code, name)[0].seat for name in people}
        for _ in range(computers):
            service.add_computer(table.code, HOST)
        return table.code, seats


def actions(app, code):
    with app.app_context():
        table = service.get_table(code)
        return db.session.execute(
            select(Action.actor, Action.kind).where(Action.table_id == table.id).order_by(Action.id)
        ).all()


def banked():
    """A Montones table where Ana, Ben and Eva sit and Ana holds a bank of 100 (call it inside an
    app context); returns its code, the seats and the three players."""
    table, _secret = service.create_table("montones", "Night", 200, {})
    code = table.code
    seats = {n: service.join(code, n)[0].seat for n in ("Ana", "Ben", "Eva")}
    ana, ben, eva = (Actor(seat=seats[n]) for n in ("Ana", "Ben", "Eva"))
    service.act(code, ana, "offer", {"amount": 100})
    service.act(code, ben, "pass", {})
    service.act(code, eva, "pass", {})
    return code, seats, (ana, ben, eva)


def montones_night(app, hands=6):
    """Three players; Ana banks; Ben and Eva bet at random; after a Rey the heaps are kept."""
    with app.app_context():
        code, seats, (ana, ben, eva) = banked()
        for _ in range(hands):
            state = service.get_table(code).state
            if state["phase"] == "cut":
                cutter = Actor(seat=state["hand"]["cutter"])
                service.act(code, cutter, "cut", {"position": _rng.randint(1, 39)})
                service.act(code, ana, "heaps", {"count": _rng.randint(3, 6)})
            state = service.get_table(code).state
            heaps = len(state["hand"]["heaps"])
            most = min(20, state["bank"]["amount"])  # no single bet may be over the bank
            service.act(code, ben, "bet", {"heap": 1, "amount": _rng.randint(1, most)})
            service.act(code, eva, "against", {"heap": 2, "amount": _rng.randint(1, most)})
            service.act(code, eva, "bet", {"heap": heaps - 1, "amount": _rng.randint(1, most)})
            service.act(code, ben, "choose", {"heap": heaps})
            table = service.act(code, ana, "close", {})
            state = table.state
            if state["bank"]["amount"] == 0:
                service.act(code, ana, "abona", {"amount": 50})
            if "keep" in GAMES["montones"].view(state, seats["Ana"], 0)["me"]["can"]:
                # A heap that can be split, as the banker's bar offers (one of 3 cards or more).
                heap = next(i for i, h in enumerate(state["hand"]["heaps"], 1) if len(h) > 2)
                service.act(code, ana, "keep", {"heap": heap})
            else:
                service.act(code, ana, "next", {})
        return code


def run_computers(clock, code, until, most=50):
    """Let the clock run a computer's turn at a time until ``until(state)`` holds."""
    for _ in range(most):
        if until(service.get_table(code).state):
            return
        due = service.clock_deadline(service.get_table(code))
        assert due is not None, "the computers stopped"
        clock.advance(max(0.0, due - clock.time()))
        service.tick(code)
    raise AssertionError("the computers never got there")
