"""The teaching game of the lesson: markers, tokens and a rotating dealer.

One participant deals each round and the others put a marker on a row before
any card is dealt; a correct row scores one token. After every round all 52
cards are collected and reshuffled and the deal passes to the next
participant. After the last round (ten by default) equal top scores share the
victory. A learner alone plays with the trainer as the dealer.

>>> import random
>>> game = TeachingGame(["Asha", "Ravi", "Nino"])
>>> rnd = game.start_round(rng=random.Random(1))
>>> game.dealer, game.players
('Asha', ('Ravi', 'Nino'))
>>> _ = rnd.place_marker("Ravi", "andar"); _ = rnd.place_marker("Nino", "bahar")
>>> _ = rnd.play()
>>> game.finish_round().winner
<Row.BAHAR: 'bahar'>
>>> game.scores
{'Asha': 0, 'Ravi': 0, 'Nino': 1}
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from andar_bahar.engine.cards import shuffled
from andar_bahar.engine.errors import ActionError, BetError
from andar_bahar.engine.paytables import Paytable, find_paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Procedure, Row, find_procedure
from andar_bahar.i18n.messages import N_, Message

__all__ = ["TRAINER", "RoundScore", "Standing", "TeachingGame"]

TRAINER = "trainer"
"""The dealer's name when the trainer deals for a learner alone."""
RECOMMENDED = range(2, 9)
"""2–8 participants in all suit a small lesson (the lesson's own advice)."""


@dataclass(frozen=True, slots=True)
class RoundScore:
    """One round of the lesson: who dealt, who marked what, who won, who scored."""

    number: int
    dealer: str
    markers: Mapping[str, Row]
    winner: Row | None
    tokens: Mapping[str, int]

    @property
    def void(self) -> bool:
        return self.winner is None


@dataclass(frozen=True, slots=True)
class Standing:
    """A participant's place after the lesson."""

    place: int
    name: str
    tokens: int
    shared: bool


class TeachingGame:
    """A lesson of *rounds* rounds (the procedure's own number by default).

    *participants* take turns to deal. With ``trainer_deals=True`` the trainer
    deals every round and every participant plays (a learner alone, or a group
    that wants no human dealer). ``scoring=False`` plays without tokens.
    """

    def __init__(
        self,
        participants: Sequence[str],
        *,
        procedure: Procedure | None = None,
        paytable: Paytable | None = None,
        rounds: int | None = None,
        scoring: bool = True,
        trainer_deals: bool = False,
    ) -> None:
        names = [name.strip() for name in participants]
        if any(not name for name in names):
            raise BetError(Message(N_("A participant needs a name.")))
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise BetError(
                Message(
                    N_("The name {name} is given twice: every participant needs their own."),
                    name=repeated[0],
                )
            )
        if trainer_deals and TRAINER in names:
            raise BetError(Message(N_("The name '{name}' is kept for the trainer."), name=TRAINER))
        minimum = 1 if trainer_deals else 2
        if len(names) < minimum:
            raise BetError(
                Message(
                    N_(
                        "The lesson needs a dealer and at least one player: add a participant"
                        " or let the trainer deal."
                    )
                )
            )
        rules = procedure or find_procedure("home")
        self.procedure = rules.replace(markers_only=True)
        self.paytable = paytable or find_paytable(rules.paytable)
        self.participants: tuple[str, ...] = tuple(names)
        self.rounds = rounds if rounds is not None else rules.rounds
        if not 1 <= self.rounds <= 1000:
            raise BetError(Message(N_("A lesson has 1 to 1000 rounds, not {n}."), n=self.rounds))
        self.scoring = scoring
        self.trainer_deals = trainer_deals
        self.history: list[RoundScore] = []
        self.current: Round | None = None
        self._dealt_rounds = 0  # rounds completed: the deal passes on after each

    @property
    def note(self) -> Message | None:
        """A note when the group is larger than a small lesson (allowed, but said)."""
        count = len(self.participants) + (1 if self.trainer_deals else 0)
        if count > max(RECOMMENDED):
            return Message(
                N_(
                    "{n} participants: more than the 2–8 that suit a small lesson, but the"
                    " rules allow it; everyone still plays."
                ),
                n=count,
            )
        return None

    @property
    def round_number(self) -> int:
        """The number of the round in play (or next), counting from 1; void rounds repeat."""
        return len([s for s in self.history if not s.void]) + 1

    @property
    def dealer(self) -> str:
        if self.trainer_deals:
            return TRAINER
        return self.participants[self._dealt_rounds % len(self.participants)]

    @property
    def players(self) -> tuple[str, ...]:
        """Who puts a marker this round: everyone but the dealer."""
        return tuple(name for name in self.participants if name != self.dealer)

    @property
    def finished(self) -> bool:
        return self.round_number > self.rounds

    @property
    def scores(self) -> dict[str, int]:
        totals = dict.fromkeys(self.participants, 0)
        for score in self.history:
            for name, tokens in score.tokens.items():
                totals[name] += tokens
        return totals

    def start_round(self, *, rng: random.Random | None = None, physical: bool = False) -> Round:
        """A new round: a freshly shuffled deck (or a real deck typed in, *physical*)."""
        if self.finished:
            raise ActionError(
                Message(N_("The lesson is over: {n} rounds have been played."), n=self.rounds)
            )
        if self.current is not None and not self.current.finished:
            raise ActionError(Message(N_("Finish the round in play first.")))
        deck = None if physical else shuffled(rng)
        self.current = Round(self.procedure, self.paytable, deck=deck)
        return self.current

    def missing_markers(self) -> tuple[str, ...]:
        """The players who have not yet put a marker on a row."""
        if self.current is None:
            return self.players
        return tuple(name for name in self.players if name not in self.current.markers)

    def check_ready_to_deal(self) -> None:
        """Refuse the first card while a player has no marker."""
        missing = self.missing_markers()
        if missing:
            raise ActionError(
                Message(
                    N_(
                        "Waiting for a marker from {names}: every player marks a row before the deal."
                    ),
                    names=list(missing),
                )
            )

    def finish_round(self) -> RoundScore:
        """Score the finished round: one token for each marker on the winning row."""
        rnd = self.current
        if rnd is None or not rnd.finished:
            raise ActionError(Message(N_("The round is not over yet: deal until a card matches.")))
        result = rnd.result
        markers = {name: row for name, row in rnd.markers.items() if name in self.players}
        tokens = {
            name: int(
                self.scoring and result.winner is not None and markers.get(name) is result.winner
            )
            for name in self.players
        }
        score = RoundScore(self.round_number, self.dealer, markers, result.winner, tokens)
        self.history.append(score)
        if not score.void:  # a void round is repeated with the same dealer
            self._dealt_rounds += 1
        self.current = None
        return score

    def standings(self) -> list[Standing]:
        """Places by tokens; equal top scores are a shared victory.

        >>> game = TeachingGame(["A", "B", "C"], rounds=1)
        >>> [s.shared for s in game.standings()]
        [True, True, True]
        """
        scores = self.scores
        ordered = sorted(self.participants, key=lambda name: -scores[name])
        top = scores[ordered[0]] if ordered else 0
        leaders = [name for name in ordered if scores[name] == top]
        standings = []
        for name in ordered:
            place = 1 + sum(1 for other in ordered if scores[other] > scores[name])
            standings.append(
                Standing(place, name, scores[name], len(leaders) > 1 and name in leaders)
            )
        return standings

    @property
    def winners(self) -> tuple[str, ...]:
        """Everyone with the top score (more than one: a shared victory)."""
        return tuple(s.name for s in self.standings() if s.place == 1)
