"""The command line: ``andar-bahar deal | settle | paytable | procedures | odds | simulate | sessions``.

The command forms and their JSON are a contract that other tools read. Every
error is one clear sentence in the user's language on standard error, with a
non-zero exit code and no traceback.
"""

from __future__ import annotations

from typing import Annotated

import typer

from andar_bahar import __version__
from andar_bahar.cli import (
    chance,
    design,
    fairness,
    history,
    learners,
    play,
    rounds,
    serve,
    tables,
)
from andar_bahar.cli.common import app

__all__ = ["app", "main"]

_COMMANDS = (chance, design, fairness, history, learners, play, rounds, serve, tables)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"andar-bahar {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Andar Bahar: deal rounds, settle bets, read paytables — exactly."""


def main() -> None:
    """The console script."""
    app()
