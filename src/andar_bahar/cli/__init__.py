"""The command line: ``andar-bahar deal | settle | paytable | procedures | odds | simulate | sessions``.

The command forms and their JSON are a contract that other tools read. Every
error is one clear sentence in the user's language on standard error, with a
non-zero exit code and no traceback.

Each command lives in a module of this package with a Typer ``app`` of its own;
:data:`COMMANDS` names them, and a command's module is imported only when the
command runs (:mod:`andar_bahar.cli.lazy`), so that ``deal`` does not pay for the
simulator, the web server or the trainer.
"""

from __future__ import annotations

from typing import Annotated

import typer

from andar_bahar._version import __version__
from andar_bahar.cli.lazy import Subcommand
from andar_bahar.cli.usage import OneSentenceGroup

__all__ = ["COMMANDS", "app", "main"]

COMMANDS = {
    "odds": Subcommand(
        "andar_bahar.cli.chance",
        "The exact odds, expected return, house edge and spread of every bet.",
    ),
    "simulate": Subcommand(
        "andar_bahar.cli.chance",
        "Simulate many rounds, settle every bet, and compare with the exact odds.",
    ),
    "sessions": Subcommand(
        "andar_bahar.cli.chance",
        "Play many sessions with a betting system and see where the bankrolls end.",
    ),
    "fairness": Subcommand(
        "andar_bahar.cli.fairness",
        "Audit a shuffle: shuffle many decks and test them against a fair shuffle, with p-values.",
    ),
    "play": Subcommand(
        "andar_bahar.cli.play",
        "The trainer: teaching game, club game, drills, odds and history, full screen.",
    ),
    "deal": Subcommand("andar_bahar.cli.rounds", "Deal one round and show the layout."),
    "settle": Subcommand(
        "andar_bahar.cli.rounds",
        "The dealer's calculator: settle a table's bets on a finished round.",
    ),
    "serve": Subcommand(
        "andar_bahar.cli.serve",
        "The club table in the browser: the dealer on this computer, the players on their phones.",
    ),
    "procedures": Subcommand("andar_bahar.cli.tables", "List the preset procedures."),
    "paytable": Subcommand(
        "andar_bahar.cli.tables", "Show a paytable or check a club's paytable file."
    ),
    "history": Subcommand(
        "andar_bahar.cli.history",
        "The stored rounds: list them, verify every settlement, a table's hold and shuffle check.",
    ),
}
"""Every command of ``andar-bahar``: its module and the summary ``--help`` shows (the
first sentence of the command's own help, which a test holds to it)."""


class CommandLine(OneSentenceGroup):
    """``andar-bahar``: the commands of :data:`COMMANDS`, errors in one sentence."""

    subcommands = COMMANDS


app = typer.Typer(
    name="andar-bahar",
    cls=CommandLine,
    help="Andar Bahar: deal rounds, settle bets, read paytables — exactly.",
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    add_completion=False,
)


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
