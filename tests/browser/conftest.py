"""A real server (``montones serve``) and Debian's Chromium driven by Playwright.

The server is gunicorn (``MONTONES_TEST_SERVER`` says otherwise); a test parametrized with
``@pytest.mark.parametrize("server", SERVERS, indirect=True)`` runs on each server.

Without Chromium these tests skip, saying why; under CI (``CI=true``) they fail instead, so a
browser test never silently goes missing there.

Every page a test opens is watched: a console error or an uncaught exception on any of them
fails the test (``chromium`` hands out contexts that report them, and closes them after).
"""

import os
import re
import shutil

import pytest

from tests.helpers.liveserver import free_port, kill_server, start_server

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

# What Chromium logs as an error but is the app working as meant: a refused or stale action is
# answered 409/422 with the refusal to show (htmx swaps it like any other answer).
EXPECTED = (
    re.compile(r"Failed to load resource: the server responded with a status of (409|422) "),
)


@pytest.fixture(scope="module")
def server(request, tmp_path_factory):
    """One server a module (and server kind): its tests share it as a night's tables share one,
    each making tables of its own, none touching the process. Starting one took 2.4 to 3.3 s.
    A module sets what its server's environment changes in its ``SERVER_ENV``."""
    folder = tmp_path_factory.mktemp("server")
    port = free_port()
    env = getattr(request.module, "SERVER_ENV", {})
    process = start_server(folder, port, server=getattr(request, "param", None), **env)
    yield f"http://127.0.0.1:{port}", process, folder, port
    # Pulled, not stopped: the tests are over, and gunicorn's graceful stop waits out the pages'
    # kept-alive connections (about 1.4 s; tests/live checks the graceful stop).
    kill_server(process)


@pytest.fixture(scope="session")
def browser_session():
    if not shutil.which(CHROMIUM):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs Chromium at {CHROMIUM} for the browser tests")
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install -y chromium to run browser tests")
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
                "--autoplay-policy=no-user-gesture-required",
            ],
        )
        yield browser
        browser.close()


class WatchedBrowser:
    """The session's browser, whose every new context reports console errors and page errors."""

    def __init__(self, browser):
        self._browser = browser
        self.contexts = []
        self.errors = []
        self.watching = True  # until the test's body ends: its server then stops under the pages
        self.cut_off = []  # pages a test cuts off on purpose: their failed loads are expected

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        self.contexts.append(context)
        context.on("console", self._console)
        context.on("weberror", lambda e: self._error(f"uncaught: {e.error}"))
        return context

    def cut_off_page(self, page):
        """A page whose stream the test blocks: its failed loads are what the test wants."""
        self.cut_off.append(page)

    def _console(self, message):
        if message.type == "error" and message.page not in self.cut_off:
            page = message.page.url if message.page else "?"
            self._error(f"{page}: {message.text} ({message.location.get('url')})")

    def _error(self, text):
        if self.watching and not any(known.search(text) for known in EXPECTED):
            self.errors.append(text)

    def close(self):
        for context in self.contexts:
            context.close()
        self.contexts = []

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield
    watched = item.funcargs.get("chromium")
    if isinstance(watched, WatchedBrowser):
        watched.watching = False
        watched.close()  # before the server stops: no stream left open for it to wait on


@pytest.fixture
def chromium(browser_session):
    watched = WatchedBrowser(browser_session)
    yield watched
    watched.close()
    assert not watched.errors, "console errors:\n" + "\n".join(watched.errors)
