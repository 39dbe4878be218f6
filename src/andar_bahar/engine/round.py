"""The round as an explicit state machine.

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
from decimal import Decimal
from enum import StrEnum
from typing import Any

from andar_bahar.engine.bets import Bet, Wager
from andar_bahar.engine.betting import Betting, check_player
from andar_bahar.engine.cards import FULL_DECK, Card, Rank, check_complete, check_distinct, shuffled
from andar_bahar.engine.errors import ActionError, AndarBaharError, BetError, DeckError
from andar_bahar.engine.operations import (
    AddedBets,
    BetChanged,
    BetPlaced,
    BetsClosed,
    BetWithdrawn,
    CardDealt,
    CentreTurned,
    MarkerPlaced,
    Operation,
    OperationT,
    RoundResult,
    RoundSettled,
    RoundVoided,
    TargetChosen,
    added_together,
    settlement_to_list,
)
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.round_records import FORMAT, read_record, replay, round_to_dict
from andar_bahar.engine.rules import BetWindow, Procedure, Row
from andar_bahar.engine.settlement import SettledBet, Settlement, settle, settle_centre
from andar_bahar.i18n.messages import N_, Message

__all__ = [
    "FORMAT",
    "AddedBets",
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
    "added_together",
    "settlement_to_list",
    "stacked_deck",
]


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


class Round(Betting):
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
    def centre_bets_open(self) -> bool:
        """True while bets on the centre card can be placed: before it is turned, whatever
        the window of the other bets (and not once the dealer has closed the bets)."""
        return self._phase is Phase.BETTING and self.procedure.has_centre

    @property
    def centre_settled(self) -> tuple[SettledBet, ...]:
        """The bets on the centre card as settled when it was turned (empty before)."""
        turned = next((op for op in self._operations if isinstance(op, CentreTurned)), None)
        return turned.bets if turned is not None else ()

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

    def can_place_marker(self, player: str, row: Row | str) -> bool:
        try:
            self._verify_marker(player, row)
        except AndarBaharError:
            return False
        return True

    def _verify_marker(self, player: str, row: Row | str) -> tuple[str, Row]:
        self._check_window()
        name = check_player(player)
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
        """Turn the centre card: from the virtual deck, or the card the dealer turned.

        The bets on the centre card close and are settled that moment (the record holds
        what each won or lost; they are paid with the round's settlement).
        """
        the_card = self._verify_centre(card)
        self._take(the_card)
        self._centre = the_card
        self._target = the_card.rank
        if self._phase is Phase.BETTING and self.procedure.window is BetWindow.BEFORE_CENTRE:
            self._phase = Phase.CLOSED
        elif self._phase is Phase.BETTING:
            self._phase = Phase.CENTRE
        paid = settle_centre(centre=the_card, paytable=self.paytable, wagers=self.wagers)
        return self._log(CentreTurned(the_card, paid))

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
        return self._target is not None and not self.finished and not self._cards_left()

    def _cards_left(self) -> bool:
        return self._deck is not None and self._position < len(self._deck)

    def void(self, reason: str = "") -> RoundVoided:
        """The dealer calls the round off (a real deck exhausted, a misdeal): the round is void.

        This is a practical check, never a game outcome: every stake and marker
        is returned (the lesson's practical check). A round dealt from its own shuffled deck cannot
        be void while cards are left: a complete deck always reaches a match.
        """
        if not self.can_void():
            if self.finished:
                raise ActionError(Message(N_("The round is already over.")))
            if self._cards_left():
                raise ActionError(
                    Message(
                        N_(
                            "This round is dealt from the shuffled deck committed before"
                            " betting, which always reaches a match: it cannot be void."
                        )
                    )
                )
            raise ActionError(Message(N_("Nothing is dealt yet: the round cannot be void.")))
        self._phase = Phase.VOID
        return self._log(RoundVoided(len(self._seen), reason.strip()))

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
            centre=result.centre,
        )
        self._settlement = settlement
        self._phase = Phase.SETTLED
        return self._log(RoundSettled(settlement))

    # -- the log ---------------------------------------------------------------

    def _log(self, operation: OperationT) -> OperationT:
        self._operations.append(operation)
        return operation

    # -- the record ------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The round as plain data: rules, paytable, deck and every operation."""
        return round_to_dict(self)

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
        record = read_record(text)
        rnd = cls(record.procedure, record.paytable, deck=record.deck, balances=record.balances)
        replay(rnd, record.steps)
        return rnd


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
