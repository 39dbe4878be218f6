"""Drills for dealers and learners, with accuracy and time kept per learner."""

from __future__ import annotations

import time
import uuid
from decimal import Decimal

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, Select, Static

from andar_bahar.chance.odds import percent_text
from andar_bahar.engine.rules import Row
from andar_bahar.games.drills import Drill, DrillKind, check_answers, make_drill
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.reports.report import render_layout
from andar_bahar.tui.common import tr, trainer

__all__ = ["DrillScreen"]

_KIND_NAMES = {
    DrillKind.LAYOUT: N_("Read a layout"),
    DrillKind.PAY: N_("Pay the bets"),
    DrillKind.FIRST_ROW: N_("Which row gets the first card?"),
    DrillKind.ODDS: N_("Which bet has the lower house edge?"),
}


def _shown(expected: str) -> Row | str:
    """A row answer in the user's language; numbers and choices as they are."""
    return Row(expected) if expected in ("andar", "bahar") else expected


class DrillScreen(Screen[None]):
    """Choose a learner and a drill; answer; see the right answer explained."""

    DEFAULT_CSS = """
    DrillScreen .answer { height: auto; }
    DrillScreen .answer Label { width: 50; padding: 1 0 0 0; }
    DrillScreen DataTable { height: auto; max-height: 12; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.session = uuid.uuid4().hex[:12]
        self.drill: Drill | None = None
        self.started = 0.0
        self.learner = ""
        self.kind = DrillKind.LAYOUT
        self.answered = False

    def compose(self) -> ComposeResult:
        t = trainer(self).translator
        yield Header()
        with Vertical():
            yield Label(tr(self, Message(N_("Drills"))), classes="title")
            with Horizontal(classes="row"):
                yield Input(
                    value=self.learner,
                    placeholder=tr(self, Message(N_("learner's name"))),
                    id="learner",
                )
                yield Select(
                    [(tr(self, Message(name)), kind.value) for kind, name in _KIND_NAMES.items()],
                    value=self.kind.value,
                    allow_blank=False,
                    id="kind",
                )
                yield Button(tr(self, Message(N_("New drill"))), id="new", variant="primary")
            yield Label("", id="error", classes="error")
            drill = self.drill
            if drill is not None:
                yield Static(drill.title.localized(t), classes="title")
                for fact in drill.facts:
                    yield Static(fact.localized(t))
                if drill.result is not None and drill.kind is not DrillKind.FIRST_ROW:
                    yield Static(
                        render_layout(drill.result, t)
                        if drill.kind is DrillKind.PAY
                        else self._bare_layout()
                    )
                for question in drill.questions:
                    with Horizontal(classes="answer"):
                        yield Label(question.prompt.localized(t))
                        yield Input(id=f"answer-{question.key}")
                yield Button(
                    tr(self, Message(N_("Check"))),
                    id="check",
                    variant="success",
                    disabled=self.answered,
                )
            yield Static("", id="result")
            yield Label(tr(self, Message(N_("Progress"))), classes="title")
            yield DataTable(id="progress")
        yield Footer()

    def _bare_layout(self) -> str:
        """The layout without the verdict lines: reading it is the exercise."""
        assert self.drill is not None and self.drill.result is not None
        text = render_layout(self.drill.result, trainer(self).translator)
        blocks = text.split("\n\n")
        return "\n\n".join(blocks[:-1])

    def on_mount(self) -> None:
        self._progress()

    def _progress(self) -> None:
        table = self.query_one("#progress", DataTable)
        table.clear(columns=True)
        table.add_columns(
            *(
                tr(self, Message(m))
                for m in (
                    N_("session"),
                    N_("drill"),
                    N_("answers"),
                    N_("right"),
                    N_("accuracy"),
                    N_("mean time, s"),
                )
            )
        )
        if not self.learner:
            return
        try:
            rows = trainer(self).store.drill_progress(self.learner)
        except Exception as error:
            self.notify(str(error), severity="warning")
            return
        for row in rows:
            table.add_row(
                row.first_at.strftime("%Y-%m-%d %H:%M"),
                tr(self, Message(_KIND_NAMES[DrillKind(row.kind)])),
                str(row.attempts),
                str(row.correct),
                percent_text(row.accuracy, trainer(self).translator),
                f"{row.mean_seconds:.1f}",
            )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "new":
            self.new_drill()
        elif event.button.id == "check":
            self.check()

    def new_drill(self) -> None:
        learner = self.query_one("#learner", Input).value.strip()
        if not learner:
            self.query_one("#error", Label).update(
                tr(self, Message(N_("Write the learner's name first.")))
            )
            return
        self.learner = learner
        self.kind = DrillKind(str(self.query_one("#kind", Select).value))
        self.drill = make_drill(self.kind, trainer(self).rng())
        self.answered = False
        self.refresh(recompose=True)
        self.started = time.monotonic()
        self.call_after_refresh(self._progress)

    def check(self) -> None:
        drill = self.drill
        if drill is None or self.answered:
            return
        t = trainer(self).translator
        seconds = Decimal(str(round(time.monotonic() - self.started, 3)))
        answers = {q.key: self.query_one(f"#answer-{q.key}", Input).value for q in drill.questions}
        result = check_answers(drill, answers)
        self.answered = True
        self.query_one("#check", Button).disabled = True
        lines = [
            tr(self, Message(N_("Right!")))
            if result.correct
            else tr(self, Message(N_("Not quite.")))
        ]
        for answer in result.answers:
            mark = "✓" if answer.correct else "✗"
            lines.append(
                f"{mark} "
                + tr(
                    self,
                    Message(
                        N_("your answer: {given}; the right answer: {expected}"),
                        given=answer.given or "—",
                        expected=_shown(answer.expected),
                    ),
                )
            )
        lines.extend(message.localized(t) for message in result.explanation)
        self.query_one("#result", Static).update("\n".join(lines))
        try:
            trainer(self).store.record_drill(
                self.learner, drill.kind.value, result.correct, seconds, session=self.session
            )
        except Exception as error:
            self.notify(str(error), severity="warning")
        self._progress()
