"""What the web tests share: a club's site under a test client, and a page's CSRF token."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from andar_bahar.web.app import create_app

__all__ = ["csrf", "served"]

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
