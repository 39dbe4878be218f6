"""What a drill is: its kind, its questions, and the answers once checked.

>>> DrillKind("first-row").localized(None)
'Which row is dealt first?'
>>> question = Question("cards", Message(N_("How many cards were dealt?")), "4")
>>> question.answer, question.expected
(<AnswerKind.NUMBER: 'number'>, '4')
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from andar_bahar.engine.bets import Wager
from andar_bahar.engine.cards import Card
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.round import RoundResult
from andar_bahar.engine.rules import Procedure
from andar_bahar.i18n.messages import N_, Message, Translator

__all__ = [
    "PRACTICE_TITLES",
    "TITLES",
    "Answer",
    "AnswerKind",
    "Drill",
    "DrillKind",
    "DrillResult",
    "Practice",
    "Question",
    "practice_title",
]


class DrillKind(StrEnum):
    """What a drill asks."""

    LAYOUT = "layout"
    """Read a finished layout: which row won, how many cards were dealt."""
    PAY = "pay"
    """Pay a set of bets under a paytable."""
    FIRST_ROW = "first-row"
    """Say which row gets the first card under a start rule."""
    ODDS = "odds"
    """Say which of two bets has the lower house edge."""

    def localized(self, translator: Translator | None) -> str:
        return TITLES[self].localized(translator)


TITLES = {
    DrillKind.LAYOUT: Message(N_("Read the layout")),
    DrillKind.PAY: Message(N_("Pay the bets")),
    DrillKind.FIRST_ROW: Message(N_("Which row is dealt first?")),
    DrillKind.ODDS: Message(N_("Compare the house edges")),
}
"""Each kind's title: the drill's heading and its name in the terminal's list of drills
(where, at 80 columns, a title has 28 cells: keep each translation as short)."""


class Practice(StrEnum):
    """What a learner's progress is kept by: the four drills, and the dealer school's two
    exercises (paying a whole table against the clock, dealing a real deck)."""

    LAYOUT = "layout"
    PAY = "pay"
    FIRST_ROW = "first-row"
    ODDS = "odds"
    SCHOOL = "school"
    """Pay the table: every spot of a settled layout, against the clock."""
    REAL_DECK = "real-deck"
    """Deal a real deck: each card's row, then the winner, checked by the engine."""

    def localized(self, translator: Translator | None) -> str:
        return PRACTICE_TITLES[self].localized(translator)


PRACTICE_TITLES = {
    **{Practice(kind.value): title for kind, title in TITLES.items()},
    Practice.SCHOOL: Message(N_("Pay the table")),
    Practice.REAL_DECK: Message(N_("Deal a real deck")),
}


def practice_title(kind: str) -> Message | str:
    """The title of a kind of progress as stored (a kind this version does not know: as
    it is).

    >>> str(practice_title("school")), practice_title("row")
    ('Pay the table', 'row')
    """
    try:
        return PRACTICE_TITLES[Practice(kind)]
    except ValueError:
        return kind


class AnswerKind(StrEnum):
    """How an answer is read."""

    ROW = "row"
    """A row, in any of the trainer's languages, or its first letter."""
    NUMBER = "number"
    """A number, with a decimal point or comma; compared exactly as a Decimal."""
    CHOICE = "choice"
    """One of the question's ``options``: its number (1, 2 …) or its bet name."""


@dataclass(frozen=True, slots=True)
class Question:
    """One question: ``expected`` is the canonical answer (``bahar``, ``4``, ``108``, ``1``).

    ``answer`` says how the learner's text is read; for a CHOICE question
    ``options`` are the canonical names of the choices in order and
    ``expected`` is the number of the right one. A NUMBER answer lies between
    ``least`` and ``most`` (``None``: no bound given), a whole number if ``whole``:
    a front end that refuses what lies outside asks again rather than count it
    (:func:`~andar_bahar.games.drills.answers.refusal`); the bounds never tell the
    answer (a count may be any count the deck allows, a win any the bet could pay).
    """

    key: str
    prompt: Message
    expected: str
    answer: AnswerKind = AnswerKind.NUMBER
    options: tuple[str, ...] = ()
    least: Decimal = Decimal(0)
    most: Decimal | None = None
    whole: bool = False


@dataclass(frozen=True, slots=True)
class Drill:
    """A drill ready to show: facts, then questions; the explanation is for after the answers.

    ``result`` is the finished round to show (LAYOUT, PAY); ``paytable`` and
    ``wagers`` the bets to pay (PAY) or the table compared (ODDS). ``centre``
    and ``first_card`` are the cards a FIRST_ROW drill shows (and the centre
    card an ODDS drill may show once bets are still open after it).
    """

    kind: DrillKind
    title: Message
    questions: tuple[Question, ...]
    result: RoundResult | None
    paytable: Paytable | None
    wagers: tuple[Wager, ...]
    facts: tuple[Message, ...]
    procedure: Procedure | None = None
    centre: Card | None = None
    first_card: Card | None = None
    explanation: tuple[Message, ...] = ()


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer as given, the expected answer, and whether they agree."""

    key: str
    given: str
    expected: str
    correct: bool


@dataclass(frozen=True, slots=True)
class DrillResult:
    """The checked answers: ``correct`` when every one is right, and why."""

    correct: bool
    answers: tuple[Answer, ...]
    explanation: tuple[Message, ...]

    @property
    def right(self) -> int:
        """How many answers were right."""
        return sum(1 for answer in self.answers if answer.correct)
