"""What the browser is told: cookies, the Content-Security-Policy, htmx's configuration, and
that every script the pages run is one of the app's own files.

Every GET route of ``app.url_map`` is in ``GET_ROUTES`` (a new one fails the suite), and each
is fetched as the one who may see it, with and without htmx, next to the error pages.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from tests.helpers.security import HX, SECURITY_CONFIG, browser, host_secret, make_app, table_in

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
STATIC_JS = ROOT / "static" / "js"


APP_CONFIG = SECURITY_CONFIG


@pytest.fixture(scope="module")
def tables(app):
    return {game: table_in(app, game, "betting") for game in ("montones", "monte")}


# Every GET route: who asks (an actor of the table), the path under it, the expected status and
# content type. "{code}" is the table's code, "{secret}" its host secret.
GET_ROUTES = {
    "static": [("anonymous", "/static/js/app.js", 200, "text/javascript")],
    "lobby.index": [("anonymous", "/", 200, "text/html")],
    "lobby.go": [
        ("anonymous", "/go?code={code}", 303, "text/html"),
        ("anonymous", "/go?code=QQQQ", 404, "text/html"),
    ],
    "lobby.healthz": [("anonymous", "/healthz", 200, "text/plain")],
    "lobby.favicon": [("anonymous", "/favicon.ico", 200, "image/vnd.microsoft.icon")],
    "lobby.rules": [
        ("anonymous", "/rules/montones", 200, "text/html"),
        ("anonymous", "/rules/monte?t={code}", 200, "text/html"),
        ("anonymous", "/rules/nonsense", 404, "text/html"),
    ],
    "play.page": [("A", "/t/{code}", 200, "text/html"), ("anonymous", "/t/{code}", 303, None)],
    "play.region": [
        ("A", "/t/{code}/p/all", 200, "text/html"),
        ("A", "/t/{code}/p/felt", 200, "text/html"),
        ("anonymous", "/t/{code}/p/all", 403, "text/html"),
    ],
    "seats.join": [("anonymous", "/t/{code}/join", 200, "text/html")],
    "play.back": [("A", "/t/{code}/back", 200, None), ("anonymous", "/t/{code}/back", 204, None)],
    "seats.rejoin": [("anonymous", "/t/{code}/rejoin", 200, "text/html")],
    "seats.qr": [("anonymous", "/t/{code}/qr.svg", 200, "image/svg+xml")],
    "records.standings": [("anonymous", "/t/{code}/standings", 200, "text/html")],
    # No next night yet: back to the standings.
    "seats.next_night": [("A", "/t/{code}/next", 303, None)],
    "records.recall": [
        ("A", "/t/{code}/history", 200, "text/html"),
        ("anonymous", "/t/{code}/history", 403, "text/html"),
    ],
    "records.verify": [("anonymous", "/t/{code}/verify/1", 404, "text/html")],  # no hand yet
    "records.standings_chart": [
        ("anonymous", "/t/{code}/standings.svg", 200, "image/svg+xml"),
        ("anonymous", "/t/{code}/standings.svg?screen=tv", 200, "image/svg+xml"),
    ],
    "tv.page": [("anonymous", "/t/{code}/tv", 200, "text/html")],
    "tv.region": [("anonymous", "/t/{code}/tv/p/all", 200, "text/html")],
    "watch.page": [("anonymous", "/t/{code}/watch", 200, "text/html")],
    "watch.region": [("anonymous", "/t/{code}/watch/p/all", 200, "text/html")],
    "watch.qr": [("anonymous", "/t/{code}/watch/qr.svg", 200, "image/svg+xml")],
    "tv.next_night": [("anonymous", "/t/{code}/tv/next", 303, None)],
    "stream.stream": [("anonymous", "/t/{code}/stream", 200, "text/event-stream")],
    "host.claim": [
        ("anonymous", "/t/{code}/host/claim/{secret}", 303, None),
        ("anonymous", "/t/{code}/host/claim/wrong", 403, "text/html"),
    ],
    "host.page": [
        ("host", "/t/{code}/host", 200, "text/html"),
        ("A", "/t/{code}/host", 403, "text/html"),
    ],
    "host.hands": [
        ("host", "/t/{code}/host/history", 200, "text/html"),
        ("A", "/t/{code}/host/history", 403, "text/html"),
    ],
    "host.export": [
        ("host", "/t/{code}/host/export.json", 200, "application/json"),
        ("A", "/t/{code}/host/export.json", 403, "text/html"),
    ],
}


def fetch_all(tables):
    """(what, response) for every GET route of both games' tables, with and without htmx."""
    for game, table in tables.items():
        secret = host_secret(table)
        for endpoint, cases in GET_ROUTES.items():
            for actor, path, status, kind in cases:
                url = path.format(code=table.code, secret=secret)
                for hx in (False, True):
                    # a fresh browser for the claim link, so the anonymous one stays anonymous
                    client = browser(table.app)[0] if endpoint == "host.claim" else None
                    client = client or table.client(actor)[0]
                    response = client.get(url, headers=HX if hx else {}, buffered=True)
                    yield (game, endpoint, actor, url, hx), response, status, kind


def error_pages(app, table):
    """(what, response) for the answers that are errors: 400, 403, 404, 405, 422 and 500."""
    client, token = browser(app)
    code = table.code
    yield "400 csrf", client.post(f"/t/{code}/a/bet", data={"heap": "1"})
    yield "403 host page", client.get(f"/t/{code}/host")
    yield "403 region", client.get(f"/t/{code}/p/all", headers=HX)
    yield "404 page", client.get("/no/such/page")
    yield "404 table", client.get("/t/QQQQ")
    yield "404 region", client.get(f"/t/{code}/tv/p/nope", headers=HX)
    yield "405", client.get(f"/t/{code}/a/bet")
    yield "422 join", client.post(f"/t/{code}/join", data={"csrf_token": token, "name": ""})
    yield "422 create", client.post("/tables", data={"csrf_token": token, "chips": "x"})
    yield (
        "422 action",
        table.post("A", "/a/bet", {"heap": "9", "amount": "1", "layout": "nowhere"}),
    )


def csp_of(response) -> dict[str, list[str]]:
    header = response.headers.get("Content-Security-Policy")
    assert header, "no Content-Security-Policy"
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0].lower()] = words[1:]
    return directives


def check_csp(what, response) -> None:
    if what[1] == "records.standings_chart":
        check_image_csp(what, response)
        return
    csp = csp_of(response)
    scripts = csp.get("script-src", csp.get("default-src"))
    assert scripts == ["'self'"], (what, scripts)
    for directive in ("default-src", "script-src", "script-src-elem", "script-src-attr"):
        for word in csp.get(directive, []):
            assert word.lower() not in ("'unsafe-inline'", "'unsafe-eval'", "*", "data:"), (
                what,
                directive,
                word,
            )
            assert not word.lower().startswith(("http:", "https:")), (what, directive, word)
    assert csp.get("object-src") == ["'none'"], what
    assert csp.get("base-uri") == ["'none'"], what
    assert csp.get("frame-ancestors") == ["'none'"], what
    assert csp.get("form-action") == ["'self'"], what
    assert csp.get("connect-src") == ["'self'"], what  # htmx requests and the live stream
    assert response.headers.get("X-Content-Type-Options") == "nosniff", what
    assert response.headers.get("X-Frame-Options") == "DENY", what


def check_image_csp(what, response) -> None:
    """The chart is an SVG with pygal's own <style>: it may style itself and do nothing else."""
    csp = csp_of(response)
    assert csp.pop("default-src") == ["'none'"], what
    assert csp == {"style-src": ["'unsafe-inline'"], "frame-ancestors": ["'none'"]}, what
    assert response.headers.get("X-Content-Type-Options") == "nosniff", what


HTMX_CONFIG = re.compile(r"""<meta name="htmx-config" content='([^']*)'>""")
SCRIPT_TAG = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.S | re.I)


def check_page(what, body: str) -> None:
    """A whole page: htmx's configuration, and only the app's own scripts, with no content."""
    configs = HTMX_CONFIG.findall(body)
    assert len(configs) == 1, what
    config = json.loads(configs[0])
    assert config["selfRequestsOnly"] is True, what
    assert config["allowEval"] is False, what
    assert config["allowScriptTags"] is False, what
    scripts = SCRIPT_TAG.findall(body)
    assert scripts, what
    assert len(scripts) == len(re.findall(r"<script\b", body, re.I)), what
    for attrs, inside in scripts:
        assert inside == "", (what, attrs)
        # Its address names its content (?v=, montones/web/assets.py).
        src = re.fullmatch(r'\s*src="(/static/js/[\w.-]+\.js)\?v=[0-9a-f]{12}" defer', attrs)
        assert src, (what, attrs)
    assert "/static/js/htmx-2.0.11.min.js?v=" in body, what


# --- every route's answer -----------------------------------------------------------------------


def test_every_get_route_is_in_the_table(app):
    found = {rule.endpoint for rule in app.url_map.iter_rules() if "GET" in (rule.methods or set())}
    assert found == set(GET_ROUTES)


def test_every_answer_carries_the_content_security_policy(app, tables):
    html = 0
    for what, response, status, kind in fetch_all(tables):
        assert response.status_code == status, what
        if kind:
            assert response.mimetype == kind, (what, response.mimetype)
        check_csp(what, response)
        if response.mimetype == "text/html":
            html += 1
        response.close()
    for what, response in error_pages(app, tables["montones"]):
        assert response.status_code in (400, 403, 404, 405, 422), what
        assert response.mimetype == "text/html"
        check_csp(what, response)
        html += 1
    assert html > 40


def test_every_page_runs_htmx_with_self_requests_only_and_no_eval(app, tables):
    pages = 0
    for what, response, _status, kind in fetch_all(tables):
        if kind and kind.startswith("image/") and not kind.endswith("svg+xml"):
            continue  # a bitmap (the favicon) is no text to look for a script in
        body = response.get_data(as_text=True)
        if response.mimetype == "text/html" and body.lstrip().lower().startswith("<!doctype"):
            if "<script" in body or "htmx" in body:
                check_page(what, body)
                pages += 1
        else:
            assert "<script" not in body, what  # fragments and the rest carry no script
    for what, response in error_pages(app, tables["monte"]):
        body = response.get_data(as_text=True)
        if "htmx" in body:  # a page of the app's own (422): the whole page, configured
            check_page(what, body)
            pages += 1
        else:  # Werkzeug's plain error pages run no script at all
            assert "<script" not in body.lower(), what
    assert pages >= 20


def test_the_host_link_the_host_pages_and_the_export_are_never_stored(app, tables):
    """What the host sees (the one-time host link, the night's record) stays out of every
    cache: the browser's, a proxy's, the back button's."""
    checked = 0
    for (game, endpoint, actor, url, hx), response, _status, _kind in fetch_all(tables):
        if endpoint.startswith("host."):
            assert response.headers.get("Cache-Control") == "no-store", (game, url, actor, hx)
            checked += 1
    assert checked >= 16


def test_a_seats_pages_are_never_stored(app, tables):
    """A phone's page shows its rejoin code; its history, its verify pages and the rest of a
    table's pages show the seat's hands: no cache keeps any of them."""
    checked = set()
    for (game, endpoint, actor, url, hx), response, _status, _kind in fetch_all(tables):
        # The images (the join QR code, the standings chart) keep their own rules.
        if (
            endpoint.startswith(("play.", "seats.", "records."))
            and response.mimetype == "text/html"
        ):
            assert response.headers.get("Cache-Control") == "no-store", (game, url, actor, hx)
            checked.add(endpoint)
    assert {"play.page", "records.recall", "records.verify"} <= checked


def test_a_server_error_carries_the_content_security_policy_too(tmp_path):
    app = make_app(tmp_path)

    @app.get("/boom-for-the-test")
    def boom():
        raise RuntimeError("boom")

    response = app.test_client().get("/boom-for-the-test")
    assert response.status_code == 500
    check_csp("500", response)
    assert "<script" not in response.get_data(as_text=True).lower()


# --- cookies ------------------------------------------------------------------------------------


def cookie_flags(response) -> list[dict[str, str | None]]:
    """Every Set-Cookie of a response: name, value and attributes (lower-case keys)."""
    out = []
    for header in response.headers.getlist("Set-Cookie"):
        name_value, *attrs = [part.strip() for part in header.split(";")]
        name, _, value = name_value.partition("=")
        flags = {"name": name, "value": value}
        for attr in attrs:
            key, has, val = attr.partition("=")
            flags[key.lower()] = val if has else None
        out.append(flags)
    return out


def assert_session_cookie(what, response) -> None:
    cookies = cookie_flags(response)
    assert [c["name"] for c in cookies] == ["session"], (what, cookies)
    (cookie,) = cookies
    assert "httponly" in cookie, (what, cookie)
    assert cookie.get("samesite") == "Lax", (what, cookie)
    assert cookie.get("path") == "/", (what, cookie)


def test_the_session_cookie_is_httponly_and_samesite_lax(app):
    table = table_in(app, "montones", "auction")
    client = app.test_client()
    first = client.get(f"/t/{table.code}/join")
    assert_session_cookie("the first page (the CSRF token)", first)
    token = re.search(r'name="csrf_token" value="([^"]+)"', first.get_data(as_text=True))[1]
    joined = client.post(f"/t/{table.code}/join", data={"csrf_token": token, "name": "Zed"})
    assert joined.status_code == 303
    assert_session_cookie("joining", joined)
    # a session that holds a seat lasts the night, not just the browser's session
    assert "expires" in cookie_flags(joined)[0]

    other = app.test_client()
    token = re.search(r'name="csrf_token" value="([^"]+)"', other.get("/").get_data(as_text=True))[
        1
    ]
    created = other.post(
        "/tables",
        data={
            "csrf_token": token,
            "game": "monte",
            "chips": "100",
            "bank_size": "50",
            "min_bet": "1",
            "max_bet": "10",
            "banks_each": "1",
        },
    )
    assert created.status_code == 303
    assert_session_cookie("creating a table", created)

    claimer = app.test_client()
    claimed = claimer.get(f"/t/{table.code}/host/claim/{host_secret(table)}")
    assert claimed.status_code == 303
    assert_session_cookie("claiming the host link", claimed)


def test_the_session_cookie_is_sent_again_only_when_it_changes(app):
    """A seated phone's taps and fetches carry no new cookie; choosing a language does."""
    table = table_in(app, "montones", "auction")
    client = app.test_client()
    token = re.search(
        r'name="csrf_token" value="([^"]+)"', client.get(f"/t/{table.code}/join").get_data(True)
    )[1]
    client.post(f"/t/{table.code}/join", data={"csrf_token": token, "name": "Zed"})
    for path in (f"/t/{table.code}", f"/t/{table.code}/p/all", f"/t/{table.code}/p/seat"):
        response = client.get(path, headers={"HX-Request": "true"})
        assert response.status_code == 200 and cookie_flags(response) == [], path
    tapped = client.post(
        f"/t/{table.code}/a/pass", data={"csrf_token": token}, headers={"HX-Request": "true"}
    )
    assert tapped.status_code == 200 and cookie_flags(tapped) == []
    assert_session_cookie("choosing a language", client.get(f"/t/{table.code}?lang=es"))


def test_every_session_cookie_is_httponly(app, tables):
    seen = 0
    for what, response, _status, _kind in fetch_all(tables):
        for cookie in cookie_flags(response):
            assert cookie["name"] == "session" and "httponly" in cookie, what
            seen += 1
    assert seen


def test_a_session_lasts_two_days_not_a_month(app):
    from datetime import UTC, datetime
    from email.utils import parsedate_to_datetime

    table = table_in(app, "montones", "auction")
    client, token = browser(app)
    joined = client.post(f"/t/{table.code}/join", data={"csrf_token": token, "name": "Zed"})
    (cookie,) = cookie_flags(joined)
    left = parsedate_to_datetime(cookie["expires"]) - datetime.now(UTC)
    assert left.total_seconds() <= 2 * 24 * 3600 + 60


def test_no_answer_sets_a_cookie_without_the_flags(app, tables):
    for what, response, _status, _kind in fetch_all(tables):
        for cookie in cookie_flags(response):
            assert cookie["name"] == "session", what
            assert "httponly" in cookie and cookie.get("samesite") == "Lax", what


# --- the templates and the scripts --------------------------------------------------------------

TEMPLATE_FILES = sorted(TEMPLATES.rglob("*.html"))


def test_there_are_templates_to_scan():
    assert len(TEMPLATE_FILES) >= 15
    assert TEMPLATES / "base.html" in TEMPLATE_FILES


@pytest.mark.parametrize("path", TEMPLATE_FILES, ids=lambda p: str(p.relative_to(TEMPLATES)))
def test_no_template_has_an_inline_script_or_an_event_handler(path):
    text = path.read_text()
    # Jinja comments may say anything; the markup may not.
    markup = re.sub(r"\{#.*?#\}", "", text, flags=re.S)
    for attrs, inside in SCRIPT_TAG.findall(markup):
        assert inside.strip() == "", f"inline script in {path.name}"
        assert "src=" in attrs, f"a script without src in {path.name}"
    assert len(SCRIPT_TAG.findall(markup)) == len(re.findall(r"<script\b", markup, re.I))
    tags = re.findall(r"<[a-zA-Z][^<>]*>", markup)
    for tag in tags:
        handler = re.search(r"\s(on[a-z]+)\s*=", tag, re.I)
        assert not handler, f"event handler {handler and handler.group(1)} in {path.name}: {tag}"
        assert not re.search(r"\shx-on[:\-\w]*\s*=", tag, re.I), f"hx-on in {path.name}: {tag}"
        assert not re.search(r"\s(hx-vars|data-hx-vars)\s*=", tag), f"hx-vars in {path.name}"
        assert not re.search(r"""hx-vals\s*=\s*['"]\s*js:""", tag), f"hx-vals js: in {path.name}"
    assert "javascript:" not in markup.lower(), path.name


@pytest.mark.parametrize("path", TEMPLATE_FILES, ids=lambda p: str(p.relative_to(TEMPLATES)))
def test_no_template_loads_anything_from_another_origin(path):
    markup = path.read_text()
    attrs = r"\b(src|href|action|hx-get|hx-post|sse-connect)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+)"
    for attr, value in re.findall(attrs, markup):
        assert not re.match(r"""["']?\s*(https?:)?//""", value), f"{path.name}: {attr}={value}"
    for src in re.findall(r'<script\b[^>]*\bsrc="([^"]*)"', markup):
        assert src.startswith("{{ url_for('static', filename='js/"), f"{path.name}: {src}"
    assert len(re.findall(r'<script\b[^>]*\bsrc="', markup)) == markup.count("<script")


def vendored_hashes() -> dict[str, str]:
    text = (STATIC_JS / "VENDORED.md").read_text()
    return dict(
        (name, digest) for digest, name in re.findall(r"^([0-9a-f]{64})\s+(\S+\.js)$", text, re.M)
    )


def test_the_vendored_scripts_are_served_from_static_as_committed(app):
    hashes = vendored_hashes()
    assert set(hashes) == {
        "htmx-2.0.11.min.js",
        "htmx-ext-sse-2.2.4.min.js",
        "idiomorph-ext-0.8.0.min.js",
        "js-sha256-0.11.1.min.js",
        "nosleep-0.12.0.min.js",
    }
    client = app.test_client()
    for name, digest in hashes.items():
        response = client.get(f"/static/js/{name}")
        assert response.status_code == 200, name
        assert response.mimetype == "text/javascript", name
        assert hashlib.sha256(response.data).hexdigest() == digest, name
        response.close()
    # and every script a template names is one of the files in static/js
    named = {
        m
        for path in TEMPLATE_FILES
        for m in re.findall(r"filename='js/([\w.-]+\.js)'", path.read_text())
    }
    assert named and named <= {p.name for p in STATIC_JS.glob("*.js")}
    assert named >= set(hashes)


def test_the_apps_own_script_evaluates_no_strings():
    source = (STATIC_JS / "app.js").read_text()
    for forbidden in (
        r"\beval\s*\(",
        r"\bnew\s+Function\b",
        r"\bsetTimeout\s*\(\s*['\"`]",
        r"\bsetInterval\s*\(\s*['\"`]",
        r"\.innerHTML\b",
        r"\.outerHTML\b",
        r"insertAdjacentHTML",
        r"document\.write",
        r"https?://",
    ):
        assert not re.search(forbidden, source), forbidden
