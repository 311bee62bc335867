"""Start the real server (``montones serve``: gunicorn, gthread) on loopback for a test."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(folder: Path, port: int, **env_extra) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{folder / 'montones.sqlite'}",
        "SECRET_KEY": "live-tests",
        **env_extra,
    }
    log = open(folder / "server.log", "ab")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "montones",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--public-url",
            f"http://127.0.0.1:{port}/",
        ],
        env=env,
        stdout=log,
        stderr=log,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"the server did not start: {(folder / 'server.log').read_text()[-2000:]}")


def stop_server(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)
