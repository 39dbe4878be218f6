"""The tables of the history: games, rounds, learners and their drill attempts (SQLAlchemy
2, typed).

These classes stay inside :mod:`andar_bahar.storage`; callers get frozen
dataclasses instead. The Alembic migrations in ``migrations/versions`` create
exactly these tables (a test compares them).

Times are timezone-aware UTC on the way in and on the way out, on every
backend: SQLite keeps them as UTC text, PostgreSQL as ``timestamptz``.

Nothing of a club table cascades: every reference to a table, a player or a round is
``ON DELETE RESTRICT``, so that a table with any history (its audit log above all) can
never be deleted with it.
Drill times are whole milliseconds, so sums and means stay exact.

>>> sorted(Base.metadata.tables)  # doctest: +NORMALIZE_WHITESPACE
['attempts', 'audit_log', 'club_tables', 'dealer_sessions', 'drill_attempts', 'games',
 'idempotency_keys', 'learner_tables', 'learners', 'ledger', 'rounds', 'table_players',
 'table_rounds']
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import (
    BigInteger,
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
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "ATTEMPT_KINDS",
    "ATTEMPT_OUTCOMES",
    "GAME_KINDS",
    "LEDGER_KINDS",
    "NAMING_CONVENTION",
    "ROUND_STATUSES",
    "TABLE_KINDS",
    "WINNERS",
    "AttemptRow",
    "AuditRow",
    "Base",
    "ClubTableRow",
    "DealerSessionRow",
    "DrillAttemptRow",
    "GameRow",
    "IdempotencyRow",
    "LearnerRow",
    "LearnerTableRow",
    "LedgerRow",
    "Micros",
    "RoundRow",
    "TablePlayerRow",
    "TableRoundRow",
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


class LearnerRow(Base):
    """A learner with a learner code: a name, the rules chosen to practise on, a level.

    Only the code's hash is kept (the learner's own device keeps the code itself).
    """

    __tablename__ = "learners"
    __table_args__ = (
        UniqueConstraint("code_hash"),
        CheckConstraint("level >= 1", name="level"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64))
    """SHA-256 of the learner code (six letters and digits, read aloud as ``ABC-DEF``)."""
    name: Mapped[str] = mapped_column(Text)
    procedure_json: Mapped[str | None] = mapped_column(Text)
    """The procedure practised on (``Procedure.to_dict()`` as JSON); null: the presets, varied."""
    paytable_toml: Mapped[str | None] = mapped_column(Text)
    """The paytable practised on (``Paytable.to_toml()``); null: the presets, varied."""
    rules_source: Mapped[str | None] = mapped_column(Text)
    """Where the rules came from: a table's code, a file's name, ``presets``."""
    level: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    """The dealer school's level reached (each passed raises it by one)."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class LearnerTableRow(Base):
    """A learner in a table's school: that table's dealer sees the learner's progress."""

    __tablename__ = "learner_tables"
    __table_args__ = (UniqueConstraint("learner_id", "table_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("learners.id", ondelete="RESTRICT"), index=True
    )
    table_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("club_tables.id", ondelete="RESTRICT"), index=True
    )
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime)


class DrillAttemptRow(Base):
    """One answer of a learner in a drill (one payout at the dealer school, one call of a
    real deck's deal).

    A learner with a code has ``learner_id`` (``learner`` is then their name); the
    terminal's learners by name alone have none. ``drill`` names what was answered, so
    that the same answer sent twice counts once.
    """

    __tablename__ = "drill_attempts"
    __table_args__ = (
        CheckConstraint("milliseconds >= 0", name="milliseconds"),
        UniqueConstraint("learner_id", "drill"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner: Mapped[str] = mapped_column(Text, index=True)
    session: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(Text)
    correct: Mapped[bool] = mapped_column(Boolean)
    milliseconds: Mapped[int] = mapped_column(Integer)
    """The time to answer, in whole milliseconds."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    learner_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("learners.id", ondelete="RESTRICT"), index=True
    )
    level: Mapped[int | None] = mapped_column(Integer)
    """The dealer school's level the answer was given at (null: not the school)."""
    drill: Mapped[str | None] = mapped_column(String(80))
    """What was answered: the drill's id and the answer's place in it (null: not kept)."""


# -- the club table on the web -----------------------------------------------------

TABLE_KINDS = ("betting", "teaching")
"""A web table plays the betting game with chips, or the teaching game with markers."""
ROUND_STATUSES = ("open", "finished", "settled")
"""A round is open until a card matches or it is void, finished until it is settled."""


class ClubTableRow(Base):
    """A table of the club: its rules, its paytable, and how the dealer proves who they are."""

    __tablename__ = "club_tables"
    __table_args__ = (
        CheckConstraint(_one_of("kind", TABLE_KINDS), name="kind"),
        UniqueConstraint("code"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(12))
    """What players type to join: short, unambiguous letters and digits."""
    name: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(16))
    procedure_json: Mapped[str] = mapped_column(Text)
    paytable_toml: Mapped[str] = mapped_column(Text)
    """The paytable in force for the next round opened."""
    pin_hash: Mapped[str] = mapped_column(Text)
    """scrypt of the dealer's PIN with its salt, naming its cost: ``scrypt$n$r$p$salt$hash``
    (hex; ``salt$hash`` from before: n = 2¹⁴, r = 8, p = 1)."""
    rounds_planned: Mapped[int] = mapped_column(Integer)
    scoring: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """One more in the transaction of every change of the table: what live pages follow."""
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    """When the dealer closed the table for the night (``None``: open). A closed table takes
    no round, bet, seat or join; its cashier still cashes the players out."""


class DealerSessionRow(Base):
    """A device the dealer signed in on (with the PIN, or by creating the table).

    Several may be signed in at once; signing out ends one of them.
    """

    __tablename__ = "dealer_sessions"
    __table_args__ = (UniqueConstraint("token_hash"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("club_tables.id", ondelete="RESTRICT"), index=True
    )
    token_hash: Mapped[str] = mapped_column(String(64))
    """SHA-256 of the dealer's token (the token itself is never stored)."""
    client: Mapped[str] = mapped_column(String(64))
    """The address the device signed in from."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


ATTEMPT_KINDS = ("login", "join", "create", "learner", "enrol")
"""What a rate-limited attempt was: a dealer's PIN, a seat code, a new table, a learner
code, a new learner."""
ATTEMPT_OUTCOMES = ("pending", "failed", "ok")


class AttemptRow(Base):
    """One attempt to sign in, to join with a seat code, to create a table, to come back
    with a learner code or to become a learner.

    Counted per table and per client address to slow down and then lock out guessing;
    a pending attempt (being checked) counts as a failure until it is known.
    """

    __tablename__ = "attempts"
    __table_args__ = (
        CheckConstraint(_one_of("kind", ATTEMPT_KINDS), name="kind"),
        CheckConstraint(_one_of("outcome", ATTEMPT_OUTCOMES), name="outcome"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    table_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("club_tables.id", ondelete="RESTRICT"), index=True
    )
    client: Mapped[str] = mapped_column(String(64), index=True)
    outcome: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class TablePlayerRow(Base):
    """A player admitted by the dealer, seated once a phone joins with the seat code.

    Only hashes are kept: of the seat code (until it is used) and of the phone's token.
    """

    __tablename__ = "table_players"
    __table_args__ = (UniqueConstraint("table_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("club_tables.id", ondelete="RESTRICT"), index=True
    )
    name: Mapped[str] = mapped_column(Text)
    token_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    seat_code_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    """SHA-256 of the seat code not yet used (null once a phone has joined with it)."""
    previous_token_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    """The token of the device last signed out (to tell it why)."""
    admitted_at: Mapped[datetime] = mapped_column(UTCDateTime)
    released_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    """When the dealer released the seat (null while the player is at the table)."""


class TableRoundRow(Base):
    """A round at a web table: the engine's exact record, stored after every step.

    The shuffled deck is stored when the round opens, with a salt, and only its
    SHA-256 commitment is shown until the round is settled.
    """

    __tablename__ = "table_rounds"
    __table_args__ = (
        CheckConstraint(_one_of("status", ROUND_STATUSES), name="status"),
        CheckConstraint("number >= 1", name="number"),
        UniqueConstraint("table_id", "number"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("club_tables.id", ondelete="RESTRICT"), index=True
    )
    number: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(10))
    record: Mapped[str] = mapped_column(Text)
    """``Round.dumps()``: procedure, paytable, deck, balances and every operation."""
    salt: Mapped[str | None] = mapped_column(String(64))
    commitment: Mapped[str | None] = mapped_column(String(64))
    """SHA-256 of the deck text and the salt (null for a real, typed-in deck)."""
    winner: Mapped[str | None] = mapped_column(String(5))
    cards_dealt: Mapped[int | None] = mapped_column(Integer)
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime)
    settled_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    bets_deadline: Mapped[datetime | None] = mapped_column(UTCDateTime)
    """The bet timer: bets are refused after it and closed at it (null: no timer)."""


MICROS = 1_000_000
"""Ledger amounts are whole millionths of a chip (the engine's finest amount, 6 places)."""


class Micros(TypeDecorator[Decimal]):
    """An exact amount of chips kept as a whole number of millionths (``BIGINT``).

    The database can sum and check them (``SUM(amount_micros) / 1e6`` is chips);
    an amount with more than 6 decimal places is refused, never rounded.

    >>> Micros().process_bind_param(Decimal("-12.5"), None)
    -12500000
    >>> Micros().process_result_value(-12500000, None)
    Decimal('-12.5')
    """

    impl = BigInteger
    cache_ok = True

    def process_bind_param(self, value: Decimal | None, dialect: Dialect | None) -> int | None:
        if value is None:
            return None
        if not isinstance(value, Decimal) or not value.is_finite():
            raise ValueError(f"an amount must be a finite Decimal, not {value!r}")
        micros = value * MICROS
        if micros != micros.to_integral_value() or abs(micros) >= 2**63:
            raise ValueError(f"{value} is not a whole number of millionths within range")
        return int(micros)

    def process_result_value(self, value: int | None, dialect: Dialect | None) -> Decimal | None:
        if value is None:
            return None
        amount = (Decimal(int(value)) / MICROS).normalize()
        return amount.quantize(Decimal(1)) if amount == amount.to_integral_value() else amount


LEDGER_KINDS = ("buy-in", "top-up", "cash-out", "stake", "return")
"""Why a balance changed: chips bought at the table, more chips, chips cashed out, a
stake taken at settlement, a return paid (a win with its stake, or a void's stake back)."""


class LedgerRow(Base):
    """One change of one balance, mirrored by the house: every round and every cash
    movement sums to zero."""

    __tablename__ = "ledger"
    __table_args__ = (CheckConstraint(_one_of("kind", LEDGER_KINDS), name="kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("club_tables.id", ondelete="RESTRICT"), index=True
    )
    round_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("table_rounds.id", ondelete="RESTRICT"), index=True
    )
    player_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("table_players.id", ondelete="RESTRICT"), index=True
    )
    """The player's account, or null for the house."""
    amount: Mapped[Decimal] = mapped_column("amount_micros", Micros)
    """Chips, kept as whole millionths in the column ``amount_micros``."""
    kind: Mapped[str] = mapped_column(String(10))
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class IdempotencyRow(Base):
    """A request already carried out: repeating it returns the same answer."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("player_id", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("table_players.id", ondelete="RESTRICT"), index=True
    )
    key: Mapped[str] = mapped_column(String(80))
    request: Mapped[str | None] = mapped_column(String(64))
    """SHA-256 of what was asked: the same key with another request is refused."""
    response: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class AuditRow(Base):
    """Who changed what at a table, when, from what to what, and why."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("club_tables.id", ondelete="RESTRICT"), index=True
    )
    actor: Mapped[str] = mapped_column(Text)
    action: Mapped[str] = mapped_column(Text)
    old_value: Mapped[str | None] = mapped_column(Text)
    new_value: Mapped[str | None] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
