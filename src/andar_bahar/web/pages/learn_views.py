"""What the trainer's pages show: a drill's questions and answer controls, its layout, the
result and its explanation, the progress as a table and as charts.

The drills themselves are :mod:`andar_bahar.games.drills` (the terminal's too): here they
are only put into the shape a page draws — which control each answer gets (a row to tap,
a choice, a count to type, an amount to type or to build from a tray of chips).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from markupsafe import Markup

from andar_bahar.chance.odds import percent_text
from andar_bahar.engine.bets import Bet
from andar_bahar.engine.cards import Card, Rank, Suit
from andar_bahar.engine.operations import RoundResult
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Row
from andar_bahar.games.drills import AnswerKind, Drill, DrillResult, Question, practice_title
from andar_bahar.games.wording import paytable_title
from andar_bahar.i18n import format_number, translations
from andar_bahar.i18n.messages import N_, Message, Translator, translate
from andar_bahar.reports.progress_chart import PERCENT, SECONDS, progress_svg
from andar_bahar.storage import DrillStats
from andar_bahar.web.pages.drawing import suit_name, suit_symbol

__all__ = [
    "TRAY",
    "Asked",
    "Layout",
    "asked_questions",
    "dealt_so_far",
    "layout_of",
    "picker_choices",
    "progress_view",
    "tray_for",
]

TRAY = (Decimal(1), Decimal(5), Decimal(10), Decimal(25), Decimal(100))
"""The chips of the tray an amount is built from (the table's own chip first, if smaller)."""


@dataclass(frozen=True, slots=True)
class Layout:
    """A finished round as the drill pages draw it (the verdict only once it may be seen)."""

    centre: Card | None
    target: Rank | None
    """The target rank chosen before the deal (when no centre card is turned)."""
    andar: tuple[Card, ...]
    bahar: tuple[Card, ...]
    matching: Card | None
    """The card that matched, marked only once the answers are checked (or for a pay drill,
    where the winner is given)."""
    winner: Row | None

    @property
    def rows(self) -> tuple[tuple[Row, tuple[Card, ...]], ...]:
        return ((Row.ANDAR, self.andar), (Row.BAHAR, self.bahar))


def dealt_so_far(rnd: Round, *, reveal: bool) -> Layout:
    """A round being dealt by hand, as far as it is (the match marked once it may be seen)."""
    matched = rnd.dealt[-1].card if reveal and rnd.dealt and rnd.dealt[-1].matched else None
    return Layout(
        rnd.centre,
        None if rnd.centre is not None else rnd.target,
        tuple(d.card for d in rnd.dealt if d.row is Row.ANDAR),
        tuple(d.card for d in rnd.dealt if d.row is Row.BAHAR),
        matched,
        rnd.dealt[-1].row if matched is not None else None,
    )


def picker_choices(lang: str) -> dict[str, Any]:
    """The ranks and suits of the card picker, in the page's words."""
    t = translations(lang)
    suits = [(s, suit_symbol(s), s in (Suit.HEARTS, Suit.DIAMONDS), suit_name(s, t)) for s in Suit]
    return {"ranks": list(Rank), "suits": suits}


def layout_of(result: RoundResult | None, *, reveal: bool) -> Layout | None:
    if result is None:
        return None
    return Layout(
        result.centre,
        None if result.centre is not None else result.target,
        result.andar,
        result.bahar,
        result.matching if reveal else None,
        result.winner if reveal else None,
    )


@dataclass(frozen=True, slots=True)
class Asked:
    """One question as a page asks it: its number, the control, what was given, the check."""

    number: int
    key: str
    prompt: Message
    control: str
    """``row``, ``choice`` (buttons or radios), ``count`` (a whole number), ``amount``."""
    options: tuple[tuple[str, str], ...]
    """(value, words) of each button: the rows, or the choices."""
    given: str
    correct: bool | None
    """``None`` until checked."""
    right: str
    """The right answer in the page's words (shown once checked)."""

    @property
    def mark(self) -> Message:
        """What was given and what is right, in a line (once checked)."""
        words = dict(self.options).get(self.given, self.given)
        return Message(
            N_("your answer: {given}; the right answer: {expected}"),
            given=words or "—",
            expected=self.right,
        )


def _control(question: Question) -> str:
    if question.answer is AnswerKind.ROW:
        return "row"
    if question.answer is AnswerKind.CHOICE:
        return "choice"
    return "count" if question.whole else "amount"


def _options(question: Question, t: Translator) -> tuple[tuple[str, str], ...]:
    if question.answer is AnswerKind.ROW:
        return tuple((row.value, row.localized(t)) for row in Row)
    if question.answer is AnswerKind.CHOICE:
        return tuple(
            (str(i), f"{i}) {Bet.parse(option).localized(t)}")
            for i, option in enumerate(question.options, start=1)
        )
    return ()


def _shown(question: Question, t: Translator, lang: str) -> str:
    """The right answer of *question* in the page's words."""
    if question.answer is AnswerKind.ROW:
        return Row(question.expected).localized(t)
    if question.answer is AnswerKind.CHOICE:
        index = int(question.expected) - 1
        return f"{question.expected}) {Bet.parse(question.options[index]).localized(t)}"
    return format_number(Decimal(question.expected), lang)


def asked_questions(
    drill: Drill, lang: str, given: Mapping[str, str], result: DrillResult | None
) -> list[Asked]:
    """The drill's questions as the page asks them (after a check: each one marked)."""
    t = translations(lang)
    marks = {answer.key: answer.correct for answer in result.answers} if result else {}
    return [
        Asked(
            number,
            question.key,
            question.prompt,
            _control(question),
            _options(question, t),
            given.get(question.key, ""),
            marks.get(question.key),
            _shown(question, t, lang),
        )
        for number, question in enumerate(drill.questions, start=1)
    ]


def tray_for(paytable: Paytable | None) -> list[Decimal]:
    """The chips of the tray: the table's chip when it is not one of them, then the tray's."""
    chip = paytable.chip if paytable is not None else Decimal(1)
    return ([chip] if chip not in TRAY else []) + list(TRAY)


# -- progress ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionLine:
    """One session of the progress: when it began, its answers, accuracy and time."""

    began: str
    kind: str
    title: Message | str
    attempts: int
    correct: int
    accuracy: str
    seconds: str


def _sessions(rows: Iterable[DrillStats]) -> list[tuple[str, int, int, Decimal]]:
    """Each session (in the order they began) with its answers, right ones, total seconds."""
    order: list[str] = []
    totals: dict[str, tuple[str, int, int, Decimal]] = {}
    for row in rows:
        began, attempts, right, seconds = totals.get(
            row.session, (row.first_at.strftime("%m-%d %H:%M"), 0, 0, Decimal(0))
        )
        if row.session not in totals:
            order.append(row.session)
        totals[row.session] = (
            began,
            attempts + row.attempts,
            right + row.correct,
            seconds + row.total_seconds,
        )
    return [totals[name] for name in order]


def progress_view(progress: Sequence[DrillStats], lang: str, kind: str | None) -> dict[str, Any]:
    """The progress page: every kind practised, the lines of the table (of one *kind*, or
    all), and the two charts of those lines' sessions."""
    t = translations(lang)
    kinds = list(dict.fromkeys(row.kind for row in progress))
    chosen = [row for row in progress if kind is None or row.kind == kind]
    lines = [
        SessionLine(
            row.first_at.strftime("%m-%d %H:%M"),
            row.kind,
            practice_title(row.kind),
            row.attempts,
            row.correct,
            percent_text(row.accuracy, t),
            format_number(row.mean_seconds.quantize(Decimal("0.1")), lang),
        )
        for row in chosen
    ]
    sessions = _sessions(chosen)
    accuracy = [(began[:5], Fraction(right, count)) for began, count, right, _ in sessions]
    seconds = [
        (began[:5], (total / count).quantize(Decimal("0.1"))) for began, count, _, total in sessions
    ]
    words = {
        "accuracy": translate(N_("Accuracy, session by session"), t),
        "seconds": translate(N_("Seconds per answer, session by session"), t),
    }
    return {
        "kinds": [(k, practice_title(k)) for k in kinds],
        "kind": kind,
        "lines": lines,
        "accuracy_chart": Markup(  # noqa: S704 — numbers and escaped words
            progress_svg(accuracy, PERCENT, title=words["accuracy"], translator=t)
        ),
        "seconds_chart": Markup(  # noqa: S704 — numbers and escaped words
            progress_svg(seconds, SECONDS, title=words["seconds"], translator=t)
        ),
    }


def rules_words(procedure_name: str | None, paytable: Paytable | None, t: Translator) -> Message:
    """The rules a learner practises on, in one line."""
    if procedure_name is None and paytable is None:
        return Message(N_("every preset procedure and paytable, varied"))
    return Message(
        N_("procedure {procedure}, paytable {paytable}"),
        procedure=procedure_name or translate(N_("varied"), t),
        paytable=paytable_title(paytable, t)
        if paytable is not None
        else translate(N_("varied"), t),
    )
