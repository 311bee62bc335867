import os
import secrets

import pytest

from montones.data.clock import ManualClock
from montones.extensions import db
from tests.helpers.apps import PG_ADMIN, make_app


def pytest_collection_modifyitems(items):
    """The slow tiers marked by their folder, so that the fast loop is
    ``pytest -m "not browser and not live"``; and the longest tests (the random nights, the
    ones that raise their own timeout past pytest's) run first. Under ``--dist worksteal`` a
    worker takes the next test from the front of its queue and the other steals from its back,
    so a night of minutes left at the back is run last, by one worker, the other idle."""
    for item in items:
        folder = item.path.parent.name
        if folder in ("browser", "live"):
            item.add_marker(folder)
    if items:
        limit = float(items[0].config.getini("timeout") or 0)
        items.sort(key=lambda item: not _longer_than(item, limit))  # stable: the rest as they were


def _longer_than(item, limit: float) -> bool:
    marker = item.get_closest_marker("timeout")
    return marker is not None and bool(marker.args) and marker.args[0] > limit


@pytest.fixture(scope="module")
def database_url(tmp_path_factory):
    """The database of a module's app: a SQLite file of its own (tests/service/ runs each of
    its modules on PostgreSQL too)."""
    return f"sqlite:///{tmp_path_factory.mktemp('db') / 'montones.sqlite'}"


@pytest.fixture(scope="module")
def app(request, database_url):
    """One app per test module (and database): each test makes its own tables. A module sets
    what it needs of the configuration in its ``APP_CONFIG`` (a dict of the settings of
    :class:`montones.config.TestConfig` it changes)."""
    app = make_app(database_url, **getattr(request.module, "APP_CONFIG", {}))
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def clock(app):
    """The app's clock, standing still until the test moves it on (``clock.advance``), for
    this test only."""
    kept = app.extensions["clock"]
    app.extensions["clock"] = manual = ManualClock()
    yield manual
    app.extensions["clock"] = kept


@pytest.fixture(autouse=True)
def timed_alone(request, tmp_path_factory, worker_id):
    """A test marked ``timed`` (it times itself by the wall clock, or floods the server) never
    runs beside another: under xdist it takes a lock in the processes' shared temporary folder
    before its function-scoped fixtures (the server it starts), and holds it until they are torn
    down. Beside the hostile floods, the one-second browser test once saw every screen 6 s late."""
    if worker_id == "master" or request.node.get_closest_marker("timed") is None:
        yield
        return
    import fcntl  # POSIX only: here, so that the tests that take no lock run on Windows too

    with open(tmp_path_factory.getbasetemp().parent / "timed.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released as the file closes, after the teardown
        yield


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


# PostgreSQL for the tests of the scale-out path. Outside CI, with no server, those tests skip
# and say why; under CI (``CI=true``) they fail instead.


@pytest.fixture(scope="session")
def postgres_url():
    try:
        import psycopg

        admin = psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=3)
    except Exception as error:  # no driver or no server
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs PostgreSQL at {PG_ADMIN}: {error}")
        pytest.skip(f"no PostgreSQL at {PG_ADMIN} ({error.__class__.__name__}): SQLite only")
    name = f"montones_test_{secrets.token_hex(4)}"
    admin.execute(f'CREATE DATABASE "{name}"')
    yield PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    admin.close()
