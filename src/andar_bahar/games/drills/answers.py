"""Reading and checking a learner's answers, forgivingly.

A row in any of the trainer's languages or by its first letter (``Андар``, ``ბაჰარი``,
``a``, ``B``), an amount with a decimal point or comma (``13,5``, ``13.5``), a choice by
its number or its bet name; anything else is simply a wrong answer, never an error.

A front end with a field per answer may first ask :func:`refusal` whether the answers
can be read at all: one that is blank, no number, or outside what the question allows
is refused with a sentence, so that a slip of the finger counts nothing.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from decimal import Decimal

from andar_bahar.engine.bets import Bet
from andar_bahar.engine.errors import AndarBaharError, BetError
from andar_bahar.engine.money import Amount, parse_stake
from andar_bahar.engine.rules import Row
from andar_bahar.games.drills.questions import Answer, AnswerKind, Drill, DrillResult, Question
from andar_bahar.i18n.messages import N_, Message

__all__ = ["check_answers", "parse_amount", "parse_row", "refusal"]

_ROW_ALIASES: dict[str, Row] = {
    alias: row
    for row, aliases in (
        (Row.ANDAR, ("andar", "a", "андар", "а", "ანდარი", "ანდარ", "ა")),
        (Row.BAHAR, ("bahar", "b", "бахар", "б", "ბაჰარი", "ბაჰარ", "ბ")),
    )
    for alias in aliases
}
_TRIM = " \t\r\n.!?,;:'\"«»„“”()"


def _clean(text: object) -> str:
    return unicodedata.normalize("NFC", str(text)).strip(_TRIM).casefold()


def parse_row(text: object) -> Row | None:
    """A row named in English, Russian or Georgian (or by its first letter); ``None`` otherwise.

    >>> parse_row(" Андар "), parse_row("ბაჰარი"), parse_row("B"), parse_row("middle")
    (<Row.ANDAR: 'andar'>, <Row.BAHAR: 'bahar'>, <Row.BAHAR: 'bahar'>, None)
    """
    return _ROW_ALIASES.get(" ".join(_clean(text).split()))


def parse_amount(text: object, lang: str | None = None) -> Decimal | None:
    """An amount as :func:`~andar_bahar.engine.money.parse_stake` reads it in *lang* (a
    sentence's full stop after it allowed); ``None`` if it is not one, or is ambiguous.

    >>> parse_amount("13,5"), parse_amount(" 108. "), parse_amount("1 250.5"), parse_amount("lots")
    (Decimal('13.5'), Decimal('108'), Decimal('1250.5'), None)
    >>> parse_amount("1,080", "en"), parse_amount("1,080", "ru")
    (Decimal('1080'), None)
    """
    try:
        return parse_stake(str(text).strip().rstrip("."), lang=lang)
    except BetError:
        return None


def _choice(text: object, options: Sequence[str]) -> int | None:
    """The 0-based index of the option the answer names, or ``None``."""
    number = parse_amount(_clean(text))
    if number is not None:
        if number == number.to_integral_value() and 1 <= number <= len(options):
            return int(number) - 1
        return None
    names: list[str] = []
    row = parse_row(text)
    if row is not None:
        names.append(row.value)
    cleaned = _clean(text)
    for candidate in (cleaned, f"cards:{cleaned}"):
        try:
            names.append(str(Bet.parse(candidate.replace("–", "-"))))
        except AndarBaharError:
            continue
    for name in names:
        if name in options:
            return options.index(name)
    return None


def _is_correct(question: Question, given: str, lang: str | None) -> bool:
    if question.answer is AnswerKind.ROW:
        row = parse_row(given)
        return row is not None and row is parse_row(question.expected)
    if question.answer is AnswerKind.CHOICE:
        index = _choice(given, question.options)
        return index is not None and str(index + 1) == question.expected.strip()
    amount = parse_amount(given, lang)
    return amount is not None and amount == Decimal(question.expected)


def check_answers(drill: Drill, answers: Mapping[str, str], lang: str | None = None) -> DrillResult:
    """Check *answers* (question key → text as typed, amounts as written in *lang*); a
    missing, unreadable or ambiguous one is wrong.

    >>> import random
    >>> from andar_bahar.engine.rules import find_procedure
    >>> from andar_bahar.games.drills import DrillKind, make_drill
    >>> drill = make_drill(DrillKind.FIRST_ROW, random.Random(1), procedure=find_procedure("home"))
    >>> [str(fact) for fact in drill.facts]
    ["Start rule: centre card's colour: black → Andar first, red → Bahar first", 'Centre card (joker): A♥']
    >>> result = check_answers(drill, {"row": "???"})
    >>> result.correct, result.answers[0].expected, str(result.explanation[0])
    (False, 'bahar', 'The centre card A♥ is red: black → Andar first, red → Bahar first, so the first card goes to Bahar.')
    >>> check_answers(drill, {"row": "ბაჰარი"}).correct
    True
    """
    checked: list[Answer] = []
    for question in drill.questions:
        raw = answers.get(question.key, "")
        given = raw if isinstance(raw, str) else str(raw)
        checked.append(
            Answer(question.key, given, question.expected, _is_correct(question, given, lang))
        )
    return DrillResult(all(answer.correct for answer in checked), tuple(checked), drill.explanation)


def refusal(drill: Drill, answers: Mapping[str, str], lang: str | None = None) -> Message | None:
    """Why *answers* cannot be counted (the first answer that is blank, unreadable or out
    of its question's bounds, by its number), or ``None`` when every one can be checked.

    >>> import random
    >>> from andar_bahar.engine.rules import find_procedure
    >>> from andar_bahar.games.drills import DrillKind, make_drill
    >>> drill = make_drill(DrillKind.LAYOUT, random.Random(22), procedure=find_procedure("classic"))
    >>> print(refusal(drill, {"winner": "Bahar", "cards": "many"}, "en"))
    Answer 2: 'many' is not a number: write it with digits, such as 13 or 13.5.
    >>> print(refusal(drill, {"winner": "Bahar", "cards": "60"}, "en"))
    Answer 2: 60 is out of range: write a number from 1 to 51.
    >>> refusal(drill, {"winner": "Bahar", "cards": "5"}, "en") is None
    True
    """
    for number, question in enumerate(drill.questions, start=1):
        raw = answers.get(question.key, "")
        why = _refused(question, raw if isinstance(raw, str) else str(raw), lang)
        if why is not None:
            return Message(N_("Answer {n}: {why}"), n=number, why=why)
    return None


def _refused(question: Question, given: str, lang: str | None) -> Message | None:
    """Why one answer cannot be counted (without the answer's number), or ``None``."""
    if not given.strip():
        return Message(N_("it is blank; answer it, then check."))
    if question.answer is AnswerKind.ROW:
        ok = parse_row(given) is not None
        return (
            None if ok else Message(N_("'{text}' is not a row: choose Andar or Bahar."), text=given)
        )
    if question.answer is AnswerKind.CHOICE:
        if _choice(given, question.options) is not None:
            return None
        return Message(
            N_("'{text}' is not one of the choices: choose 1 to {n}."),
            text=given,
            n=len(question.options),
        )
    amount = parse_amount(given, lang)
    if amount is None:
        return Message(
            N_("'{text}' is not a number: write it with digits, such as 13 or 13.5."), text=given
        )
    if question.whole and amount != amount.to_integral_value():
        return Message(
            N_("{value} is not a whole number: count whole cards."), value=Amount(amount)
        )
    if amount < question.least or (question.most is not None and amount > question.most):
        return Message(
            N_("{value} is out of range: write a number from {least} to {most}."),
            value=Amount(amount),
            least=Amount(question.least),
            most=Amount(question.most) if question.most is not None else "…",
        )
    return None
