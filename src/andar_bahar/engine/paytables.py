"""Paytables: what each bet pays, how the club writes it, and how wins are rounded.

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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from andar_bahar.engine.bets import Bet, CardsBet, CentreBet, CentreKind, MainBet
from andar_bahar.engine.cards import Colour, Rank, Suit
from andar_bahar.engine.errors import BetError, PaytableError
from andar_bahar.engine.money import Amount, as_decimal, format_amount
from andar_bahar.engine.pays import (
    MAX_ODDS,
    Band,
    CentrePays,
    CountPays,
    MainKey,
    Odds,
    Rounding,
    check_bands,
    check_count_pays,
)
from andar_bahar.engine.paytable_files import PaytableFields, check_paytable, read_paytable_fields
from andar_bahar.engine.rules import Row
from andar_bahar.i18n.messages import N_, NP_, Message, Translator

__all__ = [
    "MAX_ODDS",
    "PAYTABLES",
    "Band",
    "CentrePays",
    "CountPays",
    "MainKey",
    "Odds",
    "Paytable",
    "Rounding",
    "check_bands",
    "check_count_pays",
    "check_paytable",
    "find_paytable",
    "load_paytable",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Paytable:
    """A table of odds for the main bets, the side bets on cards dealt and the bets on the
    centre card.

    With ``keyed_by=ROW`` the two main odds are (Andar, Bahar); with
    ``FIRST_ROW`` they are (the row dealt first, the other row).
    ``main_by_count`` may replace them for particular counts of cards dealt.
    ``centre`` lists the kinds of bet on the centre card the table offers, each with its
    pay (kept in the order of :class:`~andar_bahar.engine.bets.CentreKind`).
    """

    name: str
    main: tuple[Odds, Odds]
    keyed_by: MainKey = MainKey.ROW
    bands: tuple[Band, ...] = ()
    main_by_count: tuple[CountPays, ...] = ()
    centre: tuple[CentrePays, ...] = ()
    chip: Decimal = Decimal(1)
    rounding: Rounding = Rounding.DOWN
    min_stake: Decimal | None = None
    max_stake: Decimal | None = None
    source: str = ""
    bands_by_count: Mapping[int, Band] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        problems = check_bands(self.bands)
        problems.extend(check_count_pays(self.main_by_count))
        if self.chip <= 0:
            problems.append(("chip", Message(N_("the chip unit must be greater than zero"))))
        if (
            self.min_stake is not None
            and self.max_stake is not None
            and (self.min_stake > self.max_stake)
        ):
            problems.append(("limits", Message(N_("the minimum stake is above the maximum stake"))))
        kinds = [pays.kind for pays in self.centre]
        for kind in sorted(set(kinds), key=list(CentreKind).index):
            if kinds.count(kind) > 1:
                problems.append(
                    (f"centre.{kind}", Message(N_("the pays of this bet are given twice")))
                )
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
        order = list(CentreKind)
        centre = tuple(sorted(self.centre, key=lambda pays: order.index(pays.kind)))
        object.__setattr__(self, "centre", centre)

    def main_odds(self, row: Row, *, first_row: Row | None, cards_dealt: int | None = None) -> Odds:
        """The odds of a main bet on *row* in a round whose first card went to *first_row*,
        with *cards_dealt* cards (pays by count apply only when it is given).

        >>> pt = Paytable(name="t", main=(Odds.parse("0.9 to 1"), Odds.parse(1)), keyed_by=MainKey.FIRST_ROW)
        >>> str(pt.main_odds(Row.BAHAR, first_row=Row.BAHAR))
        '0.9 to 1'
        >>> first = CountPays.parse("1", (Odds.parse("0.25 to 1"), None))
        >>> pt = Paytable(name="t", main=(Odds.parse("0.9 to 1"), Odds.parse(1)), main_by_count=(first,))
        >>> [str(pt.main_odds(Row.ANDAR, first_row=Row.ANDAR, cards_dealt=k)) for k in (1, 3)]
        ['0.25 to 1', '0.9 to 1']
        """
        if self.keyed_by is MainKey.ROW:
            slot = 0 if row is Row.ANDAR else 1
        elif first_row is None:
            raise ValueError("odds keyed by first row need the first row")
        else:
            slot = 0 if row is first_row else 1
        if cards_dealt is not None:
            for pays in self.main_by_count:
                special = pays.main[slot]
                if special is not None and pays.covers(cards_dealt):
                    return special
        return self.main[slot]

    def band_for(self, cards_dealt: int) -> Band | None:
        """The band (if any) that a round with *cards_dealt* cards wins."""
        return self.bands_by_count.get(cards_dealt)

    def centre_odds(self, kind: CentreKind) -> Odds | None:
        """What a bet on the centre card of *kind* pays (``None``: not on this table)."""
        return next((pays.odds for pays in self.centre if pays.kind is kind), None)

    def offers(self, bet: Bet) -> bool:
        """Whether *bet* is on this table (main bets always; the others as listed)."""
        if isinstance(bet, CentreBet):
            return bet.placeable and self.centre_odds(bet.kind) is not None
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
                    offered=", ".join(
                        f"{b}:…" if isinstance(b, CentreBet) and not b.placeable else str(b)
                        for b in self.bets
                    ),
                )
            )

    @property
    def bets(self) -> tuple[Bet, ...]:
        """Every pay of the table as a bet: the main bets, the side bets on cards dealt, then
        one row per kind of bet on the centre card (a named kind's row stands for each suit,
        colour or rank: :attr:`centre_bets` lists those one by one)."""
        return (
            MainBet(Row.ANDAR),
            MainBet(Row.BAHAR),
            *(band.bet for band in self.bands),
            *(CentreBet(pays.kind) for pays in self.centre),
        )

    @property
    def centre_bets(self) -> tuple[CentreBet, ...]:
        """Every bet on the centre card a player can place at this table.

        >>> [str(b) for b in find_paytable("joker").centre_bets][:7]
        ['centre:suit:♠', 'centre:suit:♥', 'centre:suit:♦', 'centre:suit:♣', 'centre:colour:red', 'centre:colour:black', 'centre:rank:A']
        """
        values: dict[CentreKind, tuple[Suit | Colour | Rank | None, ...]] = {
            CentreKind.SUIT: tuple(Suit),
            CentreKind.COLOUR: (Colour.RED, Colour.BLACK),
            CentreKind.RANK: (Rank.ACE, *tuple(Rank)[:-1]),
        }
        return tuple(
            CentreBet(pays.kind, value)
            for pays in self.centre
            for value in values.get(pays.kind, (None,))
        )

    def odds_for(self, bet: Bet, *, first_row: Row | None, cards_dealt: int | None = None) -> Odds:
        """The odds that *bet* pays if it wins (with *cards_dealt*: pays by count too)."""
        if isinstance(bet, MainBet):
            return self.main_odds(bet.row, first_row=first_row, cards_dealt=cards_dealt)
        if isinstance(bet, CentreBet):
            odds = self.centre_odds(bet.kind)
            if odds is not None:
                return odds
        for band in self.bands:
            if band.bet == bet:
                return band.odds
        self.check_offers(bet)
        raise AssertionError  # pragma: no cover

    def pays_text(self, bet: Bet) -> PaysText:
        """What *bet* pays, for people: its odds, by first row and by count where they differ.

        >>> first = CountPays.parse("1", (Odds.parse("0.25 to 1"), None))
        >>> pt = Paytable(name="t", main=(Odds.parse("0.9 to 1"), Odds.parse(1)), main_by_count=(first,))
        >>> str(pt.pays_text(MainBet(Row.ANDAR))), str(pt.pays_text(MainBet(Row.BAHAR)))
        ('0.9 to 1; 0.25 to 1 if 1 card is dealt', '1 to 1')
        """
        return PaysText(self, bet)

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
        problem = self.limits_problem(stake)
        if problem is not None:
            raise BetError(problem)

    def limits_problem(self, stake: Decimal) -> Message | None:
        """What is wrong with *stake* against the table limits (``None``: within them).

        >>> import dataclasses
        >>> print(dataclasses.replace(find_paytable("wizard"), min_stake=Decimal(20))
        ...       .limits_problem(Decimal(5)))
        The stake 5 is below the table minimum of 20.
        """
        if self.min_stake is not None and stake < self.min_stake:
            return Message(
                N_("The stake {stake} is below the table minimum of {limit}."),
                stake=Amount(stake),
                limit=Amount(self.min_stake),
            )
        if self.max_stake is not None and stake > self.max_stake:
            return Message(
                N_("The stake {stake} is above the table maximum of {limit}."),
                stake=Amount(stake),
                limit=Amount(self.max_stake),
            )
        return None

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

    def to_dict(self, *, as_written: bool = False) -> dict[str, Any]:
        """The paytable as plain data, in the form of a club's TOML file.

        Odds are written "X to 1", or as the club wrote them with *as_written*.
        """

        def text(odds: Odds) -> str:
            return odds.written if as_written and odds.written else str(odds)

        main_keys = ("andar", "bahar") if self.keyed_by is MainKey.ROW else ("first", "second")
        data: dict[str, Any] = {"name": self.name}
        if self.source:
            data["source"] = self.source
        data["keyed_by"] = self.keyed_by.value
        data["chip"] = format_amount(self.chip)
        data["rounding"] = self.rounding.value
        data["main"] = {key: text(odds) for key, odds in zip(main_keys, self.main, strict=True)}
        if self.main_by_count:
            data["main"]["counts"] = [
                {
                    "cards": pays.label.replace("–", "-"),
                    **{
                        key: text(odds)
                        for key, odds in zip(main_keys, pays.main, strict=True)
                        if odds is not None
                    },
                }
                for pays in self.main_by_count
            ]
        limits = {}
        if self.min_stake is not None:
            limits["min"] = format_amount(self.min_stake)
        if self.max_stake is not None:
            limits["max"] = format_amount(self.max_stake)
        if limits:
            data["limits"] = limits
        if self.centre:
            data["centre"] = {pays.kind.value: text(pays.odds) for pays in self.centre}
        data["cards"] = [
            {"range": band.label.replace("–", "-"), "pays": text(band.odds)} for band in self.bands
        ]
        return data

    def to_toml(self, *, as_written: bool = False) -> str:
        """A club's TOML file for this paytable (loads back equal).

        >>> load_paytable(find_paytable("wizard").to_toml()) == find_paytable("wizard")
        True
        >>> 'pays = "3.5 for 1"' in find_paytable("wizard").to_toml(as_written=True)
        True
        """
        data = self.to_dict(as_written=as_written)
        lines: list[str] = []
        for key in ("name", "source", "keyed_by", "chip", "rounding"):
            if key in data:
                lines.append(f"{key} = {_toml_string(str(data[key]))}")
        for table in ("main", "limits", "centre"):
            if table in data:
                lines.append("")
                lines.append(f"[{table}]")
                lines.extend(
                    f"{k} = {_toml_string(v)}" for k, v in data[table].items() if k != "counts"
                )
        for pays in data["main"].get("counts", []):
            lines.append("")
            lines.append("[[main.counts]]")
            lines.extend(f"{k} = {_toml_string(v)}" for k, v in pays.items())
        for band in data["cards"]:
            lines.append("")
            lines.append("[[cards]]")
            lines.append(f"range = {_toml_string(band['range'])}")
            lines.append(f"pays = {_toml_string(band['pays'])}")
        return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class PaysText:
    """What a bet pays, in the user's language (see :meth:`Paytable.pays_text`)."""

    paytable: Paytable
    bet: Bet

    def localized(self, translator: Translator | None) -> str:
        table, bet = self.paytable, self.bet
        if not isinstance(bet, MainBet):
            return table.odds_for(bet, first_row=Row.ANDAR).localized(translator)
        if table.keyed_by is MainKey.FIRST_ROW:
            text = Message(
                N_("{first} if dealt first, else {second}"),
                first=table.main[0],
                second=table.main[1],
            ).localized(translator)
            slots: tuple[int, ...] = (0, 1)
        else:
            slot = 0 if bet.row is Row.ANDAR else 1
            text = table.main[slot].localized(translator)
            slots = (slot,)
        for pays in table.main_by_count:
            for slot in slots:
                special = pays.main[slot]
                if special is None:
                    continue
                whom = (
                    ""
                    if len(slots) == 1
                    else Message(
                        N_(" to the row dealt first") if slot == 0 else N_(" to the other row")
                    ).localized(translator)
                )
                text = Message(
                    NP_(
                        "{pays}; {special}{whom} if {counts} card is dealt",
                        "{pays}; {special}{whom} if {counts} cards are dealt",
                    ),
                    n=pays.counts.high,
                    pays=text,
                    special=special,
                    whom=whom,
                    counts=pays.label,
                ).localized(translator)
        return text

    def __str__(self) -> str:
        return self.localized(None)


def _toml_string(text: str) -> str:
    r"""A TOML basic string: quotes, backslashes and every control character escaped.

    TOML allows no control character but the tab in a basic string, U+007F (DEL) included.

    >>> print(_toml_string('a"b\\c\x7f\x00\n'))
    "a\"b\\c\u007F\u0000\n"
    """
    return '"' + _TOML_ESCAPES.sub(_toml_escape, text) + '"'


_TOML_ESCAPES = re.compile(r'["\\\x00-\x1f\x7f]')
_TOML_SHORT = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _toml_escape(match: re.Match[str]) -> str:
    char = match.group()
    return _TOML_SHORT.get(char, f"\\u{ord(char):04X}")


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
    centre: Sequence[tuple[str, str]] = (),
) -> Paytable:
    return Paytable(
        name=name,
        main=(Odds.parse(main[0]), Odds.parse(main[1])),
        keyed_by=keyed_by,
        bands=tuple(_band(r, o) for r, o in bands),
        centre=tuple(CentrePays(CentreKind(k), Odds.parse(o)) for k, o in centre),
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

_WIZARD_BANDS = (
    ("1-5", "3.5 for 1"),
    ("6-10", "4.5 for 1"),
    ("11-15", "5.5 for 1"),
    ("16-25", "4.5 for 1"),
    ("26-30", "15 for 1"),
    ("31-35", "25 for 1"),
    ("36-40", "50 for 1"),
    ("41+", "120 for 1"),
)

PAYTABLES: dict[str, Paytable] = {
    "trainer-default": _preset(
        "trainer-default",
        N_("the trainer's default, from the club's rules (the rounded table)"),
        ("0.9 to 1", "1 to 1"),
        _TRAINER_BANDS,
    ),
    "wizard": _preset(
        "wizard",
        N_("the published table the club's rules work their examples with"),
        ("0.9 to 1", "1 to 1"),
        _WIZARD_BANDS,
    ),
    "even-money": _preset(
        "even-money",
        N_("an operator's table: both rows 1 to 1 (the club's rules, 'Variants and differences')"),
        ("1 to 1", "1 to 1"),
        _TRAINER_BANDS,
    ),
    "andar-0.95": _preset(
        "andar-0.95",
        N_(
            "an operator's table: Andar 0.95 to 1, Bahar 1 to 1 (the club's rules, 'Variants and differences')"
        ),
        ("0.95 to 1", "1 to 1"),
        _TRAINER_BANDS,
    ),
    "joker": _preset(
        "joker",
        N_(
            "the published table with bets on the centre card, as live tables offer them:"
            " their house edges 2.5 % to 3.85 % at exact pays"
        ),
        ("0.9 to 1", "1 to 1"),
        _WIZARD_BANDS,
        centre=(
            ("suit", "2.9 to 1"),
            ("colour", "0.95 to 1"),
            ("rank", "11.5 to 1"),
            ("low", "1.1 to 1"),
            ("seven", "11.5 to 1"),
            ("high", "1.1 to 1"),
        ),
    ),
}
"""The preset paytables, each naming its source, and ``joker``: the published table
(``wizard``) with the bets on the centre card (suit 2.9, colour 0.95, rank and seven 11.5, low
and high 1.1 to 1: house edges 1/40, 1/40, 1/26, 1/26, 2/65, 2/65)."""


def find_paytable(name: str) -> Paytable:
    """The preset called *name*; the error lists the valid names.

    >>> find_paytable("vegas")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.PaytableError: Unknown paytable 'vegas': choose one of trainer-default, wizard, even-money, andar-0.95, joker, or give a .toml file.
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


def load_paytable(text: str, *, source: str = "paytable.toml") -> Paytable:
    """Read a club's paytable TOML; the error names *source* and the entry.

    >>> load_paytable(find_paytable("wizard").to_toml()) == find_paytable("wizard")
    True
    """
    fields: PaytableFields = read_paytable_fields(text, source=source)
    return Paytable(**fields)
