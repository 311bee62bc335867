import os
import secrets

import pytest

from montones import create_app
from montones.config import TestConfig
from montones.data.clock import ManualClock


def pytest_collection_modifyitems(items):
    """The slow tiers marked by their folder, so that the fast loop is
    ``pytest -m "not browser and not live"``."""
    for item in items:
        folder = item.path.parent.name
        if folder in ("browser", "live"):
            item.add_marker(folder)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """One app per test module, on its own SQLite file: each test makes its own tables."""

    class Config(TestConfig):
        SQLALCHEMY_DATABASE_URI = f"sqlite:///{tmp_path_factory.mktemp('db') / 'montones.sqlite'}"

    return create_app(Config)


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
PG_ADMIN = os.environ.get("MONTONES_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


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
