"""The club betting game: chip balances carried from round to round.

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

Players join, top up and leave between rounds (or while bets are open); every such
movement of chips is a ledger entry against the cashier:

>>> game.add_player("Nino", 200); game.top_up("Ravi", 100)
Decimal('100')
>>> game.leave("Asha") == game.balances.get("Asha", game.departed["Asha"])
True
>>> sum(e.amount for e in game.ledger)
Decimal('0')
>>> [(p.name, p.chips_in, p.chips_out) for p in game.summary()][:2]
[('Asha', Decimal('500'), Decimal('590')), ('Ravi', Decimal('400'), Decimal('0'))]
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
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

__all__ = [
    "CASHIER",
    "HOUSE",
    "ClubGame",
    "LedgerEntry",
    "PlayerSummary",
    "check_seat",
    "parse_chips",
]

HOUSE = "house"
CASHIER = "cashier"
"""The account chips come from when a player sits down or tops up, and go to when one leaves."""
MAX_NAME = 40


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One change of one balance: positive to the account, negative from it."""

    round: int
    account: str
    amount: Decimal
    reason: str


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One player's session: chips brought and taken away, bets, and the result."""

    name: str
    chips_in: Decimal
    chips_out: Decimal
    balance: Decimal
    """Chips at the table now (0 after leaving)."""
    rounds: int
    """Rounds in which the player had a bet."""
    staked: Decimal
    won: Decimal
    """The wins paid (stakes returned not counted)."""

    @property
    def net(self) -> Decimal:
        """What the session gave the player: chips held and taken away, minus chips brought."""
        return as_decimal(self.balance + self.chips_out - self.chips_in)


def parse_chips(player: str, text: Decimal | int | str) -> Decimal:
    """*player*'s chips as written (to sit down or to top up), or a sentence about chips.

    >>> parse_chips("Ravi", "12,5")
    Decimal('12.5')
    >>> parse_chips("Ravi", "1e3")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.BetError: Ravi's chips must be a number such as 500 or 12.5, not '1e3'.
    """
    try:
        return parse_stake(text)
    except BetError:  # said of the chips, not of a stake
        raise BetError(
            Message(
                N_("{player}'s chips must be a number such as 500 or 12.5, not '{text}'."),
                player=player,
                text=str(text).strip(),
            )
        ) from None


def check_seat(
    name: str, balance: Decimal | int | str, seated: Mapping[str, Decimal]
) -> tuple[str, Decimal]:
    """A new player's name and chips, or a sentence saying what is wrong.

    >>> check_seat(" [red]x ", "500", {})
    ('[red]x', Decimal('500'))
    >>> check_seat("Asha", "lots", {})
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.BetError: Asha's chips must be a number such as 500 or 12.5, not 'lots'.
    """
    player = name.strip()
    if not player:
        raise BetError(Message(N_("A player needs a name.")))
    if len(player) > MAX_NAME:
        raise BetError(Message(N_("A name has at most {n} characters."), n=MAX_NAME))
    if player in (HOUSE, CASHIER):
        raise BetError(Message(N_("The name '{name}' is kept for the house."), name=player))
    if player in seated:
        raise BetError(Message(N_("{player} is already at the table."), player=player))
    amount = parse_chips(player, balance)
    if amount < 0:
        raise BetError(
            Message(N_("A balance cannot be negative: {amount}."), amount=Amount(amount))
        )
    return player, as_decimal(amount)


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
        self.departed: dict[str, Decimal] = {}
        """Players who left, with the chips they took away."""
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
        """Seat a player with a starting balance of chips (between rounds or while bets are open)."""
        player, amount = check_seat(name, balance, self.balances)
        self.departed.pop(player, None)
        self.balances[player] = as_decimal(amount)
        self._chips(player, as_decimal(amount), "chips in")

    def top_up(self, name: str, amount: Decimal | int | str) -> Decimal:
        """Give a seated player more chips (as written); the chips given.

        >>> from andar_bahar.engine.rules import find_procedure
        >>> from andar_bahar.engine.paytables import find_paytable
        >>> game = ClubGame(find_procedure("classic"), find_paytable("wizard"), {"Ravi": 100})
        >>> game.top_up("Ravi", "12,5"), game.balances["Ravi"]
        (Decimal('12.5'), Decimal('112.5'))
        >>> game.top_up("Ravi", "lots")
        Traceback (most recent call last):
        ...
        andar_bahar.engine.errors.BetError: Ravi's chips must be a number such as 500 or 12.5, not 'lots'.
        """
        player = self._seated(name)
        chips = parse_chips(player, amount)
        if chips <= 0:
            raise BetError(
                Message(
                    N_("A top-up must be more than nothing, not {amount}."), amount=Amount(chips)
                )
            )
        self.balances[player] = as_decimal(self.balances[player] + chips)
        self._chips(player, as_decimal(chips), "chips in")
        return as_decimal(chips)

    def check_leave(self, name: str) -> str:
        """The seated player *name* may leave now (the name as seated); a refusal while they
        have a bet in the round in play."""
        player = self._seated(name)
        rnd = self.current
        if rnd is not None and not rnd.finished and any(w.player == player for w in rnd.wagers):
            raise BetError(
                Message(
                    N_("{player} has a bet in this round: finish the round before leaving."),
                    player=player,
                )
            )
        return player

    def leave(self, name: str) -> Decimal:
        """A player leaves with their chips; refused while they have a bet in the round in play."""
        player = self.check_leave(name)
        rnd = self.current
        balance = self.balances.pop(player)
        if rnd is not None and rnd.balances is not None:
            rnd.balances.pop(player, None)
        self.departed[player] = balance
        self._chips(player, -balance, "chips out")
        return balance

    def _seated(self, name: str) -> str:
        player = name.strip()
        if player not in self.balances:
            raise BetError(Message(N_("'{player}' is not at this table."), player=player))
        return player

    def _chips(self, player: str, amount: Decimal, reason: str) -> None:
        """A movement of chips between the cashier and a player, in the ledger."""
        if amount:
            number = self.round_number
            self.ledger.append(LedgerEntry(number, player, amount, reason))
            self.ledger.append(LedgerEntry(number, CASHIER, -amount, f"{reason}: {player}"))
        rnd = self.current
        seated = player in self.balances
        if rnd is not None and rnd.balances is not None and rnd.bets_open and seated:
            rnd.balances[player] = self.balances[player]

    def summary(self) -> list[PlayerSummary]:
        """Every player of the session, seated or gone, in the order they sat down."""
        names = list(
            dict.fromkeys(e.account for e in self.ledger if e.account not in (HOUSE, CASHIER))
        )
        names += [n for n in self.balances if n not in names]
        result = []
        for name in names:
            moves = [e for e in self.ledger if e.account == name]
            bets = [b for s in self.rounds for b in s.bets if b.player == name]
            result.append(
                PlayerSummary(
                    name=name,
                    chips_in=_total(e.amount for e in moves if e.reason == "chips in"),
                    chips_out=-_total(e.amount for e in moves if e.reason == "chips out"),
                    balance=self.balances.get(name, Decimal(0)),
                    rounds=sum(1 for s in self.rounds if any(b.player == name for b in s.bets)),
                    staked=_total(b.stake for b in bets),
                    won=_total(b.win for b in bets),
                )
            )
        return result

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


def _total(amounts: Iterable[Decimal]) -> Decimal:
    return as_decimal(sum(amounts, Decimal(0)))
