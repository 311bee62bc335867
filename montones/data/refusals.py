"""Refusals: what the service says when it changes nothing.

Each keeps an English message template with %-style params, translated only where it is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from montones.rules.errors import Phrase


class ServiceError(ValueError):
    """A refusal, worded for the person who asked. Nothing was changed.

    Like a :class:`RulesError` it keeps an English ``template`` with %-style ``params``, so that
    it is put into the asker's language only where it is shown (:meth:`sentence`); ``str()`` is
    the English sentence.
    """

    status = 422

    def __init__(self, template: str, **params: Any) -> None:
        self.template = template
        self.params = params
        super().__init__(self.sentence())

    def sentence(self, gettext: Callable[..., str] | None = None) -> str:
        """The refusal as a sentence, in the language of ``gettext`` (English without one).

        ``gettext(template, **params)`` is Flask-Babel's; a param that is a :class:`Phrase`
        (words of the rules, "a top-up") is translated too.
        """
        if gettext is None:
            text = self.template % self.params if self.params else self.template
        else:
            params = {
                name: gettext(value) if isinstance(value, Phrase) else value
                for name, value in self.params.items()
            }
            text = gettext(self.template, **params)
        return _sentence(text)


class NotAllowed(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Stale(ServiceError):
    """The screen that sent the request showed an older stage of the table."""

    status = 409


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:] + ("" if message.endswith((".", "!", "?")) else ".")
