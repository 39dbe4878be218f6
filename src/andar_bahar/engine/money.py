"""Exact money: stakes and wins are :class:`~decimal.Decimal`, never binary floats.

>>> parse_stake("120")
Decimal('120')
>>> parse_stake("12,5", lang="ru"), parse_stake("1,000", lang="en")
(Decimal('12.5'), Decimal('1000'))
>>> parse_stake("abc")
Traceback (most recent call last):
...
andar_bahar.engine.errors.BetError: The stake 'abc' is not a number: write an amount such as 100 or 12.5.
>>> format_amount(Decimal("2.50"))
'2.5'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache

from andar_bahar.engine.errors import BetError
from andar_bahar.i18n import NUMBER_SYMBOLS
from andar_bahar.i18n.messages import N_, Message, Translator

__all__ = [
    "MAX_DIGITS",
    "MAX_PLACES",
    "Amount",
    "as_decimal",
    "check_amount",
    "foreign_digits",
    "format_amount",
    "parse_stake",
    "to_decimal",
]


MAX_DIGITS = 15
"""An amount has at most 15 digits before the decimal point …"""
MAX_PLACES = 6
"""… and at most 6 after it: far beyond any club's chips, and exact in every sum."""


_SMALLEST = Decimal(1).scaleb(-MAX_PLACES)


def check_amount(value: Decimal, text: object) -> Decimal:
    """*value* if it is a finite amount within the bounds (−0 read as 0), else a BetError."""
    if not value.is_finite():
        raise BetError(
            Message(
                N_("The stake '{text}' is not a number: write an amount such as 100 or 12.5."),
                text=text,
            )
        )
    if value.is_zero():
        return Decimal(0)
    if (
        not -MAX_PLACES <= value.adjusted() < MAX_DIGITS
        or value != value.quantize(_SMALLEST)  # more decimal places than a chip can have
    ):
        raise BetError(
            Message(
                N_(
                    "The amount '{text}' is out of range: write at most {digits} digits"
                    " before the decimal point and {places} after it."
                ),
                text=text,
                digits=MAX_DIGITS,
                places=MAX_PLACES,
            )
        )
    return value


def parse_stake(text: str | int | Decimal, *, lang: str | None = None) -> Decimal:
    """Read an amount written by a person in language *lang*; refuse anything else.

    The language's own grouping of thousands and decimal mark are read as its people write
    them (Babel's locale data: ``1,000.5`` in English, ``1 000,5`` in Russian and Georgian,
    where a point is read as a decimal mark too); groups of three apart by a space (or a
    no-break or thin space) are read in every language. An amount that could be two
    numbers — one comma or point before exactly three digits that is not the language's
    own grouping (``1,000`` in Russian, ``1.000`` in English) — is refused with a sentence
    that shows how to write it, never read as one of them. *lang* ``None``: no language's
    grouping, so a single comma or point before three digits is refused in any case.

    >>> parse_stake("1,000", lang="en"), parse_stake("1 000,5", lang="ru"), parse_stake("-5")
    (Decimal('1000'), Decimal('1000.5'), Decimal('-5'))
    >>> parse_stake("12,5", lang="ka"), parse_stake("12.5", lang="ru"), parse_stake("1.000,5")
    (Decimal('12.5'), Decimal('12.5'), Decimal('1000.5'))
    >>> parse_stake("1,000", lang="ru")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.BetError: The amount '1,000' could be 1 or 1000: write 1000, or 1 without the decimals.
    >>> parse_stake("1,00,0", lang="en")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.BetError: The amount '1,00,0' has a separator out of place: group the thousands in threes, as in 1,000,000, and write the decimals after '.', as in 12.5.
    >>> parse_stake("１０")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.BetError: The amount '１０' must be written with the digits 0 to 9 and at most one decimal point or comma, such as 100 or 12.5.
    >>> parse_stake("-0"), parse_stake("1" + "0" * 30)
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.BetError: The amount '1000000000000000000000000000000' is out of range: write at most 15 digits before the decimal point and 6 after it.
    """
    if isinstance(text, bool):
        text = str(text)
    if isinstance(text, int):
        return check_amount(Decimal(text), text)
    if isinstance(text, Decimal):
        return check_amount(text, text)
    written = text.strip()
    if len(written) > 40:
        return check_amount(Decimal("NaN"), text)
    if not _WRITTEN.fullmatch(written):
        try:  # Python reads other digits (١٠, １０), exponents and "1_0": a person does not
            value = Decimal(written.replace(",", ".").translate(_NO_SPACES))
        except InvalidOperation:
            value = Decimal("NaN")
        if not value.is_finite():
            return check_amount(value, text)
        raise BetError(
            Message(
                N_(
                    "The amount '{text}' must be written with the digits 0 to 9 and at most"
                    " one decimal point or comma, such as 100 or 12.5."
                ),
                text=text,
            )
        )
    return check_amount(_read(written, _notation(lang), text), text)


_SPACES = " \u00a0\u202f\u2009"
"""What groups thousands apart in every language: a space, a no-break, narrow no-break or
thin space (Babel writes Russian and Georgian amounts with the no-break one)."""
_NO_SPACES = str.maketrans("", "", _SPACES)
_WRITTEN = re.compile(r"[+-]?[0-9 \u00a0\u202f\u2009.,]*[0-9][0-9 \u00a0\u202f\u2009.,]*", re.ASCII)
"""An amount as people write it: ASCII digits, spaces, points and commas (placed anyhow:
:func:`_read` says where one is out of place)."""


@dataclass(frozen=True, slots=True)
class _Notation:
    """How a language writes amounts: its decimal mark, and its mark between thousands
    (``None``: a space, or no language's own, for an amount read without a language)."""

    decimal: str
    group: str | None

    def decimals(self, mark: str) -> bool:
        """Whether *mark* may be a decimal mark (a point always is, besides the language's)."""
        return mark != self.group and (mark in (self.decimal, ".") or self.group is None)


@lru_cache(maxsize=8)
def _notation(lang: str | None) -> _Notation:
    """The notation of *lang* (``None``: no language's): the trainer's languages' from
    :data:`~andar_bahar.i18n.NUMBER_SYMBOLS` (CLDR's, as Babel has them: a test holds the
    two to each other), without Babel's locale data (megabytes a server would keep all
    night); any other language's from Babel's."""
    if lang is None:
        return _Notation(".", None)
    if lang in NUMBER_SYMBOLS:
        decimal, group = NUMBER_SYMBOLS[lang]
    else:
        from babel.numbers import get_decimal_symbol, get_group_symbol

        decimal, group = get_decimal_symbol(lang), get_group_symbol(lang)
    return _Notation(decimal, None if group in _SPACES else group)


def _read(written: str, notation: _Notation, text: str) -> Decimal:
    """The amount *written* (sign, digits, marks) in *notation*, or why not (a BetError)."""
    sign, body = (written[0], written[1:]) if written[0] in "+-" else ("", written)
    marks = [c for c in body if c in ".,"]
    kinds = set(marks)
    decimal = None
    if len(kinds) == 2:  # both: the last one is the decimal mark (1,000.5 or 1.000,5)
        decimal = marks[-1]
    elif len(kinds) == 1 and len(marks) == 1 and notation.decimals(marks[0]):
        decimal = marks[0]
    whole, _, fraction = body.rpartition(decimal) if decimal else (body, "", "")
    if decimal and (marks.count(decimal) > 1 or (fraction and not fraction.isdigit())):
        raise _misplaced(text, notation)
    digits = _grouped(whole, text, notation)
    if decimal and len(kinds) == 1 and len(fraction) == 3 and _could_group(whole):
        raise _ambiguous(text, sign, digits, fraction, notation)
    return Decimal(f"{sign}{digits or '0'}.{fraction}" if fraction else f"{sign}{digits}")


def _could_group(whole: str) -> bool:
    """Whether *whole* could be the first group of thousands (1 to 3 digits, not 0…)."""
    return whole.isdigit() and len(whole) <= 3 and not whole.startswith("0")


def _grouped(whole: str, text: str, notation: _Notation) -> str:
    """The digits of the whole part *whole*, its groups of thousands checked."""
    separators = {c for c in whole if not c.isdigit()}
    if not separators:
        return whole
    if len(separators - set(_SPACES)) > 1 or (
        separators - set(_SPACES) and separators & set(_SPACES)
    ):  # two kinds of separators at once (1 000,000)
        raise _misplaced(text, notation)
    groups = re.split(f"[{re.escape(''.join(separators))}]", whole)
    if not _could_group(groups[0]) or any(len(g) != 3 for g in groups[1:]):
        raise _misplaced(text, notation)
    return "".join(groups)


def _misplaced(text: str, notation: _Notation) -> BetError:
    return BetError(
        Message(
            N_(
                "The amount '{text}' has a separator out of place: group the thousands in"
                " threes, as in {grouped}, and write the decimals after '{mark}', as in"
                " {fraction}."
            ),
            text=text,
            grouped=_written(Decimal(1_000_000), notation, grouping=True),
            mark=notation.decimal,
            fraction=_written(Decimal("12.5"), notation),
        )
    )


def _ambiguous(text: str, sign: str, whole: str, fraction: str, notation: _Notation) -> BetError:
    small = as_decimal(Decimal(f"{sign}{whole}.{fraction}"))
    large = f"{sign}{whole}{fraction}".lstrip("+")
    shown = _written(small, notation)
    if small == small.to_integral_value():
        message = N_(
            "The amount '{text}' could be {small} or {large}: write {large}, or {small}"
            " without the decimals."
        )
        return BetError(Message(message, text=text, small=shown, large=large))
    plain = shown + "0" if len(fraction.rstrip("0")) == 3 else shown  # 2.125 as 2.1250
    message = N_("The amount '{text}' could be {small} or {large}: write {large} or {plain}.")
    return BetError(Message(message, text=text, small=shown, large=large, plain=plain))


def _written(value: Decimal, notation: _Notation, *, grouping: bool = False) -> str:
    """*value* as *notation* writes it (its groups apart by its mark, or a space)."""
    if grouping:
        return f"{value:,f}".replace(",", notation.group or " ")
    return format_amount(value).replace(".", notation.decimal)


def to_decimal(value: Fraction) -> Decimal:
    """An exact fraction whose denominator divides a power of ten, as a Decimal.

    >>> to_decimal(Fraction(27, 2))
    Decimal('13.5')
    """
    denominator, twos, fives = value.denominator, 0, 0
    while denominator % 2 == 0:
        denominator, twos = denominator // 2, twos + 1
    while denominator % 5 == 0:
        denominator, fives = denominator // 5, fives + 1
    if denominator != 1:
        raise ValueError(f"{value} has no finite decimal expansion")
    digits = max(twos, fives)
    return as_decimal(Decimal(value.numerator * 10**digits // value.denominator).scaleb(-digits))


def as_decimal(value: Decimal) -> Decimal:
    """Normalise an amount for display and JSON: no exponent, no trailing zeros.

    >>> as_decimal(Decimal("1E+2")), as_decimal(Decimal("108.00"))
    (Decimal('100'), Decimal('108'))
    """
    normal = value.normalize()
    if normal == normal.to_integral_value():
        return normal.quantize(Decimal(1))
    return normal


def format_amount(value: Decimal) -> str:
    """An amount as plain text without exponent: ``108``, ``13.5``."""
    return format(as_decimal(value), "f")


def decimal_sign(translator: Translator | None) -> str:
    """The decimal sign of the user's language: ``.`` in English, ``,`` in Russian and Georgian."""
    if translator is None:
        return "."
    return translator.gettext(N_("decimal-sign:.")).removeprefix("decimal-sign:")


@dataclass(frozen=True, slots=True)
class Amount:
    """An amount inside a message, written with the user's decimal sign.

    >>> str(Amount(Decimal("12.50")))
    '12.5'
    """

    value: Decimal

    def localized(self, translator: Translator | None) -> str:
        return format_amount(self.value).replace(".", decimal_sign(translator))

    def __str__(self) -> str:
        return self.localized(None)


def foreign_digits(text: object) -> bool:
    """Whether *text* holds a digit other than 0 to 9 (``١``, ``５``): every number the
    program reads is written with the digits 0 to 9, as stakes are (:func:`parse_stake`).

    >>> foreign_digits("٠.٩ to 1"), foreign_digits("0.9 to 1")
    (True, False)
    """
    return any(ch.isdigit() and not "0" <= ch <= "9" for ch in str(text))
