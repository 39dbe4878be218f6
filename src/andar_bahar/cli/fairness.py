"""``andar-bahar fairness``: the shuffle audit any club can run (see docs/randomness.md)."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Annotated

import typer

from andar_bahar.chance.fairness_options import ALPHA, CARDS, Source
from andar_bahar.cli.common import (
    FormatOption,
    LangOption,
    TextOrJson,
    commands_app,
    echo_json,
    guarded,
    progress_bar,
    require_extra,
    translator_for,
)
from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.money import decimal_sign
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.reports.report import table_text

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from andar_bahar.chance.fairness import AuditReport

app = commands_app()

MIN_DECKS = 5 * CARDS
"""The fewest decks audited: 5 expected in each card × position cell, as χ² needs."""
_SOURCE_NAMES = {
    Source.LIVE: N_("the live shuffle (random.SystemRandom, the operating system's source)"),
    Source.SIMULATOR: N_("the simulator's generator (numpy PCG64; seed {seed})"),
    Source.BROKEN: N_(
        "a broken shuffle, the negative control (swap with any position; seed {seed})"
    ),
}


def _decks(
    source: Source, decks: int, seed: int | None, translator: Translator
) -> NDArray[np.uint8]:
    from andar_bahar.chance.fairness import broken_decks, live_decks, simulator_decks

    with progress_bar(decks, at_least=50_000) as bar:
        task = bar.add_task(Message(N_("shuffling")).localized(translator), total=decks)

        def advance(n: int) -> None:
            bar.advance(task, n)

        if source is Source.LIVE:
            return live_decks(decks, progress=advance)
        if source is Source.SIMULATOR:
            return simulator_decks(decks, seed, progress=advance)
        return broken_decks(decks, seed, progress=advance)


def _p_text(p: float | None, translator: Translator) -> str:
    if p is None:
        return "—"
    if p == 0:
        text = "< 1e-300"
    elif p >= 0.0001:
        text = f"{p:.4f}"
    else:
        text = f"{p:.1e}"
    return text.replace(".", decimal_sign(translator))


def render_audit(
    report: AuditReport, source: Source, seed: int | None, translator: Translator
) -> str:
    """The audit for people: what was shuffled, a table of the tests, their details, a verdict."""
    t = translator
    what = Message(_SOURCE_NAMES[source], seed=seed).localized(t)
    lines = [
        Message(
            N_("Shuffle audit of {source}: {decks} decks, significance level {alpha}."),
            source=what,
            decks=report.decks,
            alpha=f"{report.alpha:g}".replace(".", decimal_sign(t)),
        ).localized(t),
        "",
    ]
    headers = [
        Message(N_("test")).localized(t),
        Message(N_("statistic")).localized(t),
        Message(N_("p-value")).localized(t),
        Message(N_("passed")).localized(t),
    ]
    rows = [
        [
            test.title.localized(t),
            f"{test.statistic:.3f}".replace(".", decimal_sign(t)),
            _p_text(test.p_value, t),
            "✓" if test.passed else "✗",
        ]
        for test in report.tests
    ]
    lines.append(table_text(headers, rows))
    lines.append("")
    lines.extend(f"{test.title.localized(t)}: {test.detail.localized(t)}" for test in report.tests)
    lines.append("")
    confidence = f"{100 * (1 - report.alpha):g}".replace(".", decimal_sign(t))
    if report.passed:
        verdict = Message(
            N_(
                "Passed: no test tells these decks from a fair shuffle's at {confidence} % confidence."
            ),
            confidence=confidence,
        )
    else:
        verdict = Message(
            N_(
                "FAILED: {failed} — at {confidence} % confidence these decks are not"
                " what a fair shuffle deals."
            ),
            failed=[test.title for test in report.failed],
            confidence=confidence,
        )
    lines.append(verdict.localized(t))
    return "\n".join(lines)


@app.command(name="fairness")
@guarded
def fairness_command(
    decks: Annotated[
        int, typer.Option("--decks", help=f"How many decks to shuffle (at least {MIN_DECKS}).")
    ] = 200_000,
    source: Annotated[
        Source,
        typer.Option(
            "--source",
            help="live: the live shuffle (the operating system's secure source);"
            " simulator: the simulator's numpy PCG64 generator;"
            " broken: the classic wrong shuffle, a negative control that must fail.",
        ),
    ] = Source.LIVE,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            help="Seed of the simulator or the broken shuffle (default: a fresh one, reported)."
            " The live shuffle has none.",
        ),
    ] = None,
    output: FormatOption = TextOrJson.TEXT,
    lang: LangOption = None,
) -> None:
    """Audit a shuffle: shuffle many decks and test them against a fair shuffle, with p-values.

    Exit code 0 when every test passes, 1 when any fails, 2 on bad input.
    """
    translator = translator_for(lang)
    if decks < MIN_DECKS:
        raise ParameterError(
            Message(
                N_(
                    "--decks must be at least {minimum}, not {value}: the card × position test"
                    " needs 5 expected in each of its 52 × 52 cells."
                ),
                minimum=MIN_DECKS,
                value=decks,
            )
        )
    if seed is not None and source is Source.LIVE:
        raise ParameterError(
            Message(
                N_(
                    "--seed applies to --source simulator or broken only:"
                    " the live shuffle draws from the operating system and has no seed."
                )
            )
        )
    if seed is not None and seed < 0:
        raise ParameterError(Message(N_("--seed must be zero or more, not {value}."), value=seed))
    if source is not Source.LIVE and seed is None:
        seed = secrets.randbits(63)
    require_extra("sim", "numpy", "scipy")
    from andar_bahar.chance.fairness import audit

    report = audit(_decks(source, decks, seed, translator), alpha=ALPHA)
    if output is TextOrJson.JSON:
        echo_json({"source": source.value, "seed": seed, **report.to_dict()})
    else:
        typer.echo(render_audit(report, source, seed, translator))
    if not report.passed:
        raise typer.Exit(code=1)
