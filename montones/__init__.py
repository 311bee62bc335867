"""Montones: a local night of old banking card games (``montones.rules.games`` names them), for
chips only."""


def create_app(test_config=None):
    """Build the Flask app (see :mod:`montones.factory`).

    Flask and SQLAlchemy are imported only here, inside the function: importing any subpackage runs
    this module, and the rules engine (``montones.rules``) and ``montones replay`` must load without
    the web stack.
    """
    from montones.factory import create_app as _create_app

    return _create_app(test_config)
