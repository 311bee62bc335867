"""Configuration classes, read from environment variables with defaults.

``SECRET_KEY`` and ``SQLALCHEMY_DATABASE_URI`` may be left unset: the factory then keeps both in the
instance folder, which only it knows.
"""

import os

from montones.rules.computer import PATIENCE
from montones.serving import CONNECTIONS, SCREEN_CONNECTIONS


def database_uri(url: str | None) -> str | None:
    """``DATABASE_URL`` as SQLAlchemy wants it: PostgreSQL through psycopg 3."""
    if url and url.startswith(("postgres://", "postgresql://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


class Config:
    SECRET_KEY = os.environ.get("SECRET_KEY")
    SQLALCHEMY_DATABASE_URI = database_uri(os.environ.get("DATABASE_URL"))
    SQLALCHEMY_ENGINE_OPTIONS = {"pool_pre_ping": True}
    BABEL_DEFAULT_LOCALE = os.environ.get("BABEL_DEFAULT_LOCALE", "en")
    LANGUAGES = ["es", "en", "de", "ru"]
    # The session cookie is signed and sent again only when it changes (a seat taken, a language
    # chosen), not on every answer: a night is hours, the cookie lasts 31 days from its last change.
    SESSION_REFRESH_EACH_REQUEST = False
    # The address phones join at (``montones serve`` sets it); by default the one the request used.
    PUBLIC_URL = os.environ.get("MONTONES_PUBLIC_URL")
    # How many seats, and how many codes that name no table, one device may try in a window;
    # montones/web/limits.py says why these, and why moving windows.
    SEATS_LIMIT = "5 per 50 seconds"
    GUESSES_LIMIT = "10 per 60 seconds"
    TABLES_LIMIT = "10 per 600 seconds"
    # A seat's actions: a burst of four, about one a second over a minute (montones/web/limits.py).
    # Scripted players (the tests) tap faster than a person: MONTONES_ACTIONS_LIMIT says theirs.
    ACTIONS_LIMIT = os.environ.get("MONTONES_ACTIONS_LIMIT", "4 per 2 seconds; 60 per minute")
    # Seconds a computer banker waits for a table of people to bet, and to see a hand's result
    # (montones/rules/computer.py). The tests' scripted players need less than a person:
    # MONTONES_COMPUTER_PATIENCE says theirs.
    COMPUTER_PATIENCE = float(os.environ.get("MONTONES_COMPUTER_PATIENCE", PATIENCE))
    # Seconds a computer player waits at least after the table last moved before it acts, and
    # at most twice that, at random: never at once, as a person takes a moment to see what
    # changed. MONTONES_COMPUTER_PACE says the tests' (their scripts read faster).
    COMPUTER_PACE = float(os.environ.get("MONTONES_COMPUTER_PACE", 1.0))
    # A seat's reactions: what a person sends, never a flood over the TV (web/limits.py).
    REACTIONS_LIMIT = "3 per 2 seconds; 30 per minute"
    RATELIMIT_STRATEGY = "moving-window"
    RATELIMIT_STORAGE_URI = "memory://"
    # Live streams a process holds at once, half its connections (montones/web/limits.py);
    # ``montones serve`` sets it from the connections the open-file limit leaves.
    STREAMS_MOST = CONNECTIONS // SCREEN_CONNECTIONS


class TestConfig(Config):
    TESTING = True
    SECRET_KEY = "test-secret-key"
    ACTIONS_LIMIT = "1000 per second"  # a script's pace (tests/security/test_limits.py: a person's)
    REACTIONS_LIMIT = "1000 per second"  # (tests/security/test_seat_pace.py: a person's)
    SQLALCHEMY_DATABASE_URI = "sqlite://"
