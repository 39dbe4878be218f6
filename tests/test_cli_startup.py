"""Each command imports what it uses, and nothing else: a command's start-up is mostly
its imports (benchmarks/bench_cli.py measures it), so the list is held here.

Every case runs the command in a fresh interpreter and reads back the modules it
imported. The heavy packages are the extras' (the simulator's numpy and numba, the web
table's FastAPI and SQLAlchemy, the trainer's Textual), Rich (Typer's boxed help) and
Pydantic (Typer's own way of reading options, which the command line replaces); Babel
compiles a catalogue only when the user's cache lacks it.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from andar_bahar.chance import dealing_kernels

PROBE = """
import contextlib, io, json, sys
args = json.loads(sys.argv[1])
sys.argv = ["andar-bahar", *args]
try:
    with contextlib.redirect_stdout(io.StringIO()):
        from andar_bahar.cli import main
        main()
except SystemExit as stop:
    assert stop.code in (0, None), stop.code
print(json.dumps(sorted(sys.modules)))
"""

HEAVY = {
    "numpy", "numba", "scipy", "matplotlib", "sqlalchemy", "alembic", "fastapi", "starlette",
    "uvicorn", "jinja2", "textual", "rich", "pydantic",
}  # fmt: skip
SETTLE = ["settle", "--paytable", "wizard", "--cards", "5♠ 2♦ 3♣ 9♥ J♦ 6♣ 8♠ 5♥",
          "--bet", "andar=120"]  # fmt: skip


def imported(args: list[str], cache: Path) -> set[str]:
    """The modules ``andar-bahar ARGS`` imports, with the catalogues kept in *cache*."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        capture_output=True, text=True, check=True, timeout=120,
        env={**os.environ, "XDG_CACHE_HOME": str(cache), "LANG": "C", "LANGUAGE": ""},
    )  # fmt: skip
    return set(json.loads(done.stdout))


def tops(modules: set[str]) -> set[str]:
    return {name.partition(".")[0] for name in modules}


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder whose catalogues are compiled (as after any first command)."""
    folder = tmp_path_factory.mktemp("cache")
    imported(["deal", "--seed", "1"], folder)
    return folder


@pytest.mark.parametrize(
    ("args", "also_not"),
    [
        (["--help"], {"babel"}),
        (["deal", "--seed", "3"], {"babel"}),
        (["odds", "--procedure", "home"], {"babel"}),
        (SETTLE, {"babel"}),  # the amounts in the reader's language, without Babel
        (["procedures"], {"babel"}),
        (["serve", "--help"], {"babel"}),
        (["history", "hold", "--help"], {"babel"}),
        (["history", "shuffle", "--help"], {"babel"}),
        (["paytable", "design", "--help"], {"babel"}),
        (["history", "learners", "--help"], {"babel"}),
    ],
    ids=[
        "help",
        "deal",
        "odds",
        "settle",
        "procedures",
        "serve-help",
        "hold-help",
        "shuffle-help",
        "design-help",
        "learners-help",
    ],
)
def test_a_command_imports_only_what_it_uses(
    args: list[str], also_not: set[str], cache: Path
) -> None:
    assert not tops(imported(args, cache)) & (HEAVY | also_not)


def test_the_help_needs_no_command_module(cache: Path) -> None:
    # The list of commands comes from their summaries alone: no command, no engine.
    modules = imported(["--help"], cache)
    assert "andar_bahar.cli" in modules
    assert not {m for m in modules if m.startswith("andar_bahar.engine")}
    assert {m for m in modules if m.startswith("andar_bahar.cli.")} <= {
        "andar_bahar.cli.lazy",
        "andar_bahar.cli.usage",
    }


@pytest.mark.skipif(dealing_kernels.KERNEL == "numpy", reason="needs numba")
def test_the_probe_sees_what_a_command_imports(cache: Path) -> None:
    # The control: a simulation imports numpy; a small one deals without loading numba,
    # and shows no progress bar (so imports no Rich).
    small = tops(imported(["simulate", "--rounds", "1", "--seed", "1", "--jobs", "1"], cache))
    assert "numpy" in small and not small & {"numba", "rich", "pydantic"}


def test_the_summaries_in_the_help_are_the_commands_own() -> None:
    # `andar-bahar --help` lists COMMANDS' summaries without importing the commands: each
    # must be the first paragraph of the command's own help (`andar-bahar NAME --help`).
    from andar_bahar.cli import COMMANDS
    from andar_bahar.cli.history import HistoryGroup
    from andar_bahar.cli.lazy import _summary, load

    for name, sub in [*COMMANDS.items(), *HistoryGroup.subcommands.items()]:
        assert _summary(load(name, sub.module)) == sub.summary, name


def test_only_a_long_run_at_a_terminal_draws_richs_progress_bar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from andar_bahar.cli.common import progress_bar

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stderr", Terminal())
    bar = progress_bar(10, at_least=5)
    assert type(bar).__module__ == "rich.progress"
    with bar:
        bar.advance(bar.add_task("dealing", total=10), 10)
    quiet = [progress_bar(4, at_least=5)]  # too short to show
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    quiet.append(progress_bar(10, at_least=5))  # not a terminal
    for silent in quiet:
        assert type(silent).__module__ == "andar_bahar.cli.common"
        with silent:
            silent.advance(silent.add_task("dealing", total=10), 10)
