"""Hostile names: every page and partial shows them as text, never as markup.

Each payload is a player's name (cut to the 24 characters a name may have) and the table's name
(60). A table of each game is played through its phases with the payload in every role (banker,
cutter, punter, the name in the payments and the standings); at each step every screen is
rendered: the phones (page and every region, as htmx asks for them), the TV (page and every
region), the host page, the standings, the join and rejoin pages, and the error pages and
refusals that repeat what was typed. Once a hand is played, so are the screens that recall it:
each phone's last hands, the page that opens each deck's seal, the host's history and download
(JSON that must give the names back as data), and the HTML the live stream sends a phone and
the TV that are a version behind. No answer may hold the payload's markup unescaped, an
event handler, a script other than the app's own files, or ``{{7*7}}`` worked out.
"""

from __future__ import annotations

import json
import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote
from xml.etree import ElementTree

import pytest
from markupsafe import escape

from montones.rules import monte
from tests.helpers.security import (
    HX,
    SECURITY_CONFIG,
    MonteNight,
    Night,
    browser,
    notice,
    snapshot,
)

NAME_MAX, TABLE_MAX = 24, 60
SPANISH = {"Accept-Language": "es-ES,es;q=0.9"}

PAYLOADS = {
    "script": "<script>alert(1)</script>",
    "img": '"><img src=x onerror=alert(1)>',
    "template": "{{7*7}}",
    "quotes": "O'Neil\";--",
    "textarea": "</textarea><svg onload=alert(1)>",
    "unicode": "ÑÜÉ😀🃏🇪🇸ß漢字",
    "rtl": "\u202eAna\u202c\u2067xss\u2069\u200f",
}
MARKUP = re.compile(r"""[<>"'&]""")

# Markup no answer may contain, whatever the payload (compared in lower case). Event handlers
# (onerror=, onload=) are caught inside any tag by EVENT_ATTR; as escaped text they are harmless.
NEVER = ["<script>alert", "<img src=x", "<svg onload", "</textarea>", "javascript:"]
TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
# The elements the app's templates write; an answer holding any other was written by someone else.
OWN_TAGS = {
    tag.lower()
    for path in TEMPLATES.rglob("*.html")
    for tag in re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", path.read_text())
}
# A script's address names its content (?v=, montones/web/assets.py).
OWN_SCRIPT = re.compile(r"/static/js/[\w.-]+\.js\?v=[0-9a-f]{12}")
OWN_IMG = re.compile(
    r"/t/[A-Z]{4}/(?:(?:watch/)?qr\.svg|standings\.svg\?screen=(?:phone|tv)&v=\d+)"
)


class Audit(HTMLParser):
    """Every element of an answer, with its attributes, and any text inside a <script>."""

    def __init__(self, body: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.script_text: list[str] = []
        self._in_script = False
        self.feed(body)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.script_text.append(data)


def audit(where, body: str) -> None:
    """No element, attribute or script in ``body`` that the app's templates do not write."""
    found = Audit(body)
    assert not found.script_text, (where, found.script_text)
    for tag, attrs in found.tags:
        assert tag in OWN_TAGS, (where, tag, attrs)
        for name, value in attrs.items():
            assert not name.startswith("on"), (where, tag, name, value)
            assert not (value or "").strip().lower().startswith("javascript:"), (where, tag)
        if tag == "script":
            assert set(attrs) == {"src", "defer"}, (where, attrs)
            assert OWN_SCRIPT.fullmatch(attrs["src"]), (where, attrs)
        elif tag == "img":
            assert OWN_IMG.fullmatch(attrs.get("src", "")), (where, attrs)
        elif tag == "svg":
            # the app's own drawings: a card, the page's card back (templates/cards/_back.html),
            # or the robot that marks a computer player
            shown = attrs.get("class") or ""
            # or a face, a reaction (templates/party/_macros.html)
            drawn = ("card card--", "face ", "reaction__icon", "cheer__icon")
            assert shown.startswith(drawn) or shown in ("card-sprite", "robot", "face"), (
                where,
                attrs,
            )


def sse_events(sent: str) -> list[tuple[str, str]]:
    """(event name, data) of each event in what a live stream sent; a multi-line data is the
    lines of its ``data:`` fields joined by newlines, as the browser joins them."""
    events = []
    for block in sent.split("\n\n"):
        lines = block.split("\n")
        names = [line[len("event: ") :] for line in lines if line.startswith("event: ")]
        data = [line[len("data: ") :] for line in lines if line.startswith("data: ")]
        if names:
            events.append((names[-1], "\n".join(data)))
    return events


def name_of(payload: str) -> str:
    """The payload as a name a table takes: without the characters a name may not hold
    (controls, format characters such as bidi overrides: the rules refuse them)."""
    return _plain(payload)[:NAME_MAX]


def table_name_of(payload: str) -> str:
    """The payload as a table's name, held to the same checks as a player's."""
    return _plain(payload)[:TABLE_MAX]


def _plain(payload: str) -> str:
    return "".join(ch for ch in payload if unicodedata.category(ch) not in ("Cc", "Cf"))


# A live stream runs for two seconds at most: long enough to send a screen that is behind its
# first update, which is all these tests read of it.
APP_CONFIG = {**SECURITY_CONFIG, "STREAM_MAX_SECONDS": 2}


class Screens:
    """Renders every screen of a table and checks each answer."""

    def __init__(self, app, night, payload: str, shown: str):
        self.app, self.night, self.payload, self.shown = app, night, payload, shown
        self.code = night.code
        self.tv = app.test_client()
        self.tv.get("/?lang=es")  # the TV speaks Spanish: the translated sentences hold names too
        self.visitor, self.visitor_token = browser(app)
        self.count = 0

    def check(self, where, response, present: str | None = None):
        """``response`` is safe; if ``present`` is given it must be shown, escaped."""
        assert response.status_code < 500, where
        return self.check_html(where, response.get_data(as_text=True), present)

    def check_html(self, where, body: str, present: str | None = None):
        """``body`` (a page, a partial, an event of the live stream) is safe; if ``present`` is
        given it must be shown, escaped."""
        self.count += 1
        low = body.lower()
        for marker in NEVER:
            assert marker not in low, (where, marker)
        audit(where, body)
        if MARKUP.search(self.payload):
            assert self.payload not in body, where
            assert self.shown not in body or not MARKUP.search(self.shown), where
        if present is not None:
            assert str(escape(present)) in body, (where, present)
            if "{{7*7}}" in present:  # shown as typed, never worked out
                assert "{{7*7}}" in body, where
        return body

    def get(self, where, client, url, present=None, **kwargs):
        response = client.get(url, **kwargs)
        if response.status_code in (302, 303) and "standings" in (response.location or ""):
            response = client.get(response.location)
        return self.check(where, response, present)

    def all(self, stage: str, players: list[str]):
        """Every screen of the table now, for every seated player in ``players``."""
        code, name, table = self.code, self.shown, self.night
        table_name = self.table_name
        for player in players:
            client = table.clients[player]
            mine = name if player == name else None
            self.get((stage, "phone", player), client, f"/t/{code}", mine or table_name)
            for region in ("status", "felt", "bar", "all"):
                self.get(
                    (stage, "phone region", region, player),
                    client,
                    f"/t/{code}/p/{region}",
                    mine if region in ("status", "all") else None,
                    headers=HX,
                )
            # What the phone's form sends back is shown again (mode, stake, typed amount).
            self.get(
                (stage, "phone with echoed fields", player),
                client,
                f"/t/{code}/p/all",
                headers=HX,
                query_string={"custom": self.payload, "amount": self.payload, "mode": self.payload},
            )
            self.get(
                (stage, "phone page with echoed fields", player),
                client,
                f"/t/{code}",
                query_string={"custom": self.payload, "amount": self.payload, "mode": self.payload},
            )
        self.get((stage, "tv"), self.tv, f"/t/{code}/tv", name)
        self.get((stage, "watch"), self.tv, f"/t/{code}/watch", name)
        for region in ("tv_status", "felt", "players", "all"):
            self.get(
                (stage, "tv region", region),
                self.tv,
                f"/t/{code}/tv/p/{region}",
                name if region in ("players", "all") else None,
                headers=HX,
            )
        host = self.get((stage, "host"), table.host, f"/t/{code}/host", name)
        assert str(escape(table_name)) in host
        self.get((stage, "standings"), self.visitor, f"/t/{code}/standings", name)
        self.chart((stage, "standings chart"), f"/t/{code}/standings.svg")
        self.get((stage, "join"), self.visitor, f"/t/{code}/join", table_name)
        self.get((stage, "rejoin"), self.visitor, f"/t/{code}/rejoin", table_name)

    def chart(self, where, url):
        """The chart is an SVG document: well-formed (a name cannot open a tag), with no script,
        no event handler and no link."""
        self.count += 1
        response = self.visitor.get(url)
        assert response.status_code == 200, where
        body = response.get_data(as_text=True)
        for marker in NEVER:
            assert marker not in body.lower(), (where, marker)
        for element in ElementTree.fromstring(body).iter():
            assert element.tag.rsplit("}", 1)[-1] not in ("script", "foreignObject"), where
            for name in element.attrib:
                assert not name.rsplit("}", 1)[-1].startswith(("on", "href")), (where, name)

    def recorded(self, stage: str, players: list[str], banked: bool):
        """The screens of the hands already played: each phone's last hands (page and htmx
        fragment, in English and in Spanish), the page that opens each deck's seal, the host's
        history and download, and what the live stream sends a phone and the TV that are a
        version behind. ``banked``: the payload held the bank of a recorded hand, so a phone's
        last hands name it."""
        code, name, table_name, night = self.code, self.shown, self.table_name, self.night
        mine = name if banked else None
        for player in players:
            client = night.clients[player]
            self.get((stage, "history", player), client, f"/t/{code}/history", table_name)
            for headers in (HX, HX | SPANISH):
                fragment = self.get(
                    (stage, "history fragment", player, headers.get("Accept-Language")),
                    client,
                    f"/t/{code}/history",
                    mine,
                    headers=headers,
                )
                assert "<html" not in fragment.lower(), (stage, player)
        numbers = 0
        while True:  # every recorded hand's seal, until the first number that is none
            response = self.visitor.get(f"/t/{code}/verify/{numbers + 1}")
            if response.status_code == 404:
                break
            numbers += 1
            assert response.status_code == 200, (stage, "verify", numbers)
            self.check((stage, "verify", numbers), response, table_name)
        assert numbers >= 1, (stage, "no hand was recorded")
        host = self.get((stage, "host history"), night.host, f"/t/{code}/host/history", name)
        assert str(escape(table_name)) in host, stage
        self.export(stage)
        older = self.version() - 1
        tv = self.stream(
            (stage, "tv stream"), self.tv, f"/t/{code}/stream?screen=tv&v={older}", name
        )
        ((_event, sent),) = tv  # a stream's first update: every region, whole
        for region in ("tv_status", "felt", "players", "recent"):
            assert f' id="{region}"' in sent, (stage, region)
        for player in players:
            phone = self.stream(
                (stage, "phone stream", player),
                night.clients[player],
                f"/t/{code}/stream?screen=phone&v={older}",
            )
            assert ' id="felt"' in dict(phone)["update"], (stage, player)

    def version(self) -> int:
        return json.loads(snapshot(self.app, self.code))["table"]["version"]

    def export(self, stage: str):
        """The host's download is data: JSON that gives back the names exactly as typed, served
        as JSON (a browser must not read it as a page)."""
        self.count += 1
        response = self.night.host.get(f"/t/{self.code}/host/export.json")
        assert response.status_code == 200, stage
        assert response.mimetype == "application/json", (stage, response.mimetype)
        assert response.headers.get("X-Content-Type-Options") == "nosniff", stage
        assert response.headers["Content-Disposition"].startswith("attachment;"), stage
        data = json.loads(response.data)
        assert data["table"]["name"] == self.table_name, stage
        assert self.shown in data["players"].values(), stage
        assert "<html" not in response.get_data(as_text=True).lower(), stage

    def stream(self, where, client, url, present: str | None = None):
        """What the live stream sends a screen that is behind: its first update, read off the
        stream and then closed. Each event's HTML is checked as a page would be."""
        response = client.get(url, buffered=False)
        try:
            assert response.status_code == 200, where
            assert response.mimetype == "text/event-stream", where
            sent = ""
            for chunk in response.response:
                sent += chunk.decode() if isinstance(chunk, bytes) else chunk
                if "\nevent: " in sent or sent.startswith("event: "):
                    break
            else:
                raise AssertionError((where, "the stream sent no update", sent))
        finally:
            response.close()
        events = sse_events(sent)
        assert events, (where, sent)
        for event, html in events:
            self.check_html((*where, event), html)
        for marker in NEVER:
            assert marker not in sent.lower(), (where, marker)
        if present is not None:
            assert str(escape(present)) in "".join(html for _event, html in events), where
        return events

    @property
    def table_name(self) -> str:
        return table_name_of(self.payload.strip())

    def refusals(self):
        """The answers that repeat what was typed: join and rejoin refusals, a bad room code,
        an unknown region, the pages of errors."""
        code, visitor, token = self.code, self.visitor, self.visitor_token
        response = visitor.post(f"/t/{code}/join", data={"csrf_token": token, "name": self.shown})
        assert response.status_code == 422
        self.check("join: the name is taken", response, self.shown)
        assert self.shown in notice(response)
        long = self.payload + "x" * NAME_MAX  # over the limit: refused, and shown in the form
        response = visitor.post(f"/t/{code}/join", data={"csrf_token": token, "name": long})
        assert response.status_code == 422
        self.check("join: the name is too long", response, long)
        response = visitor.post(
            f"/t/{code}/rejoin", data={"csrf_token": token, "rejoin": self.payload}
        )
        self.check("rejoin refused", response)
        self.get("lobby", visitor, "/")
        self.get("room code", visitor, "/go", query_string={"code": self.payload})
        self.get("unknown region", visitor, f"/t/{code}/p/{quote(self.payload, safe='')}")
        self.get(
            "unknown tv region",
            visitor,
            f"/t/{code}/tv/p/{quote(self.payload, safe='')}",
            headers=HX,
        )
        self.get("no seat", visitor, f"/t/{code}/p/all", headers=HX)
        self.get("no host rights", visitor, f"/t/{code}/host")
        self.get("missing table", visitor, f"/t/{quote(self.payload[:4], safe='')}")
        self.get("wrong host link", visitor, f"/t/{code}/host/claim/{quote(self.payload)}")
        self.check(
            "no csrf token",
            visitor.post(f"/t/{code}/a/bet", data={"csrf_token": self.payload}, headers=HX),
        )
        # Creating a table that is refused shows the form again with the name typed in it.
        response = visitor.post(
            "/tables",
            data={"csrf_token": token, "game": "montones", "name": self.payload, "chips": "x"},
        )
        assert response.status_code == 422
        self.check("create refused", response, self.payload[:TABLE_MAX])
        response = visitor.post(
            "/tables", data={"csrf_token": token, "game": self.payload, "chips": "5"}
        )
        self.check("create refused: the game", response)


# --- Montones ----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", PAYLOADS)
def test_montones_shows_a_hostile_banker_as_text(app, key):
    payload = PAYLOADS[key]
    name = name_of(payload).strip()
    night = Night(app, name, "Ana", "Ben", table_name=table_name_of(payload))
    screens = Screens(app, night, payload, name)
    night.ok(name, "offer", amount=30)
    screens.all("auction", [name, "Ana"])
    night.open_bank(name, 30)
    screens.all("cut", [name, night.cutter()])
    night.ok(night.cutter(), "cut", position=10)
    screens.all("heaps", [name])
    night.ok(name, "heaps", count=3)
    night.ok("Ana", "bet", heap=1, amount=5)
    night.ok("Ben", "choose", heap=3)
    screens.all("betting", [name, "Ana"])
    night.ok(name, "close")
    screens.all("settled", [name, "Ana"])
    screens.recorded("settled", [name, "Ana"], banked=True)
    screens.refusals()
    assert night.host_do("end").status_code == 303
    screens.all("ended", [name])
    screens.recorded("ended", [name], banked=True)


@pytest.mark.parametrize("key", PAYLOADS)
def test_montones_shows_a_hostile_punter_and_cutter_as_text(app, key):
    payload = PAYLOADS[key]
    name = name_of(payload).strip()
    night = Night(app, "Ana", name, "Ben", table_name=table_name_of(payload))
    screens = Screens(app, night, payload, name)
    night.ok(name, "offer", amount=20)
    night.ok("Ana", "offer", amount=30)
    night.ok("Ben", "pass")
    assert night.state()["phase"] == "cut"
    assert night.cutter() == name  # the punter to the banker's left
    screens.all("cut", [name, "Ana"])
    night.ok(night.cutter(), "cut", position=10)
    night.ok("Ana", "heaps", count=3)
    night.ok(name, "bet", heap=1, amount=5)
    night.ok(name, "against", heap=2, amount=5)
    night.ok(name, "choose", heap=3)
    screens.all("betting", [name, "Ana"])
    night.ok("Ana", "close")
    screens.all("settled", [name, "Ana"])
    screens.recorded("settled", [name, "Ana"], banked=False)


# --- Monte -------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", PAYLOADS)
def test_monte_shows_a_hostile_name_as_text_in_every_role(app, key):
    """Two players and one coup a bank: the payload draws, holds a bank, cuts, bets, is paid
    and wins or loses the night."""
    payload = PAYLOADS[key]
    name = name_of(payload).strip()
    night = MonteNight(app, name, "Ana", short_bank=1, name=table_name_of(payload))
    screens = Screens(app, night, payload, name)
    screens.all("seating", [name, "Ana"])
    night.draw()
    screens.all("bank", [name, "Ana"])
    banked = False
    for bank in (1, 2):
        banked = banked or night.banker == name
        night.put_up(50)
        screens.all(f"cut {bank}", [name, "Ana"])
        night.cut()
        punter = night.punters[0]
        assert night.tap(punter, "top", 3).status_code == 200
        assert night.tap(punter, "bottom", 2).status_code == 200
        screens.all(f"betting {bank}", [name, "Ana"])
        if bank == 1:
            # A bet on a layout named by the payload: the refusal quotes it, as a notice with
            # htmx and as a flashed message without.
            client, token = night.clients[punter], night.tokens[punter]
            data = {"csrf_token": token, "layout": payload, "amount": "1"}
            response = client.post(f"/t/{night.code}/a/bet", data=data, headers=HX)
            assert response.status_code == 422
            screens.check("layout refused", response)
            response = client.post(f"/t/{night.code}/a/bet", data=data)
            assert response.status_code == 303
            screens.get("layout refused, flashed", client, response.location)
            screens.refusals()
        night.do(night.banker, "gate", stage=night.stage())
        screens.all(f"gate {bank}", [name, "Ana"])
        screens.recorded(f"gate {bank}", [name, "Ana"], banked)
    assert night.state()["phase"] == monte.FINISHED


# --- the checks themselves -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "<p><script>alert(1)</script></p>",
        '<p><img src=x onerror="alert(1)"></p>',
        '<input value="" autofocus onfocus="alert(1)">',
        '<svg onload="alert(1)"></svg>',
        '<a href="javascript:alert(1)">x</a>',
        "<textarea></textarea>",
        '<script src="https://evil.example/x.js" defer></script>',
        "<iframe src=/></iframe>",
    ],
)
def test_the_audit_catches_injected_markup(body):
    with pytest.raises(AssertionError):
        audit("self-test", body)


def test_the_audit_passes_escaped_markup():
    audit("self-test", "<p>&lt;script&gt;alert(1)&lt;/script&gt; &#34; onfocus=&#34;x</p>")


def test_the_payloads_are_what_the_issue_lists():
    assert name_of(PAYLOADS["script"]) == "<script>alert(1)</script"
    assert name_of(PAYLOADS["img"]) == '"><img src=x onerror=ale'
    assert all(len(name_of(p)) <= NAME_MAX for p in PAYLOADS.values())
    assert all(len(table_name_of(p)) <= TABLE_MAX for p in PAYLOADS.values())


def test_a_name_cut_to_24_characters_cannot_close_a_tag_the_page_opened(app):
    """The page's own forms, once the name is inside an attribute, stay whole: the host's
    'Chips to add for NAME' label is an attribute value."""
    payload = '" autofocus onfocus="alert(1)'[:NAME_MAX]
    night = Night(app, payload, "Ana")
    host = night.host.get(f"/t/{night.code}/host").get_data(as_text=True)
    assert payload == '" autofocus onfocus="ale'
    assert 'aria-label="Chips to add for &#34; autofocus onfocus=&#34;ale"' in host
    audit("host", host)
    assert 'onfocus="' not in host
    audit("phone", night.page(payload).get_data(as_text=True))
    audit("tv", night.host.get(f"/t/{night.code}/tv").get_data(as_text=True))
