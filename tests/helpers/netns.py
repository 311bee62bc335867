"""A guest from the room's network, made on this machine: a network namespace of the test's own,
joined to this one by a veth pair. A server listening on every address sees the guest's
connections come from ``guest`` (not a loopback address, so not exempt from the app's limits),
and this namespace's own from ``here``; a room of several guests has an address for each
(``guests``: a connection bound to one comes from it). Nothing leaves the machine.

Needs root and iproute2 (``ip``); without them a test skips, saying why, except under CI.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass

import pytest


@dataclass
class Room:
    name: str  # the namespace
    here: str  # this namespace's address on the veth pair (the server's)
    guest: str  # the guest's address
    guests: list[str]  # every guest's address (the first is ``guest``)

    def run(self, code: str, *args: str, **kwargs) -> subprocess.Popen:
        """Python ``code`` run as a guest, from inside the namespace."""
        return subprocess.Popen(
            ["ip", "netns", "exec", self.name, sys.executable, "-c", code, *args], **kwargs
        )


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@contextmanager
def room(guests: int = 1):
    if os.geteuid() != 0 or shutil.which("ip") is None:
        reason = "a guest's network namespace needs root and iproute2"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs {reason}")
        pytest.skip(reason)
    tag = secrets.token_hex(3)
    name, here_end, guest_end = f"mt{tag}", f"mth{tag}", f"mtg{tag}"
    octet = 1 + int(tag, 16) % 250  # a /24 of 10.231.0.0/16 per room: rooms may run at once
    subnet = f"10.231.{octet}"
    here, addresses = f"{subnet}.1", [f"{subnet}.{2 + n}" for n in range(guests)]
    _ip("netns", "add", name)
    try:
        _ip("link", "add", here_end, "type", "veth", "peer", "name", guest_end)
        _ip("link", "set", guest_end, "netns", name)
        _ip("addr", "add", f"{here}/24", "dev", here_end)
        _ip("link", "set", here_end, "up")
        for address in addresses:
            _ip("netns", "exec", name, "ip", "addr", "add", f"{address}/24", "dev", guest_end)
        _ip("netns", "exec", name, "ip", "link", "set", guest_end, "up")
        _ip("netns", "exec", name, "ip", "link", "set", "lo", "up")
        yield Room(name, here, addresses[0], addresses)
    finally:
        subprocess.run(["ip", "link", "del", here_end], capture_output=True)
        subprocess.run(["ip", "netns", "del", name], capture_output=True)
