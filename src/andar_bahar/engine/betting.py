"""Bets on the table: placing, adding to, changing and taking back a stake.

The betting steps of :class:`~andar_bahar.engine.round.Round`, kept apart so that the
state machine stays readable. Betting a spot a player already holds **adds** to it:
the record says how much was added and the total on the spot; the limits
bound the total; changing or taking back a stake are their own explicit steps.

>>> from andar_bahar.engine.paytables import find_paytable
>>> from andar_bahar.engine.round import Round
>>> from andar_bahar.engine.rules import find_procedure
>>> rnd = Round(find_procedure("classic"), find_paytable("wizard"))
>>> [rnd.place_bet("asha", bet, 10).total for bet in ("andar", "Andar", "ANDAR")]
[Decimal('10'), Decimal('20'), Decimal('30')]
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from andar_bahar.engine.bets import Bet, CentreBet, Wager
from andar_bahar.engine.cards import Card
from andar_bahar.engine.errors import AndarBaharError, BetError
from andar_bahar.engine.money import Amount, as_decimal, parse_stake
from andar_bahar.engine.operations import (
    BetChanged,
    BetPlaced,
    BetWithdrawn,
    Operation,
    OperationT,
)
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import Procedure
from andar_bahar.i18n.messages import N_, Message

__all__ = ["Betting", "check_player"]


class Betting:
    """The betting steps of a round (a mixin of :class:`~andar_bahar.engine.round.Round`)."""

    procedure: Procedure
    paytable: Paytable
    balances: dict[str, Decimal] | None
    _wagers: dict[tuple[str, Bet], Decimal]
    _operations: list[Operation]
    _centre: Card | None

    if TYPE_CHECKING:

        def _check_window(self) -> None: ...

        @property
        def centre_bets_open(self) -> bool: ...

        def _log(self, operation: OperationT) -> OperationT: ...

    def verify_bet(self, player: str, bet: Bet | str, stake: Decimal | int | str) -> Wager:
        """Check a bet without placing it; return the :class:`Wager` it would leave in force.

        Betting a spot the player already holds adds *stake* to it: the addition
        must be a positive whole number of chips, and the **total** on the spot
        must lie within the table's limits (an addition below the minimum is fine
        once the total reaches it) and, with the other spots, within the balance.

        >>> from andar_bahar.engine.paytables import find_paytable
        >>> from andar_bahar.engine.round import Round
        >>> from andar_bahar.engine.rules import find_procedure
        >>> rnd = Round(find_procedure("classic"), find_paytable("wizard"))
        >>> _ = rnd.place_bet("asha", "cards:6-10", 30)
        >>> rnd.verify_bet("asha", "cards:6–10", 20)
        Wager(player='asha', bet=CardsBet(low=6, high=10), stake=Decimal('50'))
        """
        name, the_bet, amount = self._verify_spot(player, bet, stake)
        held = self._wagers.get((name, the_bet))
        if held is None:
            self.paytable.check_stake(amount)
            total = amount
        else:
            total = self._check_addition(name, the_bet, held, amount)
        self._check_balance(name, self._staked(name), amount)
        return Wager(name, the_bet, as_decimal(total))

    def _verify_spot(
        self, player: str, bet: Bet | str, stake: Decimal | int | str
    ) -> tuple[str, Bet, Decimal]:
        """The checks every stake passes: stakes played, bets open, a player, a bet offered."""
        if self.procedure.markers_only:
            raise BetError(
                Message(
                    N_(
                        "The procedure '{name}' plays with markers, not stakes: put a marker"
                        " on a row instead."
                    ),
                    name=self.procedure.name,
                )
            )
        self._check_window()
        name = check_player(player)
        the_bet = bet if isinstance(bet, Bet) else Bet.parse(bet)
        self._check_centre_window(the_bet)
        self.paytable.check_offers(the_bet)
        return name, the_bet, parse_stake(stake)

    def _check_centre_window(self, bet: Bet) -> None:
        """Refuse a bet on the centre card where there is none, or once it is turned."""
        if not isinstance(bet, CentreBet) or self.centre_bets_open:
            return
        if not self.procedure.has_centre:
            raise BetError(
                Message(
                    N_(
                        "The procedure '{name}' turns no centre card: there is no bet on the"
                        " centre card to place, change or take back."
                    ),
                    name=self.procedure.name,
                )
            )
        raise BetError(
            Message(
                N_(
                    "Bets on the centre card are closed: they close when it is turned"
                    " ({card}), so the bet on {bet} can no longer be placed, changed or taken back."
                ),
                card=self._centre if self._centre is not None else "—",
                bet=bet,
            )
        )

    def _spot_open(self, bet: Bet) -> bool:
        """Whether a spot can still change (the bets on the centre card close at the turn)."""
        return not isinstance(bet, CentreBet) or self.centre_bets_open

    def _staked(self, player: str) -> Decimal:
        return sum((s for (p, _), s in self._wagers.items() if p == player), Decimal(0))

    def _check_balance(self, player: str, staked: Decimal, stake: Decimal) -> None:
        """Refuse *stake* on top of *staked* beyond the player's balance (when balances count)."""
        if self.balances is None:
            return
        if player not in self.balances:
            raise BetError(Message(N_("'{player}' is not at this table."), player=player))
        if staked + stake > self.balances[player]:
            raise BetError(
                Message(
                    N_(
                        "{player} has {balance} chips, {staked} of them already staked:"
                        " a stake of {stake} is too much."
                    ),
                    player=player,
                    balance=Amount(self.balances[player]),
                    staked=Amount(staked),
                    stake=Amount(stake),
                )
            )

    def _check_addition(self, player: str, bet: Bet, held: Decimal, amount: Decimal) -> Decimal:
        """The new total on a spot already held; the addition must be positive whole chips."""
        self.paytable.check_chips(amount)
        total = held + amount
        limit = self.paytable.max_stake
        if limit is not None and total > limit:
            raise BetError(
                Message(
                    N_(
                        "{player} already has {held} on {bet}: adding {stake} makes {total},"
                        " above the table maximum of {limit}."
                    ),
                    player=player,
                    held=Amount(held),
                    bet=bet,
                    stake=Amount(amount),
                    total=Amount(total),
                    limit=Amount(limit),
                )
            )
        self.paytable.check_stake(total)
        return total

    def can_place_bet(self, player: str, bet: Bet | str, stake: Decimal | int | str) -> bool:
        try:
            self.verify_bet(player, bet, stake)
        except AndarBaharError:
            return False
        return True

    def place_bet(self, player: str, bet: Bet | str, stake: Decimal | int | str) -> BetPlaced:
        """Place a bet; on a spot the player already holds, add *stake* to it.

        The record says both: ``stake`` is the amount added now, ``total`` the stake
        on the spot after it. :meth:`change_bet` sets a stake to a new amount and
        :meth:`withdraw_bet` takes it back: each is its own, explicit step.
        """
        wager = self.verify_bet(player, bet, stake)
        self._wagers[(wager.player, wager.bet)] = wager.stake
        return self._log(
            BetPlaced(wager.player, wager.bet, as_decimal(parse_stake(stake)), wager.stake)
        )

    def verify_change(self, player: str, bet: Bet | str, stake: Decimal | int | str) -> Wager:
        """Check setting the stake on a spot the player holds to *stake*; return the new wager."""
        name, the_bet, amount = self._verify_spot(player, bet, stake)
        held = self._wagers.get((name, the_bet))
        if held is None:
            raise BetError(
                Message(
                    N_("{player} has no bet on {bet} to change: place one first."),
                    player=name,
                    bet=the_bet,
                )
            )
        self.paytable.check_stake(amount)
        self._check_balance(name, self._staked(name) - held, amount)
        return Wager(name, the_bet, as_decimal(amount))

    def can_change_bet(self, player: str, bet: Bet | str, stake: Decimal | int | str) -> bool:
        try:
            self.verify_change(player, bet, stake)
        except AndarBaharError:
            return False
        return True

    def change_bet(self, player: str, bet: Bet | str, stake: Decimal | int | str) -> BetChanged:
        """Set the stake on a spot the player already holds to *stake* (more or less).

        >>> from andar_bahar.engine.paytables import find_paytable
        >>> from andar_bahar.engine.round import Round
        >>> from andar_bahar.engine.rules import find_procedure
        >>> rnd = Round(find_procedure("classic"), find_paytable("wizard"))
        >>> _ = rnd.place_bet("asha", "bahar", 100)
        >>> rnd.change_bet("asha", "bahar", 40)
        BetChanged(player='asha', bet=MainBet(row=<Row.BAHAR: 'bahar'>), stake=Decimal('40'), previous=Decimal('100'))
        """
        wager = self.verify_change(player, bet, stake)
        key = (wager.player, wager.bet)
        previous = self._wagers[key]
        self._wagers[key] = wager.stake
        return self._log(BetChanged(wager.player, wager.bet, wager.stake, as_decimal(previous)))

    def can_withdraw_bet(self, player: str, bet: Bet | str) -> bool:
        try:
            self._verify_withdraw(player, bet)
        except AndarBaharError:
            return False
        return True

    def _verify_withdraw(self, player: str, bet: Bet | str) -> tuple[str, Bet]:
        self._check_window()
        the_bet = bet if isinstance(bet, Bet) else Bet.parse(bet)
        self._check_centre_window(the_bet)
        key = (player.strip(), the_bet)
        if key not in self._wagers:
            raise BetError(
                Message(
                    N_("{player} has no bet on {bet} to take back."),
                    player=player.strip(),
                    bet=the_bet,
                )
            )
        return key

    def withdraw_bet(self, player: str, bet: Bet | str) -> BetWithdrawn:
        """Take a bet back while bets are open."""
        key = self._verify_withdraw(player, bet)
        del self._wagers[key]
        return self._log(BetWithdrawn(*key))

    def last_placement(self, player: str) -> Wager | None:
        """The player's last chips placed that are still on the table (``None``: none).

        Read from the round's operations: each placement goes on its spot's pile; a
        spot taken back is emptied; a stake changed down comes off its spot's latest
        placements first, a stake changed up is placed on top. The piles of a spot add
        up to its stake, so taking back the last placement again and again takes the
        bets off in the opposite order to their placing. A bet on the centre card counts
        only while it can still be taken back (until the centre card is turned).

        >>> from andar_bahar.engine.paytables import find_paytable
        >>> from andar_bahar.engine.round import Round
        >>> from andar_bahar.engine.rules import find_procedure
        >>> rnd = Round(find_procedure("classic"), find_paytable("wizard"))
        >>> for bet, stake in (("andar", 5), ("bahar", 10), ("andar", 25)):
        ...     _ = rnd.place_bet("asha", bet, stake)
        >>> rnd.last_placement("asha")
        Wager(player='asha', bet=MainBet(row=<Row.ANDAR: 'andar'>), stake=Decimal('25'))
        """
        name = player.strip()
        piles: list[tuple[Bet, Decimal]] = []
        for done in self._operations:
            if getattr(done, "player", None) != name:
                continue
            if isinstance(done, BetPlaced):
                piles.append((done.bet, done.stake))
            elif isinstance(done, BetWithdrawn):
                piles = [(bet, stake) for bet, stake in piles if bet != done.bet]
            elif isinstance(done, BetChanged) and done.stake > done.previous:
                piles.append((done.bet, done.stake - done.previous))
            elif isinstance(done, BetChanged):
                piles = _taken_off(piles, done.bet, done.previous - done.stake)
        piles = [(bet, stake) for bet, stake in piles if self._spot_open(bet)]
        return Wager(name, *piles[-1]) if piles else None

    def take_back(self, player: str) -> BetWithdrawn | BetChanged:
        """Take the player's last placement (:meth:`last_placement`) off the table while
        bets are open: the spot keeps what was on it before.

        >>> from andar_bahar.engine.paytables import find_paytable
        >>> from andar_bahar.engine.round import Round
        >>> from andar_bahar.engine.rules import find_procedure
        >>> rnd = Round(find_procedure("classic"), find_paytable("wizard"))
        >>> for bet, stake in (("andar", 5), ("bahar", 10), ("andar", 25)):
        ...     _ = rnd.place_bet("asha", bet, stake)
        >>> _ = rnd.take_back("asha")
        >>> [(str(w.bet), str(w.stake)) for w in rnd.wagers]
        [('andar', '5'), ('bahar', '10')]
        >>> _ = rnd.take_back("asha")
        >>> [(str(w.bet), str(w.stake)) for w in rnd.wagers]
        [('andar', '5')]
        """
        self._check_window()
        last = self.last_placement(player)
        if last is None:
            raise BetError(
                Message(
                    N_("{player} has no bet on the table to take back."),
                    player=player.strip(),
                )
            )
        held = self._wagers[(last.player, last.bet)]
        if last.stake >= held:
            return self.withdraw_bet(last.player, last.bet)
        return self.change_bet(last.player, last.bet, held - last.stake)

    def double_bets(self, player: str) -> tuple[BetPlaced, ...]:
        """Put the same stake again on every spot the player holds that is still open (the
        bets on the centre card close at the turn): all of them, or none (refused when a
        spot would pass the table maximum or the stakes the balance).

        >>> from andar_bahar.engine.paytables import find_paytable
        >>> from andar_bahar.engine.round import Round
        >>> from andar_bahar.engine.rules import find_procedure
        >>> rnd = Round(find_procedure("classic"), find_paytable("wizard"),
        ...             balances={"asha": Decimal(50)})
        >>> _ = rnd.place_bet("asha", "andar", 10), rnd.place_bet("asha", "cards:1-5", 5)
        >>> [str(placed.total) for placed in rnd.double_bets("asha")]
        ['20', '10']
        >>> rnd.double_bets("asha")
        Traceback (most recent call last):
        ...
        andar_bahar.engine.errors.BetError: Doubling needs 30 more chips and asha has 20 available: nothing was doubled.
        """
        self._check_window()
        name = check_player(player)
        mine = [
            (bet, stake)
            for (who, bet), stake in self._wagers.items()
            if who == name and self._spot_open(bet)
        ]
        if not mine:
            raise BetError(Message(N_("{player} has no bet on the table to double."), player=name))
        limit = self.paytable.max_stake
        for bet, stake in mine:
            if limit is not None and 2 * stake > limit:
                raise BetError(
                    Message(
                        N_(
                            "Doubling would put {total} on {bet}, above the table maximum"
                            " of {limit}: nothing was doubled."
                        ),
                        total=Amount(2 * stake),
                        bet=bet,
                        limit=Amount(limit),
                    )
                )
        staked = self._staked(name)
        doubled = sum((stake for _, stake in mine), Decimal(0))
        balance = self.balances.get(name) if self.balances is not None else None
        if balance is not None and staked + doubled > balance:
            raise BetError(
                Message(
                    N_(
                        "Doubling needs {stake} more chips and {player} has {available}"
                        " available: nothing was doubled."
                    ),
                    stake=Amount(doubled),
                    player=name,
                    available=Amount(balance - staked),
                )
            )
        return tuple(self.place_bet(name, bet, stake) for bet, stake in mine)


def _taken_off(
    piles: list[tuple[Bet, Decimal]], bet: Bet, amount: Decimal
) -> list[tuple[Bet, Decimal]]:
    """*piles* less *amount* taken off *bet*'s latest piles first."""
    kept: list[tuple[Bet, Decimal]] = []
    for pile, stake in reversed(piles):
        if pile == bet and amount > 0:
            taken = min(stake, amount)
            amount -= taken
            stake -= taken
        if stake > 0:
            kept.append((pile, stake))
    return kept[::-1]


def check_player(player: str) -> str:
    """A player's name, stripped; refused when empty."""
    name = player.strip()
    if not name:
        raise BetError(Message(N_("A player needs a name.")))
    return name
