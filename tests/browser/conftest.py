"""A real server (``montones serve``: gunicorn) and Debian's Chromium driven by Playwright.

Without Chromium these tests skip, saying why; under CI (``CI=true``) they fail instead, so a
browser test never silently goes missing there.
"""

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SCREENS = Path(__file__).resolve().parents[2] / "test-results" / "screens"
PHONE = {"width": 390, "height": 844}
TV = {"width": 1920, "height": 1080}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(folder: Path, port: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{folder / 'montones.sqlite'}",
        "SECRET_KEY": "browser-tests",
    }
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
        stdout=subprocess.DEVNULL,
        stderr=open(folder / "server.log", "ab"),
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"the server did not start: {(folder / 'server.log').read_text()[-2000:]}")


@pytest.fixture
def server(tmp_path):
    port = _free_port()
    process = start_server(tmp_path, port)
    yield f"http://127.0.0.1:{port}", process, tmp_path, port
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="session")
def chromium():
    if not shutil.which(CHROMIUM):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs Chromium at {CHROMIUM} for the browser tests")
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium to run browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


def screenshot(page, name: str) -> Path:
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
