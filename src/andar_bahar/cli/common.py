"""What every command shares: the app, the common options, error handling."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from andar_bahar.engine.clubfiles import read_procedure
from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.engine.rules import PROCEDURES, BetWindow, Procedure, StartRule, TargetMode
from andar_bahar.i18n import detect_language, translations
from andar_bahar.i18n.messages import Translator

__all__ = [
    "FormatOption",
    "Lang",
    "LangOption",
    "ProcedureOption",
    "StartOption",
    "TargetModeOption",
    "TextOrJson",
    "WindowOption",
    "app",
    "build_procedure",
    "echo_json",
    "guarded",
    "paytable_app",
    "progress_bar",
    "translator_for",
]

P = ParamSpec("P")
R = TypeVar("R")

app = typer.Typer(
    name="andar-bahar",
    help="Andar Bahar: deal rounds, settle bets, read paytables — exactly.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
paytable_app = typer.Typer(
    help="Show a paytable or check a club's paytable file.", no_args_is_help=True
)
app.add_typer(paytable_app, name="paytable")


class Lang(StrEnum):
    EN = "en"
    RU = "ru"
    KA = "ka"


class TextOrJson(StrEnum):
    TEXT = "text"
    JSON = "json"


LangOption = Annotated[
    Lang | None,
    typer.Option(
        "--lang", help="Language of the output: en, ru or ka (default: from the environment)."
    ),
]
ProcedureOption = Annotated[
    str,
    typer.Option("--procedure", help=f"A preset ({', '.join(PROCEDURES)}) or a club's .toml file."),
]
StartOption = Annotated[StartRule | None, typer.Option("--start", help="Override the start rule.")]
TargetModeOption = Annotated[
    TargetMode | None, typer.Option("--target-mode", help="Override the target mode.")
]
WindowOption = Annotated[
    BetWindow | None, typer.Option("--window", help="Override the bet window.")
]
FormatOption = Annotated[
    TextOrJson, typer.Option("--format", help="text for people, json for programs.")
]


def translator_for(lang: Lang | None) -> Translator:
    """The catalogue of the chosen language, or of the environment's."""
    return translations(lang.value if lang is not None else detect_language())


def fail(error: AndarBaharError, translator: Translator) -> typer.Exit:
    """Print *error* as one sentence on standard error and return the exit to raise."""
    typer.echo(error.localized(translator), err=True)
    return typer.Exit(code=2)


def guarded(command: Callable[P, R]) -> Callable[P, R]:
    """Run a command, turning the project's errors into one sentence and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        lang = kwargs.get("lang")
        translator = translator_for(lang if isinstance(lang, Lang) else None)
        try:
            return command(*args, **kwargs)
        except AndarBaharError as error:
            raise fail(error, translator) from None

    return wrapper


def build_procedure(
    name: str,
    start: StartRule | None,
    target_mode: TargetMode | None,
    window: BetWindow | None,
) -> Procedure:
    """A preset or club procedure with the command line's overrides applied (and checked)."""
    procedure = read_procedure(name)
    changes: dict[str, object] = {}
    if start is not None:
        changes["start"] = StartRule(start)
    if target_mode is not None:
        changes["target"] = TargetMode(target_mode)
    if window is not None:
        changes["window"] = BetWindow(window)
    return procedure.replace(**changes) if changes else procedure


def progress_bar(total: int, *, at_least: int) -> Progress:
    """A progress bar on standard error, for runs of *at_least* steps at a terminal."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,}/{task.total:,}"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=not sys.stderr.isatty() or total < at_least,
    )


def echo_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
