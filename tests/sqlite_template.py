"""Fresh SQLite history databases for the tests, each a copy of one migrated once per process.

Migrating an empty database runs every Alembic step (30–60 ms of CPU); copying the file of a
database migrated once costs a tenth of that, and the app opening the copy finds it at the
head already. The copy is the same file `Storage.open` makes, so the tests see what a club's
new database is (tests/test_storage.py migrates empty and old databases itself)."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["migrated_sqlite"]

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


def migrated_sqlite(target: Path) -> str:
    """Copy the migrated template to *target* (a new file) and return its database URL."""
    from andar_bahar.storage import Storage

    if "path" not in _TEMPLATE:
        _sweep_orphans(Path(tempfile.gettempdir()))
        folder = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)  # one per process, not kept
        template = Path(folder) / "template.sqlite3"
        Storage.open(f"sqlite:///{template}").close()
        _TEMPLATE["path"] = template
    shutil.copyfile(_TEMPLATE["path"], target)
    return f"sqlite:///{target}"
