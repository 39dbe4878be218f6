"""The round as an explicit state machine (SPEC §4).

Every step follows one rhythm: ``can_x(...)`` says whether it is allowed now,
``x(...)`` does it (or raises a project error and changes nothing) and returns
a frozen record that is appended to :attr:`Round.operations`. The same machine
is driven from a shuffled deck or by a dealer typing the cards of a real one.

>>> from andar_bahar.engine.paytables import find_paytable
>>> from andar_bahar.engine.rules import find_procedure
>>> rnd = Round(find_procedure("classic"), find_paytable("wizard"))      # a real deck
>>> rnd.place_bet("asha", "andar", "100")
BetPlaced(player='asha', bet=MainBet(row=<Row.ANDAR: 'andar'>), stake=Decimal('100'), total=Decimal('100'))
>>> rnd.place_bet("asha", "ANDAR", "20").total           # the same spot again: it adds up
Decimal('120')
>>> rnd.turn_centre(Card.parse("7♣")).card
Card.parse('7♣')
>>> for card in Card.parse_many("2♦ K♠ 9♥ 3♣ 7♦"):
...     _ = rnd.deal(card)
>>> rnd.result.winner, rnd.result.cards_dealt, str(rnd.result.matching)
(<Row.ANDAR: 'andar'>, 5, '7♦')
>>> rnd.can_deal()
False
>>> rnd.settle().settlement.bets[0].win
Decimal('108')
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any, TypeAlias, TypeVar

from andar_bahar._version import __version__
from andar_bahar.engine.bets import Bet, Wager
from andar_bahar.engine.cards import FULL_DECK, Card, Rank, check_complete, check_distinct, shuffled
from andar_bahar.engine.errors import ActionError, AndarBaharError, BetError, DeckError
from andar_bahar.engine.money import Amount, as_decimal, format_amount, parse_stake
from andar_bahar.engine.paytables import Paytable, load_paytable
from andar_bahar.engine.rules import BetWindow, Procedure, Row
from andar_bahar.engine.settlement import Settlement, settle
from andar_bahar.i18n.messages import N_, Message

__all__ = [
    "BetChanged",
    "BetPlaced",
    "BetWithdrawn",
    "BetsClosed",
    "CardDealt",
    "CentreTurned",
    "MarkerPlaced",
    "Operation",
    "Phase",
    "Round",
    "RoundResult",
    "RoundSettled",
    "RoundVoided",
    "TargetChosen",
]

FORMAT = "andar-bahar-round/1"


class Phase(StrEnum):
    """Where a round stands."""

    BETTING = "betting"
    """Bets and markers are open; the target is not yet known (or known in chosen-rank mode)."""
    CENTRE = "centre"
    """The centre card is turned; bets may still be open (window ``after-centre``)."""
    CLOSED = "closed"
    """Bets are closed; no card dealt yet."""
    DEALING = "dealing"
    """Cards are being dealt; no match yet."""
    FINISHED = "finished"
    """A card matched; the round has a winner."""
    VOID = "void"
    """The deck ran out with no match: every stake is returned."""
    SETTLED = "settled"
    """The bets are settled; the round is over."""


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
    """The centre card was turned."""

    card: Card


@dataclass(frozen=True, slots=True)
class CardDealt:
    """A card was dealt to a row; ``number`` counts from 1, the centre not counted."""

    number: int
    card: Card
    row: Row
    matched: bool


@dataclass(frozen=True, slots=True)
class RoundVoided:
    """The deck ran out with no match: check that the deck is complete and repeat."""

    cards_seen: int


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


_Op = TypeVar(
    "_Op",
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


@dataclass(frozen=True, slots=True)
class RoundResult:
    """What a finished (or void) round shows: the report of SPEC §4.5."""

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


class Round:
    """One round of Andar Bahar, from the first bet to the settlement.

    *deck* is the virtual deck in dealing order (the top card first): the
    centre card, when there is one, is its first card. Without a deck the
    round is refereed: the dealer passes each card turned from a real deck.
    *balances*, when given, limits each player's stakes to their balance.
    """

    def __init__(
        self,
        procedure: Procedure,
        paytable: Paytable,
        *,
        deck: Sequence[Card] | None = None,
        target: Rank | None = None,
        balances: Mapping[str, Decimal] | None = None,
    ) -> None:
        self.procedure = procedure
        self.paytable = paytable
        self.balances = dict(balances) if balances is not None else None
        if deck is not None:
            check_distinct(deck)
        self._deck: tuple[Card, ...] | None = tuple(deck) if deck is not None else None
        self._position = 0
        self._operations: list[Operation] = []
        self._wagers: dict[tuple[str, Bet], Decimal] = {}
        self._markers: dict[str, Row] = {}
        self._phase = Phase.BETTING
        self._target: Rank | None = None
        self._centre: Card | None = None
        self._dealt: list[CardDealt] = []
        self._seen: set[Card] = set()
        self._settlement: Settlement | None = None
        if target is not None:
            self.choose_target(target)

    # -- construction helpers -------------------------------------------------

    @classmethod
    def shuffled(
        cls,
        procedure: Procedure,
        paytable: Paytable,
        *,
        rng: random.Random | None = None,
        target: Rank | None = None,
        balances: Mapping[str, Decimal] | None = None,
    ) -> Round:
        """A round dealt from a freshly shuffled 52-card deck (secure randomness by default)."""
        return cls(procedure, paytable, deck=shuffled(rng), target=target, balances=balances)

    # -- what the round shows -------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def operations(self) -> tuple[Operation, ...]:
        """The log: every step taken, in order."""
        return tuple(self._operations)

    @property
    def target(self) -> Rank | None:
        """The rank to match, once known."""
        return self._target

    @property
    def centre(self) -> Card | None:
        return self._centre

    @property
    def dealt(self) -> tuple[CardDealt, ...]:
        return tuple(self._dealt)

    @property
    def deck(self) -> tuple[Card, ...] | None:
        """The virtual deck (``None`` when a real deck is refereed)."""
        return self._deck

    @property
    def wagers(self) -> tuple[Wager, ...]:
        """The bets in force, in the order they were first placed."""
        return tuple(Wager(p, b, s) for (p, b), s in self._wagers.items())

    @property
    def markers(self) -> Mapping[str, Row]:
        return dict(self._markers)

    @property
    def first_row(self) -> Row | None:
        if self._dealt:
            return self._dealt[0].row
        return self.procedure.first_row(centre=self._centre, first_card=None)

    @property
    def next_row(self) -> Row | None:
        """The row the next dealt card goes to (``None`` while it depends on that card)."""
        if self._dealt:
            return self._dealt[-1].row.other
        return self.first_row

    @property
    def bets_open(self) -> bool:
        if self._phase is Phase.BETTING:
            return True
        return self._phase is Phase.CENTRE and self.procedure.window is BetWindow.AFTER_CENTRE

    @property
    def finished(self) -> bool:
        return self._phase in (Phase.FINISHED, Phase.VOID, Phase.SETTLED)

    @property
    def result(self) -> RoundResult:
        """The report of a finished or void round."""
        if not self.finished or self._target is None:
            raise ActionError(Message(N_("The round is not over yet: deal until a card matches.")))
        winner = self._dealt[-1].row if self._dealt and self._dealt[-1].matched else None
        return RoundResult(
            self.procedure, self._target, self._centre, tuple(self._dealt), self.first_row, winner
        )

    @property
    def result_or_none(self) -> RoundResult | None:
        """The report once the round is over, else ``None``."""
        return self.result if self.finished and self._target is not None else None

    @property
    def settlement(self) -> Settlement | None:
        return self._settlement

    # -- bets and markers -----------------------------------------------------

    def verify_bet(self, player: str, bet: Bet | str, stake: Decimal | int | str) -> Wager:
        """Check a bet without placing it; return the :class:`Wager` it would leave in force.

        Betting a spot the player already holds adds *stake* to it: the addition
        must be a positive whole number of chips, and the **total** on the spot
        must lie within the table's limits (an addition below the minimum is fine
        once the total reaches it) and, with the other spots, within the balance.

        >>> from andar_bahar.engine.paytables import find_paytable
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
        name = _check_player(player)
        the_bet = bet if isinstance(bet, Bet) else Bet.parse(bet)
        self.paytable.check_offers(the_bet)
        return name, the_bet, parse_stake(stake)

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
                    bet=str(bet),
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
                    bet=str(the_bet),
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
        key = (player.strip(), the_bet)
        if key not in self._wagers:
            raise BetError(
                Message(
                    N_("{player} has no bet on {bet} to take back."),
                    player=player.strip(),
                    bet=str(the_bet),
                )
            )
        return key

    def withdraw_bet(self, player: str, bet: Bet | str) -> BetWithdrawn:
        """Take a bet back while bets are open."""
        key = self._verify_withdraw(player, bet)
        del self._wagers[key]
        return self._log(BetWithdrawn(*key))

    def can_place_marker(self, player: str, row: Row | str) -> bool:
        try:
            self._verify_marker(player, row)
        except AndarBaharError:
            return False
        return True

    def _verify_marker(self, player: str, row: Row | str) -> tuple[str, Row]:
        self._check_window()
        name = _check_player(player)
        bet = Bet.parse(str(row))
        if not hasattr(bet, "row"):
            raise BetError(
                Message(N_("A marker goes on a row: andar or bahar, not '{row}'."), row=row)
            )
        return name, Row(str(row).strip().lower())

    def place_marker(self, player: str, row: Row | str) -> MarkerPlaced:
        """Put (or move) a player's marker on a row while bets are open."""
        name, the_row = self._verify_marker(player, row)
        self._markers[name] = the_row
        return self._log(MarkerPlaced(name, the_row))

    def can_close_bets(self) -> bool:
        return self.bets_open and (self._target is not None or self.procedure.has_centre)

    def close_bets(self) -> BetsClosed:
        """Close bets and markers now (the dealer's call; dealing also closes them)."""
        if not self.bets_open:
            raise ActionError(Message(N_("Bets are already closed.")))
        self._phase = Phase.CLOSED
        return self._log(BetsClosed())

    def _check_window(self) -> None:
        if self.bets_open:
            return
        if self._dealt or self.finished:
            raise BetError(
                Message(
                    N_(
                        "Bets are closed: the first card has been dealt, so nothing can be"
                        " placed, changed or taken back."
                    )
                )
            )
        if self._centre is not None and self.procedure.window is BetWindow.BEFORE_CENTRE:
            raise BetError(
                Message(
                    N_(
                        "Bets are closed: under the procedure '{name}' they close before"
                        " the centre card is turned."
                    ),
                    name=self.procedure.name,
                )
            )
        raise BetError(Message(N_("Bets are closed: the dealer has closed them.")))

    # -- the target ----------------------------------------------------------

    def can_choose_target(self) -> bool:
        return (
            not self.procedure.has_centre
            and self._target is None
            and self._phase in (Phase.BETTING, Phase.CLOSED)
        )

    def choose_target(self, rank: Rank | str) -> TargetChosen:
        """Choose the target rank in advance (target mode ``chosen-rank``)."""
        if self.procedure.has_centre:
            raise ActionError(
                Message(
                    N_(
                        "The procedure '{name}' matches the centre card: turn the centre card"
                        " instead of choosing a rank."
                    ),
                    name=self.procedure.name,
                )
            )
        if self._target is not None:
            raise ActionError(
                Message(N_("The target rank is already chosen: {rank}."), rank=self._target)
            )
        the_rank = rank if isinstance(rank, Rank) else Rank.parse(rank)
        self._target = the_rank
        return self._log(TargetChosen(the_rank))

    def can_turn_centre(self, card: Card | None = None) -> bool:
        try:
            self._verify_centre(card)
        except AndarBaharError:
            return False
        return True

    def _verify_centre(self, card: Card | None) -> Card:
        if not self.procedure.has_centre:
            raise ActionError(
                Message(
                    N_(
                        "The procedure '{name}' turns no centre card: the target rank is"
                        " chosen before the deal."
                    ),
                    name=self.procedure.name,
                )
            )
        if self._centre is not None:
            raise ActionError(
                Message(N_("The centre card is already turned: {card}."), card=self._centre)
            )
        if self._phase not in (Phase.BETTING, Phase.CLOSED):
            raise ActionError(Message(N_("The centre card can only be turned before the deal.")))
        return self._next_card(card)

    def turn_centre(self, card: Card | None = None) -> CentreTurned:
        """Turn the centre card: from the virtual deck, or the card the dealer turned."""
        the_card = self._verify_centre(card)
        self._take(the_card)
        self._centre = the_card
        self._target = the_card.rank
        if self._phase is Phase.BETTING and self.procedure.window is BetWindow.BEFORE_CENTRE:
            self._phase = Phase.CLOSED
        elif self._phase is Phase.BETTING:
            self._phase = Phase.CENTRE
        return self._log(CentreTurned(the_card))

    # -- dealing ---------------------------------------------------------------

    def can_deal(self, card: Card | None = None) -> bool:
        try:
            self._verify_deal(card)
        except AndarBaharError:
            return False
        return True

    def _verify_deal(self, card: Card | None) -> Card:
        if self.finished:
            raise ActionError(
                Message(N_("The round is over: a card has matched, no more cards are dealt."))
                if self._phase is not Phase.VOID
                else Message(N_("The round is void: check that the deck is complete and repeat."))
            )
        if self._target is None:
            if self.procedure.has_centre:
                raise ActionError(Message(N_("Turn the centre card before dealing.")))
            raise ActionError(Message(N_("Choose the target rank before dealing.")))
        return self._next_card(card)

    def deal(self, card: Card | None = None) -> CardDealt:
        """Deal the next card to its row; the round stops at once on a match."""
        the_card = self._verify_deal(card)
        row = self.next_row
        if row is None:  # first-card-colour: the card's own colour decides
            row = Row.of_colour(the_card.colour)
        self._take(the_card)
        matched = the_card.rank is self._target
        record = CardDealt(len(self._dealt) + 1, the_card, row, matched)
        self._dealt.append(record)
        self._phase = Phase.FINISHED if matched else Phase.DEALING
        return self._log(record)

    def can_void(self) -> bool:
        return self._target is not None and not self.finished

    def void(self) -> RoundVoided:
        """The dealer reports the deck exhausted with no match: the round is void.

        This is a practical check, never a game outcome: every stake and marker
        is returned (seed 000 §03).
        """
        if not self.can_void():
            if self.finished:
                raise ActionError(Message(N_("The round is already over.")))
            raise ActionError(Message(N_("Nothing is dealt yet: the round cannot be void.")))
        self._phase = Phase.VOID
        return self._log(RoundVoided(len(self._seen)))

    def play(self) -> RoundResult:
        """Drive the round to its end from the virtual deck (a void if the deck runs out)."""
        if self._deck is None:
            raise ActionError(Message(N_("This round is dealt from a real deck: deal each card.")))
        if self._target is None and self.procedure.has_centre:
            self.turn_centre()
        if self._target is None:
            raise ActionError(Message(N_("Choose the target rank before dealing.")))
        while not self.finished:
            if self._position >= len(self._deck):
                self.void()
            else:
                self.deal()
        return self.result

    def _next_card(self, card: Card | None) -> Card:
        if self._deck is not None:
            if card is not None:
                raise ActionError(
                    Message(N_("This round deals from its own shuffled deck: do not type a card."))
                )
            if self._position >= len(self._deck):
                raise ActionError(
                    Message(
                        N_(
                            "The deck is exhausted with no match: check that the deck is"
                            " complete and repeat the round."
                        )
                    )
                )
            return self._deck[self._position]
        if card is None:
            raise ActionError(
                Message(N_("This round is dealt from a real deck: type the card you turned."))
            )
        if card in self._seen:
            raise DeckError(
                Message(
                    N_(
                        "The card {card} has already been turned in this round: a deck has"
                        " each card once. Check the card and type it again."
                    ),
                    card=card,
                )
            )
        return card

    def _take(self, card: Card) -> None:
        self._seen.add(card)
        if self._deck is not None:
            self._position += 1

    # -- settlement ------------------------------------------------------------

    def can_settle(self) -> bool:
        return self._phase in (Phase.FINISHED, Phase.VOID)

    def settle(self) -> RoundSettled:
        """Settle every bet under the round's paytable (stakes returned if void)."""
        if not self.can_settle():
            if self._phase is Phase.SETTLED:
                raise ActionError(Message(N_("The round is already settled.")))
            raise ActionError(Message(N_("The round is not over yet: deal until a card matches.")))
        result = self.result
        settlement = settle(
            winner=result.winner,
            cards_dealt=result.cards_dealt,
            first_row=result.first_row,
            paytable=self.paytable,
            wagers=self.wagers,
        )
        self._settlement = settlement
        self._phase = Phase.SETTLED
        return self._log(RoundSettled(settlement))

    # -- the log ---------------------------------------------------------------

    def _log(self, operation: _Op) -> _Op:
        self._operations.append(operation)
        return operation

    def to_dict(self) -> dict[str, Any]:
        """The round as plain data: rules, paytable, deck and every operation."""
        data: dict[str, Any] = {
            "format": FORMAT,
            "engine": __version__,
            "procedure": self.procedure.to_dict(),
            "paytable": self.paytable.to_toml(),
        }
        if self.balances is not None:
            data["balances"] = {p: format_amount(b) for p, b in self.balances.items()}
        if self._deck is not None:
            data["deck"] = " ".join(str(c) for c in self._deck)
        data["operations"] = [_operation_to_dict(op) for op in self._operations]
        return data

    def dumps(self) -> str:
        """The round as JSON text; :meth:`loads` replays it into an equal round.

        >>> from andar_bahar.engine.paytables import find_paytable
        >>> from andar_bahar.engine.rules import find_procedure
        >>> rnd = Round(find_procedure("home"), find_paytable("wizard"))
        >>> _ = rnd.place_marker("nino", "andar")
        >>> _ = rnd.turn_centre(Card.parse("Q♥"))
        >>> for card in Card.parse_many("4♣ 7♦ Q♠"):
        ...     _ = rnd.deal(card)
        >>> again = Round.loads(rnd.dumps())
        >>> again.operations == rnd.operations and again.dumps() == rnd.dumps()
        True
        """
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1)

    @classmethod
    def loads(cls, text: str) -> Round:
        """Rebuild a round by replaying its operations through the state machine."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ActionError(
                Message(N_("The round record is not valid JSON: {reason}."), reason=error)
            ) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ActionError(
                Message(N_("The text is not a round record ({format})."), format=FORMAT)
            )
        procedure = Procedure.from_dict(data["procedure"], source="round")
        paytable = load_paytable(data["paytable"], source="round")
        balances = (
            {p: Decimal(b) for p, b in data["balances"].items()} if "balances" in data else None
        )
        deck = Card.parse_many(data["deck"]) if "deck" in data else None
        rnd = cls(procedure, paytable, deck=deck, balances=balances)
        for op in data.get("operations", []):
            rnd._replay(op)
        return rnd

    def _replay(self, op: Mapping[str, Any]) -> None:
        kind = op.get("op")
        virtual = self._deck is not None
        if kind == "bet":
            self._replay_bet(op)
        elif kind == "change":
            self.change_bet(op["player"], op["bet"], op["stake"])
        elif kind == "withdraw":
            self.withdraw_bet(op["player"], op["bet"])
        elif kind == "marker":
            self.place_marker(op["player"], op["row"])
        elif kind == "close":
            self.close_bets()
        elif kind == "target":
            self.choose_target(op["rank"])
        elif kind == "centre":
            card = Card.parse(op["card"])
            record = self.turn_centre(None if virtual else card)
            _check_replayed(record.card, card)
        elif kind == "deal":
            card = Card.parse(op["card"])
            dealt = self.deal(None if virtual else card)
            _check_replayed(dealt.card, card)
        elif kind == "void":
            self.void()
        elif kind == "settle":
            self.settle()
        else:
            raise ActionError(Message(N_("Unknown step '{op}' in the round record."), op=kind))

    def _replay_bet(self, op: Mapping[str, Any]) -> None:
        player, bet = op["player"], Bet.parse(op["bet"])
        if "total" not in op:
            # Recorded before repeated bets added up, when a repeated bet replaced the
            # stake: replay it as today's explicit step for that, a change.
            if (player.strip(), bet) in self._wagers:
                self.change_bet(player, bet, op["stake"])
            else:
                self.place_bet(player, bet, op["stake"])
            return
        placed = self.place_bet(player, bet, op["stake"])
        if placed.total != parse_stake(op["total"]):
            raise ActionError(
                Message(
                    N_(
                        "The round record says {player} has {recorded} on {bet}, but its bets"
                        " add up to {total}."
                    ),
                    player=placed.player,
                    recorded=Amount(parse_stake(op["total"])),
                    bet=str(bet),
                    total=Amount(placed.total),
                )
            )


def _check_replayed(dealt: Card, recorded: Card) -> None:
    if dealt != recorded:
        raise DeckError(
            Message(
                N_("The round record says {recorded} but its deck gives {dealt}."),
                recorded=recorded,
                dealt=dealt,
            )
        )


def _operation_to_dict(op: Operation) -> dict[str, Any]:
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
        return {"op": "centre", "card": str(op.card)}
    if isinstance(op, CardDealt):
        return {"op": "deal", "card": str(op.card)}
    if isinstance(op, RoundVoided):
        return {"op": "void"}
    # What was paid, as the engine worked it out then; `history verify` recomputes it.
    return {"op": "settle", "paid": settlement_to_list(op.settlement)}


def settlement_to_list(settlement: Settlement) -> list[dict[str, str]]:
    """Every settled bet as text: player, bet, stake, outcome, win, returned."""
    return [
        {
            "player": b.player,
            "bet": str(b.bet),
            "stake": format_amount(b.stake),
            "outcome": b.outcome.value,
            "win": format_amount(b.win),
            "returned": format_amount(b.returned),
        }
        for b in settlement.bets
    ]


def _check_player(player: str) -> str:
    name = player.strip()
    if not name:
        raise BetError(Message(N_("A player needs a name.")))
    return name


def stacked_deck(top: Iterable[Card], rng: random.Random | None = None) -> list[Card]:
    """A deck with *top* on top in that order and the other cards shuffled below.

    >>> stacked_deck(Card.parse_many("Q♥ 4♣"), random.Random(1))[:2]
    [Card.parse('Q♥'), Card.parse('4♣')]
    """
    cards = list(top)
    check_distinct(cards)
    rest = [card for card in FULL_DECK if card not in set(cards)]
    deck = cards + shuffled(rng, rest)
    check_complete(deck)
    return deck
