"""What a phone downloads: pages and static files compressed, static files at versioned
addresses kept a year, and the stream compressed but never held back (montones/web/assets.py)."""

from __future__ import annotations

import gzip
import re
import zlib
from pathlib import Path

from montones.web import assets
from tests.helpers.nights import Night
from tests.helpers.streams import Stream, url

BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd", "Accept-Language": "en"}


# The words an ``animation`` shorthand may hold besides its keyframes' name.
CSS_ANIMATION_WORDS = {
    "none", "ease", "ease-in", "ease-out", "ease-in-out", "linear", "step-start", "step-end",
    "infinite", "normal", "reverse", "alternate", "alternate-reverse", "forwards", "backwards",
    "both", "running", "paused", "inherit", "initial", "unset",
}  # fmt: skip


def test_every_static_address_a_page_makes_names_its_file_s_content(app):
    night = Night(app, "Ana", "Ben")
    page = night.page("Ben").get_data(as_text=True)
    found = re.findall(r'(?:src|href)="(/static/[^"#]+)', page)
    assert len(found) >= 5
    for address in found:
        path, _, version = address.partition("?v=")
        assert version == assets.version(app.static_folder, path[len("/static/") :]), address


def test_a_versioned_static_file_is_kept_a_year_and_nothing_static_is_no_cache(app):
    client = app.test_client()
    version = assets.version(app.static_folder, "img/suits.svg")
    kept = client.get(f"/static/img/suits.svg?v={version}")
    assert kept.status_code == 200
    assert kept.cache_control.max_age == assets.YEAR and kept.cache_control.immutable
    assert "no-cache" not in kept.headers["Cache-Control"]
    for address in ("/static/img/suits.svg", "/static/img/suits.svg?v=0123456789ab"):
        other = client.get(address)  # not this file's content: kept an hour, asked again then
        assert other.status_code == 200 and other.cache_control.max_age == assets.HOUR
        assert "no-cache" not in other.headers["Cache-Control"]


def test_pages_and_static_files_are_compressed(app):
    night = Night(app, "Ana", "Ben")
    page = night.clients["Ben"].get(f"/t/{night.code}", headers=BROWSER)
    assert page.headers["Content-Encoding"] in ("gzip", "br", "zstd", "deflate")
    plain = night.clients["Ben"].get(f"/t/{night.code}", headers={"Accept-Encoding": "gzip"})
    assert plain.headers["Content-Encoding"] == "gzip"
    assert b"<html" in gzip.decompress(plain.get_data())
    version = assets.version(app.static_folder, "js/app.js")
    script = app.test_client().get(f"/static/js/app.js?v={version}", headers=BROWSER)
    assert script.headers.get("Content-Encoding") in ("br", "zstd", "deflate", "gzip")
    lan = app.test_client().get(
        f"/static/js/app.js?v={version}", headers={"Accept-Encoding": "gzip"}
    )
    assert lan.headers["Content-Encoding"] == "gzip"
    assert b"function" in gzip.decompress(lan.get_data())


def test_the_stream_is_compressed_and_each_update_comes_as_it_is_made(app):
    """A compressor holds what it is given until its buffer fills, unless flushed: the stream
    is flushed at each update, and each update is read before anything else happens."""
    night = Night(app, "Ana", "Ben", "Eva")
    night.to_betting("Ana", bank=30)
    address = url(night, "phone", night.state()["version"])
    stream = Stream(night.clients["Ben"], address, headers=BROWSER)
    assert stream.response.headers["Content-Encoding"] == "gzip"
    unzip = zlib.decompressobj(16 + zlib.MAX_WBITS)
    stream.chunks = (unzip.decompress(chunk) for chunk in stream.chunks)
    try:
        for amount in (1, 2, 3):
            night.ok("Eva", "bet", heap=1, amount=amount)
            update = dict(stream.events(until="update"))["update"]
            assert f'<span class="chip__amount">{sum(range(1, amount + 1))}</span>' in update
    finally:
        stream.close()


def test_every_animation_the_style_sheets_name_is_defined(app):
    """An animation naming keyframes that no sheet defines never runs, and says nothing: Monte
    Bank's reveal named ``monte-appear`` after those keyframes were gone, and its TV showed every
    card turned and every bet marked at once instead of one card a second."""
    sheets = " ".join(p.read_text() for p in (Path(app.static_folder) / "css").glob("*.css"))
    defined = set(re.findall(r"@keyframes\s+([\w-]+)", sheets))
    named = set()
    for value in re.findall(r"animation(?:-name)?\s*:\s*([^;}]+)", sheets):
        for one in value.split(","):
            words = [w for w in one.split() if re.fullmatch(r"[a-z][\w-]*", w)]
            named.update(w for w in words if w not in CSS_ANIMATION_WORDS)
    assert defined and named, (defined, named)
    assert named <= defined, f"named but never defined: {sorted(named - defined)}"
