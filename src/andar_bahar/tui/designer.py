"""Designing a paytable for the procedure chosen, before a club table opens: a target range
of house edges in, pays on the club's step out, in range at every stake the chosen table's
chip, rounding and limits allow — each bet's exact edge and its lowest and highest over
those stakes shown, the bets no pay can serve named — and the table used if wanted (not a
refused design: its headline says so instead)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message as TextualMessage
from textual.widgets import Button, Input, Static

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import Procedure
from andar_bahar.games.wording import paytable_title
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.tui.common import Bar, Note, button, literal, tr
from andar_bahar.tui.screen import TrainerScreen, steady
from andar_bahar.tui.tables import Table

if TYPE_CHECKING:
    from andar_bahar.chance.design import Design

__all__ = ["DesignPanel", "DesignState", "design_table"]

DEFAULT_EDGE = "1%-5%"


@dataclass(eq=False)
class DesignState:
    """What the designer shows: the last design (or refusal), and whether it is working."""

    design: Design | None = None
    error: AndarBaharError | None = None
    busy: bool = False
    rounding: list[Message] = field(default_factory=list)


def design_table(
    procedure: Procedure, edge_text: str, base: Paytable | None = None
) -> tuple[Design, list[Message]] | AndarBaharError:
    """The designed table for *procedure* at the stakes *base*'s chip, rounding and limits
    allow, and what rounding does to it (a worker's job); a range that is not one comes back
    as the refusal, to be shown as its sentence."""
    from andar_bahar.chance.design import EdgeRange, design_paytable
    from andar_bahar.tui.odds import rounding_messages

    try:
        design = design_paytable(procedure, edge=EdgeRange.parse(edge_text), base=base)
    except AndarBaharError as refused:
        return refused
    return design, rounding_messages(design.report)


@steady
class DesignPanel(Vertical):
    """The designer's fields and its result, drawn from a :class:`DesignState`."""

    DEFAULT_CSS = """
    DesignPanel { height: auto; }
    DesignPanel #design-result { height: auto; min-height: 1; }
    """

    class Use(TextualMessage):
        """The designed table is to be the table's paytable."""

        def __init__(self, paytable: Paytable) -> None:
            super().__init__()
            self.paytable = paytable

    class Design(TextualMessage):
        """Design a table for the procedure chosen, within the edge range typed."""

    def __init__(self, screen: TrainerScreen, state: DesignState) -> None:
        super().__init__(id="designer")
        self.owner = screen
        self.state = state

    def compose(self) -> ComposeResult:
        screen = self.owner
        yield Static(
            literal(tr(screen, Message(N_("Design a table for this procedure")))), classes="title"
        )
        yield Static(
            literal(
                tr(
                    screen,
                    Message(
                        N_(
                            "The house edge every bet should have, as a range, e.g. 1%-5%:"
                            " the designer finds pays on steps of 0.05 that keep each bet in it."
                        )
                    ),
                )
            ),
            classes="hint",
        )
        yield Bar(
            screen.field("edge", value=DEFAULT_EDGE),
            button(tr(screen, Message(N_("Design the table"))), "design"),
            width=24,
        )
        yield Note(id="design-note")
        with Vertical(id="design-result"):
            yield from self.result()

    def result(self) -> ComposeResult:
        design, screen = self.state.design, self.owner
        if design is None:
            return
        t = screen.t
        from andar_bahar.chance.odds import percent_text
        from andar_bahar.engine.money import Amount
        from andar_bahar.reports.design_tables import design_headline
        from andar_bahar.tui.odds import pays_text, when_text

        table = design.paytable
        headline = literal(tr(screen, design_headline(design)))
        yield Static(headline, id="design-headline", classes="title" if design.refused else "hint")
        headers = (N_("bet"), N_("when"), N_("pays"), N_("house edge"), N_("lowest (stake)"),
                   N_("highest (stake)"))  # fmt: skip
        yield Table(
            [tr(screen, Message(m)) for m in headers],
            [
                [
                    row.bet.localized(t),
                    when_text(row.given, t, row.bet),
                    pays_text(row.bet, table, t),
                    percent_text(row.house_edge, t),
                    f"{percent_text(row.lowest, t)} ({Amount(row.lowest_at).localized(t)})",
                    f"{percent_text(row.highest, t)} ({Amount(row.highest_at).localized(t)})",
                ]
                for row in design.rows
            ],
            right=(3, 4, 5),
            focusable=True,
            id="design-table",
        )
        for message in [*design.messages(), *self.state.rounding]:
            yield Static(literal(tr(screen, message)), classes="hint")
        if design.refused:
            return
        yield button(
            tr(
                screen,
                Message(N_("Use this table: {name}"), name=paytable_title(design.paytable, t)),
            ),
            "use-design",
            variant="success",
        )

    def sync(self) -> None:
        self.query_one("#design-result").loading = self.state.busy
        self.query_one("#design-note", Note).say(self.state.error)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "design":
            event.stop()
            self.post_message(self.Design())
        elif (
            event.button.id == "use-design"
            and self.state.design is not None
            and not self.state.design.refused
        ):
            event.stop()
            self.post_message(self.Use(self.state.design.paytable))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "edge":
            event.stop()
            self.post_message(self.Design())
