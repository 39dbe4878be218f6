"""The history: games, rounds and drill attempts.

Revision ID: 0001
Revises:
Create Date: 2025-01-01

Hand-written to match ``andar_bahar.storage.models`` exactly (a test compares
them). Self-contained: it uses plain SQLAlchemy types, never the models. Names
are final (``op.f``): the models' naming convention is not applied again.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("procedure_name", sa.Text(), nullable=False),
        sa.Column("paytable_name", sa.Text(), nullable=False),
        sa.Column("procedure_json", sa.Text(), nullable=False),
        sa.Column("paytable_toml", sa.Text(), nullable=False),
        sa.Column("participants_json", sa.Text(), nullable=False),
        sa.Column("settings_json", sa.Text(), nullable=False),
        sa.Column("result_json", sa.Text(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("kind IN ('teaching', 'club', 'single')", name=op.f("ck_games_kind")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.create_index(op.f("ix_games_started_at"), "games", ["started_at"])

    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("procedure_name", sa.Text(), nullable=False),
        sa.Column("paytable_name", sa.Text(), nullable=False),
        sa.Column("winner", sa.String(length=5), nullable=False),
        sa.Column("cards_dealt", sa.Integer(), nullable=False),
        sa.Column("centre", sa.String(length=3), nullable=True),
        sa.Column("target", sa.String(length=2), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("winner IN ('andar', 'bahar', 'void')", name=op.f("ck_rounds_winner")),
        sa.CheckConstraint("cards_dealt >= 0", name=op.f("ck_rounds_cards_dealt")),
        sa.CheckConstraint("number >= 1", name=op.f("ck_rounds_number")),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_rounds_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rounds")),
    )
    op.create_index(op.f("ix_rounds_game_id"), "rounds", ["game_id"])
    op.create_index(op.f("ix_rounds_created_at"), "rounds", ["created_at"])

    op.create_table(
        "drill_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner", sa.Text(), nullable=False),
        sa.Column("session", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("milliseconds", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("milliseconds >= 0", name=op.f("ck_drill_attempts_milliseconds")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_drill_attempts")),
    )
    op.create_index(op.f("ix_drill_attempts_learner"), "drill_attempts", ["learner"])


def downgrade() -> None:
    op.drop_index(op.f("ix_drill_attempts_learner"), table_name="drill_attempts")
    op.drop_table("drill_attempts")
    op.drop_index(op.f("ix_rounds_created_at"), table_name="rounds")
    op.drop_index(op.f("ix_rounds_game_id"), table_name="rounds")
    op.drop_table("rounds")
    op.drop_index(op.f("ix_games_started_at"), table_name="games")
    op.drop_table("games")
