"""Trust at the table: dealer sessions, attempts, seat codes, a ledger in millionths.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

Hand-written to match ``andar_bahar.storage.models`` exactly (a test compares them).

- ``dealer_sessions``: one row per signed-in dealer device (the token that
  ``club_tables.dealer_token_hash`` held becomes the first session);
- ``attempts``: sign-ins, seat codes and new tables, counted to lock out guessing;
- ``table_players``: the seat code's hash, the last signed-out token, the release time;
- ``ledger``: amounts as whole millionths of a chip (``amount_micros``, BIGINT; the text
  amounts are converted exactly), a ``kind`` (buy-in, top-up, cash-out, stake, return),
  and ``ON DELETE RESTRICT`` on every reference (nothing cascades into the ledger);
  on PostgreSQL a deferred constraint trigger refuses to commit a round or a table
  whose postings do not sum to zero;
- ``idempotency_keys.request``: what was asked with a key.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None

MICROS = 1_000_000

LEDGER_TRIGGER = """
CREATE FUNCTION ledger_sums_to_zero() RETURNS trigger AS $$
DECLARE
    t integer;
    r integer;
    total numeric;
BEGIN
    IF TG_OP = 'DELETE' THEN
        t := OLD.table_id; r := OLD.round_id;
    ELSE
        t := NEW.table_id; r := NEW.round_id;
    END IF;
    -- Deferred: every row's check runs at commit, after all of the transaction's rows;
    -- the first check of a round (of a table) sees them all, the others are skipped.
    IF r IS NOT NULL AND coalesce(current_setting('andar_bahar.round_' || r, true), '') <> '1'
    THEN
        SELECT coalesce(sum(amount_micros), 0) INTO total FROM ledger WHERE round_id = r;
        IF total <> 0 THEN
            RAISE EXCEPTION 'the ledger of round % sums to % millionths, not zero', r, total
                USING ERRCODE = 'check_violation';
        END IF;
        PERFORM set_config('andar_bahar.round_' || r, '1', true);
    END IF;
    IF coalesce(current_setting('andar_bahar.table_' || t, true), '') <> '1' THEN
        SELECT coalesce(sum(amount_micros), 0) INTO total FROM ledger WHERE table_id = t;
        IF total <> 0 THEN
            RAISE EXCEPTION 'the ledger of table % sums to % millionths, not zero', t, total
                USING ERRCODE = 'check_violation';
        END IF;
        PERFORM set_config('andar_bahar.table_' || t, '1', true);
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql
"""
LEDGER_CONSTRAINT = """
CREATE CONSTRAINT TRIGGER ledger_sums_to_zero AFTER INSERT OR UPDATE OR DELETE ON ledger
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_sums_to_zero()
"""


def _kind(round_id: int | None, amount: Decimal, reason: str, player_id: int | None) -> str:
    """The kind of an old posting: chips in (buy-in), or a round's stake or return."""
    if round_id is None:
        return "buy-in"
    # The player's side: a stake is negative; the house's mirror is the opposite.
    player_side = amount if player_id is not None else -amount
    return "stake" if player_side < 0 else "return"


def upgrade() -> None:
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"

    op.create_table(
        "dealer_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("client", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["club_tables.id"],
            name=op.f("fk_dealer_sessions_table_id_club_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dealer_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_dealer_sessions_token_hash")),
    )
    op.create_index(op.f("ix_dealer_sessions_table_id"), "dealer_sessions", ["table_id"])
    bind.execute(
        sa.text(
            "INSERT INTO dealer_sessions (table_id, token_hash, client, created_at)"
            " SELECT id, dealer_token_hash, 'before 0004', created_at FROM club_tables"
        )
    )
    # Never recreate a table others refer to: on SQLite (foreign keys on) dropping the old
    # copy would delete every row that refers to it, through ON DELETE CASCADE.
    op.execute("ALTER TABLE club_tables DROP COLUMN dealer_token_hash")  # SQLite ≥ 3.35

    op.create_table(
        "attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=True),
        sa.Column("client", sa.String(length=64), nullable=False),
        sa.Column("outcome", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('login', 'join', 'create')", name=op.f("ck_attempts_kind")),
        sa.CheckConstraint(
            "outcome IN ('pending', 'failed', 'ok')", name=op.f("ck_attempts_outcome")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["club_tables.id"],
            name=op.f("fk_attempts_table_id_club_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attempts")),
    )
    op.create_index(op.f("ix_attempts_table_id"), "attempts", ["table_id"])
    op.create_index(op.f("ix_attempts_client"), "attempts", ["client"])

    for name, kind in (
        ("seat_code_hash", sa.String(length=64)),
        ("previous_token_hash", sa.String(length=64)),
        ("released_at", sa.DateTime(timezone=True)),
    ):
        op.add_column("table_players", sa.Column(name, kind, nullable=True))
    op.create_index(op.f("ix_table_players_seat_code_hash"), "table_players", ["seat_code_hash"])
    op.create_index(
        op.f("ix_table_players_previous_token_hash"), "table_players", ["previous_token_hash"]
    )
    op.add_column("idempotency_keys", sa.Column("request", sa.String(length=64), nullable=True))

    # The ledger: text amounts become whole millionths, exactly (Decimal, never a float).
    with op.batch_alter_table("ledger") as batch:
        batch.add_column(sa.Column("amount_micros", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("kind", sa.String(length=10), nullable=True))
    rows = bind.execute(sa.text("SELECT id, round_id, player_id, amount, reason FROM ledger"))
    for row_id, round_id, player_id, text, reason in rows.all():
        amount = Decimal(text)
        micros = amount * MICROS
        if micros != micros.to_integral_value():
            raise ValueError(f"ledger entry {row_id}: {text} has more than 6 decimal places")
        bind.execute(
            sa.text("UPDATE ledger SET amount_micros = :m, kind = :k WHERE id = :i"),
            {"m": int(micros), "k": _kind(round_id, amount, reason, player_id), "i": row_id},
        )
    with op.batch_alter_table("ledger", recreate="always") as batch:
        batch.alter_column("amount_micros", existing_type=sa.BigInteger(), nullable=False)
        batch.alter_column("kind", existing_type=sa.String(length=10), nullable=False)
        batch.drop_column("amount")
        _ledger_foreign_keys(batch, ondelete="RESTRICT")
        batch.create_check_constraint(
            op.f("ck_ledger_kind"),
            "kind IN ('buy-in', 'top-up', 'cash-out', 'stake', 'return')",
        )
    if postgres:
        op.execute(LEDGER_TRIGGER)
        op.execute(LEDGER_CONSTRAINT)


def _ledger_foreign_keys(batch: Any, *, ondelete: str) -> None:
    """The ledger's references to players, rounds and tables, made again with *ondelete*."""
    for column, target in (
        ("player_id", "table_players"),
        ("round_id", "table_rounds"),
        ("table_id", "club_tables"),
    ):
        name = op.f(f"fk_ledger_{column}_{target}")
        batch.drop_constraint(name, type_="foreignkey")
        batch.create_foreign_key(name, target, [column], ["id"], ondelete=ondelete)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute("DROP TRIGGER ledger_sums_to_zero ON ledger")
        op.execute("DROP FUNCTION ledger_sums_to_zero()")
    with op.batch_alter_table("ledger") as batch:
        batch.add_column(sa.Column("amount", sa.String(length=40), nullable=True))
    rows = bind.execute(sa.text("SELECT id, amount_micros FROM ledger"))
    for row_id, micros in rows.all():
        text = format((Decimal(micros) / MICROS).normalize(), "f")
        bind.execute(
            sa.text("UPDATE ledger SET amount = :a WHERE id = :i"), {"a": text, "i": row_id}
        )
    with op.batch_alter_table("ledger", recreate="always") as batch:
        batch.alter_column("amount", existing_type=sa.String(length=40), nullable=False)
        batch.drop_constraint(op.f("ck_ledger_kind"), type_="check")
        batch.drop_column("amount_micros")
        batch.drop_column("kind")
        _ledger_foreign_keys(batch, ondelete="CASCADE")
    op.execute("ALTER TABLE idempotency_keys DROP COLUMN request")
    op.drop_index(op.f("ix_table_players_previous_token_hash"), table_name="table_players")
    op.drop_index(op.f("ix_table_players_seat_code_hash"), table_name="table_players")
    for column in ("released_at", "previous_token_hash", "seat_code_hash"):  # no recreation
        op.execute(f"ALTER TABLE table_players DROP COLUMN {column}")
    op.drop_index(op.f("ix_attempts_client"), table_name="attempts")
    op.drop_index(op.f("ix_attempts_table_id"), table_name="attempts")
    op.drop_table("attempts")
    op.add_column("club_tables", sa.Column("dealer_token_hash", sa.String(64), nullable=True))
    bind.execute(
        sa.text(
            "UPDATE club_tables SET dealer_token_hash = (SELECT min(token_hash)"
            " FROM dealer_sessions WHERE dealer_sessions.table_id = club_tables.id)"
        )
    )
    op.drop_index(op.f("ix_dealer_sessions_table_id"), table_name="dealer_sessions")
    op.drop_table("dealer_sessions")
