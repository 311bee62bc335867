"""What a screen downloads to open a table cold: ``python -m tests.bench.weight``.

A table in betting (4 players, a few bets on the felt). A phone that has joined opens the table
page with an empty cache and fetches every resource the page references, once each: stylesheets
(and any url() inside them), scripts, images, the SVG sprite behind the cards' ``<use href>``;
likewise the TV page. Requests say ``Accept-Encoding: gzip``; a response the server compressed
counts at its size on the wire, one it did not counts at its gzip size (level 6): what a
compressing server would send. Each line says which. Bodies only (headers are printed apart);
the live stream the page opens is not counted.

Last line: ``weight: phone_kb=... tv_kb=...`` (1 kb = 1024 bytes). Goal: phone <= 60.
"""

from __future__ import annotations

import asyncio
import gzip
import re
import shutil
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx

from tests.bench import common as c

FETCHED_RELS = {"stylesheet", "icon", "preload", "modulepreload", "manifest"}
CSS_URL_RE = re.compile(r"url\(\s*['\"]?([^'\")]+)['\"]?\s*\)")


class Refs(HTMLParser):
    """The URLs a browser fetches while loading a page, in order."""

    def __init__(self):
        super().__init__()
        self.urls: list[tuple[str, str]] = []  # (url, what referenced it)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "link" and FETCHED_RELS & set((a.get("rel") or "").split()) and a.get("href"):
            self.urls.append((a["href"], f"link rel={a['rel']}"))
        elif tag in ("script", "img", "iframe", "source") and a.get("src"):
            self.urls.append((a["src"], f"{tag} src"))
        elif tag in ("use", "image") and (a.get("href") or a.get("xlink:href")):
            self.urls.append(((a.get("href") or a["xlink:href"]).split("#")[0], f"<{tag} href>"))

    handle_startendtag = handle_starttag


def fetch(http: httpx.Client, url: str) -> dict:
    with http.stream("GET", url, headers={"Accept-Encoding": "gzip"}) as r:
        raw = b"".join(r.iter_raw())
        encoding = r.headers.get("content-encoding", "")
        header_bytes = len(f"HTTP/1.1 {r.status_code} {r.reason_phrase}\r\n") + sum(
            len(k) + len(v) + 4 for k, v in r.headers.raw
        )
        status, ctype = r.status_code, r.headers.get("content-type", "")
    if encoding == "gzip":
        body, wire, how = gzip.decompress(raw), len(raw), "server gzip"
    elif encoding:
        body, wire, how = raw, len(raw), f"server {encoding}"
    else:
        body, how = raw, "estimated (server sent it uncompressed)"
        wire = len(gzip.compress(raw, compresslevel=6, mtime=0))
    return {
        "url": url,
        "status": status,
        "type": ctype.split(";")[0],
        "body": body,
        "raw": len(body),
        "wire": wire,
        "how": how,
        "headers": header_bytes,
    }


def cold_load(http: httpx.Client, page: str) -> list[dict]:
    """The page, then every resource it (and its stylesheets) names, each URL once."""
    first = fetch(http, page)
    first["why"] = "the page"
    if first["status"] != 200:
        raise RuntimeError(f"{page} answered {first['status']}")
    parser = Refs()
    parser.feed(first["body"].decode("utf-8", "replace"))
    queue = [(urljoin(page, u), why) for u, why in parser.urls]
    seen, rows = {page}, [first]
    while queue:
        url, why = queue.pop(0)
        if url in seen or urlsplit(url).netloc != urlsplit(page).netloc:
            continue  # once each; data: URIs and other hosts are not fetched from this server
        seen.add(url)
        row = fetch(http, url)
        row["why"] = why
        rows.append(row)
        if row["type"] == "text/css":
            css = row["body"].decode("utf-8", "replace")
            queue += [(urljoin(url, u), "css url()") for u in CSS_URL_RE.findall(css)]
    return rows


def report(name: str, rows: list[dict]) -> float:
    print(f"{name}: {len(rows)} requests")
    for r in rows:
        path = urlsplit(r["url"]).path
        print(
            f"  {path:<42} {r['status']} {r['type']:<24} raw {r['raw']:>7} B  "
            f"gzip {r['wire']:>6} B  {r['how']}  [{r['why']}]"
        )
    raw = sum(r["raw"] for r in rows)
    wire = sum(r["wire"] for r in rows)
    heads = sum(r["headers"] for r in rows)
    by_server = sum(r["wire"] for r in rows if r["how"].startswith("server"))
    print(
        f"  total: gzip {wire} B = {wire / 1024:.1f} kb ({by_server} B compressed by the server, "
        f"{wire - by_server} B estimated); uncompressed {raw} B = {raw / 1024:.1f} kb; "
        f"response headers {heads} B (not counted)"
    )
    return wire / 1024


async def set_up(base: str, db: Path):
    host, code = await c.create_table(base, chips=100)
    players = await c.seat_players(base, code, 4, db)
    banker, punters = await c.open_hand(code, players, bank=100, db_path=db)
    for i, p in enumerate(punters):  # a few chips on the felt, as in a hand under way
        r = await p.act(code, "bet", heap=1 + i % 2, amount=5)
        if r.status_code != 200:
            raise RuntimeError(f"bet refused: {r.status_code}")
    cookies = c.httpx.Cookies(punters[0].http.cookies)
    for p in [host, *players]:
        await p.aclose()
    return code, cookies


def main() -> tuple[float, float]:
    folder = Path(tempfile.mkdtemp(prefix="montones-bench-weight-"))
    server, base = c.start_app(folder)
    try:
        code, cookies = asyncio.run(set_up(base, folder / "montones.sqlite"))
        # A browser with the player's cookie (it has joined) and an empty cache.
        with httpx.Client(base_url=base, cookies=cookies, timeout=c.TIMEOUT) as phone:
            phone_kb = report("phone", cold_load(phone, f"{base}/t/{code}"))
        with httpx.Client(base_url=base, timeout=c.TIMEOUT) as tv:
            tv_kb = report("tv", cold_load(tv, f"{base}/t/{code}/tv"))
    finally:
        c.stop(server)
        shutil.rmtree(folder, ignore_errors=True)
    return phone_kb, tv_kb


if __name__ == "__main__":
    phone_kb, tv_kb = main()
    print(f"weight: phone_kb={phone_kb:.1f} tv_kb={tv_kb:.1f}")
