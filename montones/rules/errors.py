"""The one error type of the rules engine, and the marker for words a refusal is built from."""


class Phrase(str):
    """English words of the rules that go into a refusal ("a top-up", "bets are closed").

    It is still the English string; marking it lets ``pybabel extract -k Phrase`` find it, and
    whoever shows a refusal translates a phrase passed as one of its params along with it.
    """

    __slots__ = ()


class RulesError(ValueError):
    """An action or input the rules do not allow.

    ``template`` is written for the player in English, with %-style named ``params``
    ("the bank holds %(bank)s: the most you can bet is %(most)s"); ``str(error)`` is that
    English filled in, and whoever shows it can translate the template instead.
    Whatever raised it has left the state unchanged.
    """

    def __init__(self, template: str, **params: object) -> None:
        self.template = template
        self.params = params
        super().__init__(template % params if params else template)
