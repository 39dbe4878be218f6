"""Reading and checking a learner's answers, forgivingly.

A row in any of the trainer's languages or by its first letter (``Андар``, ``ბაჰარი``,
``a``, ``B``), an amount with a decimal point or comma (``13,5``, ``13.5``), a choice by
its number or its bet name; anything else is simply a wrong answer, never an error.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from decimal import Decimal

from andar_bahar.engine.bets import Bet
from andar_bahar.engine.errors import AndarBaharError, BetError
from andar_bahar.engine.money import parse_stake
from andar_bahar.engine.rules import Row
from andar_bahar.games.drills.questions import Answer, AnswerKind, Drill, DrillResult, Question

__all__ = ["check_answers", "parse_amount", "parse_row"]

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
