"""The facts a drill shows before its questions, in the user's language.

The values inside a fact or an explanation (a procedure, a paytable, an exact win)
are put into words only when the drill is shown, in the language of the moment.

>>> from andar_bahar.engine.rules import find_procedure
>>> print(procedure_fact(find_procedure("classic")))  # doctest: +NORMALIZE_WHITESPACE
Procedure: Classic — start: always Andar first; target: the centre card's rank;
bets close at the first dealt card
>>> print(Exact(Fraction(27, 2)).localized(None), Exact(Fraction(1, 3)).localized(None))
13.5 1/3
"""

from __future__ import annotations

import random
from fractions import Fraction

from andar_bahar.engine.bets import Bet, CentreBet
from andar_bahar.engine.cards import Card, Rank
from andar_bahar.engine.money import Amount, to_decimal
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import Procedure
from andar_bahar.games.wording import CLUB, paytable_title
from andar_bahar.i18n.messages import N_, Message, Translator

__all__ = ["Described", "Exact", "TableName", "bets_to_ask", "procedure_fact", "target_fact"]


class Described:
    """A procedure shown in one line, in the user's language."""

    def __init__(self, procedure: Procedure) -> None:
        self.procedure = procedure

    def localized(self, translator: Translator | None) -> str:
        return CLUB.describe(self.procedure, translator)


class TableName:
    """A paytable by its title in the user's language (a club's by its own name)."""

    def __init__(self, paytable: Paytable) -> None:
        self.paytable = paytable

    def localized(self, translator: Translator | None) -> str:
        return paytable_title(self.paytable, translator)


class Exact:
    """An exact win before rounding: a decimal where it has one, else the fraction."""

    def __init__(self, value: Fraction) -> None:
        self.value = value

    def localized(self, translator: Translator | None) -> str:
        try:
            return Amount(to_decimal(self.value)).localized(translator)
        except ValueError:
            return str(self.value)


def procedure_fact(procedure: Procedure) -> Message:
    """The procedure the drill's round was dealt under."""
    return Message(N_("Procedure: {procedure}"), procedure=Described(procedure))


def target_fact(centre: Card | None, target: Rank | None) -> Message:
    """The centre card turned, or the target rank chosen when there is none."""
    if centre is not None:
        return Message(N_("Centre card (joker): {card}"), card=centre)
    assert target is not None  # without a centre card the target is chosen before the deal
    return Message(N_("Target rank, chosen before the deal: {rank}"), rank=target)


def bets_to_ask(rng: random.Random, paytable: Paytable, *, centre: bool) -> list[Bet]:
    """The bets of *paytable* a drill may ask about: the main and side bets, and with
    *centre* one bet on the centre card of each kind the table offers (its suit, colour or
    rank drawn from *rng*), so that they come up as often as a side bet.

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> [str(b) for b in bets_to_ask(random.Random(1), find_paytable("joker"), centre=True)][-6:]
    ['centre:suit:♥', 'centre:colour:red', 'centre:rank:5', 'centre:low', 'centre:seven', 'centre:high']
    """
    bets = [bet for bet in paytable.bets if not isinstance(bet, CentreBet)]
    if centre:
        for pays in paytable.centre:
            kind = [bet for bet in paytable.centre_bets if bet.kind is pays.kind]
            bets.append(rng.choice(kind))
    return bets
