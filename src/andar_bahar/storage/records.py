"""What the history gives back: frozen records of rounds, games and drill progress.

The rows of :mod:`andar_bahar.storage.models` never leave the storage layer; callers
get these records, with exact numbers (``Decimal``, ``Fraction``) kept exact.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from enum import Enum
from fractions import Fraction
from typing import Any

from andar_bahar.engine.errors import AndarBaharError, ParameterError
from andar_bahar.engine.money import format_amount
from andar_bahar.engine.paytables import Paytable, load_paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Procedure
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage.models import GameRow, RoundRow

__all__ = [
    "DrillStats",
    "StorageError",
    "StoredGame",
    "StoredRound",
    "check_limit",
    "seconds_of",
    "stored_game",
    "stored_round",
    "to_json",
    "utc_now",
]


class StorageError(AndarBaharError):
    """The history cannot be opened, or holds no such game or round."""


def utc_now() -> datetime:
    """The current time, timezone-aware, in UTC (the default clock of :class:`Storage`)."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class StoredRound:
    """A finished round as listed from the history; :meth:`replay` rebuilds it."""

    id: int
    game_id: int | None
    number: int
    procedure: str
    """The procedure's name."""
    paytable: str
    """The paytable's name."""
    winner: str
    """``andar``, ``bahar`` or ``void``."""
    cards_dealt: int
    centre: str | None
    """The centre card as text (``Q♥``), or ``None`` when the target rank was chosen."""
    target: str
    """The rank that matched (``Q``, ``10``)."""
    created_at: datetime
    record: str = field(repr=False)
    """``Round.dumps()``: the exact record."""

    def replay(self) -> Round:
        """The round, replayed from its record through the state machine."""
        return Round.loads(self.record)


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game from the history: its rules, who played, and its result once finished.

    Exact numbers in *settings* and *result* (stakes, balances, fractions) are
    kept as their exact text (``"12.5"``, ``"1/3"``).
    """

    id: int
    kind: str
    procedure: str
    """The procedure's name (:meth:`load_procedure` gives the procedure itself)."""
    paytable: str
    """The paytable's name (:meth:`load_paytable` gives the table itself)."""
    participants: tuple[str, ...]
    settings: Mapping[str, Any]
    result: Mapping[str, Any] | None
    started_at: datetime
    finished_at: datetime | None
    round_count: int
    procedure_record: str = field(repr=False)
    """``Procedure.to_dict()`` as JSON."""
    paytable_record: str = field(repr=False)
    """``Paytable.to_toml()``."""

    @property
    def finished(self) -> bool:
        return self.finished_at is not None

    def load_procedure(self) -> Procedure:
        """The game's procedure, rebuilt from its record."""
        return Procedure.from_dict(json.loads(self.procedure_record), source=f"game {self.id}")

    def load_paytable(self) -> Paytable:
        """The game's paytable, loaded from its TOML."""
        return load_paytable(self.paytable_record, source=f"game {self.id}")


@dataclass(frozen=True, slots=True)
class DrillStats:
    """A learner's answers of one kind in one session.

    *mean_seconds* is rounded to the millisecond (half to even); *total_seconds*
    is exact, so ``total_seconds / attempts`` is the exact mean.
    """

    session: str
    kind: str
    attempts: int
    correct: int
    accuracy: Fraction
    mean_seconds: Decimal
    total_seconds: Decimal
    first_at: datetime


def stored_round(row: RoundRow) -> StoredRound:
    return StoredRound(
        id=row.id,
        game_id=row.game_id,
        number=row.number,
        procedure=row.procedure_name,
        paytable=row.paytable_name,
        winner=row.winner,
        cards_dealt=row.cards_dealt,
        centre=row.centre,
        target=row.target,
        created_at=row.created_at,
        record=row.record,
    )


def stored_game(row: GameRow, rounds: int) -> StoredGame:
    return StoredGame(
        id=row.id,
        kind=row.kind,
        procedure=row.procedure_name,
        paytable=row.paytable_name,
        participants=tuple(json.loads(row.participants_json)),
        settings=json.loads(row.settings_json),
        result=json.loads(row.result_json) if row.result_json is not None else None,
        started_at=row.started_at,
        finished_at=row.finished_at,
        round_count=int(rounds),
        procedure_record=row.procedure_json,
        paytable_record=row.paytable_toml,
    )


def seconds_of(milliseconds: int) -> Decimal:
    return Decimal(milliseconds).scaleb(-3)


def check_limit(limit: int) -> int:
    if limit < 0:
        raise ParameterError(
            Message(N_("A limit is a number of rows, zero or more, not {limit}."), limit=limit)
        )
    return limit


def to_json(value: object) -> str:
    """Plain data as JSON; exact numbers (Decimal, Fraction) become their exact text."""
    try:
        return json.dumps(value, default=_plain, ensure_ascii=False)
    except (TypeError, ValueError) as error:
        raise ParameterError(
            Message(N_("The value cannot be stored in the history: {reason}."), reason=error)
        ) from None


def _plain(value: object) -> object:
    if isinstance(value, Decimal):
        return format_amount(value)
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    raise TypeError(f"{type(value).__name__} is not plain data")
