"""Configuration classes, read from environment variables with defaults.

``SECRET_KEY`` and ``SQLALCHEMY_DATABASE_URI`` may be left unset: the factory then keeps both in the
instance folder, which only it knows.
"""

import os


class Config:
    SECRET_KEY = os.environ.get("SECRET_KEY")
    SQLALCHEMY_DATABASE_URI = os.environ.get("DATABASE_URL")
    BABEL_DEFAULT_LOCALE = os.environ.get("BABEL_DEFAULT_LOCALE", "en")
    LANGUAGES = ["es", "en"]
    # The address phones join at (``montones serve`` sets it); by default the one the request used.
    PUBLIC_URL = os.environ.get("MONTONES_PUBLIC_URL")


class TestConfig(Config):
    TESTING = True
    SECRET_KEY = "test-secret-key"
    SQLALCHEMY_DATABASE_URI = "sqlite://"
