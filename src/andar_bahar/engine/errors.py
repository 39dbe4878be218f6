"""The project's errors: one root, split by the question a user interface must answer.

Every error is a :class:`ValueError` whose text is one sentence saying what was
wrong, where, and how to fix it. The text is a :class:`~andar_bahar.i18n.messages.Message`
so that an adapter can show it in the user's language.

>>> from andar_bahar.engine.cards import Card
>>> try:
...     Card.parse("Z♥")
... except CardError as error:
...     print(error)
Unknown card 'Z♥': write a rank (2–10, J, Q, K, A) and a suit (♠ ♥ ♦ ♣ or S H D C), e.g. Q♥ or 10d.
>>> issubclass(CardError, ValueError)
True
"""

from __future__ import annotations

from andar_bahar.i18n.messages import Message, Translator

__all__ = [
    "AccessError",
    "ActionError",
    "AndarBaharError",
    "BetError",
    "CardError",
    "DeckError",
    "ParameterError",
    "PaytableError",
    "ProcedureError",
    "RulesError",
]


class AndarBaharError(ValueError):
    """The root of the project's errors. ``str(error)`` is the English sentence."""

    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(str(message))

    def localized(self, translator: Translator | None) -> str:
        """The sentence in the language of *translator*."""
        return self.message.localized(translator)


class CardError(AndarBaharError):
    """Card text that names no card."""


class DeckError(AndarBaharError):
    """A deck with missing or repeated cards, or a card seen twice in a round."""


class ActionError(AndarBaharError):
    """A step of the round that is not allowed now (dealing before the centre card …)."""


class BetError(AndarBaharError):
    """A bet that is refused: unknown bet, bad stake, over the balance, outside the window."""


class RulesError(AndarBaharError):
    """A procedure or paytable (preset name or club file) that is not valid."""


class ProcedureError(RulesError):
    """A procedure that is not valid: unknown name, impossible combination, bad file."""


class PaytableError(RulesError):
    """A paytable that is not valid: unknown name, bad odds, overlapping bands, bad file."""


class ParameterError(AndarBaharError):
    """A setting out of range: ``--rounds 0``, ``--jobs -1``, a bankroll of nothing."""


class AccessError(AndarBaharError):
    """Someone who may not do it: a player dealing, a wrong PIN."""
