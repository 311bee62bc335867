"""The live channel: one Server-Sent Events stream per open screen.

A stream sends ``changed`` whenever its table has a new version (and once on connecting, so
a screen that lost its stream catches up), a comment as heartbeat in between, and applies the
cut timeout when it falls due.
"""

from __future__ import annotations

import os
import time

from flask import Blueprint, Response, current_app, request

from montones import live, service
from montones.extensions import db

bp = Blueprint("live", __name__, url_prefix="/t/<code>")

HEARTBEAT = 15.0


@bp.get("/stream")
def stream(code):
    table = service.get_table(code)
    code, version = table.code, table.version
    deadline = service.cut_deadline(table.state)
    app = current_app._get_current_object()
    seen = request.args.get("v", type=int, default=-1)
    max_seconds = current_app.config.get("STREAM_MAX_SECONDS", 600)
    db.session.remove()  # a stream must not hold a connection (or a read snapshot) open

    def events():
        nonlocal version, deadline
        yield "retry: 1500\n\n"
        live.publish(code, version)
        last, opened = seen, time.monotonic()
        while time.monotonic() - opened < max_seconds:
            timeout = HEARTBEAT
            if deadline is not None:
                timeout = max(0.2, min(timeout, deadline - time.time() + 0.1))
            current = live.wait(code, last, timeout)
            if current > last:
                last = current
                with app.app_context():
                    deadline = service.cut_deadline(service.get_table(code).state)
                yield f"event: changed\ndata: {current}\n\n"
            elif deadline is not None and time.time() >= deadline:
                with app.app_context():
                    service.tick(code)
                    deadline = service.cut_deadline(service.get_table(code).state)
            else:
                yield ": heartbeat\n\n"

    response = Response(events(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.headers["X-Montones-Worker"] = str(os.getpid())  # which process holds the stream
    return response
