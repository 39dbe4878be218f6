"""The club table on the web: tables, players, rounds, ledger, idempotency, audit.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

Hand-written to match ``andar_bahar.storage.models`` exactly (a test compares
them); names are final (``op.f``).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "club_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=12), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("procedure_json", sa.Text(), nullable=False),
        sa.Column("paytable_toml", sa.Text(), nullable=False),
        sa.Column("pin_hash", sa.Text(), nullable=False),
        sa.Column("dealer_token_hash", sa.String(length=64), nullable=False),
        sa.Column("rounds_planned", sa.Integer(), nullable=False),
        sa.Column("scoring", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('betting', 'teaching')", name=op.f("ck_club_tables_kind")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_tables")),
        sa.UniqueConstraint("code", name=op.f("uq_club_tables_code")),
    )
    op.create_table(
        "table_players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("admitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["club_tables.id"],
            name=op.f("fk_table_players_table_id_club_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_players")),
        sa.UniqueConstraint("table_id", "name", name=op.f("uq_table_players_table_id")),
    )
    op.create_index(op.f("ix_table_players_table_id"), "table_players", ["table_id"])
    op.create_index(op.f("ix_table_players_token_hash"), "table_players", ["token_hash"])
    op.create_table(
        "table_rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
        sa.Column("salt", sa.String(length=64), nullable=True),
        sa.Column("commitment", sa.String(length=64), nullable=True),
        sa.Column("winner", sa.String(length=5), nullable=True),
        sa.Column("cards_dealt", sa.Integer(), nullable=True),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('open', 'finished', 'settled')", name=op.f("ck_table_rounds_status")
        ),
        sa.CheckConstraint("number >= 1", name=op.f("ck_table_rounds_number")),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["club_tables.id"],
            name=op.f("fk_table_rounds_table_id_club_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_rounds")),
        sa.UniqueConstraint("table_id", "number", name=op.f("uq_table_rounds_table_id")),
    )
    op.create_index(op.f("ix_table_rounds_table_id"), "table_rounds", ["table_id"])
    op.create_table(
        "ledger",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("amount", sa.String(length=40), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["table_players.id"],
            name=op.f("fk_ledger_player_id_table_players"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["round_id"],
            ["table_rounds.id"],
            name=op.f("fk_ledger_round_id_table_rounds"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["club_tables.id"],
            name=op.f("fk_ledger_table_id_club_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger")),
    )
    op.create_index(op.f("ix_ledger_table_id"), "ledger", ["table_id"])
    op.create_index(op.f("ix_ledger_round_id"), "ledger", ["round_id"])
    op.create_index(op.f("ix_ledger_player_id"), "ledger", ["player_id"])
    op.create_table(
        "idempotency_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=80), nullable=False),
        sa.Column("response", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["table_players.id"],
            name=op.f("fk_idempotency_keys_player_id_table_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_idempotency_keys")),
        sa.UniqueConstraint("player_id", "key", name=op.f("uq_idempotency_keys_player_id")),
    )
    op.create_index(op.f("ix_idempotency_keys_player_id"), "idempotency_keys", ["player_id"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("old_value", sa.Text(), nullable=True),
        sa.Column("new_value", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["club_tables.id"],
            name=op.f("fk_audit_log_table_id_club_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_index(op.f("ix_audit_log_table_id"), "audit_log", ["table_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_audit_log_table_id"), table_name="audit_log")
    op.drop_table("audit_log")
    op.drop_index(op.f("ix_idempotency_keys_player_id"), table_name="idempotency_keys")
    op.drop_table("idempotency_keys")
    op.drop_index(op.f("ix_ledger_player_id"), table_name="ledger")
    op.drop_index(op.f("ix_ledger_round_id"), table_name="ledger")
    op.drop_index(op.f("ix_ledger_table_id"), table_name="ledger")
    op.drop_table("ledger")
    op.drop_index(op.f("ix_table_rounds_table_id"), table_name="table_rounds")
    op.drop_table("table_rounds")
    op.drop_index(op.f("ix_table_players_token_hash"), table_name="table_players")
    op.drop_index(op.f("ix_table_players_table_id"), table_name="table_players")
    op.drop_table("table_players")
    op.drop_table("club_tables")
