"""``andar-bahar history learners``: the learners with a code — their dealer-school level,
sessions, answers and accuracy per kind, the schools they joined (as a table's dealer sees
them on ``/dealer/CODE/learners``, for every table at once)."""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING, Annotated, Any

import typer

from andar_bahar.cli.common import LangOption, echo_json, guarded, translator_for
from andar_bahar.cli.history import DbOption, HoldFormat, history_app
from andar_bahar.cli.play import database_url
from andar_bahar.i18n.messages import N_, Message, Translator, translate

if TYPE_CHECKING:
    from andar_bahar.storage.learners import LearnerSummary

CSV_HEADER = (
    "learner", "name", "level", "sessions", "schools", "kind", "answers", "right",
    "accuracy", "mean_seconds", "last_answer",
)  # fmt: skip
HEADERS = (
    N_("learner"),
    N_("level"),
    N_("sessions"),
    N_("answers"),
    N_("accuracy"),
    N_("schools"),
)


@history_app.command("learners")
@guarded
def learners_command(
    output: Annotated[HoldFormat, typer.Option("--format", help="text, json or csv.")] = (
        HoldFormat.TEXT
    ),
    db: DbOption = None,
    lang: LangOption = None,
) -> None:
    """Every learner with a code: level, sessions, answers and accuracy per kind, schools."""
    from andar_bahar.storage import Storage
    from andar_bahar.storage.learners import LearnerBook

    translator = translator_for(lang)
    with Storage.open(database_url(db)) as storage:
        everyone = LearnerBook(storage).everyone()
    if output is HoldFormat.JSON:
        echo_json([_as_json(learner) for learner in everyone])
    elif output is HoldFormat.CSV:
        typer.echo(learners_csv(everyone), nl=False)
    else:
        typer.echo(learners_text(everyone, translator), nl=False)


def _as_json(learner: LearnerSummary) -> dict[str, Any]:
    return {
        "id": learner.id,
        "name": learner.name,
        "level": learner.level,
        "created_at": learner.created_at.isoformat(),
        "sessions": learner.sessions,
        "answers": learner.attempts,
        "right": sum(k.correct for k in learner.kinds),
        "schools": list(learner.schools),
        "kinds": {
            k.kind: {
                "answers": k.attempts,
                "right": k.correct,
                "accuracy": str(k.accuracy),
                "mean_seconds": str(k.mean_seconds),
                "last_answer": k.last_at.isoformat(),
            }
            for k in learner.kinds
        },
    }


def learners_csv(everyone: list[LearnerSummary]) -> str:
    """One line per learner and kind (a learner without answers: one line, no kind)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for learner in everyone:
        first = [
            learner.id,
            learner.name,
            learner.level,
            learner.sessions,
            " ".join(learner.schools),
        ]
        if not learner.kinds:
            writer.writerow([*first, "", 0, 0, "", "", ""])
        for k in learner.kinds:
            writer.writerow(
                [*first, k.kind, k.attempts, k.correct, str(k.accuracy), str(k.mean_seconds),
                 k.last_at.isoformat()]
            )  # fmt: skip
    return out.getvalue()


def learners_text(everyone: list[LearnerSummary], translator: Translator | None) -> str:
    """The learners as a table for people (accuracy as a percentage)."""
    from andar_bahar.chance.odds import percent_text

    if not everyone:
        return Message(N_("No learner has a code yet.")).localized(translator) + "\n"
    rows = [[translate(h, translator) for h in HEADERS]]
    for learner in everyone:
        accuracy = learner.accuracy
        rows.append(
            [
                learner.name,
                str(learner.level),
                str(learner.sessions),
                str(learner.attempts),
                percent_text(accuracy, translator) if accuracy is not None else "—",
                " ".join(learner.schools) or "—",
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADERS))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"
