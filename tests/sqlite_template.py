"""Fresh SQLite history databases for the tests, each a copy of one migrated once per process.

Migrating an empty database runs every Alembic step (30–60 ms of CPU); copying the file of a
database migrated once costs a tenth of that, and the app opening the copy finds it at the
head already. The copy is the same file `Storage.open` makes, so the tests see what a club's
new database is (tests/test_storage.py migrates empty and old databases itself)."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

__all__ = ["migrated_sqlite"]

_TEMPLATE: dict[str, Path] = {}


def migrated_sqlite(target: Path) -> str:
    """Copy the migrated template to *target* (a new file) and return its database URL."""
    from andar_bahar.storage import Storage

    if "path" not in _TEMPLATE:
        folder = tempfile.mkdtemp(prefix="andar-bahar-template-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)  # one per process, not kept
        template = Path(folder) / "template.sqlite3"
        Storage.open(f"sqlite:///{template}").close()
        _TEMPLATE["path"] = template
    shutil.copyfile(_TEMPLATE["path"], target)
    return f"sqlite:///{target}"
