"""A real server (``montones serve``) and Debian's Chromium driven by Playwright.

The server is gunicorn (``MONTONES_TEST_SERVER`` says otherwise); a test parametrized with
``@pytest.mark.parametrize("server", SERVERS, indirect=True)`` runs on each server.

Without Chromium these tests skip, saying why; under CI (``CI=true``) they fail instead, so a
browser test never silently goes missing there.
"""

import os
import shutil

import pytest

from tests.helpers.liveserver import free_port, start_server, stop_server

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


@pytest.fixture
def server(request, tmp_path):
    port = free_port()
    process = start_server(tmp_path, port, server=getattr(request, "param", None))
    yield f"http://127.0.0.1:{port}", process, tmp_path, port
    stop_server(process)


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
