"""What the web tests share: a club's site under a test client, and a page's CSRF token."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from andar_bahar.web.app import create_app
from sqlite_template import migrated_sqlite

__all__ = ["csrf", "served", "served_by_command"]

CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


@contextmanager
def served(database_url: str, secret: bytes = b"k" * 32, **options: Any) -> Iterator[TestClient]:
    """The club's app on *database_url* under a test client (its startup and shutdown run);
    the database's connections closed after."""
    app = create_app(database_url=database_url, secret=secret, **options)
    try:
        with TestClient(app) as client:
            yield client
    finally:
        app.state.service.storage.close()


def csrf(client: TestClient, path: str = "/") -> str:
    """The CSRF token of the form on *path*, as *client*'s browser gets it."""
    match = CSRF_FIELD.search(client.get(path).text)
    assert match is not None, f"{path} has no CSRF field"
    return match.group(1)


def served_by_command(
    monkeypatch: pytest.MonkeyPatch, folder: Path, limits: object, *options: str
) -> tuple[Any, Any]:
    """The app as ``andar-bahar serve OPTIONS`` hands it to uvicorn (with *limits*), and as
    uvicorn wraps it: (the app, what uvicorn serves). Close ``app.state.service.storage``."""
    import uvicorn
    from typer.testing import CliRunner

    from andar_bahar.cli import app as cli_app
    from andar_bahar.web import app as web_app

    runs: list[tuple[Any, dict[str, Any]]] = []
    monkeypatch.setenv("XDG_DATA_HOME", str(folder / "data"))
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: runs.append((app, kwargs)))
    monkeypatch.setattr(web_app, "create_app", functools.partial(create_app, limits=limits))
    db = str(folder / "club.sqlite3")
    migrated_sqlite(Path(db))  # the file a fresh database is, made once per process (copied)
    result = CliRunner().invoke(cli_app, ["serve", "--db", db, "--lang", "en", *options])
    assert result.exit_code == 0, result.output
    application, kwargs = runs[-1]
    config = uvicorn.Config(application, **kwargs)
    config.load()
    return application, config.loaded_app
