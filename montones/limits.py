"""How fast one device may try things that a guesser would repeat: taking a seat, and naming a
table that is not there.

A room code is four letters (24**4 = 331,776 codes) so that it stays short to type; a rejoin
code is six characters of 32. What keeps a guesser from finding a running table, or taking
someone's seat, is time: each device (its address on the room's network) has an allowance
that refills at a steady pace.

- ``seats``: joining a table or taking a seat back with a rejoin code, 5 at once, then one
  every 10 s.
- ``guesses``: a room code that names no table, 10 at once, then one every 6 s. Once a device
  has used them up, every request of it that names a table waits its turn (429): at 600 codes
  an hour, finding one of 8 running tables takes about 69 hours on average.

The host's own machine (a loopback address: its TV tab, its host page, a browser on the
laptop) is not limited: guests reach the server over the room's network.

Every device's allowance is kept in memory, for the most recent 10,000 devices (each process its
own, with several workers). Times come from the app's clock.
"""

from __future__ import annotations

import ipaddress
import math
import threading
from collections import OrderedDict

from flask import current_app, render_template, request
from flask_babel import ngettext

from montones.clock import clock

DEVICES = 10_000


class Allowance:
    """A bucket per device: ``burst`` tries, refilled by one every ``every`` seconds."""

    def __init__(self, burst: int, every: float, devices: int = DEVICES) -> None:
        self.burst, self.every, self.devices = burst, every, devices
        self._left: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tries left, when
        self._lock = threading.Lock()

    def _now_left(self, device: str, now: float) -> float:
        left, then = self._left.get(device, (float(self.burst), now))
        return min(float(self.burst), left + (now - then) / self.every)

    def wait(self, device: str) -> float:
        """Seconds until ``device`` may try again; 0 if it may now."""
        with self._lock:
            left = self._now_left(device, clock().monotonic())
        return 0.0 if left >= 1 else (1 - left) * self.every

    def take(self, device: str) -> None:
        """One try of ``device``, which had one left."""
        now = clock().monotonic()
        with self._lock:
            left = self._now_left(device, now)
            self._left[device] = (max(left - 1, 0.0), now)
            self._left.move_to_end(device)
            while len(self._left) > self.devices:
                self._left.popitem(last=False)


def device() -> str:
    return request.remote_addr or "-"


def _host_machine(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def missed() -> None:
    """The request named a table that is not there."""
    if not _host_machine(device()):
        current_app.extensions["limits"]["guesses"].take(device())


def _guard():
    """Before a request that names a table, or takes a seat: refuse a device out of tries."""
    limits = current_app.extensions["limits"]
    naming = "code" in (request.view_args or {}) or request.endpoint == "lobby.go"
    seating = request.method == "POST" and request.endpoint in ("play.join", "play.rejoin")
    if not (naming or seating) or _host_machine(device()):
        return None
    wait = limits["guesses"].wait(device()) if naming else 0.0
    if seating:
        wait = max(wait, limits["seats"].wait(device()))
        if wait <= 0:
            limits["seats"].take(device())
    if wait <= 0:
        return None
    seconds = math.ceil(wait)
    message = ngettext(
        "Too many tries from this device: wait %(num)s second and try again.",
        "Too many tries from this device: wait %(num)s seconds and try again.",
        seconds,
    )
    answer = render_template("play/missing.html", message=message)
    return answer, 429, {"Retry-After": str(seconds), "Cache-Control": "no-store"}


def init_app(app) -> None:
    app.extensions["limits"] = {
        "seats": Allowance(burst=5, every=10.0),
        "guesses": Allowance(burst=10, every=6.0),
    }
    app.before_request(_guard)
