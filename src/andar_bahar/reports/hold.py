"""The hold report: what the house kept at a table, against what the bets placed would keep.

For every settled round the storage layer reads (:class:`ClubRound`: its rules, the bets
as settled, the outcome, and the house's side of the ledger), the exact law of what the
house keeps is worked out from the bets actually placed (:mod:`andar_bahar.chance.hold`).
The report adds the rounds up per night, per dealer sign-in or per bet, and says where
each result lies: z, a two-sided p-value and the band that holds 95 % of results.

**A night** is the club's day: from noon to noon, local time (a round dealt at 2 a.m. on
the 5th belongs to the night of the 4th). **A dealer sign-in** is the stretch from one
sign-in of the dealer at the table (or its creation) to the next: each round belongs to
the last sign-in before it opened. **What the house kept** is the ledger's: the sum of the
house's postings of the round (stakes taken less returns paid); the settlement stored
with the round must say the same, and a round where they differ is named in the report.
A void round keeps nothing for certain and is only counted.

>>> from datetime import UTC, datetime
>>> night_of(datetime(2025, 5, 5, 1, 30, tzinfo=UTC), UTC)
datetime.date(2025, 5, 4)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from decimal import Decimal
from fractions import Fraction
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from andar_bahar.chance.hold import HoldLaw, Judgement, RoundLaw, known_centre, round_law
from andar_bahar.chance.shuffle_check import PValue
from andar_bahar.engine.bets import Bet, Wager
from andar_bahar.engine.cards import Card
from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.money import as_decimal
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import Procedure, Row
from andar_bahar.i18n import format_number, language_of
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.reports.hold_options import By

__all__ = [
    "NIGHT_STARTS",
    "By",
    "ClubRound",
    "HoldLine",
    "HoldReport",
    "SignIn",
    "find_zone",
    "hold_report",
    "night_of",
    "night_span",
    "parse_night",
]

NIGHT_STARTS = timedelta(hours=12)
"""A night runs from noon to noon, local time."""


def night_of(moment: datetime, zone: tzinfo) -> date:
    """The club's night a moment belongs to: its local date, noon to noon."""
    return (moment.astimezone(zone) - NIGHT_STARTS).date()


def parse_night(text: str) -> date:
    """A night as written: ``2025-05-02`` (the night that starts at noon that day).

    >>> parse_night("2025-05-02"), parse_night(" 2025-5-2 ")
    (datetime.date(2025, 5, 2), datetime.date(2025, 5, 2))
    >>> parse_night("Friday")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.ParameterError: The night 'Friday' cannot be read: write its date as 2025-05-02.
    """
    parts = text.strip().split("-")
    try:
        if len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):
            raise ValueError(text)
        return date(int(parts[0]), int(parts[1]), int(parts[2]))
    except ValueError:
        raise ParameterError(
            Message(
                N_("The night '{text}' cannot be read: write its date as 2025-05-02."), text=text
            )
        ) from None


def night_span(
    first: date | None, last: date | None, zone: tzinfo
) -> tuple[datetime | None, datetime | None]:
    """The moments (UTC) from the start of night *first* to the end of night *last*.

    >>> from datetime import UTC
    >>> night_span(date(2025, 5, 2), date(2025, 5, 2), UTC)[1].isoformat()
    '2025-05-03T12:00:00+00:00'
    """
    if first is not None and last is not None and last < first:
        raise ParameterError(
            Message(
                N_("The last night {last} is before the first night {first}: swap them."),
                first=first.isoformat(),
                last=last.isoformat(),
            )
        )

    def noon(day: date) -> datetime:
        local = datetime.combine(day, datetime.min.time(), tzinfo=zone) + NIGHT_STARTS
        return local.astimezone(UTC)

    start = noon(first) if first is not None else None
    end = noon(last + timedelta(days=1)) if last is not None else None
    return start, end


def find_zone(name: str | None) -> tzinfo:
    """The time zone called *name* (``Asia/Tbilisi``), or this machine's when ``None``."""
    if name is None or not name.strip():
        local = datetime.now().astimezone().tzinfo
        return local if local is not None else UTC
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise ParameterError(
            Message(
                N_("Unknown time zone '{name}': write it as Asia/Tbilisi or Europe/Moscow."),
                name=name,
            )
        ) from None


@dataclass(frozen=True, slots=True)
class SignIn:
    """A sign-in of the dealer at the table (or the table's creation): when, from where."""

    at: datetime
    client: str


@dataclass(frozen=True, slots=True)
class ClubRound:
    """A settled round of a club table, as the hold report and the shuffle check read it."""

    number: int
    opened_at: datetime
    real_deck: bool
    """Dealt from a real deck typed in by the dealer (else from the server's shuffle)."""
    procedure: Procedure
    paytable: Paytable
    centre: Card | None
    first_row: Row | None
    winner: Row | None
    """``None``: a void round."""
    cards_dealt: int
    wagers: tuple[Wager, ...]
    """Every player's spot at its whole stake, as settled."""
    returned: tuple[Decimal, ...]
    """What each wager handed back (stake and win, the stake of a void, or 0)."""
    bet_after_centre: bool
    """A bet was placed, changed or withdrawn after the centre card was turned."""
    ledger: Decimal
    """The house's postings of the round, added up: what it kept."""

    @property
    def settled_kept(self) -> Decimal:
        """What the house kept by the stored settlement (stakes less returns)."""
        return as_decimal(
            sum((w.stake - r for w, r in zip(self.wagers, self.returned, strict=True)), Decimal(0))
        )

    def law(self, bet: Bet | None = None) -> RoundLaw:
        """The exact law of what the house keeps from the round's bets (on *bet* only)."""
        centre = self.centre.colour if self.centre is not None else None
        known = known_centre(self.procedure, centre, self.bet_after_centre)
        chosen = self.wagers if bet is None else tuple(w for w in self.wagers if w.bet == bet)
        return round_law(self.procedure, self.paytable, chosen, centre=known)


@dataclass(frozen=True, slots=True)
class HoldLine:
    """One line of the report: its rounds, the chips staked, what the house kept, and
    where that lies in its exact law."""

    key: object
    """A night (date), a sign-in (:class:`SignIn`), a bet (:class:`Bet`) or ``None`` (all)."""
    rounds: int
    handle: Decimal
    judgement: Judgement

    @property
    def kept(self) -> Decimal:
        return self.judgement.observed

    @property
    def expected(self) -> Fraction:
        return self.judgement.mean


@dataclass(frozen=True, slots=True)
class HoldReport:
    """The hold report of a table over a span of nights."""

    code: str
    name: str
    zone: tzinfo
    first: date | None
    last: date | None
    by: By
    total: HoldLine
    lines: tuple[HoldLine, ...]
    nights: tuple[HoldLine, ...]
    """Always one line a night (for the chart)."""
    void: int
    """Void rounds (everything returned): counted only."""
    disagree: tuple[int, ...]
    """Rounds whose ledger and stored settlement say different things."""

    @property
    def one_night(self) -> bool:
        return len(self.nights) <= 1

    def summary(self) -> Message:
        """ "The house kept 3,120; the bets placed would keep 2,480 on average, and 95 % of
        nights fall between −1,300 and 6,260: an ordinary night." (or of a span, of a bet…)"""
        return summary(self.total, night=self.one_night)


def summary(line: HoldLine, *, night: bool) -> Message:
    """The plain sentence of one line (see :meth:`HoldReport.summary`)."""
    j = line.judgement
    if line.rounds == 0:
        return Message(N_("No settled round with bets in these nights."))
    if night:
        text = N_(
            "The house kept {kept}; the bets placed would keep {expected} on average, and"
            " 95 % of nights with these bets fall between {low} and {high}: {verdict}."
        )
    else:
        text = N_(
            "The house kept {kept}; the bets placed would keep {expected} on average, and"
            " 95 % of results of these bets fall between {low} and {high}: {verdict}."
        )
    return Message(
        text,
        kept=GroupedAmount(j.observed),
        expected=GroupedAmount(rounded(j.mean)),
        low=GroupedAmount(j.low),
        high=GroupedAmount(j.high),
        verdict=Verdict(j, night=night),
    )


def rounded(value: Fraction, places: int = 2) -> Decimal:
    """An exact amount for people: half-even to *places* decimals, no trailing zeros."""
    scaled = round(value * 10**places)
    return as_decimal(Decimal(scaled).scaleb(-places))


@dataclass(frozen=True, slots=True)
class GroupedAmount:
    """An amount as the user's language writes it (``3,120`` / ``3 120``; ``−1,300``)."""

    value: Decimal

    def localized(self, translator: Translator | None) -> str:
        text = format_number(self.value, language_of(translator))
        return text.replace("-", "−")


@dataclass(frozen=True, slots=True)
class Verdict:
    """ "an ordinary night", "unusually good for the house (p = 0.012)" …"""

    judgement: Judgement
    night: bool = True

    def localized(self, translator: Translator | None) -> str:
        verdict = self.judgement.verdict
        if verdict == "ordinary":
            text = N_("an ordinary night") if self.night else N_("an ordinary result")
            return Message(text).localized(translator)
        good = verdict == "high"
        return Message(
            N_("unusually good for the house (p = {p})")
            if good
            else N_("unusually poor for the house (p = {p})"),
            p=PValue(self.judgement.p_value),
        ).localized(translator)


# -- building the report ----------------------------------------------------------------------


def hold_report(
    code: str,
    name: str,
    rounds: Sequence[ClubRound],
    sign_ins: Sequence[SignIn],
    *,
    zone: tzinfo,
    by: By = By.NIGHT,
) -> HoldReport:
    """The report of *rounds* (settled, oldest first), grouped *by* night, sign-in or bet."""
    played = [r for r in rounds if r.winner is not None and r.wagers]
    laws = [r.law() for r in played]
    nights = _lines(played, laws, lambda r: night_of(r.opened_at, zone))
    if by is By.NIGHT:
        lines = nights
    elif by is By.DEALER:
        starts = sorted(sign_ins, key=lambda s: s.at)
        lines = _lines(played, laws, lambda r: _signed_in(starts, r.opened_at))
    else:
        lines = _bet_lines(played)
    if len(nights) == 1:  # the night is the whole: judged once
        total = HoldLine(None, nights[0].rounds, nights[0].handle, nights[0].judgement)
    else:
        total = _line(None, played, laws)
    dates = [night_of(r.opened_at, zone) for r in rounds]
    return HoldReport(
        code=code,
        name=name,
        zone=zone,
        first=min(dates, default=None),
        last=max(dates, default=None),
        by=by,
        total=total,
        lines=tuple(lines),
        nights=tuple(nights),
        void=sum(1 for r in rounds if r.winner is None),
        disagree=tuple(r.number for r in rounds if r.ledger != r.settled_kept),
    )


def _signed_in(starts: Sequence[SignIn], moment: datetime) -> SignIn | None:
    before = [s for s in starts if s.at <= moment]
    return before[-1] if before else None


def _line(key: object, rounds: Sequence[ClubRound], laws: Sequence[RoundLaw]) -> HoldLine:
    kept = as_decimal(sum((r.ledger for r in rounds), Decimal(0)))
    handle = as_decimal(sum((w.stake for r in rounds for w in r.wagers), Decimal(0)))
    return HoldLine(key, len(rounds), handle, HoldLaw.of(laws).judge(kept))


def _lines(
    rounds: Sequence[ClubRound], laws: Sequence[RoundLaw], key: Callable[[ClubRound], Hashable]
) -> list[HoldLine]:
    groups: dict[Hashable, list[int]] = {}
    for i, r in enumerate(rounds):
        groups.setdefault(key(r), []).append(i)
    return [
        _line(k, [rounds[i] for i in members], [laws[i] for i in members])
        for k, members in groups.items()
    ]


def _bet_lines(rounds: Sequence[ClubRound]) -> list[HoldLine]:
    """One line a bet: its stakes, what the house kept from it (by the settlement), and
    the exact law of that, round by round (the bet's own players and spots together)."""
    bets: dict[Bet, list[tuple[ClubRound, Decimal]]] = {}
    for r in rounds:
        for bet in dict.fromkeys(w.bet for w in r.wagers):
            kept = sum(
                (
                    w.stake - back
                    for w, back in zip(r.wagers, r.returned, strict=True)
                    if w.bet == bet
                ),
                Decimal(0),
            )
            bets.setdefault(bet, []).append((r, kept))
    lines = []
    for bet, played in sorted(bets.items(), key=lambda item: _bet_order(item[0])):
        kept = as_decimal(sum((k for _, k in played), Decimal(0)))
        handle = as_decimal(
            sum((w.stake for r, _ in played for w in r.wagers if w.bet == bet), Decimal(0))
        )
        law = HoldLaw.of([r.law(bet) for r, _ in played])
        lines.append(HoldLine(bet, len(played), handle, law.judge(kept)))
    return lines


def _bet_order(bet: Bet) -> tuple[int, int]:
    low = getattr(bet, "low", 0)
    row = getattr(bet, "row", None)
    return (0, 0 if row is Row.ANDAR else 1) if row is not None else (1, low)
