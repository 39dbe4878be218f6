"""The README's two commands are what CI runs (DEVELOPERS.md)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(python3 -m venv .*)\n```", text)[:2]


def test_the_readme_opens_with_two_commands() -> None:
    run, test = _readme_commands()
    assert "andar-bahar" in run
    assert "pytest" in test


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    _, test = _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test in ci.splitlines()
