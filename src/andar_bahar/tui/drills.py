"""Drills for dealers and learners, with accuracy and time kept per learner."""

from __future__ import annotations

import time
import uuid
from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button, Input, Static

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.engine.rules import Row
from andar_bahar.games.drills import (
    AnswerKind,
    Drill,
    DrillKind,
    DrillResult,
    Question,
    check_answers,
    make_drill,
    practice_title,
)
from andar_bahar.i18n import format_number, language_of
from andar_bahar.i18n.messages import N_, Message, render
from andar_bahar.tui.common import Bar, Note, button, literal, tr
from andar_bahar.tui.layout import LayoutView
from andar_bahar.tui.protocol import trainer
from andar_bahar.tui.screen import TrainerScreen
from andar_bahar.tui.tables import Table

if TYPE_CHECKING:
    from andar_bahar.storage import DrillStats

__all__ = ["DrillScreen"]


def _shown(expected: str) -> Row | str:
    """A row answer in the user's language; numbers and choices as they are."""
    return Row(expected) if expected in ("andar", "bahar") else expected


class DrillScreen(TrainerScreen):
    """Choose a learner and a drill; answer; see the right answer explained."""

    TITLE_TEXT = N_("Drills")
    DEFAULT_CSS = """
    DrillScreen .question { width: 1fr; height: auto; margin: 1 0 0 0; }
    DrillScreen #check { width: auto; min-width: 16; margin: 1 0 0 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "new", N_("New drill")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session = uuid.uuid4().hex[:12]
        self.drill: Drill | None = None
        self.result: DrillResult | None = None
        self.started = 0.0
        self.learner = ""
        self.progress: list[DrillStats] = []
        self.loading_progress = False
        self.error: Message | AndarBaharError | None = None

    def compose_body(self) -> ComposeResult:
        t = self.t
        yield Bar(
            self.field("learner", placeholder=tr(self, Message(N_("learner's name, e.g. Tamar")))),
            self.choice("kind", [(kind.localized(t), kind.value) for kind in DrillKind], "layout"),
            button(tr(self, Message(N_("New drill"))), "new", variant="primary"),
            width=30,  # the name's example in full: two in a row at 80 columns, three wider
        )
        yield Note(id="error")
        drill = self.drill
        if drill is not None:
            yield Static(literal(drill.title.localized(t)), classes="title")
            for fact in drill.facts:
                yield Static(literal(fact.localized(t)), classes="hint")
            if drill.result is not None and drill.kind in (DrillKind.LAYOUT, DrillKind.PAY):
                layout = LayoutView(id="layout")
                layout.show(drill.result, t, centre=False, verdict=drill.kind is DrillKind.PAY)
                yield layout
            for question in drill.questions:
                yield Static(literal(question.prompt.localized(t)), classes="question")
                yield self.field(f"answer-{question.key}", placeholder=self._hint(question))
            yield button(tr(self, Message(N_("Check"))), "check", variant="success")
            yield Note(id="result")
            yield button(tr(self, Message(N_("Another drill"))), "again", variant="primary")
        yield Static(literal(tr(self, Message(N_("Progress")))), classes="title")
        yield Table(*self._progress_table(), right=(2, 3, 4, 5), focusable=False, id="progress")

    def _hint(self, question: Question) -> str:
        """What to type in an answer's field, in the user's language."""
        if question.answer is AnswerKind.ROW:
            hint = Message(
                N_("{andar} or {bahar} (or its first letter)"), andar=Row.ANDAR, bahar=Row.BAHAR
            )
        elif question.answer is AnswerKind.CHOICE:
            hint = Message(N_("the number of the choice, e.g. 1"))
        else:
            hint = Message(N_("a number, e.g. 12"))
        return tr(self, hint)

    def _progress_table(self) -> tuple[list[str], list[list[str]]]:
        from andar_bahar.chance.odds import percent_text

        t = self.t
        lang = language_of(t)
        headers = [
            tr(self, Message(m))
            for m in (
                N_("session"),
                N_("drill"),
                N_("answers"),
                N_("right"),
                N_("accuracy"),
                N_("mean time, s"),
            )
        ]
        rows = [
            [
                row.first_at.strftime("%m-%d %H:%M"),  # as History shows a time
                render(practice_title(row.kind), t),  # the browser's school kinds too
                str(row.attempts),
                str(row.correct),
                percent_text(row.accuracy, t),
                format_number(row.mean_seconds.quantize(Decimal("0.1")), lang),
            ]
            for row in self.progress
        ]
        return headers, rows

    def on_mount(self) -> None:
        super().on_mount()
        self.focus_on(self.query_one("#learner", Input))

    def sync(self) -> None:
        self.query_one("#error", Note).say(self.error)
        for check in self.query("#check").results(Button):
            check.disabled = self.result is not None
        for field in self.query("Input"):
            if (field.id or "").startswith("answer-"):
                field.disabled = self.result is not None
        for again in self.query("#again").results(Button):
            again.display = self.result is not None
        for note in self.query("#result").results(Note):
            note.say(self._result_text(), kind="success" if self._right() else "warning")
        progress = self.query_one("#progress", Table)
        progress.fill(*self._progress_table())
        progress.loading = self.loading_progress

    def _right(self) -> bool:
        return self.result is not None and self.result.correct

    def _result_text(self) -> str | None:
        result = self.result
        if result is None:
            return None
        lines = [tr(self, Message(N_("Right!") if result.correct else N_("Not quite.")))]
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
        lines.extend(message.localized(self.t) for message in result.explanation)
        return "\n".join(lines)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id in ("new", "again"):
            self.run_worker(self.action_new())
        elif event.button.id == "check":
            self.check()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter: from the name to a new drill; from an answer to the next, then check."""
        if event.input.id == "learner":
            self.run_worker(self.action_new())
            return
        fields = [
            f for f in self.query("Input").results(Input) if (f.id or "").startswith("answer-")
        ]
        if event.input in fields and event.input is not fields[-1]:
            self.focus_on(fields[fields.index(event.input) + 1])
        else:
            self.check()

    async def action_new(self) -> None:
        learner = self.value("learner").strip()
        if not learner:
            self.error = Message(N_("Write the learner's name first."))
            self.sync()
            self.focus_on(self.query_one("#learner", Input))
            return
        self.pin()
        self.error = None
        kind = DrillKind(self.value("kind"))
        try:
            drill = make_drill(kind, trainer(self).rng())
        except AndarBaharError as refused:
            self.error = refused
            self.sync()
            return
        self.drill, self.result = drill, None
        if learner != self.learner:
            self.learner = learner
            self._load_progress()
        self.save_form()
        for key in [k for k in self.form if k.startswith("answer-")]:
            del self.form[key]
        await self.redraw()
        self.started = time.monotonic()
        answers = [
            f for f in self.query("Input").results(Input) if (f.id or "").startswith("answer-")
        ]
        if answers:
            self.focus_on(answers[0])

    def check(self) -> None:
        drill = self.drill
        if drill is None or self.result is not None:
            return
        seconds = Decimal(str(round(time.monotonic() - self.started, 3)))
        answers = {q.key: self.value(f"answer-{q.key}") for q in drill.questions}
        self.result = result = check_answers(drill, answers)
        self.sync()
        self.focus_on(self.query_one("#again", Button))
        self.pin("#result")  # the explanation stays in view until another drill
        learner, kind, session = self.learner, drill.kind.value, self.session

        def store(storage) -> list[DrillStats]:  # type: ignore[no-untyped-def]
            storage.record_drill(learner, kind, result.correct, seconds, session=session)
            return list(storage.drill_progress(learner))

        self.loading_progress = True
        self.history(store, self._show_progress, failed=self._progress_failed)

    def _load_progress(self) -> None:
        learner = self.learner
        self.loading_progress = True
        self.history(
            lambda storage: list(storage.drill_progress(learner)),
            self._show_progress,
            failed=self._progress_failed,
        )

    def _show_progress(self, rows: list[DrillStats]) -> None:
        self.progress, self.loading_progress = rows, False
        self.resync()

    def _progress_failed(self, text: str) -> None:
        self.loading_progress = False
        self.notify(text, severity="warning", markup=False, timeout=8)
        self.resync()
