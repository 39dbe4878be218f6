"""Nothing cascades: a table's audit log, players, rounds, keys and sign-ins are RESTRICT.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06

Hand-written to match ``andar_bahar.storage.models`` exactly (a test compares them).

Every reference to a club table, a player or a round was ``ON DELETE CASCADE`` (but the
ledger's, RESTRICT since 0004): deleting a table would have taken its audit log, its
rounds, its players and their idempotency keys with it. Now each is ``ON DELETE
RESTRICT``, so a table, a player or a round with any history cannot be deleted at all.

PostgreSQL changes each constraint in place. SQLite cannot: the tables that hold them are
copied anew (Alembic's batch mode), with foreign keys off while the migration runs
(:func:`andar_bahar.storage.engines.upgrade` turns them off, and checks every reference
before the commit), since copying ``table_players`` or ``table_rounds`` drops the old
copy, which the ledger's rows refer to.
"""

from __future__ import annotations

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None

REFERENCES = (
    ("audit_log", "table_id", "club_tables"),
    ("dealer_sessions", "table_id", "club_tables"),
    ("attempts", "table_id", "club_tables"),
    ("idempotency_keys", "player_id", "table_players"),
    ("table_players", "table_id", "club_tables"),
    ("table_rounds", "table_id", "club_tables"),
)
"""(table, column, the table it refers to): every reference that cascaded."""


def _refer(ondelete: str) -> None:
    for table, column, target in REFERENCES:
        name = op.f(f"fk_{table}_{column}_{target}")
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(name, type_="foreignkey")
            batch.create_foreign_key(name, target, [column], ["id"], ondelete=ondelete)


def upgrade() -> None:
    _refer("RESTRICT")


def downgrade() -> None:
    _refer("CASCADE")
