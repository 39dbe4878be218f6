"""Paytables: what each bet pays, how the club writes it, and how wins are rounded (SPEC §7).

Odds are exact :class:`~fractions.Fraction` values "to 1" (the win per unit
staked, excluding the stake). A club may write "X for 1" (the whole return);
the trainer always shows "to 1".

>>> Odds.parse("3.5 for 1")
Odds.parse('2.5 to 1')
>>> Odds.parse("0,9:1").to_one
Fraction(9, 10)
>>> wizard = find_paytable("wizard")
>>> wizard.win(Decimal(120), wizard.main_odds(Row.ANDAR, first_row=Row.ANDAR))
Decimal('108')
>>> str(wizard.band_for(7).bet), str(wizard.band_for(7).odds)
('cards:6-10', '3.5 to 1')
"""

from __future__ import annotations

import itertools
import json
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from typing import Any

from andar_bahar.engine.bets import MAX_CARDS_DEALT, Bet, CardsBet, MainBet
from andar_bahar.engine.errors import BetError, PaytableError
from andar_bahar.engine.money import (
    MAX_PLACES,
    Amount,
    as_decimal,
    check_amount,
    decimal_sign,
    format_amount,
)
from andar_bahar.engine.rules import Row
from andar_bahar.i18n.messages import N_, Message, Sentence, Translator, translate

__all__ = [
    "PAYTABLES",
    "Band",
    "MainKey",
    "Odds",
    "Paytable",
    "Rounding",
    "find_paytable",
    "load_paytable",
]

MAX_ODDS = 1_000_000
"""No bet pays more than a million to one (the longest published pays are hundreds)."""

_ODDS_RE = re.compile(
    r"^\s*(?P<x>\d{1,15}(?:[.,]\d{1,15})?(?:/\d{1,15})?)\s*(?P<how>to|for|:|к|за|-ზე)?\s*(?:1)?\s*(?:-ზე)?\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Odds:
    """What a bet pays "to 1": the win per unit staked, excluding the stake.

    ``written`` keeps the club's own wording ("3.5 for 1") for display.
    """

    to_one: Fraction
    written: str = ""

    @classmethod
    def parse(cls, text: str | int | Decimal) -> Odds:
        """Read ``X to 1``, ``X:1``, ``X for 1`` or a bare number (meaning "to 1").

        >>> Odds.parse(3), Odds.parse("19/20 to 1").to_one
        (Odds.parse('3 to 1'), Fraction(19, 20))
        >>> Odds.parse("1 for 1")
        Traceback (most recent call last):
        ...
        andar_bahar.engine.errors.PaytableError: The odds '1 for 1' pay nothing: "X for 1" must have X greater than 1.
        """
        if isinstance(text, (int, Decimal)) and not isinstance(text, bool):
            if isinstance(text, Decimal) and not text.is_finite():
                raise PaytableError(
                    Message(
                        N_(
                            "The odds '{text}' cannot be read: write them as '0.9 to 1' or '3.5 for 1'."
                        ),
                        text=text,
                    )
                )
            value = Fraction(text)
            how = "to"
        elif len(str(text)) > 40:
            raise PaytableError(
                Message(
                    N_(
                        "The odds '{text}' cannot be read: write them as '0.9 to 1' or '3.5 for 1'."
                    ),
                    text=text,
                )
            )
        else:
            match = _ODDS_RE.match(str(text))
            if match is None:
                raise PaytableError(
                    Message(
                        N_(
                            "The odds '{text}' cannot be read: write them as '0.9 to 1' or '3.5 for 1'."
                        ),
                        text=text,
                    )
                )
            number = match.group("x").replace(",", ".")
            if "/" in number:
                top, bottom = number.split("/")
                if int(bottom) == 0:
                    raise PaytableError(Message(N_("The odds '{text}' divide by zero."), text=text))
                value = Fraction(Decimal(top)) / int(bottom)
            else:
                value = Fraction(Decimal(number))
            how = (match.group("how") or "to").lower()
            if how in ("for", "за"):
                if value <= 1:
                    raise PaytableError(
                        Message(
                            N_(
                                "The odds '{text}' pay nothing: \"X for 1\" must have X greater than 1."
                            ),
                            text=text,
                        )
                    )
                value -= 1
        if value <= 0:
            raise PaytableError(
                Message(N_("The odds '{text}' must be greater than zero."), text=text)
            )
        if value > MAX_ODDS or value.denominator > 10**MAX_PLACES:
            raise PaytableError(
                Message(
                    N_(
                        "The odds '{text}' are out of range: at most {most} to 1, with at most"
                        " {places} decimal places."
                    ),
                    text=text,
                    most=MAX_ODDS,
                    places=MAX_PLACES,
                )
            )
        return cls(value, str(text).strip())

    @property
    def for_one(self) -> Fraction:
        """The whole return per unit staked, stake included."""
        return self.to_one + 1

    def _number(self) -> str:
        if 10**12 % self.to_one.denominator == 0:
            return format_amount(Decimal(self.to_one.numerator) / self.to_one.denominator)
        return str(self.to_one)

    def localized(self, translator: Translator | None) -> str:
        """``2.5 to 1`` in English, ``2,5:1`` in Russian and Georgian."""
        number = self._number()
        if translator is None:
            return f"{number} to 1"
        return Message(N_("{x} to 1"), x=number.replace(".", decimal_sign(translator))).localized(
            translator
        )

    def __str__(self) -> str:
        return f"{self._number()} to 1"

    def __repr__(self) -> str:
        return f"Odds.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Odds) and self.to_one == other.to_one

    def __hash__(self) -> int:
        return hash(self.to_one)


class MainKey(StrEnum):
    """How the main bets' pays are keyed."""

    ROW = "row"
    """Andar pays one figure, Bahar another."""
    FIRST_ROW = "first-row"
    """The row dealt first pays one figure, the other row another."""


class Rounding(StrEnum):
    """How a win that the chip unit cannot pay exactly is rounded."""

    DOWN = "down"
    """Round the win down to the chip unit (the default)."""
    HALF_UP = "half-up"
    """Round to the nearest chip unit, halves up."""
    UP = "up"
    """Round the win up to the chip unit."""

    def apply(self, units: Fraction) -> int:
        if self is Rounding.DOWN:
            return math.floor(units)
        if self is Rounding.UP:
            return math.ceil(units)
        return math.floor(units + Fraction(1, 2))

    def localized(self, translator: Translator | None) -> str:
        return translate(_ROUNDING_NAMES[self], translator)


_ROUNDING_NAMES = {
    Rounding.DOWN: N_("rounded down to the chip"),
    Rounding.HALF_UP: N_("rounded to the nearest chip"),
    Rounding.UP: N_("rounded up to the chip"),
}


@dataclass(frozen=True, slots=True)
class Band:
    """A side bet on the number of cards dealt and its odds."""

    bet: CardsBet
    odds: Odds

    @property
    def label(self) -> str:
        """``1–5``, ``41+`` or ``7``: how paytables print a band."""
        if self.bet.low == self.bet.high:
            return str(self.bet.low)
        if self.bet.high == MAX_CARDS_DEALT:
            return f"{self.bet.low}+"
        return f"{self.bet.low}–{self.bet.high}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Paytable:
    """A table of odds for the main bets and the side bets on cards dealt.

    With ``keyed_by=ROW`` the two main odds are (Andar, Bahar); with
    ``FIRST_ROW`` they are (the row dealt first, the other row).
    """

    name: str
    main: tuple[Odds, Odds]
    keyed_by: MainKey = MainKey.ROW
    bands: tuple[Band, ...] = ()
    chip: Decimal = Decimal(1)
    rounding: Rounding = Rounding.DOWN
    min_stake: Decimal | None = None
    max_stake: Decimal | None = None
    source: str = ""
    bands_by_count: Mapping[int, Band] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        problems = _check_bands(self.bands)
        if self.chip <= 0:
            problems.append(("chip", Message(N_("the chip unit must be greater than zero"))))
        if (
            self.min_stake is not None
            and self.max_stake is not None
            and (self.min_stake > self.max_stake)
        ):
            problems.append(("limits", Message(N_("the minimum stake is above the maximum stake"))))
        if problems:
            entry, problem = problems[0]
            raise PaytableError(
                Message(
                    N_("Paytable '{name}', {entry}: {problem}."),
                    name=self.name,
                    entry=entry,
                    problem=problem,
                )
            )
        by_count = {
            count: band for band in self.bands for count in range(band.bet.low, band.bet.high + 1)
        }
        object.__setattr__(self, "bands_by_count", by_count)

    def main_odds(self, row: Row, *, first_row: Row | None) -> Odds:
        """The odds of a main bet on *row* in a round whose first card went to *first_row*.

        >>> pt = Paytable(name="t", main=(Odds.parse("0.9 to 1"), Odds.parse(1)), keyed_by=MainKey.FIRST_ROW)
        >>> str(pt.main_odds(Row.BAHAR, first_row=Row.BAHAR))
        '0.9 to 1'
        """
        if self.keyed_by is MainKey.ROW:
            return self.main[0] if row is Row.ANDAR else self.main[1]
        if first_row is None:
            raise ValueError("odds keyed by first row need the first row")
        return self.main[0] if row is first_row else self.main[1]

    def band_for(self, cards_dealt: int) -> Band | None:
        """The band (if any) that a round with *cards_dealt* cards wins."""
        return self.bands_by_count.get(cards_dealt)

    def offers(self, bet: Bet) -> bool:
        """Whether *bet* is on this table (main bets always; side bets as listed)."""
        return isinstance(bet, MainBet) or any(band.bet == bet for band in self.bands)

    def check_offers(self, bet: Bet) -> None:
        """Raise :class:`BetError` listing the side bets on offer when *bet* is not one.

        >>> find_paytable("wizard").check_offers(Bet.parse("cards:3-7"))
        Traceback (most recent call last):
        ...
        andar_bahar.engine.errors.BetError: The paytable 'wizard' has no bet cards:3-7; it offers andar, bahar, cards:1-5, cards:6-10, cards:11-15, cards:16-25, cards:26-30, cards:31-35, cards:36-40, cards:41-49.
        """
        if not self.offers(bet):
            raise BetError(
                Message(
                    N_("The paytable '{name}' has no bet {bet}; it offers {offered}."),
                    name=self.name,
                    bet=str(bet),
                    offered=", ".join(str(b) for b in self.bets),
                )
            )

    @property
    def bets(self) -> tuple[Bet, ...]:
        """Every bet on the table, main bets first."""
        return (MainBet(Row.ANDAR), MainBet(Row.BAHAR), *(band.bet for band in self.bands))

    def odds_for(self, bet: Bet, *, first_row: Row | None) -> Odds:
        """The odds that *bet* pays if it wins."""
        if isinstance(bet, MainBet):
            return self.main_odds(bet.row, first_row=first_row)
        for band in self.bands:
            if band.bet == bet:
                return band.odds
        self.check_offers(bet)
        raise AssertionError  # pragma: no cover

    def exact_win(self, stake: Decimal, odds: Odds) -> Fraction:
        """The win before rounding: stake × odds, exactly."""
        return Fraction(stake) * odds.to_one

    def win(self, stake: Decimal, odds: Odds) -> Decimal:
        """The win paid: stake × odds, rounded to the chip unit by the table's rule.

        >>> pt = find_paytable("trainer-default")
        >>> pt.win(Decimal(15), Odds.parse("0.9 to 1"))   # 13.5 rounded down to whole chips
        Decimal('13')
        """
        units = self.rounding.apply(self.exact_win(stake, odds) / Fraction(self.chip))
        return as_decimal(self.chip * units)

    def check_stake(self, stake: Decimal) -> None:
        """Refuse a stake that is not positive, not whole chips, or outside the limits.

        The limits apply to the whole stake on a spot: a bet added to one already
        placed is checked with :meth:`check_chips`, and the total with this.
        """
        self.check_chips(stake)
        if self.min_stake is not None and stake < self.min_stake:
            raise BetError(
                Message(
                    N_("The stake {stake} is below the table minimum of {limit}."),
                    stake=Amount(stake),
                    limit=Amount(self.min_stake),
                )
            )
        if self.max_stake is not None and stake > self.max_stake:
            raise BetError(
                Message(
                    N_("The stake {stake} is above the table maximum of {limit}."),
                    stake=Amount(stake),
                    limit=Amount(self.max_stake),
                )
            )

    def check_chips(self, stake: Decimal) -> None:
        """Refuse an amount that is not positive or not a whole number of chips.

        >>> find_paytable("wizard").check_chips(Decimal("2.5"))
        Traceback (most recent call last):
        ...
        andar_bahar.engine.errors.BetError: The stake 2.5 is not a whole number of chips of 1.
        """
        if stake <= 0:
            raise BetError(
                Message(
                    N_("The stake {stake} must be greater than zero."),
                    stake=Amount(stake),
                )
            )
        if stake % self.chip != 0:
            raise BetError(
                Message(
                    N_("The stake {stake} is not a whole number of chips of {chip}."),
                    stake=Amount(stake),
                    chip=Amount(self.chip),
                )
            )

    def to_dict(self) -> dict[str, Any]:
        """The paytable as plain data, in the form of a club's TOML file."""
        main_keys = ("andar", "bahar") if self.keyed_by is MainKey.ROW else ("first", "second")
        data: dict[str, Any] = {"name": self.name}
        if self.source:
            data["source"] = self.source
        data["keyed_by"] = self.keyed_by.value
        data["chip"] = format_amount(self.chip)
        data["rounding"] = self.rounding.value
        data["main"] = {key: str(odds) for key, odds in zip(main_keys, self.main, strict=True)}
        limits = {}
        if self.min_stake is not None:
            limits["min"] = format_amount(self.min_stake)
        if self.max_stake is not None:
            limits["max"] = format_amount(self.max_stake)
        if limits:
            data["limits"] = limits
        data["cards"] = [
            {"range": band.label.replace("–", "-"), "pays": str(band.odds)} for band in self.bands
        ]
        return data

    def to_toml(self) -> str:
        """A club's TOML file for this paytable (loads back equal).

        >>> load_paytable(find_paytable("wizard").to_toml()) == find_paytable("wizard")
        True
        """
        data = self.to_dict()
        lines: list[str] = []
        for key in ("name", "source", "keyed_by", "chip", "rounding"):
            if key in data:
                lines.append(f"{key} = {_toml_string(str(data[key]))}")
        for table in ("main", "limits"):
            if table in data:
                lines.append("")
                lines.append(f"[{table}]")
                lines.extend(f"{k} = {_toml_string(v)}" for k, v in data[table].items())
        for band in data["cards"]:
            lines.append("")
            lines.append("[[cards]]")
            lines.append(f"range = {_toml_string(band['range'])}")
            lines.append(f"pays = {_toml_string(band['pays'])}")
        return "\n".join(lines) + "\n"


def _toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes (quotes, backslashes, control characters) are TOML's."""
    return json.dumps(text, ensure_ascii=False)


def _check_bands(bands: Sequence[Band]) -> list[tuple[str, Message]]:
    problems: list[tuple[str, Message]] = []
    ordered = sorted(enumerate(bands), key=lambda item: (item[1].bet.low, item[1].bet.high))
    for (_, left), (index, right) in itertools.pairwise(ordered):
        if right.bet.low <= left.bet.high:
            problems.append(
                (
                    f"cards[{index + 1}]",
                    Message(
                        N_("the band {band} overlaps the band {other}"),
                        band=right.label,
                        other=left.label,
                    ),
                )
            )
    return problems


def _band(range_text: str, odds: str) -> Band:
    bet = Bet.parse(f"cards:{range_text}")
    assert isinstance(bet, CardsBet)
    return Band(bet, Odds.parse(odds))


def _preset(
    name: str,
    source: str,
    main: tuple[str, str],
    bands: Sequence[tuple[str, str]],
    keyed_by: MainKey = MainKey.ROW,
) -> Paytable:
    return Paytable(
        name=name,
        main=(Odds.parse(main[0]), Odds.parse(main[1])),
        keyed_by=keyed_by,
        bands=tuple(_band(r, o) for r, o in bands),
        source=source,
    )


_TRAINER_BANDS = (
    ("1-5", "3 to 1"),
    ("6-10", "4 to 1"),
    ("11-15", "5 to 1"),
    ("16-25", "4 to 1"),
    ("26-30", "15 to 1"),
    ("31-35", "25 to 1"),
    ("36-40", "50 to 1"),
    ("41+", "120 to 1"),
)

PAYTABLES: dict[str, Paytable] = {
    "trainer-default": _preset(
        "trainer-default",
        N_("the trainer's default, seeds 001/002 (the rounded table)"),
        ("0.9 to 1", "1 to 1"),
        _TRAINER_BANDS,
    ),
    "wizard": _preset(
        "wizard",
        N_("the published table the seeds' worked examples follow (seed 001)"),
        ("0.9 to 1", "1 to 1"),
        (
            ("1-5", "3.5 for 1"),
            ("6-10", "4.5 for 1"),
            ("11-15", "5.5 for 1"),
            ("16-25", "4.5 for 1"),
            ("26-30", "15 for 1"),
            ("31-35", "25 for 1"),
            ("36-40", "50 for 1"),
            ("41+", "120 for 1"),
        ),
    ),
    "even-money": _preset(
        "even-money",
        N_("an operator's table: both rows 1 to 1 (seed 001, 'variants')"),
        ("1 to 1", "1 to 1"),
        _TRAINER_BANDS,
    ),
    "andar-0.95": _preset(
        "andar-0.95",
        N_("an operator's table: Andar 0.95 to 1, Bahar 1 to 1 (seed 001, 'variants')"),
        ("0.95 to 1", "1 to 1"),
        _TRAINER_BANDS,
    ),
}
"""The preset paytables of SPEC §7, each naming its source."""


def find_paytable(name: str) -> Paytable:
    """The preset called *name*; the error lists the valid names.

    >>> find_paytable("vegas")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.PaytableError: Unknown paytable 'vegas': choose one of trainer-default, wizard, even-money, andar-0.95, or give a .toml file.
    """
    paytable = PAYTABLES.get(name.strip().lower())
    if paytable is None:
        raise PaytableError(
            Message(
                N_("Unknown paytable '{name}': choose one of {names}, or give a .toml file."),
                name=name,
                names=", ".join(PAYTABLES),
            )
        )
    return paytable


_TOP_FIELDS = ("name", "source", "keyed_by", "chip", "rounding", "main", "limits", "cards")


class _Problems:
    """Collects every problem of a club's file, each naming the entry."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.items: list[Message] = []

    def add(self, entry: str, problem: Message) -> None:
        self.items.append(
            Message(
                N_("{file}, {entry}: {problem}"),
                file=self.source,
                entry=entry,
                problem=Sentence(problem),
            )
        )


def check_paytable(text: str, *, source: str = "paytable.toml") -> list[Message]:
    """Every problem of a club's paytable TOML, each naming the file and the entry.

    >>> for problem in check_paytable('name = "x"\\n[main]\\nandar = "0.9 to 1"\\nbahar = "1 to 1"\\n'
    ...                               '[[cards]]\\nrange = "1-5"\\npays = 3\\n[[cards]]\\nrange = "4-9"\\npays = 2\\n'
    ...                               'colour = "red"\\n', source="club.toml"):
    ...     print(problem)
    club.toml, cards[2]: unknown field 'colour'; the fields are range, pays.
    club.toml, cards[2]: the band 4–9 overlaps the band 1–5.
    """
    problems = _Problems(source)
    _build(text, problems)
    return problems.items


def load_paytable(text: str, *, source: str = "paytable.toml") -> Paytable:
    """Read a club's paytable from TOML *text*; the error names *source* and the entry."""
    problems = _Problems(source)
    paytable = _build(text, problems)
    if problems.items or paytable is None:
        error = PaytableError(problems.items[0])
        error.problems = list(problems.items)  # type: ignore[attr-defined]
        raise error
    return paytable


def _build(text: str, problems: _Problems) -> Paytable | None:
    try:
        data = tomllib.loads(text, parse_float=Decimal)
    except (tomllib.TOMLDecodeError, ValueError) as error:  # ValueError: an integer too long
        problems.items.append(
            Message(N_("{file} is not valid TOML: {reason}."), file=problems.source, reason=error)
        )
        return None
    for key in data:
        if key not in _TOP_FIELDS:
            problems.add(
                key,
                Message(
                    N_("unknown field '{field}'; the fields are {fields}"),
                    field=key,
                    fields=", ".join(_TOP_FIELDS),
                ),
            )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.add("name", Message(N_("the paytable needs a name (text)")))
        name = "?"
    source_text = data.get("source", "")
    keyed_by = _choice(data, "keyed_by", MainKey, MainKey.ROW, problems)
    rounding = _choice(data, "rounding", Rounding, Rounding.DOWN, problems)
    chip = _amount(data.get("chip", "1"), "chip", problems) or Decimal(1)
    if chip <= 0:
        problems.add("chip", Message(N_("the chip unit must be greater than zero")))
        chip = Decimal(1)
    main_keys = ("andar", "bahar") if keyed_by is MainKey.ROW else ("first", "second")
    main_data = data.get("main")
    main: list[Odds] = []
    if not isinstance(main_data, dict):
        problems.add(
            "main",
            Message(
                N_("the table [main] with {keys} is missing"),
                keys=main_keys,
            ),
        )
    else:
        for key in main_data:
            if key not in main_keys:
                problems.add(
                    f"main.{key}",
                    Message(
                        N_("unknown field '{field}'; the fields are {fields}"),
                        field=key,
                        fields=", ".join(main_keys),
                    ),
                )
        for key in main_keys:
            if key not in main_data:
                problems.add(f"main.{key}", Message(N_("the odds are missing")))
                continue
            odds = _odds(main_data[key], f"main.{key}", problems)
            if odds is not None:
                main.append(odds)
    limits_data = data.get("limits", {})
    min_stake = max_stake = None
    if not isinstance(limits_data, dict):
        problems.add("limits", Message(N_("must be a table with min and max")))
    else:
        for key in limits_data:
            if key not in ("min", "max"):
                problems.add(
                    f"limits.{key}",
                    Message(
                        N_("unknown field '{field}'; the fields are {fields}"),
                        field=key,
                        fields="min, max",
                    ),
                )
        if "min" in limits_data:
            min_stake = _amount(limits_data["min"], "limits.min", problems)
        if "max" in limits_data:
            max_stake = _amount(limits_data["max"], "limits.max", problems)
        if min_stake is not None and max_stake is not None and min_stake > max_stake:
            problems.add("limits", Message(N_("the minimum stake is above the maximum stake")))
    bands: list[Band] = []
    band_entries: list[str] = []
    cards_data = data.get("cards", [])
    if not isinstance(cards_data, list):
        problems.add("cards", Message(N_("write each side bet as a [[cards]] table")))
        cards_data = []
    for number, entry in enumerate(cards_data, start=1):
        where = f"cards[{number}]"
        if not isinstance(entry, dict):
            problems.add(where, Message(N_("write each side bet as a [[cards]] table")))
            continue
        for key in entry:
            if key not in ("range", "pays"):
                problems.add(
                    where,
                    Message(
                        N_("unknown field '{field}'; the fields are {fields}"),
                        field=key,
                        fields="range, pays",
                    ),
                )
        range_value = entry.get("range")
        if range_value is None:
            problems.add(where, Message(N_("the field 'range' is missing")))
            continue
        if "pays" not in entry:
            problems.add(where, Message(N_("the field 'pays' is missing")))
            continue
        try:
            bet = Bet.parse(f"cards:{range_value}")
        except BetError:
            problems.add(
                where,
                Message(
                    N_(
                        "the range '{range}' is not a count of cards dealt between 1 and {most}:"
                        " write '1-5', '41+' or '7'"
                    ),
                    range=range_value,
                    most=MAX_CARDS_DEALT,
                ),
            )
            continue
        odds = _odds(entry["pays"], where, problems)
        if odds is not None and isinstance(bet, CardsBet):
            bands.append(Band(bet, odds))
            band_entries.append(where)
    for entry_index, problem in _check_bands(bands):
        index = int(entry_index.removeprefix("cards[").removesuffix("]")) - 1
        problems.add(band_entries[index], problem)
    if problems.items or len(main) != 2:
        return None
    return Paytable(
        name=name.strip(),
        main=(main[0], main[1]),
        keyed_by=keyed_by,
        bands=tuple(bands),
        chip=chip,
        rounding=rounding,
        min_stake=min_stake,
        max_stake=max_stake,
        source=str(source_text),
    )


def _choice(
    data: Mapping[str, object],
    key: str,
    kind: type[MainKey] | type[Rounding],
    default: Any,
    problems: _Problems,
) -> Any:
    value = data.get(key, default.value)
    choices = [member.value for member in kind]
    if value not in choices:
        problems.add(
            key,
            Message(
                N_("'{value}' is not one of {choices}"), value=value, choices=", ".join(choices)
            ),
        )
        return default
    return kind(value)


def _amount(value: object, entry: str, problems: _Problems) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, str)):
        problems.add(entry, Message(N_("'{value}' is not an amount"), value=value))
        return None
    try:
        amount = check_amount(Decimal(str(value).replace(",", ".")), value)
    except (ArithmeticError, ValueError):  # BetError is a ValueError: out of range
        amount = Decimal("NaN")
    if not amount.is_finite() or amount <= 0:
        problems.add(
            entry, Message(N_("'{value}' is not an amount greater than zero"), value=value)
        )
        return None
    return amount


def _odds(value: object, entry: str, problems: _Problems) -> Odds | None:
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, str)):
        problems.add(
            entry,
            Message(N_("write the odds as '0.9 to 1' or '3.5 for 1', not '{value}'"), value=value),
        )
        return None
    try:
        return Odds.parse(value)
    except PaytableError as error:
        problems.add(entry, error.message)
        return None
