"""Shared helpers: golden files live in tests/data/ (UPDATE_GOLDEN=1 rewrites them)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def golden():
    """Compare text with a golden file in tests/data/."""

    def check(name: str, text: str) -> None:
        path = DATA / name
        if os.environ.get("UPDATE_GOLDEN") == "1":
            path.write_text(text, encoding="utf-8")
        assert path.exists(), f"golden file {path} is missing: run with UPDATE_GOLDEN=1 once"
        assert text == path.read_text(encoding="utf-8")

    return check
