"""Closing a table for the night: when it was closed.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06

``club_tables.closed_at`` is set once, when the dealer closes the table (null: open). A
closed table takes no round, bet, seat or join; its cashier still cashes the players
out, so its ledger keeps summing to zero.

Hand-written to match ``andar_bahar.storage.models`` exactly (a test compares them).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("club_tables") as batch:
        batch.add_column(sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("club_tables") as batch:
        batch.drop_column("closed_at")
