"""The tables of the history: games, rounds and drill attempts (SQLAlchemy 2, typed).

These classes stay inside :mod:`andar_bahar.storage`; callers get frozen
dataclasses instead. The Alembic migrations in ``migrations/versions`` create
exactly these tables (a test compares them).

Times are timezone-aware UTC on the way in and on the way out, on every
backend: SQLite keeps them as UTC text, PostgreSQL as ``timestamptz``.
Drill times are whole milliseconds, so sums and means stay exact.

>>> sorted(Base.metadata.tables)
['drill_attempts', 'games', 'rounds']
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "GAME_KINDS",
    "NAMING_CONVENTION",
    "WINNERS",
    "Base",
    "DrillAttemptRow",
    "GameRow",
    "RoundRow",
    "UTCDateTime",
]

GAME_KINDS = ("teaching", "club", "single")
"""What a stored game is: a lesson with markers, a club table with chips, one learner alone."""
WINNERS = ("andar", "bahar", "void")
"""The ``winner`` column: a row, or ``void`` when the deck ran out with no match."""

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
"""Constraint names are fixed, so later migrations can name what they change."""


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend (naive values are refused)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"a stored time needs a time zone, not {value!r}")
        utc = value.astimezone(UTC)
        # SQLite has no time zones: it keeps the UTC wall time as text.
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    """The declarative base of the history's tables."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class GameRow(Base):
    """A game: a lesson, a club table or a learner alone, with its rules and result."""

    __tablename__ = "games"
    __table_args__ = (CheckConstraint(_one_of("kind", GAME_KINDS), name="kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    procedure_name: Mapped[str] = mapped_column(Text)
    paytable_name: Mapped[str] = mapped_column(Text)
    procedure_json: Mapped[str] = mapped_column(Text)
    """``Procedure.to_dict()`` as JSON."""
    paytable_toml: Mapped[str] = mapped_column(Text)
    """``Paytable.to_toml()``: the club file that loads back equal."""
    participants_json: Mapped[str] = mapped_column(Text)
    settings_json: Mapped[str] = mapped_column(Text)
    result_json: Mapped[str | None] = mapped_column(Text)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class RoundRow(Base):
    """A finished round: its exact record and the columns a listing needs."""

    __tablename__ = "rounds"
    __table_args__ = (
        CheckConstraint(_one_of("winner", WINNERS), name="winner"),
        CheckConstraint("cards_dealt >= 0", name="cards_dealt"),
        CheckConstraint("number >= 1", name="number"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("games.id", ondelete="CASCADE"), index=True
    )
    number: Mapped[int] = mapped_column(Integer)
    """The round's number in its game (a void round and its repeat share one)."""
    procedure_name: Mapped[str] = mapped_column(Text)
    paytable_name: Mapped[str] = mapped_column(Text)
    winner: Mapped[str] = mapped_column(String(5))
    cards_dealt: Mapped[int] = mapped_column(Integer)
    centre: Mapped[str | None] = mapped_column(String(3))
    """The centre card as text (``Q♥``), or null when the target rank was chosen."""
    target: Mapped[str] = mapped_column(String(2))
    """The rank to match (``Q``, ``10``)."""
    record: Mapped[str] = mapped_column(Text)
    """``Round.dumps()``: the exact, replayable record."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


class DrillAttemptRow(Base):
    """One answer of a learner in a drill."""

    __tablename__ = "drill_attempts"
    __table_args__ = (CheckConstraint("milliseconds >= 0", name="milliseconds"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner: Mapped[str] = mapped_column(Text, index=True)
    session: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(Text)
    correct: Mapped[bool] = mapped_column(Boolean)
    milliseconds: Mapped[int] = mapped_column(Integer)
    """The time to answer, in whole milliseconds."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
