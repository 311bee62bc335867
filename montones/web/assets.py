"""What a phone downloads: pages and static files compressed (Flask-Compress), and static files
at addresses that name their content, kept by the browser.

Every static address the templates make (``url_for("static", ...)``) carries ``v=``, a hash of
the file: a file that changes gets a new address, so the browser may keep each one for a year
without asking again, and a phone that loses the network still draws its cards from its cache.
An address without it, or with another file's hash, is kept an hour.

The streams are not Flask-Compress's (``text/event-stream`` is not among its types): it
compresses a stream without flushing it, and each update must reach its screen as it is
written. A stream compresses itself, flushing each update (:mod:`montones.web.stream`).
"""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache

from flask import request
from flask_compress import Compress

YEAR = 365 * 24 * 3600
HOUR = 3600
# What is compressed: what the app serves that is text (the page, its CSS, JS, SVG).
MIMETYPES = ["text/html", "text/css", "text/javascript", "application/javascript", "image/svg+xml"]

compress = Compress()


def init_app(app) -> None:
    app.config.setdefault("COMPRESS_MIMETYPES", MIMETYPES)
    # A static file is sent as a stream, which Flask-Compress by default compresses in anything
    # but gzip: a phone at a plain-http address on the LAN asks for gzip or deflate only.
    app.config.setdefault("COMPRESS_ALGORITHM_STREAMING", ["zstd", "br", "gzip", "deflate"])
    if app.config.get("SEND_FILE_MAX_AGE_DEFAULT") is None:
        app.config["SEND_FILE_MAX_AGE_DEFAULT"] = HOUR
    compress.init_app(app)
    folder = app.static_folder

    @app.url_defaults
    def versioned(endpoint, values):
        if endpoint == "static" and "v" not in values:
            found = version(folder, values.get("filename", ""))
            if found:
                values["v"] = found

    @app.after_request
    def kept(response):
        if request.endpoint == "static" and response.status_code in (200, 304):
            asked = request.args.get("v")
            if asked and asked == version(folder, (request.view_args or {}).get("filename", "")):
                response.cache_control.no_cache = None
                response.cache_control.public = True
                response.cache_control.max_age = YEAR
                response.cache_control.immutable = True
        return response


@lru_cache(maxsize=256)
def version(folder: str, filename: str) -> str | None:
    """A short hash of a static file's bytes; None if there is no such file. Read once per
    process: a deployed file does not change under a running server."""
    path = os.path.join(folder, filename)
    if ".." in filename.split("/") or not os.path.isfile(path):
        return None
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()[:12]
