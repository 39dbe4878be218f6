"""Nothing cascades: a club table, a player or a round with any history cannot be deleted
(every reference ``ON DELETE RESTRICT``, migration 0005), on SQLite and PostgreSQL.

Source: the issue — deleting a table took its audit log, rounds, players and keys with it
(only the ledger refused); the audit log must never vanish with a row.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.exc import IntegrityError

from andar_bahar.club.service import TableService
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.storage import Storage, StorageError
from andar_bahar.storage.engines import alembic_config, migrating
from sqlite_template import migrated_sqlite

HISTORY = ("club_tables", "dealer_sessions", "attempts", "audit_log", "table_players",
           "table_rounds", "idempotency_keys", "ledger")  # fmt: skip


@pytest.fixture
def storage(database_url: str) -> Iterator[Storage]:
    opened = Storage.open(database_url)
    yield opened
    opened.close()


def _seated(service: TableService, kind: str, name: str, chips: str) -> tuple[str, str, str]:
    """A table of *kind* with *name* seated and a round open: (code, dealer, player token)."""
    procedure = find_procedure("home" if kind == "teaching" else "classic")
    table = service.create_table(name=kind, kind=kind, pin="246813", procedure=procedure,
                                 paytable=find_paytable("wizard"))  # fmt: skip
    seat = service.admit_player(table.code, table.dealer_token, name, chips)
    token = service.join(table.code, seat, client="192.0.2.1")
    service.open_round(table.code, table.dealer_token)
    return table.code, table.dealer_token, token


def _lesson(service: TableService) -> str:
    """A teaching table with a player and a marker in its open round (no ledger at all)."""
    code, _, nino = _seated(service, "teaching", "Nino", "0")
    service.place_marker(code, nino, "andar")
    return code


def _betting(service: TableService) -> str:
    """A betting table with a bet placed by key (an idempotency key) and settled."""
    code, dealer, asha = _seated(service, "betting", "Asha", "100")
    service.place_bet(code, asha, "andar", "10", key="k1")
    service.turn_centre(code, dealer)
    while service.deal(code, dealer).status == "open":
        pass
    service.settle(code, dealer)
    return code


def _counts(storage: Storage) -> dict[str, int]:
    with storage.engine.connect() as conn:
        return {t: conn.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar_one() for t in HISTORY}


def _refused(storage: Storage, statement: str) -> None:
    with pytest.raises(IntegrityError), storage.engine.begin() as conn:
        conn.execute(sa.text(statement))


def test_a_table_with_any_history_cannot_be_deleted(storage: Storage) -> None:
    service = TableService(storage, rng=random.Random(3))
    _lesson(service)
    _betting(service)
    before = _counts(storage)
    assert all(before[t] > 0 for t in HISTORY), before
    for statement in (
        "DELETE FROM club_tables WHERE kind = 'teaching'",  # no ledger: it cascaded whole
        "DELETE FROM club_tables",  # its audit log, sign-ins, players, rounds refer to it
        "DELETE FROM table_players",  # the idempotency keys (and the ledger) refer to them
    ):
        _refused(storage, statement)
    assert _counts(storage) == before  # nothing went, not even through a cascade


def test_the_migration_keeps_every_row_and_restricts_on_an_old_database(storage: Storage) -> None:
    """At revision 0004 (references cascading) with a night's rows, upgraded: every row is
    still there, and the deletes that cascaded are refused."""
    service = TableService(storage, rng=random.Random(4))
    code = _betting(service)
    lesson = _lesson(service)
    config = alembic_config()
    with migrating(storage.engine) as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0004")
    before = _counts(storage)
    storage.close()
    upgraded = Storage.open(storage.engine.url.render_as_string(hide_password=False))
    try:
        assert _counts(upgraded) == before
        _refused(upgraded, "DELETE FROM club_tables WHERE kind = 'teaching'")
        _refused(upgraded, "DELETE FROM table_players")
        again = TableService(upgraded)
        assert again.ledger_total(code) == 0
        assert again.state(lesson).round is not None  # the lesson's round reads back
    finally:
        upgraded.close()


def test_an_upgrade_that_would_leave_a_dangling_reference_is_rolled_back(tmp_path: Path) -> None:
    """SQLite migrates with its foreign keys off: what they would have caught is checked
    before the commit. An audit row of no table (made with the keys off) stops the upgrade
    with one sentence, and the database stays at its revision."""
    url = migrated_sqlite(tmp_path / "old.sqlite3")
    storage = Storage.open(url)
    with migrating(storage.engine) as conn:
        config = alembic_config()
        config.attributes["connection"] = conn
        command.downgrade(config, "0004")
    storage.close()
    with sqlite3.connect(tmp_path / "old.sqlite3") as raw:  # its foreign keys off, as by default
        raw.execute(
            "INSERT INTO audit_log (table_id, actor, action, reason, created_at)"
            " VALUES (99, 'dealer', 'create', '', '2026-12-06 20:00:00')"
        )
    with pytest.raises(StorageError, match="dangling"):
        Storage.open(url)
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == "0004"
    engine.dispose()
