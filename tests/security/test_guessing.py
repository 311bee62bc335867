"""Issue 38, item 2: no answer tells a guesser that a room code is a table's for free. Asked of
every address under ``/t/<code>/`` (and the two elsewhere that name a table), in every way a
request goes wrong (no CSRF token, a NUL in the query, the wrong method, a field that is no
number), the answer for a running table is the one for a code nobody holds, or the one for a
code nobody holds uses one of the device's guesses."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import limits.storage.memory
import pytest

from montones import service
from tests.helpers.nights import Night, csrf_of

GUESSES = 10  # GUESSES_LIMIT of TestConfig: 10 in any 60 s
NOBODYS = "QQQQ"
ARGS = {"region": "all", "number": 1, "kind": "bet", "secret": "x" * 32}
_addresses = (f"10.38.{n // 250}.{1 + n % 250}" for n in itertools.count())


@pytest.fixture
def clock(clock, monkeypatch):
    monkeypatch.setattr(limits.storage.memory, "time", SimpleNamespace(time=clock.time))
    return clock


def guest(app):
    """A browser on the room's network, from an address of its own, with a session (and so a
    CSRF token) of the home page's."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = next(_addresses)
    client.token = csrf_of(client.get("/"))
    return client


def addresses(app, code: str) -> list[tuple[str, set[str]]]:
    """Every address that names a table, for ``code``, with the methods it answers."""
    found = [(f"/go?code={code}", {"GET"}), (f"/rules/montones?t={code}", {"GET"})]
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            if "code" in rule.arguments:
                values = {name: ARGS.get(name, code) for name in rule.arguments}
                found.append((rule.build(values)[1], rule.methods - {"HEAD", "OPTIONS"}))
    return found


WAYS = {
    "no CSRF token": lambda c, path, _methods: c.post(path, data={"amount": "1"}),
    "a NUL in the query": lambda c, path, methods: c.open(
        path + ("&" if "?" in path else "?") + "mode=%00", method=sorted(methods)[0]
    ),
    "the wrong method": lambda c, path, methods: c.open(
        path, method="PUT" if "POST" in methods else "POST", data={"csrf_token": c.token}
    ),
    "a field that is no number": lambda c, path, _methods: c.post(
        path, data={"csrf_token": c.token, "amount": "lots", "heap": "x", "seat": "p99"}
    ),
}


def answer(response, code: str) -> tuple:
    """What a guesser reads of an answer, the code it asked with taken out."""
    body = response.get_data(as_text=True).replace(code, "CODE")
    return response.status_code, response.mimetype, body, response.headers.get("HX-Redirect")


@pytest.mark.parametrize("hx", [True, False], ids=["htmx", "browser"])
@pytest.mark.parametrize("way", sorted(WAYS))
def test_an_answer_that_tells_a_table_from_none_uses_a_guess(app, clock, way, hx):
    night = Night(app, "Ana", "Ben")
    night.to_betting("Ana", 30, 3)
    with app.app_context():
        with pytest.raises(service.NotFound):
            service.get_table(NOBODYS)
    before = night.snapshot()
    ask = WAYS[way]
    told = []
    for (real, methods), (missing, _same) in zip(
        addresses(app, night.code), addresses(app, NOBODYS), strict=True
    ):
        asker, guesser = guest(app), guest(app)
        if hx:
            for client in (asker, guesser):
                client.environ_base["HTTP_HX_REQUEST"] = "true"
        ours = ask(asker, real, methods)
        theirs = ask(guesser, missing, methods)
        assert ours.status_code < 500 and theirs.status_code < 500, (real, way)
        if answer(ours, night.code) == answer(theirs, NOBODYS):
            continue
        told.append(real)
        # It tells them apart: each such answer for a code nobody holds is a guess (or a try
        # of a stricter allowance: taking a seat), and once they are used up the guesser is
        # told nothing more.
        tries = 1 + next(
            (n for n in range(GUESSES) if ask(guesser, missing, methods).status_code == 429),
            GUESSES,
        )
        assert tries <= GUESSES, (real, way, "asked without limit")
        assert ask(guesser, real, methods).status_code == 429, (real, way)
    assert night.snapshot() == before  # nothing was changed by any of them
    print(way, "htmx" if hx else "browser", f"{len(told)} addresses answer apart: {told}")
