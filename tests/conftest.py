import pytest

from montones import create_app
from montones.config import TestConfig


@pytest.fixture
def app(tmp_path):
    class Config(TestConfig):
        SQLALCHEMY_DATABASE_URI = f"sqlite:///{tmp_path / 'montones.sqlite'}"

    return create_app(Config)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()
