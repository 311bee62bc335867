"""The one error type of the rules engine."""


class RulesError(ValueError):
    """An action or input the rules do not allow.

    The message is written for the player ("the bank holds 20: a bet of 25 is over it").
    Whatever raised it has left the state unchanged.
    """
