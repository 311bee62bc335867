"""A guest from the room's network, made on this machine: a network namespace of the test's own,
joined to this one by a veth pair. A server listening on every address sees the guest's
connections come from ``guest`` (not a loopback address, so not exempt from the app's limits),
and this namespace's own from ``here``. Nothing leaves the machine.

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

    def run(self, code: str, *args: str, **kwargs) -> subprocess.Popen:
        """Python ``code`` run as a guest, from inside the namespace."""
        return subprocess.Popen(
            ["ip", "netns", "exec", self.name, sys.executable, "-c", code, *args], **kwargs
        )


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@contextmanager
def room():
    if os.geteuid() != 0 or shutil.which("ip") is None:
        reason = "a guest's network namespace needs root and iproute2"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs {reason}")
        pytest.skip(reason)
    tag = secrets.token_hex(3)
    name, here_end, guest_end = f"mt{tag}", f"mth{tag}", f"mtg{tag}"
    octet = 1 + int(tag, 16) % 250  # a /30 of 10.231.0.0/16 per room: rooms may run at once
    subnet = f"10.231.{octet}"
    here, guest = f"{subnet}.1", f"{subnet}.2"
    _ip("netns", "add", name)
    try:
        _ip("link", "add", here_end, "type", "veth", "peer", "name", guest_end)
        _ip("link", "set", guest_end, "netns", name)
        _ip("addr", "add", f"{here}/30", "dev", here_end)
        _ip("link", "set", here_end, "up")
        _ip("netns", "exec", name, "ip", "addr", "add", f"{guest}/30", "dev", guest_end)
        _ip("netns", "exec", name, "ip", "link", "set", guest_end, "up")
        _ip("netns", "exec", name, "ip", "link", "set", "lo", "up")
        yield Room(name, here, guest)
    finally:
        subprocess.run(["ip", "link", "del", here_end], capture_output=True)
        subprocess.run(["ip", "netns", "del", name], capture_output=True)
