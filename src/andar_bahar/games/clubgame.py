"""The club betting game (seeds 001/002): chip balances carried from round to round.

Every balance change is a ledger entry; the entries of each round sum to zero
against the house.

>>> import random
>>> from decimal import Decimal
>>> from andar_bahar.engine.rules import find_procedure
>>> from andar_bahar.engine.paytables import find_paytable
>>> game = ClubGame(find_procedure("classic"), find_paytable("wizard"),
...                 {"Asha": Decimal(500), "Ravi": Decimal(300)})
>>> rnd = game.start_round(rng=random.Random(3))
>>> _ = rnd.place_bet("Asha", "andar", 100); _ = rnd.place_bet("Ravi", "bahar", 50)
>>> _ = rnd.play()
>>> settlement = game.finish_round()
>>> sum(e.amount for e in game.ledger if e.round == 1)
Decimal('0')
>>> game.balances["Asha"] + game.balances["Ravi"] + game.house == Decimal(800)
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from andar_bahar.engine.cards import shuffled
from andar_bahar.engine.errors import ActionError, BetError
from andar_bahar.engine.money import Amount, as_decimal, parse_stake
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Procedure
from andar_bahar.engine.settlement import Settlement
from andar_bahar.i18n.messages import N_, Message

__all__ = ["HOUSE", "ClubGame", "LedgerEntry"]

HOUSE = "house"


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One change of one balance: positive to the account, negative from it."""

    round: int
    account: str
    amount: Decimal
    reason: str


class ClubGame:
    """A table of players with chip balances, one procedure and one paytable."""

    def __init__(
        self, procedure: Procedure, paytable: Paytable, balances: Mapping[str, Decimal | int | str]
    ) -> None:
        self.procedure = procedure.replace(markers_only=False)
        self.paytable = paytable
        self.balances: dict[str, Decimal] = {}
        self.ledger: list[LedgerEntry] = []
        self.rounds: list[Settlement] = []
        self.current: Round | None = None
        for name, balance in balances.items():
            self.add_player(name, balance)
        if not self.balances:
            raise BetError(Message(N_("A club table needs at least one player.")))

    @property
    def house(self) -> Decimal:
        """The house's result so far: what it took minus what it paid."""
        return as_decimal(sum((e.amount for e in self.ledger if e.account == HOUSE), Decimal(0)))

    @property
    def round_number(self) -> int:
        return len(self.rounds) + 1

    def add_player(self, name: str, balance: Decimal | int | str) -> None:
        """Seat a player with a starting balance of chips."""
        player = name.strip()
        if not player:
            raise BetError(Message(N_("A player needs a name.")))
        if player == HOUSE:
            raise BetError(Message(N_("The name '{name}' is kept for the house."), name=HOUSE))
        if player in self.balances:
            raise BetError(Message(N_("{player} is already at the table."), player=player))
        amount = parse_stake(balance)
        if amount < 0:
            raise BetError(
                Message(N_("A balance cannot be negative: {amount}."), amount=Amount(amount))
            )
        self.balances[player] = as_decimal(amount)

    def start_round(self, *, rng: random.Random | None = None, physical: bool = False) -> Round:
        """A new round with the current balances as the players' limits."""
        if self.current is not None and not self.current.finished:
            raise ActionError(Message(N_("Finish the round in play first.")))
        deck = None if physical else shuffled(rng)
        self.current = Round(self.procedure, self.paytable, deck=deck, balances=self.balances)
        return self.current

    def finish_round(self) -> Settlement:
        """Settle the round and carry every player's result into their balance."""
        rnd = self.current
        if rnd is None:
            raise ActionError(Message(N_("No round is in play.")))
        settlement = rnd.settlement if rnd.settlement is not None else rnd.settle().settlement
        number = self.round_number
        for player, amount, reason in settlement.postings():
            self.ledger.append(LedgerEntry(number, player, amount, reason))
            self.ledger.append(LedgerEntry(number, HOUSE, -amount, reason))
        for bet in settlement.bets:
            self.balances[bet.player] = as_decimal(self.balances[bet.player] + bet.net)
        self.rounds.append(settlement)
        self.current = None
        return settlement
