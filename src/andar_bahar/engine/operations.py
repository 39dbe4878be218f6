"""The records of a round: every step is a frozen value appended to the round's log.

:class:`~andar_bahar.engine.round.Round` returns one of these from each step; a
round's log of them replays it exactly (:mod:`andar_bahar.engine.round_records`).

>>> from decimal import Decimal
>>> from andar_bahar.engine.bets import Bet
>>> log = [BetPlaced("asha", Bet.parse("andar"), Decimal(100), Decimal(100)),
...        BetPlaced("asha", Bet.parse("andar"), Decimal(50), Decimal(150))]
>>> [str(added.message()) for added in added_together(log)]
['asha: the bets on Andar were added together: 100 + 50 = 150.']
>>> str(added_together(log)[0].message(with_player=False))
'The bets on Andar were added together: 100 + 50 = 150.'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeAlias, TypeVar

from andar_bahar.engine.bets import Bet
from andar_bahar.engine.cards import Card, Rank
from andar_bahar.engine.money import Amount, as_decimal, format_amount
from andar_bahar.engine.rules import Procedure, Row
from andar_bahar.engine.settlement import SettledBet, Settlement
from andar_bahar.i18n.messages import N_, Message, Translator, render

__all__ = [
    "AddedBets",
    "BetChanged",
    "BetPlaced",
    "BetWithdrawn",
    "BetsClosed",
    "CardDealt",
    "CentreTurned",
    "MarkerPlaced",
    "Operation",
    "OperationT",
    "RoundResult",
    "RoundSettled",
    "RoundVoided",
    "TargetChosen",
    "added_together",
    "operation_to_dict",
    "settlement_to_list",
]


@dataclass(frozen=True, slots=True)
class BetPlaced:
    """A player put chips on a spot: *stake* added now, *total* on that spot after it.

    A first bet on a spot has ``stake == total``; betting the same spot again adds
    to it (``total`` is the sum). Rounds recorded before repeated bets added up
    replayed a repeated bet as a replacement; :meth:`Round.loads` still does.
    """

    player: str
    bet: Bet
    stake: Decimal
    total: Decimal

    @property
    def added(self) -> bool:
        """True when the bet was added to a stake already on the spot."""
        return self.total != self.stake


@dataclass(frozen=True, slots=True)
class BetChanged:
    """A player set the stake on a spot already held to a new amount (*previous* before)."""

    player: str
    bet: Bet
    stake: Decimal
    previous: Decimal


@dataclass(frozen=True, slots=True)
class BetWithdrawn:
    """A player took a bet back before the window closed."""

    player: str
    bet: Bet


@dataclass(frozen=True, slots=True)
class MarkerPlaced:
    """A learner put a marker on a row (the teaching game: no stake)."""

    player: str
    row: Row


@dataclass(frozen=True, slots=True)
class BetsClosed:
    """The dealer closed the bets."""


@dataclass(frozen=True, slots=True)
class TargetChosen:
    """The target rank chosen in advance (target mode ``chosen-rank``)."""

    rank: Rank


@dataclass(frozen=True, slots=True)
class CentreTurned:
    """The centre card was turned, and the bets on it settled that moment (*bets*: what
    each won or lost; they are paid with the round's settlement, or returned if it is void)."""

    card: Card
    bets: tuple[SettledBet, ...] = ()


@dataclass(frozen=True, slots=True)
class CardDealt:
    """A card was dealt to a row; ``number`` counts from 1, the centre not counted."""

    number: int
    card: Card
    row: Row
    matched: bool


@dataclass(frozen=True, slots=True)
class RoundVoided:
    """The round was called off: a real deck ran out with no match, or a misdeal."""

    cards_seen: int
    reason: str = ""
    """Why, in the dealer's words ("deck exhausted", "misdeal" …); empty in old records."""


@dataclass(frozen=True, slots=True)
class RoundSettled:
    """The bets were settled."""

    settlement: Settlement


Operation: TypeAlias = (
    BetPlaced
    | BetChanged
    | BetWithdrawn
    | MarkerPlaced
    | BetsClosed
    | TargetChosen
    | CentreTurned
    | CardDealt
    | RoundVoided
    | RoundSettled
)

OperationT = TypeVar(
    "OperationT",
    BetPlaced,
    BetChanged,
    BetWithdrawn,
    MarkerPlaced,
    BetsClosed,
    TargetChosen,
    CentreTurned,
    CardDealt,
    RoundVoided,
    RoundSettled,
)
"""Any one kind of record (a step returns the record it logged)."""


@dataclass(frozen=True, slots=True)
class RoundResult:
    """What a finished (or void) round shows: the report after every round."""

    procedure: Procedure
    target: Rank
    centre: Card | None
    dealt: tuple[CardDealt, ...]
    first_row: Row | None
    winner: Row | None

    @property
    def void(self) -> bool:
        return self.winner is None

    @property
    def andar(self) -> tuple[Card, ...]:
        return tuple(d.card for d in self.dealt if d.row is Row.ANDAR)

    @property
    def bahar(self) -> tuple[Card, ...]:
        return tuple(d.card for d in self.dealt if d.row is Row.BAHAR)

    @property
    def matching(self) -> Card | None:
        return self.dealt[-1].card if self.dealt and self.dealt[-1].matched else None

    @property
    def cards_dealt(self) -> int:
        """Cards in both rows, the matching card included, the centre card not."""
        return len(self.dealt)

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data (the ``deal --format json`` contract)."""
        data: dict[str, Any] = {"procedure": self.procedure.name}
        if self.centre is not None:
            data["centre"] = str(self.centre)
        data["target"] = self.target.value
        data["andar"] = [str(c) for c in self.andar]
        data["bahar"] = [str(c) for c in self.bahar]
        data["dealt"] = [str(d.card) for d in self.dealt]
        data["first_side"] = self.first_row.value if self.first_row else None
        data["matching"] = str(self.matching) if self.matching else None
        data["winner"] = self.winner.value if self.winner else "void"
        data["cards_dealt"] = self.cards_dealt
        data["rules"] = self.procedure.to_dict()
        return data


@dataclass(frozen=True, slots=True)
class AddedBets:
    """The stakes one player put on one spot in several goes, and what they add up to."""

    player: str
    bet: Bet
    stakes: tuple[Decimal, ...]

    @property
    def total(self) -> Decimal:
        return as_decimal(sum(self.stakes, Decimal(0)))

    def message(
        self, *, with_player: bool = True, written: Callable[[Decimal], object] = Amount
    ) -> Message:
        """``asha: the bets on Andar were added together: 100 + 50 = 150.``

        Without *with_player* (a settlement of one player's bets, where no name was
        given): ``The bets on Andar were added together: 100 + 50 = 150.`` *written*
        writes each amount (a settlement's table groups thousands: its notes do too).
        """
        parts = _Sum([written(stake) for stake in self.stakes])
        if not with_player:
            return Message(
                N_("The bets on {bet} were added together: {parts} = {total}."),
                bet=self.bet,
                parts=parts,
                total=written(self.total),
            )
        return Message(
            N_("{player}: the bets on {bet} were added together: {parts} = {total}."),
            player=self.player,
            bet=self.bet,
            parts=parts,
            total=written(self.total),
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "player": self.player,
            "bet": str(self.bet),
            "stakes": [format_amount(s) for s in self.stakes],
            "total": format_amount(self.total),
        }


class _Sum:
    def __init__(self, stakes: Iterable[object]) -> None:
        self.stakes = tuple(stakes)

    def localized(self, translator: Translator | None) -> str:
        return " + ".join(render(s, translator) for s in self.stakes)


def added_together(operations: Iterable[Operation]) -> tuple[AddedBets, ...]:
    """Every spot on which a player's bets were added together, from a round's log.

    Taking a bet back starts its spot afresh; changing it starts from the new stake.
    """
    stakes: dict[tuple[str, Bet], list[Decimal]] = {}
    for op in operations:
        if isinstance(op, BetPlaced):
            stakes.setdefault((op.player, op.bet), []).append(op.stake)
        elif isinstance(op, BetChanged):
            stakes[(op.player, op.bet)] = [op.stake]
        elif isinstance(op, BetWithdrawn):
            stakes.pop((op.player, op.bet), None)
    return tuple(
        AddedBets(player, bet, tuple(parts))
        for (player, bet), parts in stakes.items()
        if len(parts) > 1
    )


def operation_to_dict(op: Operation) -> dict[str, Any]:
    if isinstance(op, BetPlaced):
        return {
            "op": "bet",
            "player": op.player,
            "bet": str(op.bet),
            "stake": format_amount(op.stake),
            "total": format_amount(op.total),
        }
    if isinstance(op, BetChanged):
        return {
            "op": "change",
            "player": op.player,
            "bet": str(op.bet),
            "stake": format_amount(op.stake),
        }
    if isinstance(op, BetWithdrawn):
        return {"op": "withdraw", "player": op.player, "bet": str(op.bet)}
    if isinstance(op, MarkerPlaced):
        return {"op": "marker", "player": op.player, "row": op.row.value}
    if isinstance(op, BetsClosed):
        return {"op": "close"}
    if isinstance(op, TargetChosen):
        return {"op": "target", "rank": op.rank.value}
    if isinstance(op, CentreTurned):
        if op.bets:  # as the engine settled them at the turn; a replay settles them again
            return {"op": "centre", "card": str(op.card), "paid": _paid(op.bets)}
        return {"op": "centre", "card": str(op.card)}
    if isinstance(op, CardDealt):
        return {"op": "deal", "card": str(op.card)}
    if isinstance(op, RoundVoided):
        return {"op": "void", "reason": op.reason} if op.reason else {"op": "void"}
    # What was paid, as the engine worked it out then; `history verify` recomputes it.
    return {"op": "settle", "paid": settlement_to_list(op.settlement)}


def settlement_to_list(settlement: Settlement) -> list[dict[str, str]]:
    """Every settled bet as text: player, bet, stake, outcome, win, returned."""
    return _paid(settlement.bets)


def _paid(bets: Iterable[SettledBet]) -> list[dict[str, str]]:
    return [
        {
            "player": b.player,
            "bet": str(b.bet),
            "stake": format_amount(b.stake),
            "outcome": b.outcome.value,
            "win": format_amount(b.win),
            "returned": format_amount(b.returned),
        }
        for b in bets
    ]
