"""What every command shares: the app, the common options, error handling."""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar, cast

import typer

from andar_bahar.engine.clubfiles import read_procedure
from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.engine.rules import PROCEDURES, BetWindow, Procedure, StartRule, TargetMode
from andar_bahar.i18n import detect_language, translations
from andar_bahar.i18n.messages import NP_, Message, Translator

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

__all__ = [
    "FormatOption",
    "Lang",
    "LangOption",
    "ProcedureOption",
    "StartOption",
    "TargetModeOption",
    "TextOrJson",
    "WindowOption",
    "build_procedure",
    "commands_app",
    "echo_json",
    "extra_of",
    "guarded",
    "language_for",
    "progress_bar",
    "require_extra",
    "translator_for",
]

P = ParamSpec("P")
R = TypeVar("R")


def commands_app(**settings: Any) -> typer.Typer:
    """A module's Typer app of commands, as every command shares it: plain Click help
    (Rich's help costs about 0.1 s of start-up to import), no completion installer, and
    Python's own tracebacks for the bugs that :func:`guarded` lets through."""
    return typer.Typer(
        rich_markup_mode=None, pretty_exceptions_enable=False, add_completion=False, **settings
    )


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


def language_for(lang: Lang | None) -> str:
    """The chosen language, or the environment's (how amounts given on the line are read)."""
    return lang.value if lang is not None else detect_language()


def translator_for(lang: Lang | None) -> Translator:
    """The catalogue of the chosen language, or of the environment's."""
    return translations(language_for(lang))


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
        except ModuleNotFoundError as error:  # a package of an extra that is not installed
            extra = extra_of(error.name or "")
            if extra is None:
                raise
            raise fail(_missing(extra, [str(error.name).partition(".")[0]]), translator) from None

    return wrapper


def build_procedure(
    name: str,
    start: StartRule | None,
    target_mode: TargetMode | None,
    window: BetWindow | None,
) -> Procedure:
    """A preset or club procedure with the command line's overrides applied (and checked)."""
    procedure = read_procedure(name)
    return procedure.overridden(
        start=StartRule(start) if start is not None else None,
        target=TargetMode(target_mode) if target_mode is not None else None,
        window=BetWindow(window) if window is not None else None,
    )


class _NoBar:
    """The progress bar of a short run or a run not at a terminal: it shows nothing, and
    needs no Rich (whose import a small simulation would otherwise pay)."""

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, description: str, total: float | None = None) -> TaskID:
        return cast("TaskID", 0)

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        return None


def progress_bar(total: int, *, at_least: int) -> Progress | _NoBar:
    """A progress bar on standard error, for runs of *at_least* steps at a terminal."""
    if not sys.stderr.isatty() or total < at_least:
        return _NoBar()
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,}/{task.total:,}"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )


EXTRAS: dict[str, tuple[str, ...]] = {
    "sim": ("numpy", "numba", "scipy", "matplotlib"),
    "trainer": ("textual", "sqlalchemy", "alembic", "platformdirs"),
    "web": (
        "fastapi",
        "uvicorn",
        "websockets",
        "jinja2",
        "python_multipart",
        "segno",
        "sqlalchemy",
        "alembic",
        "platformdirs",
    ),
    "postgres": ("psycopg",),
}
"""What each extra of ``pyproject.toml`` brings, by the name it is imported with."""


class MissingExtra(AndarBaharError):
    """A command needs packages that only an extra installs."""


def require_extra(extra: str, *modules: str) -> None:
    """Refuse, in one sentence that names the extra to install, when a module is missing.

    *modules* are the import names the command needs (by default all of the extra's).
    ``serve`` calls ``require_extra("web")``, ``play`` ``require_extra("trainer")``.

    >>> require_extra("sim", "fractions")          # present: nothing happens
    >>> require_extra("web", "no_such_module_here")
    Traceback (most recent call last):
    ...
    andar_bahar.cli.common.MissingExtra: This needs the 'web' extra (no_such_module_here is not installed): run pip install "andar-bahar[web]".
    """
    needed = modules or EXTRAS[extra]
    missing = [name for name in needed if not _installed(name)]
    if missing:
        raise _missing(extra, missing)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken or blocked package counts as missing
        return False


def _missing(extra: str, modules: list[str]) -> MissingExtra:
    return MissingExtra(
        Message(
            NP_(
                "This needs the '{extra}' extra ({modules} is not installed): run"
                ' pip install "andar-bahar[{extra}]".',
                "This needs the '{extra}' extra ({modules} are not installed): run"
                ' pip install "andar-bahar[{extra}]".',
            ),
            n=len(modules),
            extra=extra,
            modules=", ".join(modules),
        )
    )


def extra_of(module: str) -> str | None:
    """The first extra that installs *module* (``sqlalchemy.orm`` → ``trainer``), if any.

    >>> extra_of("numpy.random"), extra_of("fastapi"), extra_of("json")
    ('sim', 'web', None)
    """
    top = module.partition(".")[0]
    return next((extra for extra, names in EXTRAS.items() if top in names), None)


def echo_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
