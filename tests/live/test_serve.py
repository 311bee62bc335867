"""`montones serve` as the host runs it: the address it prints, its QR code, its defaults."""

import io
import ipaddress
import os
import re
import subprocess
import sys
import time

import httpx
import pytest
import segno
from flask import Flask

from montones import create_app
from montones.cli import main
from tests.helpers.liveserver import SERVERS, free_port, start_server, stop_server


def serve(tmp_path, port: int, env: dict):
    """``montones serve`` on ``port`` with ``env``, as a host starts it (no other flag); its
    output goes to the log it returns."""
    log = open(tmp_path / "serve.log", "w+b")
    process = subprocess.Popen(
        [sys.executable, "-m", "montones", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    process.port = port
    return log, process


def test_serve_prints_the_join_url_and_its_qr_code_and_answers_there(tmp_path):
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'm.sqlite'}", "SECRET_KEY": "x"}
    env.pop("MONTONES_PUBLIC_URL", None)
    log, process = serve(tmp_path, port, env)
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        printed = (tmp_path / "serve.log").read_text(errors="replace")
        assert f"Join from a phone on the same network: {url}" in printed
        # The QR code under it is the one that encodes that address.
        drawn = io.StringIO()
        segno.make(url).terminal(out=drawn, compact=True)
        assert drawn.getvalue().strip() in printed, printed[:2000]
        assert httpx.get(url, timeout=5).status_code == 200
    finally:
        stop_server(process)
        log.close()


def test_serve_listens_on_every_interface_at_port_8000_by_default(capsys):
    try:
        main(["serve", "--help"])
    except SystemExit as done:
        assert done.code == 0
    out = capsys.readouterr().out
    assert re.search(r"--host HOST\s+address to bind \(default: 0\.0\.0\.0\)", out), out
    assert re.search(r"--port PORT\s+port to bind \(default: 8000\)", out), out


def test_the_lan_address_is_an_ipv4_address_of_this_machine():
    from montones.cli import _lan_ip

    address = ipaddress.IPv4Address(_lan_ip())
    assert not address.is_unspecified and not address.is_multicast


def test_with_nothing_set_the_database_and_the_secret_key_live_in_the_instance_folder(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(Flask, "auto_find_instance_path", lambda self: str(tmp_path))
    settings = {"SECRET_KEY": None, "SQLALCHEMY_DATABASE_URI": None}
    app = create_app(settings)
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'montones.sqlite'}"
    key = (tmp_path / "secret_key").read_text().strip()
    assert app.config["SECRET_KEY"] == key and len(key) == 64
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "montones.sqlite").exists()
    # Started again (the host's laptop restarted), it keeps the same key: sessions survive.
    assert create_app(settings).config["SECRET_KEY"] == key


@pytest.mark.timed
@pytest.mark.parametrize("server_name", SERVERS)
def test_sigterm_ends_every_stream_cleanly_at_once_and_stops_the_server(tmp_path, server_name):
    """At SIGTERM the streams end at once, each with its last chunk (the browser sees the
    stream end, not a broken connection), and the server stops in under 3 s."""
    import signal
    import threading

    from tests.helpers.liveserver import create_table, start_server

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port, server=server_name)
    ends, opened = [], threading.Barrier(6)
    try:
        code, _host = create_table(base)

        def listen():
            timeout = httpx.Timeout(10, read=None)
            with httpx.Client(timeout=timeout) as client:
                # A TV's stream that has seen no version is sent the table's at once, once its
                # screen is open on the server (web/stream.py: after live.open): from its
                # first event on, SIGTERM has it to end.
                with client.stream("GET", f"{base}/t/{code}/stream?screen=tv") as response:
                    lines = response.iter_lines()
                    assert any(line.startswith("event: ") for line in lines)
                    opened.wait(10)
                    try:
                        for _line in lines:
                            pass
                        ends.append(("clean", time.monotonic()))
                    except httpx.HTTPError as error:
                        ends.append((type(error).__name__, time.monotonic()))

        listeners = [threading.Thread(target=listen, daemon=True) for _ in range(5)]
        for listener in listeners:
            listener.start()
        opened.wait(10)
        sent = time.monotonic()
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)
        stopped = time.monotonic() - sent
        for listener in listeners:
            listener.join(5)
    finally:
        stop_server(server)
    assert [how for how, _at in ends] == ["clean"] * 5
    assert max(at for _how, at in ends) - sent < 1.0
    assert stopped < 3.0, stopped


def test_serve_runs_the_portable_server_where_gunicorn_cannot_be_imported(tmp_path):
    """As on Windows, where gunicorn installs but does not import (it needs fcntl): without
    gunicorn and without the POSIX-only modules, `montones serve` serves the night, streams
    and all."""
    windows_like = tmp_path / "windows_like"
    windows_like.mkdir()
    (windows_like / "sitecustomize.py").write_text(
        "import sys\n"
        "for name in ('gunicorn', 'fcntl', 'resource', 'pwd', 'grp', 'termios'):\n"
        "    sys.modules[name] = None  # importing it raises ImportError\n"
    )
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'm.sqlite'}",
        "SECRET_KEY": "x",
        "PYTHONPATH": os.pathsep.join(
            [str(windows_like), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
    }
    log, process = serve(tmp_path, port, env)
    try:
        url = f"http://127.0.0.1:{port}/"
        answered = None
        deadline = time.monotonic() + 30
        while answered is None and time.monotonic() < deadline:
            try:
                answered = httpx.get(url + "healthz", timeout=2)
            except httpx.HTTPError:
                time.sleep(0.2)
        printed = (tmp_path / "serve.log").read_text(errors="replace")
        assert answered is not None and answered.status_code == 200, printed[-2000:]
        assert "Serving with portable" in printed
        assert "gunicorn" not in printed.replace("Serving with portable", "")
        from tests.helpers.liveserver import create_table

        code, _host = create_table(url.rstrip("/"))
        timeout = httpx.Timeout(10, read=5)
        with httpx.stream("GET", f"{url}t/{code}/stream?screen=tv", timeout=timeout) as live:
            assert live.status_code == 200
            lines = live.iter_lines()
            assert any(line == "event: update" for line, _ in zip(lines, range(50), strict=False))
    finally:
        stop_server(process)
        log.close()


def test_the_served_app_refuses_a_process_gevent_has_not_patched():
    from montones import serving

    with pytest.raises(RuntimeError, match="gevent has not patched"):
        serving.app_to_serve()  # this test process is not patched


def python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_gevent_patches_first_or_serving_stops():
    """A lock made before the patch stays a real lock, which deadlocks greenlets: patch()
    refuses to come after the web stack."""
    late = python("import flask\nfrom montones import serving\nserving.patch()")
    assert late.returncode != 0
    assert "imported before gevent could patch: ['flask']" in late.stderr
    started = python(
        "import threading, time\nthreading.Thread(target=time.sleep, args=(5,)).start()\n"
        "from montones import serving\nserving.patch()"
    )
    assert "imported before gevent could patch: ['a thread']" in started.stderr


def test_patched_first_the_process_serves_with_cooperative_threads_and_psycopg_waits():
    patched = python(
        "import threading\n"  # as a site's .pth may: no thread started, so no harm
        "from montones import serving\n"
        "serving.patch()\n"
        "import threading, psycopg.waiting as waiting\n"
        "serving.check_patched()\n"
        "assert waiting.wait is not waiting.wait_c, waiting.wait\n"
        "import gevent.thread\n"
        "assert threading.Lock is gevent.thread.allocate_lock\n"
        "print('ok')"
    )
    assert patched.stdout.strip() == "ok", patched.stderr


def test_serve_keeps_the_night_in_the_instance_folder_it_is_given(tmp_path):
    port = free_port()
    env = {**os.environ}
    for name in ("DATABASE_URL", "SECRET_KEY", "MONTONES_INSTANCE"):
        env.pop(name, None)
    night = tmp_path / "friday"
    log = open(tmp_path / "serve.log", "w+b")
    process = subprocess.Popen(
        [sys.executable, "-m", "montones", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--server", "portable", "--instance", str(night)],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    process.port = port
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        assert (night / "montones.sqlite").exists() and (night / "secret_key").exists()
    finally:
        stop_server(process)
        log.close()


@pytest.mark.skipif(sys.platform == "win32", reason="gunicorn does not run on Windows")
def test_gunicorn_opens_no_control_socket_in_the_users_home(tmp_path):
    """gunicorn 27 would open one control socket per user (~/.gunicorn/gunicorn.ctl): a second
    night on the machine, or its end, would take it from the first. It is turned off."""
    home = tmp_path / "home"
    home.mkdir()
    process = start_server(tmp_path, free_port(), server="gunicorn", HOME=str(home))
    try:
        assert not (home / ".gunicorn").exists(), list(home.rglob("*"))
    finally:
        stop_server(process)
