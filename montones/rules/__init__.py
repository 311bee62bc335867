"""The rules of every game a table can play (``games.GAMES``): a pure library (standard
library only).

Nothing here knows of HTTP, sessions or SQL; the web app meets it in ``montones.service``.
"""

from montones.rules.cards import FRENCH, SPANISH, Deck
from montones.rules.errors import RulesError
from montones.rules.scenario import ScenarioError, replay

__all__ = ["FRENCH", "SPANISH", "Deck", "RulesError", "ScenarioError", "replay"]
