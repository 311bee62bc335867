"""What a phone's own regions cost on the wire: ``python -m tests.bench.own``.

A short scripted hand of Montones (Ana banks 60; Ben, Eva and Ivo bet, withdraw and give the
banker a heap; Ana turns the heaps) and a coup of Monte (Ana banks 50; Ben, Eva and Ivo bet),
through Flask's test client as the phones would. After each action, the answer to the phone
that acted (its own regions) and the fetch of every other phone whose own regions changed (as
its stream's ``mine`` tells it: ``updates.own`` differs from what it was) are weighed. Each
phone sends what it holds (the marks of #own, ``held``) when its page has them.

Last lines: ``own: <game> answers=<bytes> (<n>) fetches=<bytes> (<n>) per_answer=... per_fetch=...``.
"""

from __future__ import annotations

import re
import shutil
import tempfile

from montones import service
from montones.data.clock import clock
from montones.factory import create_app
from montones.live import updates
from montones.rules.games import game
from tests.helpers.nights import HX, MonteNight, Night

HELD = re.compile(r'<div id="own"[^>]*>.*?name="held" value="([^"]*)"', re.S)
INTENT = {"mode": "bet", "amount": "5", "custom": ""}


class Phones:
    """What each phone holds and what its regions were drawn from; the bytes it was sent."""

    def __init__(self, app, night):
        self.app, self.night = app, night
        self.held = {name: "" for name in night.seats}
        self.own = {name: self._own(name) for name in night.seats}
        self.answers, self.fetches = [], []
        for name in night.seats:
            self._keep(name, night.clients[name].get(f"/t/{night.code}"))

    def _own(self, name):
        with self.app.test_request_context():
            table = service.get_table(self.night.code)
            view = game(table.game).view(table.state, self.night.seats[name], clock().time())
            return updates.own(table, view)

    def _keep(self, name, response):
        found = HELD.search(response.get_data(as_text=True))
        if found:
            self.held[name] = found.group(1)

    def act(self, name, kind, **fields):
        response = self.night.do(name, kind, held=self.held[name], **fields)
        assert response.status_code == 200, response.get_data(as_text=True)[:400]
        self.answers.append(len(response.get_data()))
        self._keep(name, response)
        self.own[name] = self._own(name)
        for other in self.night.seats:
            now = self._own(other)
            if other == name or now == self.own[other]:
                continue
            self.own[other] = now
            fetched = self.night.clients[other].get(
                f"/t/{self.night.code}/p/mine",
                query_string={**INTENT, "held": self.held[other]},
                headers=HX,
            )
            self.fetches.append(len(fetched.get_data()))
            self._keep(other, fetched)

    def report(self, label):
        answers, fetches = sum(self.answers), sum(self.fetches)
        print(
            f"own: {label} answers={answers} ({len(self.answers)}) fetches={fetches} "
            f"({len(self.fetches)}) per_answer={answers // max(1, len(self.answers))} "
            f"per_fetch={fetches // max(1, len(self.fetches))}"
        )


def montones(app):
    night = Night(app, "Ana", "Ben", "Eva", "Ivo")
    night.to_betting("Ana", 60, 4)
    phones = Phones(app, night)
    stage = night.stage()
    for name, heap, amount in [("Ben", 1, 5), ("Eva", 2, 10), ("Ivo", 1, 5), ("Ben", 2, 5)]:
        phones.act(name, "tap", heap=heap, stage=stage, **{**INTENT, "amount": amount})
    (bet,) = [b for b in night.state()["hand"]["bets"] if b["player"] == night.seats["Ivo"]]
    phones.act("Ivo", "withdraw", bet=bet["id"], **INTENT)
    phones.act("Ivo", "tap", heap=3, stage=stage, **{**INTENT, "mode": "choose"})
    phones.act("Eva", "tap", heap=1, stage=stage, **INTENT)
    phones.act("Ana", "close", stage=stage)
    phones.report("montones")


def monte(app):
    night = MonteNight(app, "Ana", "Ben", "Eva", "Ivo")
    night.betting(bank=50)
    night.do = _with_stage(night)
    phones = Phones(app, night)
    for name, layout, amount in [("Ben", "top", 5), ("Eva", "bottom", 5), ("Ivo", "top", 10)]:
        name = name if name != night.banker else "Ana"
        phones.act(name, "tap", layout=layout, amount=amount)
    phones.act(night.punters[0], "tap", layout="bottom", amount=1)
    phones.report("monte")


def _with_stage(night):
    do = night.do

    def with_stage(name, kind, **fields):
        fields.setdefault("stage", night.stage())
        return do(name, kind, **fields)

    return with_stage


def main():
    folder = tempfile.mkdtemp(prefix="montones-bench-own-")
    try:
        app = create_app(
            {"SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/m.sqlite", "SECRET_KEY": "bench"}
        )
        montones(app)
        monte(app)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
