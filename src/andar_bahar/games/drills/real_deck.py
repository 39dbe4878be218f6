"""Deal a real deck: the trainee turns the cards of a real deck one by one and says the
row of each, then calls the winner; the engine's round checks every call.

The trainee shuffles a real deck, turns the centre card (or chooses the target rank, if
the procedure turns none) and tells the trainer; then for each card turned, its rank and
suit and the row it goes to. The engine's round (:class:`~andar_bahar.engine.round.Round`,
dealt by hand) puts the card where it belongs and says whether the call was right. Once
a card matches, the next call must be the winner: a card turned after the match, or a
winner called before it, is a wrong call. A card turned twice is refused with the engine's
sentence and counts nothing.

A deal is plain data (:class:`RealDeal`): the centre card or target rank, each card with
the row the trainee said, and the winners called too early; :meth:`RealDeal.dumps` and
:meth:`RealDeal.loads` carry it between the pages of a front end.

>>> from andar_bahar.engine.paytables import find_paytable
>>> from andar_bahar.engine.rules import find_procedure
>>> deal = RealDeal(find_procedure("classic"), find_paytable("wizard")).begin("7♣")
>>> deal, call = deal.turn("2♦", "bahar")
>>> call.correct, str(call.why)
(False, 'The first card always goes to Andar under this start rule.')
>>> deal, call = deal.turn("K♠", "bahar")
>>> call.correct, str(call.why)
(True, 'The rows take turns: after Andar comes Bahar.')
>>> deal, call = deal.turn("7♦", "andar")
>>> deal.finished, deal.done
(True, False)
>>> deal, call = deal.call_winner("andar")
>>> call.correct, deal.done, deal.right, deal.calls
(True, True, 3, 4)
>>> RealDeal.loads(find_procedure("classic"), find_paytable("wizard"), deal.dumps()) == deal
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from andar_bahar.engine.cards import Card, Rank
from andar_bahar.engine.errors import ActionError, CardError
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Procedure, Row, StartRule
from andar_bahar.games.drills.answers import parse_row
from andar_bahar.i18n.messages import N_, NP_, Message

__all__ = ["Call", "RealDeal"]


@dataclass(frozen=True, slots=True)
class Call:
    """One call of the trainee's, checked: the card (none for a winner called), the row
    said, the row that is right, and why."""

    card: Card | None
    said: Row
    right: Row | None
    """The right row (``None`` for a winner called before any card matched)."""
    why: Message

    @property
    def correct(self) -> bool:
        return self.said is self.right


@dataclass(frozen=True, slots=True)
class RealDeal:
    """A deal from a real deck so far: what was turned, and what the trainee said."""

    procedure: Procedure
    paytable: Paytable
    start: str = ""
    """The centre card turned (``Q♥``) or the target rank chosen (``Q``); "" before."""
    turned: tuple[tuple[Card, Row], ...] = ()
    """Each card dealt, with the row the trainee said it goes to."""
    early: int = 0
    """Winners called before a card matched."""
    called: Row | None = None
    """The winner called once the round was over (the deal is then done)."""
    missed: bool = False
    """A card was turned after the match instead of the winner called (the deal is done)."""

    # -- the state machine under it ----------------------------------------------------

    def round(self) -> Round:
        """The engine's round, replayed from what was turned."""
        rnd = Round(self.procedure, self.paytable)
        if self.start:
            if self.procedure.has_centre:
                rnd.turn_centre(Card.parse(self.start))
            else:
                rnd.choose_target(Rank.parse(self.start))
        for card, _ in self.turned:
            rnd.deal(card)
        return rnd

    @property
    def begun(self) -> bool:
        return bool(self.start)

    @property
    def finished(self) -> bool:
        """A card has matched (the winner is still to be called)."""
        return bool(self.turned) and self.round().finished

    @property
    def done(self) -> bool:
        """The winner has been called after the match (or missed): nothing more to deal."""
        return self.called is not None or self.missed

    # -- the trainee's steps -----------------------------------------------------------

    def begin(self, start: str) -> RealDeal:
        """The centre card turned (or the target rank chosen), as the trainee typed it."""
        if self.begun:
            raise ActionError(Message(N_("This deal has begun: turn the next card.")))
        rnd = Round(self.procedure, self.paytable)
        if self.procedure.has_centre:
            rnd.turn_centre(Card.parse(start))
            assert rnd.centre is not None
            return replace(self, start=str(rnd.centre))
        rnd.choose_target(Rank.parse(start))
        assert rnd.target is not None
        return replace(self, start=rnd.target.value)

    def turn(self, card: str | Card, said: str | Row) -> tuple[RealDeal, Call]:
        """The next card turned and the row the trainee says it goes to, checked by the
        engine (a card after the match: a wrong call, and the deal is done)."""
        row = _row(said)
        rnd = self._going_on()
        if rnd.finished:
            return replace(self, missed=True), Call(None, row, None, _after_the_match(rnd))
        the_card = card if isinstance(card, Card) else Card.parse(card)
        dealt = rnd.deal(the_card)
        call = Call(the_card, row, dealt.row, _why(rnd, len(rnd.dealt)))
        return replace(self, turned=(*self.turned, (the_card, row))), call

    def call_winner(self, said: str | Row) -> tuple[RealDeal, Call]:
        """The trainee calls the winner: right once a card has matched on that row (called
        before a match: a wrong call, and the deal goes on)."""
        row = _row(said)
        rnd = self._going_on()
        if not rnd.finished or not rnd.dealt:
            early = Call(None, row, None, Message(N_("No card has matched the target rank yet.")))
            return replace(self, early=self.early + 1), early
        result = rnd.result
        return replace(self, called=row), Call(
            None,
            row,
            result.winner,
            Message(
                NP_(
                    "{card} matched the target rank: {row} won with {n} card dealt.",
                    "{card} matched the target rank: {row} won with {n} cards dealt.",
                ),
                card=result.matching,
                row=result.winner,
                n=result.cards_dealt,
            ),
        )

    def _going_on(self) -> Round:
        if self.done:
            raise ActionError(Message(N_("This deal is over: begin a new one.")))
        return self.round()

    # -- the score ---------------------------------------------------------------------

    @property
    def calls(self) -> int:
        """Every call made: a row per card, the winners called (too early ones too)."""
        return len(self.turned) + self.early + (1 if self.done else 0)

    @property
    def right(self) -> int:
        rnd = self.round()
        rows = sum(
            1 for (_, said), dealt in zip(self.turned, rnd.dealt, strict=True) if said is dealt.row
        )
        winner = rnd.result.winner if rnd.finished and rnd.dealt else None
        return rows + (1 if self.called is not None and self.called is winner else 0)

    # -- as text -----------------------------------------------------------------------

    def dumps(self) -> str:
        """``7♣|2♦b K♠b 7♦a|0|a``: the start, each card with the row said, the early calls,
        the winner called (``x``: a card turned after the match instead)."""
        cards = " ".join(f"{card}{row.value[0]}" for card, row in self.turned)
        called = "x" if self.missed else (self.called.value[0] if self.called else "")
        return f"{self.start}|{cards}|{self.early}|{called}"

    @classmethod
    def loads(cls, procedure: Procedure, paytable: Paytable, text: str) -> RealDeal:
        """The deal :meth:`dumps` wrote, replayed (an error if it is not one)."""
        try:
            start, cards, early, called = text.split("|")
            turned = tuple((Card.parse(item[:-1]), _row(item[-1])) for item in cards.split())
            missed = called == "x"
            winner = _row(called) if called and not missed else None
            deal = cls(procedure, paytable, start, turned, int(early), winner, missed)
            deal.round()  # every card replays
        except (ValueError, CardError) as error:
            raise ActionError(
                Message(N_("This deal cannot be read back: begin a new one."))
            ) from error
        return deal


def _row(said: str | Row) -> Row:
    row = said if isinstance(said, Row) else parse_row(said)
    if row is None:
        raise ActionError(Message(N_("'{text}' is not a row: choose Andar or Bahar."), text=said))
    return row


def _why(rnd: Round, number: int) -> Message:
    """Why card *number* (counted from 1) went to its row."""
    dealt = rnd.dealt[number - 1]
    if number > 1:
        return Message(
            N_("The rows take turns: after {before} comes {row}."),
            before=rnd.dealt[number - 2].row,
            row=dealt.row,
        )
    start = rnd.procedure.start
    if start is StartRule.ANDAR:
        return Message(N_("The first card always goes to Andar under this start rule."))
    if start is StartRule.CENTRE_COLOUR:
        assert rnd.centre is not None
        return Message(
            N_("The centre card {card} is {colour}, so the first card goes to {row}."),
            card=rnd.centre,
            colour=rnd.centre.colour,
            row=dealt.row,
        )
    return Message(
        N_("The first card's own colour decides its row: {card} is {colour}, so it goes to {row}."),
        card=dealt.card,
        colour=dealt.card.colour,
        row=dealt.row,
    )


def _after_the_match(rnd: Round) -> Message:
    result = rnd.result
    return Message(
        N_(
            "The round was over: {card} had matched the target rank, so {row} won. Call the winner at the match."
        ),
        card=result.matching,
        row=result.winner,
    )
