"""A bare SSE broadcast app: the floor live.py measures the real app against.

Run under the same server as ``montones serve`` (live.py does, through ``common.start_gunicorn``)::

    gunicorn -w 1 -k gevent --worker-connections 4000 --keep-alive 8 -b 127.0.0.1:PORT \
        --chdir tests/bench bare_sse:app

GET /stream is a generator per client, as the real stream is, and sends each published message; POST /publish makes a new small HTML fragment and wakes every stream through one
threading.Condition. No database, no templates, no session.
"""

import threading
import time

from flask import Flask, Response

app = Flask(__name__)

HEARTBEAT = 15.0
MAX_SECONDS = 600

_changed = threading.Condition()
_seq = 0
_message = ""


@app.get("/stream")
def stream():
    with _changed:
        seen = _seq

    def events():
        last, opened = seen, time.monotonic()
        yield "retry: 1500\n\n"
        while time.monotonic() - opened < MAX_SECONDS:
            with _changed:
                _changed.wait_for(lambda last=last: _seq > last, HEARTBEAT)
                seq, message = _seq, _message
            if seq > last:
                last = seq
                yield f"event: felt\ndata: {message}\n\n"
            else:
                yield ": heartbeat\n\n"

    response = Response(events(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@app.post("/publish")
def publish():
    global _seq, _message
    with _changed:
        _seq += 1
        _message = (
            f'<section id="felt" class="felt" data-n="{_seq}">'
            f'<ul class="bets"><li class="chip">bet {_seq}</li></ul></section>'
        )
        _changed.notify_all()
    return "", 204


@app.get("/healthz")
def healthz():
    return "ok"
