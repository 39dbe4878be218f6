"""Fresh SQLite history databases for the tests, each a copy of one migrated once per process.

Migrating an empty database runs every Alembic step (60–90 ms of CPU: SQLite's batch steps
reflect and copy tables); copying the file of a database migrated once costs a tenth of
that, and the app opening the copy finds it at the head already. The copy is the same file
`Storage.open` makes, so the tests see what a club's new database is (tests/test_storage.py
migrates empty and old databases itself, in files). A database in memory (``sqlite://``,
opened by some 150 tests and apps) is filled likewise by SQLite's backup from the same file
(:func:`upgrade_from_template`), and Alembic then finds it at the head."""

from __future__ import annotations

import atexit
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.pool import StaticPool

__all__ = ["migrated_sqlite", "upgrade_from_template"]

_TEMPLATE: dict[str, Path] = {}
PREFIX = "andar-bahar-template-"
"""A template's folder: this prefix, the process id that made it, a dash, a random part."""


def _sweep_orphans(root: Path) -> None:
    """Remove the template folders of processes that are gone without their exit handlers
    (killed by a timeout, or forked by the mutation run and ended with ``os._exit``)."""
    for folder in root.glob(f"{PREFIX}*-*"):
        owner = folder.name.removeprefix(PREFIX).split("-", 1)[0]
        if not owner.isdigit():
            continue
        try:
            os.kill(int(owner), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:  # another user's process: alive
            pass


def _template() -> Path:
    """The file of a database migrated once in this process (made at the first ask)."""
    from andar_bahar.storage import Storage

    if "path" not in _TEMPLATE:
        _sweep_orphans(Path(tempfile.gettempdir()))
        folder = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)  # one per process, not kept
        template = Path(folder) / "template.sqlite3"
        Storage.open(f"sqlite:///{template}").close()
        _TEMPLATE["path"] = template
    return _TEMPLATE["path"]


def migrated_sqlite(target: Path) -> str:
    """Copy the migrated template to *target* (a new file) and return its database URL."""
    shutil.copyfile(_template(), target)
    return f"sqlite:///{target}"


def upgrade_from_template(upgrade: Callable[[Engine], None]) -> Callable[[Engine], None]:
    """*upgrade* (``Storage.open``'s), except that an empty SQLite database in memory is
    first filled with the migrated template by SQLite's backup: *upgrade* then finds it
    at every head (one read). Any other database is *upgrade*'s alone."""

    def upgraded(engine: Engine) -> None:
        if engine.dialect.name == "sqlite" and isinstance(engine.pool, StaticPool):
            with engine.connect() as connection:
                target = connection.connection.driver_connection
                empty = not target.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone()
                if empty:
                    source = sqlite3.connect(_template())
                    try:
                        source.backup(target)
                    finally:
                        source.close()
        upgrade(engine)

    return upgraded
