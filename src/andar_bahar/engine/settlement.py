"""Settlement: a finished round, its bets and a paytable → exact payouts.

>>> from andar_bahar.engine.paytables import find_paytable
>>> from andar_bahar.engine.bets import Bet, Wager
>>> wizard = find_paytable("wizard")
>>> s = settle(
...     winner=Row.ANDAR, cards_dealt=7, first_row=Row.ANDAR, paytable=wizard,
...     wagers=[Wager("asha", Bet.parse("andar"), Decimal(120)),
...             Wager("asha", Bet.parse("cards:6-10"), Decimal(100))])
>>> [(str(b.bet), b.outcome.value, b.win, b.returned) for b in s.bets]
[('andar', 'win', Decimal('108'), Decimal('228')), ('cards:6-10', 'win', Decimal('350'), Decimal('450'))]
>>> s.total_win, s.players["asha"].win
(Decimal('458'), Decimal('458'))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction

from andar_bahar.engine.bets import Bet, CentreBet, Wager
from andar_bahar.engine.cards import Card
from andar_bahar.engine.money import as_decimal
from andar_bahar.engine.paytables import Odds, Paytable
from andar_bahar.engine.rules import Row
from andar_bahar.i18n.messages import N_, Translator, translate

__all__ = ["Outcome", "PlayerTotals", "SettledBet", "Settlement", "settle", "settle_centre"]


class Outcome(StrEnum):
    """What happened to one bet."""

    WIN = "win"
    LOSE = "lose"
    VOID = "void"
    """The round was void (the deck ran out with no match): the stake is returned."""

    def localized(self, translator: Translator | None) -> str:
        return translate(_OUTCOME_NAMES[self], translator)


_OUTCOME_NAMES = {
    Outcome.WIN: N_("wins"),
    Outcome.LOSE: N_("loses"),
    Outcome.VOID: N_("void, stake returned"),
}


@dataclass(frozen=True, slots=True)
class SettledBet:
    """One bet after the round: its stake, outcome, win and the amount handed back.

    ``win`` is what the paytable pays (rounded to the chip unit); ``exact_win``
    is stake × odds before rounding; ``returned`` is stake + win for a winning
    bet, the stake for a void one and zero for a losing one.
    """

    player: str
    bet: Bet
    stake: Decimal
    odds: Odds
    outcome: Outcome
    exact_win: Fraction
    win: Decimal
    returned: Decimal

    @property
    def net(self) -> Decimal:
        """The change to the player's balance: returned − stake."""
        return as_decimal(self.returned - self.stake)

    @property
    def rounded(self) -> bool:
        """True when the chip unit could not pay the exact win."""
        return self.outcome is Outcome.WIN and Fraction(self.win) != self.exact_win


@dataclass(frozen=True, slots=True)
class PlayerTotals:
    """One player's totals for the round."""

    player: str
    staked: Decimal
    win: Decimal
    returned: Decimal

    @property
    def net(self) -> Decimal:
        return as_decimal(self.returned - self.staked)


@dataclass(frozen=True, slots=True)
class Settlement:
    """Every bet of a round settled, with totals per player and overall."""

    winner: Row | None
    cards_dealt: int
    bets: tuple[SettledBet, ...]

    @property
    def void(self) -> bool:
        return self.winner is None

    @property
    def players(self) -> Mapping[str, PlayerTotals]:
        """Totals per player, in the order players first bet."""
        totals: dict[str, list[Decimal]] = {}
        for bet in self.bets:
            entry = totals.setdefault(bet.player, [Decimal(0), Decimal(0), Decimal(0)])
            entry[0] += bet.stake
            entry[1] += bet.win
            entry[2] += bet.returned
        return {
            player: PlayerTotals(player, as_decimal(s), as_decimal(w), as_decimal(r))
            for player, (s, w, r) in totals.items()
        }

    @property
    def total_staked(self) -> Decimal:
        return as_decimal(sum((b.stake for b in self.bets), Decimal(0)))

    @property
    def total_win(self) -> Decimal:
        return as_decimal(sum((b.win for b in self.bets), Decimal(0)))

    @property
    def total_returned(self) -> Decimal:
        return as_decimal(sum((b.returned for b in self.bets), Decimal(0)))

    def postings(self) -> tuple[tuple[str, Decimal, str], ...]:
        """The balance changes of the round, player side: every stake out, every return in.

        Each is mirrored by the house with the opposite amount, so a round's ledger sums to
        zero (the club game and the web table both post these).

        >>> from andar_bahar.engine.paytables import find_paytable
        >>> s = settle(winner=Row.BAHAR, cards_dealt=2, first_row=Row.ANDAR,
        ...            paytable=find_paytable("wizard"),
        ...            wagers=[Wager("ravi", Bet.parse("bahar"), Decimal(50))])
        >>> s.postings()
        (('ravi', Decimal('-50'), 'stake bahar'), ('ravi', Decimal('100'), 'win bahar'))
        """
        entries: list[tuple[str, Decimal, str]] = []
        for bet in self.bets:
            entries.append((bet.player, as_decimal(-bet.stake), f"stake {bet.bet}"))
            if bet.returned:
                entries.append((bet.player, bet.returned, f"{bet.outcome.value} {bet.bet}"))
        return tuple(entries)

    @property
    def house_net(self) -> Decimal:
        """What the house gains (negative when it pays out more than it takes)."""
        return as_decimal(self.total_staked - self.total_returned)


def settle(
    *,
    winner: Row | None,
    cards_dealt: int,
    first_row: Row | None,
    paytable: Paytable,
    wagers: Iterable[Wager],
    centre: Card | None = None,
) -> Settlement:
    """Settle *wagers* on a round won by *winner* (``None``: void) with *cards_dealt* cards
    and the centre card *centre* (which decides the bets on it).

    Pure and exact: amounts are :class:`~decimal.Decimal`, odds
    :class:`~fractions.Fraction`; nothing is ever a binary float. A void round returns
    every stake, the bets on the centre card too: the round is called off whole.

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> void = settle(winner=None, cards_dealt=0, first_row=None,
    ...               paytable=find_paytable("wizard"),
    ...               wagers=[Wager("ravi", Bet.parse("bahar"), Decimal(50))])
    >>> void.bets[0].outcome, void.bets[0].returned
    (<Outcome.VOID: 'void'>, Decimal('50'))
    """
    settled: list[SettledBet] = []
    for wager in wagers:
        odds = paytable.odds_for(
            wager.bet, first_row=first_row or Row.ANDAR, cards_dealt=cards_dealt or None
        )
        won = None
        if winner is not None:
            won = wager.bet.wins(winner=winner, cards_dealt=cards_dealt, centre=centre)
        settled.append(_settled(wager, odds, paytable, won))
    return Settlement(winner, cards_dealt, tuple(settled))


def settle_centre(
    *, centre: Card, paytable: Paytable, wagers: Iterable[Wager]
) -> tuple[SettledBet, ...]:
    """The bets on the centre card among *wagers*, settled the moment *centre* is turned
    (the others wait for the deal). A round that ends void returns them after all.

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> paid = settle_centre(centre=Card.parse("Q♥"), paytable=find_paytable("joker"),
    ...     wagers=[Wager("asha", Bet.parse("centre:suit:h"), Decimal(10)),
    ...             Wager("asha", Bet.parse("andar"), Decimal(10)),
    ...             Wager("ravi", Bet.parse("centre:low"), Decimal(10))])
    >>> [(str(b.bet), b.outcome.value, b.win, b.returned) for b in paid]
    [('centre:suit:♥', 'win', Decimal('29'), Decimal('39')), ('centre:low', 'lose', Decimal('0'), Decimal('0'))]
    """
    return tuple(
        _settled(
            wager,
            paytable.odds_for(wager.bet, first_row=None),
            paytable,
            wager.bet.wins_on(centre),
        )
        for wager in wagers
        if isinstance(wager.bet, CentreBet)
    )


def _settled(wager: Wager, odds: Odds, paytable: Paytable, won: bool | None) -> SettledBet:
    """One bet that won, lost or (``None``) was voided, paid at *odds*."""
    stake = as_decimal(wager.stake)
    if won is None:
        outcome, exact, win, returned = Outcome.VOID, Fraction(0), Decimal(0), stake
    elif won:
        exact = paytable.exact_win(stake, odds)
        win = paytable.win(stake, odds)
        outcome, returned = Outcome.WIN, as_decimal(stake + win)
    else:
        outcome, exact, win, returned = Outcome.LOSE, Fraction(0), Decimal(0), Decimal(0)
    return SettledBet(wager.player, wager.bet, stake, odds, outcome, exact, win, returned)
