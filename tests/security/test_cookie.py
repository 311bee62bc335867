"""The session cookie crosses the room's Wi-Fi in plain HTTP, readable by anyone on it (it is
signed, not hidden): it holds no seat token and no host secret, only an opaque id of the
browser's, under which the server keeps them in its database (issue 38, item 8)."""

from __future__ import annotations

import base64
import json
import zlib

from tests.helpers.nights import Night, fresh_token
from tests.helpers.security import kept_secret, make_app


def sniffed(client) -> str:
    """The session cookie as a sniffer reads it: its payload base64-decoded (and inflated,
    when Flask compressed it), no key needed."""
    value = client.get_cookie("session").value
    compressed = value.startswith(".")
    payload = value.lstrip(".").split(".")[0]
    data = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    return (zlib.decompress(data) if compressed else data).decode()


def test_the_cookie_holds_no_secret_and_the_host_keeps_its_powers_after_a_restart(tmp_path):
    app = make_app(tmp_path)
    night = Night(app, "Ana", "Ben")
    code = night.code
    secret = kept_secret(app, night.host, code, "hosts")
    token = kept_secret(app, night.clients["Ana"], code, "seats")
    read_host, read_ana = sniffed(night.host), sniffed(night.clients["Ana"])
    assert secret not in read_host and token not in read_ana
    # What it holds: an opaque id, a CSRF token; a seat's cookie says which seat it took.
    assert set(json.loads(read_host)) <= {"device", "csrf", "show_host_link", "_permanent"}
    assert set(json.loads(read_ana)) <= {"device", "csrf", "seat_ids", "_permanent"}
    assert kept_secret(app, night.host, code, "hosts") != json.loads(read_host)["device"]

    # The server stops and starts again on the same database and key: the host still hosts,
    # and a player still plays, with the cookies their browsers kept.
    again = make_app(tmp_path)
    host, ana = again.test_client(), again.test_client()
    host.set_cookie("session", night.host.get_cookie("session").value)
    ana.set_cookie("session", night.clients["Ana"].get_cookie("session").value)
    assert host.get(f"/t/{code}/host").status_code == 200
    answer = host.post(
        f"/t/{code}/host/pause", data={"csrf_token": fresh_token(host), "confirm": "yes"}
    )
    assert answer.status_code == 303
    assert 'data-seat="p1"' in ana.get(f"/t/{code}").get_data(as_text=True)
    with again.app_context():
        from montones import service

        assert service.get_table(code).paused
    # A browser without the id has neither: the same pages are refused.
    stranger = again.test_client()
    assert stranger.get(f"/t/{code}/host").status_code == 403
    assert stranger.get(f"/t/{code}").location == f"/t/{code}/join"
