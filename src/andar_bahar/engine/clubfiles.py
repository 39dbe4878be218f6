"""Reading a club's files: procedures and paytables by preset name or TOML path.

This is the I/O edge for club files; the parsing and validation are pure and
live in :mod:`andar_bahar.engine.rules` and :mod:`andar_bahar.engine.paytable_files`.
"""

from __future__ import annotations

from pathlib import Path

from andar_bahar.engine.errors import PaytableError, ProcedureError, RulesError
from andar_bahar.engine.paytables import PAYTABLES, Paytable, find_paytable, load_paytable
from andar_bahar.engine.rules import (
    MAX_FILE_BYTES,
    PROCEDURES,
    Procedure,
    find_procedure,
    load_procedure,
    too_large,
)
from andar_bahar.i18n.messages import N_, Message

__all__ = ["is_file_name", "read_paytable", "read_procedure", "read_text"]


def is_file_name(text: str) -> bool:
    """Whether *text* names a file rather than a preset."""
    return text.lower().endswith(".toml") or "/" in text or "\\" in text


def read_text(path: str, error: type[RulesError]) -> str:
    """The text of a club's file, or *error* with a clear sentence (a file over
    :data:`~andar_bahar.engine.rules.MAX_FILE_BYTES` is refused unread)."""
    try:
        with Path(path).open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise error(too_large(path))
        return data.decode("utf-8")
    except FileNotFoundError:
        raise error(
            Message(N_("The file {file} does not exist: check the path."), file=path)
        ) from None
    except (OSError, UnicodeDecodeError) as reason:
        raise error(
            Message(N_("Cannot read the file {file}: {reason}."), file=path, reason=reason)
        ) from None


def read_procedure(name_or_file: str) -> Procedure:
    """A preset procedure by name, or a club's procedure from a TOML file."""
    if name_or_file.strip().lower() in PROCEDURES or not is_file_name(name_or_file):
        return find_procedure(name_or_file)
    return load_procedure(read_text(name_or_file, ProcedureError), source=name_or_file)


def read_paytable(name_or_file: str) -> Paytable:
    """A preset paytable by name, or a club's paytable from a TOML file."""
    if name_or_file.strip().lower() in PAYTABLES or not is_file_name(name_or_file):
        return find_paytable(name_or_file)
    return load_paytable(read_text(name_or_file, PaytableError), source=name_or_file)
