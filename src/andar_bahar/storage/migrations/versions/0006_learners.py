"""Learners: a learner code and a name, a table's school, attempts kept per learner.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-10

Hand-written to match ``andar_bahar.storage.models`` exactly (a test compares them).

- ``learners``: the hash of a learner's code, their name, the rules they practise on
  (null: the presets, varied) and the dealer school's level reached;
- ``learner_tables``: the learners in a table's school (that table's dealer sees them);
- ``drill_attempts``: ``learner_id`` (null for the terminal's learners by name alone, as
  every answer stored before this revision), the school's ``level``, and ``drill`` — what
  was answered, unique per learner, so that an answer sent twice counts once;
- ``attempts``: two more kinds, ``learner`` (a learner code tried) and ``enrol`` (a new
  learner), counted like seat codes and new tables.

Every new reference is ``ON DELETE RESTRICT``, as since 0005. SQLite changes
``drill_attempts`` and ``attempts`` by copying them anew (Alembic's batch mode; nothing
refers to either); PostgreSQL changes them in place.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None

KINDS_BEFORE = "kind IN ('login', 'join', 'create')"
KINDS_NOW = "kind IN ('login', 'join', 'create', 'learner', 'enrol')"


def upgrade() -> None:
    op.create_table(
        "learners",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("procedure_json", sa.Text(), nullable=True),
        sa.Column("paytable_toml", sa.Text(), nullable=True),
        sa.Column("rules_source", sa.Text(), nullable=True),
        sa.Column("level", sa.Integer(), server_default="1", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("level >= 1", name=op.f("ck_learners_level")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_learners")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_learners_code_hash")),
    )
    op.create_table(
        "learner_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learner_id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["learner_id"],
            ["learners.id"],
            name=op.f("fk_learner_tables_learner_id_learners"),
            ondelete="RESTRICT",
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["club_tables.id"],
            name=op.f("fk_learner_tables_table_id_club_tables"),
            ondelete="RESTRICT",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_learner_tables")),
        sa.UniqueConstraint("learner_id", "table_id", name=op.f("uq_learner_tables_learner_id")),
    )
    op.create_index(op.f("ix_learner_tables_learner_id"), "learner_tables", ["learner_id"])
    op.create_index(op.f("ix_learner_tables_table_id"), "learner_tables", ["table_id"])
    with op.batch_alter_table("drill_attempts") as batch:
        batch.add_column(sa.Column("learner_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("level", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("drill", sa.String(length=80), nullable=True))
        batch.create_foreign_key(
            op.f("fk_drill_attempts_learner_id_learners"),
            "learners",
            ["learner_id"],
            ["id"],
            ondelete="RESTRICT",
        )
        batch.create_unique_constraint(
            op.f("uq_drill_attempts_learner_id"), ["learner_id", "drill"]
        )
        batch.create_index(op.f("ix_drill_attempts_learner_id"), ["learner_id"])
    _attempt_kinds(KINDS_NOW)


def _attempt_kinds(condition: str) -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.drop_constraint(op.f("ck_attempts_kind"), type_="check")
        batch.create_check_constraint(op.f("ck_attempts_kind"), condition)


def downgrade() -> None:
    op.execute("DELETE FROM attempts WHERE kind IN ('learner', 'enrol')")
    _attempt_kinds(KINDS_BEFORE)
    with op.batch_alter_table("drill_attempts") as batch:
        batch.drop_index(op.f("ix_drill_attempts_learner_id"))
        batch.drop_constraint(op.f("uq_drill_attempts_learner_id"), type_="unique")
        batch.drop_constraint(op.f("fk_drill_attempts_learner_id_learners"), type_="foreignkey")
        batch.drop_column("drill")
        batch.drop_column("level")
        batch.drop_column("learner_id")
    op.drop_index(op.f("ix_learner_tables_table_id"), table_name="learner_tables")
    op.drop_index(op.f("ix_learner_tables_learner_id"), table_name="learner_tables")
    op.drop_table("learner_tables")
    op.drop_table("learners")
