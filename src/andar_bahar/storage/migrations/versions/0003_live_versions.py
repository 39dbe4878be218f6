"""Live tables: a version for every table, a deadline for the bets of a round.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01

``club_tables.version`` grows by one in the transaction of every change of the
table (the live pages carry it; a worker process knows by it whether what it keeps
in memory of the table is still current). ``table_rounds.bets_deadline`` is the bet
timer the dealer may set: bets are refused after it, and closed at it.

Hand-written to match ``andar_bahar.storage.models`` exactly (a test compares them).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("club_tables") as batch:
        batch.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("table_rounds") as batch:
        batch.add_column(sa.Column("bets_deadline", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("table_rounds") as batch:
        batch.drop_column("bets_deadline")
    with op.batch_alter_table("club_tables") as batch:
        batch.drop_column("version")
