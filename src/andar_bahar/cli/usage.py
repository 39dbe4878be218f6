"""Option parsing errors as one sentence in the user's language, exit code 2.

Typer and Click report a bad option value (``--start left``, ``--seed abc``, an
unknown option, a missing one) in a usage block in English. The command line
promises one clear sentence instead; :class:`OneSentenceGroup` is the root
command's class and turns every Click usage error into that sentence.
"""

from __future__ import annotations

import enum
import inspect
import sys
import types
import typing
from collections.abc import Sequence
from typing import Any, NoReturn

import typer

from andar_bahar.cli.lazy import LazyGroup
from andar_bahar.i18n import detect_language, translations
from andar_bahar.i18n.messages import N_, Message

__all__ = ["OneSentenceGroup", "usage_message"]


def _kinds(error: BaseException) -> set[str]:
    """The class names of *error* and its bases: Typer vendors Click's errors in some
    versions and uses Click's own in others, so they are recognised by name."""
    return {kind.__name__ for kind in type(error).__mro__}


class OneSentenceGroup(LazyGroup):
    """The root command: Click's usage errors become one sentence and exit code 2."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        given = list(sys.argv[1:] if args is None else args)
        if not standalone_mode:
            return super().main(
                given,
                prog_name=prog_name,
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
        try:
            code = super().main(
                given,
                prog_name=prog_name,
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
        except typer.Abort:
            sys.exit(1)
        except Exception as error:
            kinds = _kinds(error)
            if "NoArgsIsHelpError" in kinds:  # a group named without a command: its help
                typer.echo(_text(error))
                sys.exit(2)
            if "UsageError" in kinds:
                _fail(usage_message(error, given, root=self), given)
            if "ClickException" in kinds:  # a file Click could not open, say
                _fail(
                    Message(
                        N_("{problem} (see {command} --help)."),
                        problem=_text(error).rstrip("."),
                        command="andar-bahar",
                    ),
                    given,
                )
            raise
        sys.exit(code if isinstance(code, int) else 0)


def _text(error: BaseException) -> str:
    format_message = getattr(error, "format_message", None)
    return str(format_message() if callable(format_message) else error)


def _fail(message: Message, args: Sequence[str]) -> NoReturn:
    typer.echo(message.localized(translations(_language(args))), err=True)
    sys.exit(2)


def _language(args: Sequence[str]) -> str:
    """``--lang`` from the command line when it is valid, else the environment's."""
    value = _value_of("--lang", args)
    return value if value in ("en", "ru", "ka") else detect_language()


def _value_of(option: str, args: Sequence[str]) -> str | None:
    """What follows *option* in *args* (``--x v`` or ``--x=v``), the last one if repeated."""
    found = None
    for index, arg in enumerate(args):
        if arg == option and index + 1 < len(args):
            found = args[index + 1]
        elif arg.startswith(option + "="):
            found = arg.partition("=")[2]
    return found


def _command_path(root: Any, args: Sequence[str]) -> str:
    """``andar-bahar paytable design``: the commands named on the command line, in order.

    Click's parser raises some errors (an option without its value) before the command's
    context exists, so the path is read from *args* through *root*'s subcommands.
    """
    path = ["andar-bahar"]
    group = root
    for arg in args:
        commands = getattr(group, "commands", None)
        if not commands or arg.startswith("-"):
            break
        if arg not in commands:
            break
        path.append(arg)
        group = commands[arg]
    return " ".join(path)


def usage_message(error: BaseException, args: Sequence[str], *, root: Any = None) -> Message:
    """The sentence for one of Click's usage errors (*args*: the command line given,
    *root*: the root command, to name the subcommand when Click's error does not)."""
    kinds = _kinds(error)
    ctx = getattr(error, "ctx", None)
    command = max(
        getattr(ctx, "command_path", None) or "andar-bahar",
        _command_path(root, args) if root is not None else "andar-bahar",
        key=len,
    )
    param = getattr(error, "param", None)
    opts = list(getattr(param, "opts", None) or [])
    is_option = bool(opts) and opts[0].startswith("-")
    if "BadParameter" in kinds and "MissingParameter" not in kinds and is_option:
        return _bad_value(param, ctx, args, _text(error))
    if "MissingParameter" in kinds and param is not None:
        name = opts[0] if is_option else str(getattr(param, "name", "") or "").upper()
        return Message(
            N_("{option} is missing: give it (see {command} --help)."), option=name, command=command
        )
    option_name = getattr(error, "option_name", None)
    if "NoSuchOption" in kinds:
        possibilities = sorted(getattr(error, "possibilities", None) or [])
        if possibilities:
            return Message(
                N_("There is no option {option}; did you mean {suggestion}?"),
                option=option_name,
                suggestion=" / ".join(possibilities),
            )
        return Message(
            N_("There is no option {option} (see {command} --help)."),
            option=option_name,
            command=command,
        )
    if "BadOptionUsage" in kinds and "does not take a value" in _text(error):
        return Message(
            N_("{option} takes no value (see {command} --help)."),
            option=option_name,
            command=command,
        )
    if "BadOptionUsage" in kinds:
        return Message(
            N_("{option} needs a value (see {command} --help)."),
            option=option_name,
            command=command,
        )
    text = _text(error)
    if text.startswith("No such command"):
        group = getattr(ctx, "command", None)
        list_commands = getattr(group, "list_commands", None)
        names = sorted(list_commands(ctx) if list_commands is not None else [])
        return Message(
            N_("There is no such command: choose one of {commands}."), commands=", ".join(names)
        )
    if text.startswith("Got unexpected extra argument"):
        return Message(
            N_("Unexpected text on the command line: {detail} (see {command} --help)."),
            detail=text.rpartition("(")[2].rstrip(")."),
            command=command,
        )
    return Message(
        N_("{problem} (see {command} --help)."), problem=text.rstrip("."), command=command
    )


def _annotation(param: Any, ctx: Any) -> Any:
    """The Python type our command declares for *param* (Optional and Annotated removed)."""
    callback = getattr(getattr(ctx, "command", None), "callback", None)
    name = getattr(param, "name", None)
    if callback is None or name is None:
        return None
    try:
        hints = typing.get_type_hints(inspect.unwrap(callback))
    except (NameError, TypeError):
        return None
    kind = hints.get(name)
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(kind) if a is not type(None)]
        kind = members[0] if len(members) == 1 else kind
    return kind


def _bad_value(param: Any, ctx: Any, args: Sequence[str], detail: str) -> Message:
    opts: list[str] = list(param.opts)
    name = opts[0]
    value = next((v for v in (_value_of(o, args) for o in opts) if v is not None), "")
    kind = _annotation(param, ctx)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return Message(
            N_("{option} cannot be '{value}': choose one of {choices}."),
            option=name,
            value=value,
            choices=", ".join(str(member.value) for member in kind),
        )
    low = getattr(param, "min", None)
    high = getattr(param, "max", None)
    if kind is int and low is not None and high is not None:
        return Message(
            N_("{option} must be a whole number from {low} to {high}, not '{value}'."),
            option=name,
            low=low,
            high=high,
            value=value,
        )
    if kind is int:
        return Message(
            N_("{option} must be a whole number, not '{value}'."), option=name, value=value
        )
    return Message(
        N_("{option} cannot be '{value}': {reason}"),
        option=name,
        value=value,
        reason=detail.removeprefix("Value error, ").rstrip(".") + ".",
    )
