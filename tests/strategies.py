"""Hypothesis strategies shared by the fuzz tests (tests/test_fuzz.py).

Text of every kind for the parsers (card, bet, stake, odds), TOML documents built
from the real field names of paytables and procedures mixed with junk (with a small
TOML writer: :mod:`tomllib` has none), and the inputs of the club table's actions.

Nothing is filtered out: amounts of any size (huge, vanishing, NaN, infinite, other
digits, exponents), integers and floats of any size in TOML, any text. What the
money code refuses it must refuse with one sentence (tests/test_fuzz.py).
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from andar_bahar.engine.cards import FULL_DECK
from andar_bahar.engine.paytables import PAYTABLES

# -- text ----------------------------------------------------------------------------------

LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character on which :meth:`str.splitlines` breaks a line."""

one_line_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=30
)
"""Any text on one line (no control characters, no line or paragraph separators)."""

any_text = st.one_of(st.text(max_size=60), st.text(alphabet=LINE_BREAKS + "Q5♥a ", max_size=8))
"""Any text at all (surrogates aside), newlines and control characters included (often)."""

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "T", "t", "J", "j", "Q", "q", "K", "k"]
RANKS += ["A", "a", "В", "в", "Д", "д", "К", "к", "Т", "т", "1", "0", "11", "01", "Z", "٣"]
SUITS = ["♠", "♥", "♦", "♣", "♤", "♡", "♢", "♧", "S", "H", "D", "C", "s", "h", "d", "c"]
SUITS += ["П", "Ч", "Б", "Т", "К", "п", "ч", "б", "т", "X", "ſ", "🂡", "\u212a", "ß"]
SEPARATORS = [" ", ",", ";", ", ", "\t", "\n", "  ", "", "|", "/", "\u00a0", "\u3000", "-"]

card_piece = st.one_of(
    st.builds(lambda r, s: r + s, st.sampled_from(RANKS), st.sampled_from(SUITS)),
    st.sampled_from([str(c) for c in FULL_DECK] + [c.ascii for c in FULL_DECK]),
    st.text(alphabet="0123456789TJQKAВДКТПЧБ♠♥♦♣SHDCshdc ", max_size=4),
)
"""One piece of card text: a rank and a suit in any notation, or near misses."""

card_text = st.one_of(
    card_piece,
    st.builds(lambda pad, c, end: pad + c + end, st.sampled_from(SEPARATORS), card_piece,
              st.sampled_from(SEPARATORS)),
    any_text,
)  # fmt: skip
"""Text that Card.parse sees: a card, a card padded with separators, or anything."""

cards_text = st.one_of(
    st.lists(st.tuples(card_piece, st.sampled_from(SEPARATORS)), max_size=12).map(
        lambda parts: "".join(c + s for c, s in parts)
    ),
    any_text,
)
"""Text that Card.parse_many sees: cards separated by anything, or anything."""

PRESET_BETS = sorted(
    {str(bet) for table in PAYTABLES.values() for bet in (*table.bets, *table.centre_bets)}
)
BET_JUNK = ["", " ", "middle", "ANDAR", " bahar ", "Andar ", "cards:", "cards:0", "cards:50"]
BET_JUNK += ["cards:1-5", "cards:5-1", "cards:41+", "cards:1–5", "cards:1..5", "cards:3-7"]
BET_JUNK += ["cards:7", "cards: 7", "CARDS:7", "cards:٣", "cards:-1", "cards:1-", "анда", "a\nb"]
BET_JUNK += ["centre:", "centre:suit", "centre:suit:x", "centre:rank:1", "centre:rank:٣"]
BET_JUNK += ["Center:Color:RED", "centre:colour:green", "centre:low:A", "centre:suit:ч"]

bet_text = st.one_of(
    st.sampled_from([*PRESET_BETS, *BET_JUNK]),
    st.builds(
        lambda low, sep, high: f"cards:{low}{sep}{high}",
        st.integers(-3, 60), st.sampled_from(["-", "–", "..", " - ", "", "+", "—", ":"]),
        st.one_of(st.integers(-3, 60).map(str), st.just(""), st.just("+")),
    ),
    any_text,
)  # fmt: skip
"""Text that Bet.parse sees: the presets' bets, near misses, anything."""

STAKE_JUNK = ["abc", "-5", "0", "-0", "0.0", "", " ", "NaN", "nan", "inf", "-Infinity", "sNaN"]
STAKE_JUNK += ["1e3", "12,5", "12.5", "1 000", "1\u00a0000", "1_000", "٣", "+5", "5.", ".5"]
STAKE_JUNK += ["1e-3", "5 5", "0x10", "1/2", "12.5.1", "١٢٣", "5€", "half", "10", "100", "1000"]
STAKE_JUNK += ["9999999"]
stake_junk = st.sampled_from(STAKE_JUNK)

EXTREME_AMOUNTS = ["1e-2000000", "1e-100000", "1e30", "9" * 28, "9" * 16, "1" + "0" * 15]
EXTREME_AMOUNTS += ["0.0000001", "999999999999999.999999", "1" * 4301, "0." + "0" * 40 + "1"]
EXTREME_AMOUNTS += ["-1e30", "1E+999999999", "Infinity", "-0.000", "1" + "0" * 100_000]

typed_decimal = st.decimals(
    min_value=Decimal("-1e6"), max_value=Decimal("1e9"), places=2, allow_nan=False,
    allow_infinity=False,
)  # fmt: skip
"""Amounts as people type them (most of the fuzz's examples: the ones that get accepted)."""

amount_text = st.one_of(
    stake_junk,
    st.sampled_from(EXTREME_AMOUNTS),
    typed_decimal.map(str),
    st.decimals().map(str),  # any Decimal at all: NaN, sNaN, infinities, any exponent
    st.integers(1, 10**6).map(str),
    st.integers().map(str),
    st.text(alphabet="0123456789.,-+eE ", max_size=8),
    one_line_text,
)
"""A stake or a balance as a person (or a robot) types it: of any size, or no number."""

ODDS_TEXTS = ["0.9 to 1", "1 to 1", "3.5 for 1", "2:1", "19/20 to 1", "1 for 1", "0 to 1", "x"]
ODDS_TEXTS += ["3 за 1", "2,5:1", "0,9 к 1", "4-ზე 1", "1/0", "-1 to 1", "5", "2 TO 1", "1.5 FOR 1"]
ODDS_TEXTS += ["to 1", "3 for", "3 to 2", "0.95", "120 for 1", "1/3", "0.5/3 to 1", "7/0 for 1"]

odds_text = st.one_of(
    st.sampled_from(ODDS_TEXTS),
    st.builds(
        lambda x, how, one: f"{x}{how}{one}",
        st.one_of(typed_decimal.map(str), st.decimals().map(str), st.fractions().map(str)),
        st.sampled_from([" to ", " for ", ":", " к ", " за ", "-ზე ", " ", "", " TO ", "to"]),
        st.sampled_from(["1", "", " 1", "2", "1 ", "-ზე"]),
    ),
    any_text,
)
"""Text that Odds.parse sees: well written odds, near misses, anything."""

# -- TOML ----------------------------------------------------------------------------------

FIELD_NAMES = ["name", "keyed_by", "chip", "rounding", "main", "andar", "bahar", "first"]
FIELD_NAMES += ["second", "limits", "min", "max", "cards", "range", "pays", "start", "target"]
FIELD_NAMES += ["window", "rounds", "markers_only", "paytable", "source"]

toml_key = st.one_of(
    st.sampled_from(FIELD_NAMES),
    st.sampled_from(FIELD_NAMES).map(str.upper),
    st.sampled_from(["colour", "odds", "x", "1", "ключ", "a b", "", "name ", "-"]),
    one_line_text,
)
"""Keys: the real field names (most of the time), their near misses, and junk."""

FIELD_VALUES = ["classic", "home", "andar", "bahar", "centre-colour", "first-card-colour"]
FIELD_VALUES += ["centre-card", "chosen-rank", "before-centre", "after-centre", "left"]
FIELD_VALUES += ["row", "first-row", "col", "down", "half-up", "up", "sideways", "1", "0.5"]
FIELD_VALUES += ["0", "-1", "abc", "1-5", "41+", "7", "0-3", "5-1", "50", "1..5", "1–5"]
FIELD_VALUES += ["trainer-default", "wizard", "our-club", " ", "", "x.toml"]

special_float = st.sampled_from([float("nan"), float("inf"), float("-inf"), -0.0])

toml_scalar = st.one_of(
    st.sampled_from(FIELD_VALUES + ODDS_TEXTS),
    one_line_text,
    any_text,  # line breaks and control characters: the writer escapes them
    st.booleans(),
    st.integers(),
    st.integers(-3, 60),
    st.floats(min_value=-1e6, max_value=1e6),
    st.floats(),  # every size
    special_float,
    st.datetimes(timezones=st.none() | st.just(dt.UTC)),
    st.dates(),
    st.times(),
)
"""Values of every TOML type: any string, integers and floats of any size, NaN and infinities."""

toml_value = st.recursive(
    toml_scalar,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(toml_key, inner, max_size=4),
    max_leaves=10,
)


def _odds_value() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(ODDS_TEXTS), st.integers(0, 200), toml_scalar)


def _band() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "range": st.sampled_from(FIELD_VALUES[20:31]) | toml_scalar,
            "pays": _odds_value(),
        },
        optional={"colour": toml_value},
    )


VALID_ODDS = ["0.9 to 1", "1 to 1", "3.5 for 1", "2:1", "19/20 to 1", "3 за 1", "2,5:1"]
VALID_ODDS += ["0,9 к 1", "4-ზე 1", "5", "2 TO 1", "1.5 FOR 1", "0.95", "120 for 1", "1/3"]

valid_odds = st.one_of(
    st.sampled_from(VALID_ODDS),
    st.integers(1, 10**6),
    st.decimals(min_value=Decimal("0.01"), max_value=10**6, places=3).map(str),
    st.builds(lambda a, b: f"{a}/{b} to 1", st.integers(1, 999), st.integers(1, 999)),
)


def _bands(cuts: list[int], odds: list[Any]) -> list[dict[str, Any]]:
    bands = []
    for (low, high), pays in zip(zip(cuts[::2], cuts[1::2], strict=False), odds, strict=False):
        label = (
            f"{low}+"
            if high == 49 and low != high
            else (str(low) if low == high else f"{low}-{high}")
        )
        bands.append({"range": label, "pays": pays})
    return bands


@st.composite
def valid_paytable_document(draw: st.DrawFn) -> dict[str, Any]:
    """A paytable document that loads: the keys of its keying, disjoint bands, min <= max."""
    keyed_by = draw(st.sampled_from(["row", "first-row", None]))
    keys = ("first", "second") if keyed_by == "first-row" else ("andar", "bahar")
    document: dict[str, Any] = {"name": draw(st.sampled_from(["our-club", "x"]) | any_text)}
    document["name"] = document["name"] if document["name"].strip() else "club"
    if keyed_by is not None:
        document["keyed_by"] = keyed_by
    for key, choice in (
        ("chip", st.sampled_from(["1", "0.5", "5", "0.01", 2, "10"])),
        ("rounding", st.sampled_from(["down", "half-up", "up"])),
        ("source", any_text),
    ):
        if draw(st.booleans()):
            document[key] = draw(choice)
    document["main"] = {key: draw(valid_odds) for key in keys}
    if draw(st.booleans()):
        low, high = sorted(draw(st.lists(st.integers(1, 10**4), min_size=2, max_size=2)))
        document["limits"] = draw(
            st.sampled_from([{"min": str(low), "max": str(high)}, {"min": low}, {"max": high}])
        )
    cuts = sorted(draw(st.lists(st.integers(1, 49), unique=True, max_size=12)))
    cuts = [c for pair in zip(cuts[::2], cuts[1::2], strict=False) for c in pair]
    if draw(st.booleans()) and cuts:
        cuts = [c for pair in zip(cuts[::2], cuts[::2], strict=False) for c in pair]  # exact
    document["cards"] = _bands(cuts, draw(st.lists(valid_odds, min_size=len(cuts) // 2,
                                                   max_size=len(cuts) // 2)))  # fmt: skip
    return document


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    """A valid document with one to three of its entries dropped, replaced or added."""
    document = dict(draw(base))
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["drop", "replace", "add", "nested"]))
        keys = sorted(document)
        if how == "drop" and keys:
            del document[draw(st.sampled_from(keys))]
        elif how == "replace" and keys:
            document[draw(st.sampled_from(keys))] = draw(toml_value)
        elif how == "nested" and isinstance(document.get("main"), dict):
            main = dict(document["main"])
            main[draw(toml_key)] = draw(toml_value)
            document["main"] = main
        else:
            document[draw(toml_key)] = draw(toml_value)
    return document


_shaped_paytable = st.fixed_dictionaries(
    {"name": st.sampled_from(["our-club", "x", " ", "", "a\x7fb"]) | toml_scalar},
    optional={
        "keyed_by": st.sampled_from(["row", "first-row", "col"]) | toml_scalar,
        "chip": st.sampled_from(["1", "0.5", "5", "0", "-1", "abc"]) | toml_scalar,
        "rounding": st.sampled_from(["down", "half-up", "up", "sideways"]) | toml_scalar,
        "source": one_line_text | any_text,
        "main": st.one_of(
            st.fixed_dictionaries(
                {"andar": _odds_value(), "bahar": _odds_value()},
                optional={"first": _odds_value(), "x": toml_value},
            ),
            st.fixed_dictionaries({"first": _odds_value(), "second": _odds_value()}),
            toml_value,
        ),
        "limits": st.fixed_dictionaries(
            {},
            optional={
                "min": toml_scalar,
                "max": toml_scalar,
                "mid": toml_scalar,
            },
        )
        | toml_value,
        "cards": st.lists(_band(), max_size=6) | toml_value,
        "colour": toml_value,
    },
)
paytable_document = st.one_of(
    valid_paytable_document(), mutated(valid_paytable_document()), _shaped_paytable
)
"""Documents shaped like a club's paytable: valid, nearly valid, or wrong in every part."""

valid_procedure_document = st.fixed_dictionaries(
    {"name": st.sampled_from(["our-club", "x", "клуб"])},
    optional={
        "start": st.sampled_from(["andar", "first-card-colour"]),
        "target": st.sampled_from(["centre-card", "chosen-rank"]),
        "window": st.sampled_from(["before-centre", "after-centre"]),
        "paytable": st.sampled_from(["wizard", "club.toml"]),
        "markers_only": st.booleans(),
        "rounds": st.integers(1, 1000),
    },
)

_shaped_procedure = st.fixed_dictionaries(
    {},
    optional={
        "name": st.sampled_from(["our-club", " ", ""]) | toml_scalar,
        "start": st.sampled_from(["andar", "centre-colour", "first-card-colour", "left"])
        | toml_scalar,
        "target": st.sampled_from(["centre-card", "chosen-rank", "rank"]) | toml_scalar,
        "window": st.sampled_from(["before-centre", "after-centre", "never"]) | toml_scalar,
        "paytable": st.sampled_from(["wizard", "x.toml"]) | toml_scalar,
        "markers_only": st.booleans() | toml_scalar,
        "rounds": st.integers(-2, 1002) | toml_scalar,
        "chip": toml_value,
    },
)
procedure_document = st.one_of(
    valid_procedure_document, mutated(valid_procedure_document), _shaped_procedure
)
"""Documents shaped like a club's procedure: valid, nearly valid, or wrong in every part."""

junk_document = st.dictionaries(toml_key, toml_value, max_size=8)
"""Any TOML document whose keys are mostly the real field names."""

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = ['"']
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def toml_key_text(key: str) -> str:
    return key if _BARE_KEY.match(key) else toml_string(key)


def toml_inline(value: Any) -> str:
    """A value as inline TOML (tables as ``{…}``, arrays as ``[…]``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, dt.datetime):
        text = value.isoformat()
        return text.replace("+00:00", "Z")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_inline(item) for item in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{toml_key_text(k)} = {toml_inline(v)}" for k, v in value.items())
        return "{" + items + "}"
    raise TypeError(type(value))


def to_toml(document: dict[str, Any]) -> str:
    """A TOML document: plain values first, then ``[tables]`` and ``[[arrays of tables]]``."""
    head: list[str] = []
    tail: list[str] = []
    for key, value in document.items():
        name = toml_key_text(key)
        if isinstance(value, dict):
            tail.append(f"\n[{name}]")
            tail.extend(f"{toml_key_text(k)} = {toml_inline(v)}" for k, v in value.items())
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for entry in value:
                tail.append(f"\n[[{name}]]")
                tail.extend(f"{toml_key_text(k)} = {toml_inline(v)}" for k, v in entry.items())
        else:
            head.append(f"{name} = {toml_inline(value)}")
    return "\n".join(head + tail) + "\n"


toml_garbage = st.one_of(
    any_text,
    st.lists(
        st.sampled_from(
            ["[main]", "[[cards]]", "[limits]", "name = ", '"x"', "=", "\n", "[", "]", "{", "}",
             "andar", "'0.9 to 1'", "1e3", "nan", "#", "\"\"\"", "1979-05-27", "true", ",", "."]
        ),
        max_size=25,
    ).map(" ".join),
)  # fmt: skip
"""Text that is mostly not TOML, some of it nearly."""
