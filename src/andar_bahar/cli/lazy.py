"""Commands imported when they run, and their options read without Pydantic.

``andar-bahar deal`` should cost what dealing costs, not the start-up of every other
command. Two things make that so:

- :class:`LazyGroup` knows its subcommands by name, module and one-line summary
  (:data:`andar_bahar.cli.COMMANDS`): it imports a command's module only when that
  command runs, and ``--help`` lists the commands from their summaries without
  importing any of them.
- Typer reads option values through Pydantic, whose import alone takes about 70 ms
  of CPU. The options here are of a few simple kinds (text, whole numbers in a range,
  paths, choices of an enum, lists of these), so :func:`read_plainly` gives each
  option of a loaded command a small reader of its own; an option of any other kind
  keeps Typer's. The readers raise Click's ``BadParameter`` as Typer's do, so the
  one-sentence errors of :mod:`andar_bahar.cli.usage` read the same.
"""

from __future__ import annotations

import enum
import gc
import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, get_args, get_origin

import typer
from typer.core import TyperGroup

__all__ = ["LazyGroup", "Subcommand", "read_plainly"]


@dataclass(frozen=True, slots=True)
class Subcommand:
    """A command of a :class:`LazyGroup`: the module whose ``app`` holds it (a Typer
    app with the command, or with a group of that name), and its summary for ``--help``."""

    module: str
    summary: str


class LazyGroup(TyperGroup):
    """A group whose subcommands (:attr:`subcommands`) are imported when named."""

    subcommands: ClassVar[Mapping[str, Subcommand]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        read_plainly(self)

    def list_commands(self, ctx: Any) -> list[str]:
        return [*self.subcommands, *(n for n in self.commands if n not in self.subcommands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = self.commands.get(cmd_name)
        if command is None and cmd_name in self.subcommands:
            command = load(cmd_name, self.subcommands[cmd_name].module)
            self.add_command(command, cmd_name)
        return command

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The commands and their summaries (whole, where Click would cut them short),
        none of the lazy ones imported."""
        rows = [(name, sub.summary) for name, sub in self.subcommands.items()]
        rows += [
            (name, _summary(command))
            for name, command in self.commands.items()
            if name not in self.subcommands and not command.hidden
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _summary(command: Any) -> str:
    """A command's short help, or the first paragraph of its help."""
    text = command.short_help or (command.help or "").strip().split("\n\n")[0]
    return " ".join(text.split())


def load(name: str, module: str) -> Any:
    """The command *name* of *module*'s Typer ``app``, built and given plain readers.

    The garbage collector is on from here (``python -m andar_bahar`` imports with it off:
    :func:`andar_bahar.__main__.run`), for the commands that run long."""
    app = importlib.import_module(module).app
    command = _alone(app, name)
    if command is None:  # a group of commands (``paytable``, ``history``)
        built = typer.main.get_command(app)
        commands = getattr(built, "commands", None)
        command = commands[name] if commands is not None and name in commands else built
    read_plainly(command)
    gc.enable()
    return command


def _alone(app: typer.Typer, name: str) -> Any:
    """The command *name* of *app* built without the module's other commands (each built
    is its options read), or ``None`` if *app* has no plain command of that name."""
    for info in app.registered_commands:
        callback = info.callback
        if (
            callback is not None
            and (info.name or typer.main.get_command_name(callback.__name__)) == name
        ):
            return typer.main.get_command_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
    return None


# -- option values without Pydantic -------------------------------------------------------


class _PlainReader:
    """Typer's reader contract (``coerce``) for the simple kinds of option."""

    def __init__(self, kind: Any, low: float | None, high: float | None) -> None:
        self.kind, self.low, self.high = kind, low, high

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if param.multiple or param.nargs == -1:
            if value is None:
                return ()
            if isinstance(value, str):
                raise typer.BadParameter("Value must be an iterable.", ctx=ctx, param=param)
            return [self._one(item, param, ctx) for item in value]
        return None if value is None else self._one(value, param, ctx)

    def _one(self, value: Any, param: Any, ctx: Any) -> Any:
        kind = self.kind
        if kind is str:
            return value if isinstance(value, str) else str(value)
        if kind is Path:
            return value if isinstance(value, Path) else Path(value)
        if kind is bool:
            if isinstance(value, bool):
                return value
            raise typer.BadParameter(f"{value!r} is not a flag's value.", ctx=ctx, param=param)
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            if isinstance(value, kind):
                return value
            for member in kind:
                if str(member.value) == value:
                    return member
            choices = ", ".join(repr(str(m.value)) for m in kind)
            raise typer.BadParameter(f"{value!r} is not one of {choices}.", ctx=ctx, param=param)
        number = _whole_number(value)
        if number is None or (self.low is not None and number < self.low):
            raise typer.BadParameter(f"{value!r} is not a valid number.", ctx=ctx, param=param)
        if self.high is not None and number > self.high:
            raise typer.BadParameter(f"{value!r} is too large.", ctx=ctx, param=param)
        return number


def _whole_number(value: Any) -> int | None:
    """*value* as a whole number written in the digits 0 to 9 (``int()`` alone would read
    other scripts' digits too, such as ١٠), or ``None``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    if not text.isascii():
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _plain_kind(annotation: Any) -> Any:
    """The kind a :class:`_PlainReader` reads for *annotation*, or ``None``."""
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation) or (None,)
    simple = annotation in (str, int, bool, Path)
    choice = isinstance(annotation, type) and issubclass(annotation, enum.Enum)
    return annotation if simple or choice else None


def read_plainly(command: Any) -> None:
    """Give every option of *command* (its ``--help`` too, and those of its subcommands)
    whose kind is simple a :class:`_PlainReader`, where Typer would build a Pydantic
    adapter on first use."""
    for param in getattr(command, "params", ()):
        _read_plainly(param)
    help_option = command.get_help_option

    def get_help_option(ctx: Any) -> Any:  # made when first asked for: read it plainly
        option = help_option(ctx)
        if option is not None:
            _read_plainly(option)
        return option

    command.get_help_option = get_help_option
    for sub in getattr(command, "commands", {}).values():
        read_plainly(sub)


def _read_plainly(param: Any) -> None:
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(param, "_runtime_param", False) is not None:
        return  # not a Typer option of this Typer version, or already read
    info = descriptor.parameter_info
    kind = _plain_kind(descriptor.annotation)
    if kind is not None and info.parser is None and getattr(info, "case_sensitive", True):
        param._runtime_param = _PlainReader(kind, info.min, info.max)
