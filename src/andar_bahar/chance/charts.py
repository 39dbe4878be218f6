"""Charts (matplotlib): the distribution of cards dealt, and session studies.

Drawn on a bare :class:`matplotlib.figure.Figure` (no global pyplot state), in
the user's language, to PNG or SVG by the file's suffix. Exact fractions are
turned into floats here only to place bars on a picture.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from andar_bahar.chance.odds import OddsReport, percent_text
from andar_bahar.chance.simulation import SessionStudy
from andar_bahar.engine.errors import ParameterError
from andar_bahar.i18n.messages import N_, Message, Translator

__all__ = ["plot_cards_dealt", "plot_sessions"]

_BAND_COLOURS = ("#dbe9f6", "#fbe3d6")


def _t(message: Message, translator: Translator | None) -> str:
    return message.localized(translator)


def _check_path(path: Path) -> str:
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in ("png", "svg"):
        raise ParameterError(
            Message(N_("The chart file {file} must end in .png or .svg."), file=str(path))
        )
    return suffix


def plot_cards_dealt(report: OddsReport, path: Path, translator: Translator | None = None) -> None:
    """A bar chart of P(cards dealt = n), the paytable's bands shaded and labelled."""
    kind = _check_path(path)
    t = translator
    distribution = report.distribution.cards_dealt
    from matplotlib.figure import Figure  # here: importing this module costs nothing

    figure = Figure(figsize=(11, 5.5), dpi=110, layout="constrained")
    axes = figure.add_subplot()
    counts = list(distribution)
    heights = [float(distribution[k]) * 100 for k in counts]
    top = max(heights) * 1.25
    for index, band in enumerate(report.paytable.bands):
        axes.axvspan(
            band.bet.low - 0.5, band.bet.high + 0.5, color=_BAND_COLOURS[index % 2], zorder=0
        )
        probability = report.distribution.probability_of_band(band.bet.low, band.bet.high)
        axes.text(
            (band.bet.low + band.bet.high) / 2,
            top * 0.97,
            f"{band.label}\n{band.odds.localized(t)}\n{percent_text(probability, t)}",
            ha="center",
            va="top",
            fontsize=8,
        )
    axes.bar(counts, heights, color="#2f6690", zorder=2)
    axes.set_xlim(0.5, max(counts) + 0.5)
    axes.set_ylim(0, top)
    axes.set_xlabel(_t(Message(N_("cards dealt (the centre card not counted)")), t))
    axes.set_ylabel(_t(Message(N_("chance, %")), t))
    axes.set_title(
        _t(
            Message(
                N_("Cards dealt under '{procedure}' — mean {mean}; bands of '{paytable}'"),
                procedure=report.procedure.name,
                mean=str(report.distribution.mean_cards_dealt),
                paytable=report.paytable.name,
            ),
            t,
        )
    )
    figure.savefig(path, format=kind)


def plot_sessions(study: SessionStudy, path: Path, translator: Translator | None = None) -> None:
    """A histogram of final bankrolls, with the starting bankroll marked."""
    kind = _check_path(path)
    t = translator
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 5), dpi=110, layout="constrained")
    axes = figure.add_subplot()
    finals = Counter(study.finals)
    low, high = min(finals), max(finals)
    bins = min(60, max(1, high - low + 1))
    axes.hist(list(study.finals), bins=bins, color="#2f6690")
    axes.axvline(study.bankroll, color="#c0392b", linestyle="--")
    axes.set_xlabel(_t(Message(N_("final bankroll")), t))
    axes.set_ylabel(_t(Message(N_("sessions")), t))
    axes.set_title(
        _t(
            Message(
                N_("{system} on {bet}: ruined in {ruin} of {sessions} sessions"),
                system=study.system,
                bet=study.bet,
                ruin=percent_text(study.ruin_probability, t),
                sessions=study.sessions,
            ),
            t,
        )
    )
    figure.savefig(path, format=kind)
