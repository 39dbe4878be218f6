"""Choosing the rules of a table: a procedure (a preset or a club's file), its bet window and
a paytable (a preset or a club's file) — on the Odds screen and when a club table opens."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.widgets import Input, Select, Static

from andar_bahar.engine.clubfiles import is_file_name, read_paytable, read_procedure
from andar_bahar.engine.errors import PaytableError, ProcedureError
from andar_bahar.engine.paytables import PAYTABLES, Paytable
from andar_bahar.engine.rules import PROCEDURES, BetWindow, Procedure
from andar_bahar.games.wording import CLUB, paytable_title, procedure_title
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.tui.common import literal, tr
from andar_bahar.tui.screen import TrainerScreen

__all__ = [
    "FILE_FIELDS",
    "awaited_file",
    "compose_rules",
    "read_procedure_chosen",
    "read_rules",
    "reveal_file_field",
    "select_refused_file",
    "sync_rules",
]

FILE = "file"
FILE_FIELDS = ("procedure-file", "paytable-file")
"""The fields of a club's files' paths: a refusal about one goes once it is changed."""
OWN = "own"
DESIGNED = "designed"


def compose_rules(screen: TrainerScreen) -> ComposeResult:
    """The fields: procedure, its file, the bet window, the paytable and its file."""
    t = screen.t
    designed: Paytable | None = getattr(screen, "designed", None)
    yield Static(literal(tr(screen, Message(N_("Procedure:")))), classes="label")
    yield screen.choice(
        "procedure",
        [(procedure_title(name, t), name) for name in PROCEDURES]
        + [(tr(screen, Message(N_("A club's procedure file…"))), FILE)],
        "classic",
    )
    yield screen.field(
        "procedure-file", placeholder=tr(screen, Message(N_("path of the club's .toml file")))
    )
    yield Static("", id="procedure-text", classes="hint", markup=False)
    yield Static(literal(tr(screen, Message(N_("When bets close:")))), classes="label")
    yield screen.choice(
        "window",
        [(tr(screen, Message(N_("as the procedure says"))), OWN)]
        + [(window.localized(t), window.value) for window in BetWindow],
        OWN,
    )
    yield Static(literal(tr(screen, Message(N_("Paytable:")))), classes="label")
    yield screen.choice(
        "paytable",
        [(tr(screen, Message(N_("the procedure's own"))), OWN)]
        + [(paytable_title(name, t), name) for name in PAYTABLES]
        + [(tr(screen, Message(N_("A club's paytable file…"))), FILE)]
        + ([(paytable_title(designed, t), DESIGNED)] if designed is not None else []),
        OWN,
    )
    yield screen.field(
        "paytable-file", placeholder=tr(screen, Message(N_("path of the club's .toml file")))
    )


def awaited_file(screen: TrainerScreen) -> str | None:
    """The id of the file field to type in next: a club's file chosen in a list, its path
    not typed yet (nothing to refuse yet: the field is where the eye should go)."""
    for choice, field in (("procedure", "procedure-file"), ("paytable", "paytable-file")):
        if screen.value(choice) == FILE and not screen.value(field).strip():
            return field
    return None


def reveal_file_field(screen: TrainerScreen, event: Select.Changed) -> None:
    """A club's file just chosen in a list: its path field, shown, takes the focus."""
    field = awaited_file(screen)
    if field is not None and event.select.id in ("procedure", "paytable"):
        sync_rules(screen)
        screen.focus_on(screen.query_one(f"#{field}", Input))


def read_procedure_chosen(screen: TrainerScreen) -> Procedure:
    """The procedure chosen, with the window chosen; a project error if refused."""
    choice = screen.value("procedure")
    procedure_file = screen.value("procedure-file").strip()
    if choice == FILE:
        if not procedure_file:
            raise ProcedureError(
                Message(N_("Write the path of the club's procedure file, e.g. club.toml."))
            )
        procedure = read_procedure(procedure_file)
    else:
        procedure = PROCEDURES[choice]
    window = screen.value("window")
    if window != OWN:
        procedure = procedure.replace(window=BetWindow(window))
    return procedure


def read_rules(screen: TrainerScreen) -> tuple[Procedure, Paytable]:
    """The procedure (with the window chosen) and the paytable; a project error if refused."""
    procedure = read_procedure_chosen(screen)
    choice = screen.value("procedure")
    procedure_file = screen.value("procedure-file").strip()
    table = screen.value("paytable")
    designed: Paytable | None = getattr(screen, "designed", None)
    if table == DESIGNED and designed is not None:
        return procedure, designed
    if table == FILE:
        paytable_file = screen.value("paytable-file").strip()
        if not paytable_file:
            raise PaytableError(
                Message(N_("Write the path of the club's paytable file, e.g. club.toml."))
            )
        return procedure, read_paytable(paytable_file)
    if table != OWN:
        return procedure, read_paytable(table)
    own = procedure.paytable
    if choice == FILE and is_file_name(own) and not Path(own).is_absolute():
        own = str(Path(procedure_file).parent / own)  # beside the procedure's file
    return procedure, read_paytable(own)


def sync_rules(screen: TrainerScreen) -> None:
    """Show a file field only when a file is chosen; describe the procedure chosen."""
    screen.query_one("#procedure-file", Input).display = screen.value("procedure") == FILE
    screen.query_one("#paytable-file", Input).display = screen.value("paytable") == FILE
    choice = screen.value("procedure")
    text = ""
    if choice in PROCEDURES:
        procedure = PROCEDURES[choice]
        window = screen.value("window")
        if window != OWN:
            procedure = procedure.replace(window=BetWindow(window))
        text = CLUB.describe(procedure, screen.t)
    screen.query_one("#procedure-text", Static).update(literal(text))


def select_refused_file(screen: TrainerScreen) -> None:
    """A file refused while its path is in use: the path selected, so that the next key
    typed replaces it."""
    focused = screen.focused
    if isinstance(focused, Input) and focused.id in FILE_FIELDS:
        focused.select_all()
