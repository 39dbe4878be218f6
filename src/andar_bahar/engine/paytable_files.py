"""A club's paytable file: reading, validating and naming every problem.

Pure: the text comes in, the fields of a :class:`~andar_bahar.engine.paytables.Paytable`
(which :func:`~andar_bahar.engine.paytables.load_paytable` builds it from) or a list of
problems (each naming the file and the entry) goes out. Reading the file from disk is
:mod:`andar_bahar.engine.clubfiles`'s job. The import runs one way: ``paytables`` reads
its files through this module, which knows the values a paytable is made of
(:mod:`~andar_bahar.engine.pays`), not the class.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, TypedDict

from andar_bahar.engine.bets import MAX_CARDS_DEALT, Bet, CardsBet, CentreKind
from andar_bahar.engine.errors import BetError, PaytableError
from andar_bahar.engine.money import check_amount, foreign_digits, parse_stake
from andar_bahar.engine.pays import (
    Band,
    CentrePays,
    CountPays,
    MainKey,
    Odds,
    Rounding,
    check_bands,
    check_count_pays,
)
from andar_bahar.engine.rules import read_toml
from andar_bahar.i18n.messages import N_, Message, Sentence

__all__ = ["PaytableFields", "check_paytable", "read_paytable_fields"]


class PaytableFields(TypedDict):
    """The keyword arguments of a :class:`~andar_bahar.engine.paytables.Paytable`."""

    name: str
    main: tuple[Odds, Odds]
    keyed_by: MainKey
    bands: tuple[Band, ...]
    main_by_count: tuple[CountPays, ...]
    centre: tuple[CentrePays, ...]
    chip: Decimal
    rounding: Rounding
    min_stake: Decimal | None
    max_stake: Decimal | None
    source: str


_TOP_FIELDS = (
    "name",
    "source",
    "keyed_by",
    "chip",
    "rounding",
    "main",
    "limits",
    "centre",
    "cards",
)
_CENTRE_KINDS = tuple(kind.value for kind in CentreKind)


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


def read_paytable_fields(text: str, *, source: str = "paytable.toml") -> PaytableFields:
    """A club's paytable from TOML *text*, as the fields of a paytable; the error names
    *source* and the entry (and carries every problem as ``problems``)."""
    problems = _Problems(source)
    fields = _build(text, problems)
    if problems.items or fields is None:
        error = PaytableError(problems.items[0])
        error.problems = list(problems.items)  # type: ignore[attr-defined]
        raise error
    return fields


def _build(text: str, problems: _Problems) -> PaytableFields | None:
    try:
        data = read_toml(text, problems.source, PaytableError, parse_float=Decimal)
    except PaytableError as error:
        problems.items.append(error.message)
        return None
    _unknown(data, _TOP_FIELDS, "", problems)
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
    main, by_count = _main(data, keyed_by, problems)
    min_stake, max_stake = _limits(data, problems)
    bands = _bands(data, problems)
    centre = _centre(data, problems)
    if problems.items or main is None:
        return None
    return PaytableFields(
        name=name.strip(),
        main=main,
        keyed_by=keyed_by,
        bands=bands,
        main_by_count=by_count,
        centre=centre,
        chip=chip,
        rounding=rounding,
        min_stake=min_stake,
        max_stake=max_stake,
        source=str(source_text),
    )


def _unknown(
    data: Mapping[str, object], fields: tuple[str, ...], where: str, problems: _Problems
) -> None:
    for key in data:
        if key not in fields:
            problems.add(
                where or key,
                Message(
                    N_("unknown field '{field}'; the fields are {fields}"),
                    field=key,
                    fields=", ".join(fields),
                ),
            )


def _main(
    data: Mapping[str, Any], keyed_by: MainKey, problems: _Problems
) -> tuple[tuple[Odds, Odds] | None, tuple[CountPays, ...]]:
    """``[main]``: the two main pays, and ``[[main.counts]]``: pays for particular counts."""
    main_keys = ("andar", "bahar") if keyed_by is MainKey.ROW else ("first", "second")
    main_data = data.get("main")
    if not isinstance(main_data, dict):
        problems.add("main", Message(N_("the table [main] with {keys} is missing"), keys=main_keys))
        return None, ()
    for key in main_data:
        if key not in (*main_keys, "counts"):
            _unknown({key: None}, (*main_keys, "counts"), f"main.{key}", problems)
    main: list[Odds] = []
    for key in main_keys:
        if key not in main_data:
            problems.add(f"main.{key}", Message(N_("the odds are missing")))
            continue
        odds = _odds(main_data[key], f"main.{key}", problems)
        if odds is not None:
            main.append(odds)
    counts_data = main_data.get("counts", [])
    if not isinstance(counts_data, list):
        problems.add(
            "main.counts", Message(N_("write each count's pays as a [[main.counts]] table"))
        )
        counts_data = []
    by_count: list[CountPays] = []
    entries: list[str] = []
    for number, entry in enumerate(counts_data, start=1):
        where = f"main.counts[{number}]"
        if not isinstance(entry, dict):
            problems.add(where, Message(N_("write each count's pays as a [[main.counts]] table")))
            continue
        _unknown(entry, ("cards", *main_keys), where, problems)
        counts = _counts(entry, "cards", where, problems)
        pays = tuple(
            _odds(entry[key], where, problems) if key in entry else None for key in main_keys
        )
        if counts is None:
            continue
        if all(key not in entry for key in main_keys):
            problems.add(
                where,
                Message(
                    N_("give the pays of {keys} (one or both) for these counts"), keys=main_keys
                ),
            )
            continue
        by_count.append(CountPays(counts, (pays[0], pays[1])))
        entries.append(where)
    for entry_index, problem in check_count_pays(by_count):
        index = int(entry_index.removeprefix("main.counts[").removesuffix("]")) - 1
        problems.add(entries[index], problem)
    return ((main[0], main[1]) if len(main) == 2 else None), tuple(by_count)


def _counts(
    entry: Mapping[str, object], key: str, where: str, problems: _Problems
) -> CardsBet | None:
    """A range of counts of cards dealt (``1-5``, ``41+``, ``7``) from *entry*[*key*]."""
    value = entry.get(key)
    if value is None:
        problems.add(where, Message(N_("the field '{field}' is missing"), field=key))
        return None
    try:
        bet = Bet.parse(f"cards:{value}")
    except BetError:
        problems.add(
            where,
            Message(
                N_(
                    "the range '{range}' is not a count of cards dealt between 1 and {most}:"
                    " write '1-5', '41+' or '7'"
                ),
                range=value,
                most=MAX_CARDS_DEALT,
            ),
        )
        return None
    return bet if isinstance(bet, CardsBet) else None


def _limits(data: Mapping[str, Any], problems: _Problems) -> tuple[Decimal | None, Decimal | None]:
    limits_data = data.get("limits", {})
    min_stake = max_stake = None
    if not isinstance(limits_data, dict):
        problems.add("limits", Message(N_("must be a table with min and max")))
        return None, None
    for key in limits_data:
        if key not in ("min", "max"):
            _unknown({key: None}, ("min", "max"), f"limits.{key}", problems)
    if "min" in limits_data:
        min_stake = _amount(limits_data["min"], "limits.min", problems)
    if "max" in limits_data:
        max_stake = _amount(limits_data["max"], "limits.max", problems)
    if min_stake is not None and max_stake is not None and min_stake > max_stake:
        problems.add("limits", Message(N_("the minimum stake is above the maximum stake")))
    return min_stake, max_stake


def _bands(data: Mapping[str, Any], problems: _Problems) -> tuple[Band, ...]:
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
        _unknown(entry, ("range", "pays"), where, problems)
        if "range" not in entry:
            problems.add(where, Message(N_("the field 'range' is missing")))
            continue
        if "pays" not in entry:
            problems.add(where, Message(N_("the field 'pays' is missing")))
            continue
        bet = _counts(entry, "range", where, problems)
        odds = _odds(entry["pays"], where, problems)
        if odds is not None and bet is not None:
            bands.append(Band(bet, odds))
            band_entries.append(where)
    for entry_index, problem in check_bands(bands):
        index = int(entry_index.removeprefix("cards[").removesuffix("]")) - 1
        problems.add(band_entries[index], problem)
    return tuple(bands)


def _centre(data: Mapping[str, Any], problems: _Problems) -> tuple[CentrePays, ...]:
    """``[centre]``: the pays of the bets on the centre card, by kind (each optional).

    >>> for problem in check_paytable('name = "x"\\n[main]\\nandar = 1\\nbahar = 1\\n[centre]\\n'
    ...                               'suit = "3 for 1"\\nparity = 1\\nrank = "twelve"\\n'):
    ...     print(problem)
    paytable.toml, centre.parity: unknown field 'parity'; the fields are suit, colour, rank, low, seven, high.
    paytable.toml, centre.rank: The odds 'twelve' cannot be read: write them as '0.9 to 1' or '3.5 for 1'.
    """
    centre_data = data.get("centre", {})
    if not isinstance(centre_data, dict):
        problems.add(
            "centre",
            Message(
                N_("write the bets on the centre card as a [centre] table with {kinds}"),
                kinds=", ".join(_CENTRE_KINDS),
            ),
        )
        return ()
    if "centre" in data and not centre_data:
        problems.add(
            "centre",
            Message(
                N_("the table [centre] offers no bet: give the pays of one or more of {kinds}"),
                kinds=", ".join(_CENTRE_KINDS),
            ),
        )
    pays: list[CentrePays] = []
    for key, value in centre_data.items():
        if key not in _CENTRE_KINDS:
            _unknown({key: None}, _CENTRE_KINDS, f"centre.{key}", problems)
            continue
        odds = _odds(value, f"centre.{key}", problems)
        if odds is not None:
            pays.append(CentrePays(CentreKind(key), odds))
    return tuple(pays)


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
    """A chip or limit: a TOML number, or text read as a stake is (digits 0 to 9 only)."""
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, str)):
        problems.add(entry, Message(N_("'{value}' is not an amount"), value=value))
        return None
    try:
        amount = (
            parse_stake(value) if isinstance(value, str) else check_amount(Decimal(value), value)
        )
    except BetError as error:  # not a number, other digits, out of range: its own sentence
        if isinstance(value, str) and foreign_digits(value):
            problems.add(entry, error.message)
            return None
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
