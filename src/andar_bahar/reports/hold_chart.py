"""The chart of the hold report: each night's result against the band of its bets.

Each night is a column: the band that holds 95 % of nights with those bets (a bar), the
expected result (a line across the bar) and what the house kept (a dot: filled inside the
band, a ring outside it). :func:`nights_svg` draws it as SVG text for the web page (no
script, no font or file from elsewhere); :func:`plot_nights` draws the same with
matplotlib to a PNG or SVG file for the command line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from html import escape
from pathlib import Path

from andar_bahar.engine.errors import ParameterError
from andar_bahar.i18n.messages import N_, Message, Translator, translate
from andar_bahar.reports.hold import GroupedAmount, HoldLine, HoldReport

__all__ = ["LEGEND", "nights_svg", "plot_nights"]

LEGEND = (
    N_("95 % of nights with these bets"),
    N_("expected"),
    N_("the house kept"),
)
_WIDTH, _HEIGHT = 720, 280
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 12, 36, 40


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round values between *low* and *high* for the axis (1, 2 or 5 × a power of ten)."""
    span = high - low or 1.0
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step) + 1)]


def _range(nights: Sequence[HoldLine]) -> tuple[float, float]:
    values = [float(v) for n in nights for v in (n.judgement.low, n.judgement.high, n.kept)]
    values.append(0.0)
    low, high = min(values), max(values)
    pad = (high - low) * 0.05 or 1.0
    return low - pad, high + pad


def nights_svg(report: HoldReport, translator: Translator | None = None) -> str:
    """The chart as an SVG element (text), in the user's language; empty without nights."""
    nights = report.nights
    if not nights:
        return ""
    t = translator
    low, high = _range(nights)
    inner_w, inner_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM
    step = inner_w / len(nights)

    def y(value: float | Decimal | Fraction) -> float:
        return _TOP + inner_h * (high - float(value)) / (high - low)

    title = escape(Message(N_("What the house kept each night, against its band")).localized(t))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img"'
        f' aria-label="{title}" class="hold-chart" preserveAspectRatio="xMidYMid meet">',
        f"<title>{title}</title>",
    ]
    for tick in _ticks(low, high):
        ty = y(tick)
        label = escape(GroupedAmount(Decimal(str(round(tick, 6))).normalize() + 0).localized(t))
        parts.append(
            f'<line x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" y1="{ty:.1f}" y2="{ty:.1f}" class="grid"/>'
            f'<text x="{_LEFT - 6}" y="{ty + 4:.1f}" text-anchor="end" class="axis">{label}</text>'
        )
    parts.append(
        f'<line x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" y1="{y(0):.1f}" y2="{y(0):.1f}" class="zero"/>'
    )
    every = max(1, math.ceil(len(nights) / 10))
    for i, night in enumerate(nights):
        j = night.judgement
        cx = _LEFT + step * (i + 0.5)
        bar = min(28.0, step * 0.6)
        outside = j.verdict != "ordinary"
        parts.append(
            f'<rect x="{cx - bar / 2:.1f}" y="{y(j.high):.1f}" width="{bar:.1f}"'
            f' height="{max(1.0, y(j.low) - y(j.high)):.1f}" class="band"/>'
            f'<line x1="{cx - bar / 2:.1f}" x2="{cx + bar / 2:.1f}" y1="{y(j.mean):.1f}"'
            f' y2="{y(j.mean):.1f}" class="expected"/>'
            f'<circle cx="{cx:.1f}" cy="{y(j.observed):.1f}" r="5"'
            f' class="{"kept outside" if outside else "kept"}"><title>{escape(str(night.key))}:'
            f" {escape(GroupedAmount(j.observed).localized(t))}</title></circle>"
        )
        if i % every == 0:
            label = escape(night.key.strftime("%m-%d") if hasattr(night.key, "strftime") else "")
            parts.append(
                f'<text x="{cx:.1f}" y="{_HEIGHT - _BOTTOM + 16}" text-anchor="middle"'
                f' class="axis">{label}</text>'
            )
    legend_x = _LEFT
    for text, kind in zip(LEGEND, ("band", "expected", "kept"), strict=True):
        words = escape(translate(text, t))
        if kind == "band":
            mark = f'<rect x="{legend_x}" y="10" width="12" height="12" class="band"/>'
        elif kind == "expected":
            mark = f'<line x1="{legend_x}" x2="{legend_x + 12}" y1="16" y2="16" class="expected"/>'
        else:
            mark = f'<circle cx="{legend_x + 6}" cy="16" r="5" class="kept"/>'
        parts.append(f'{mark}<text x="{legend_x + 18}" y="20" class="legend">{words}</text>')
        legend_x += 28 + 7 * len(words)
    parts.append("</svg>")
    return "".join(parts)


def plot_nights(report: HoldReport, path: Path, translator: Translator | None = None) -> None:
    """The chart with matplotlib, to *path* (``.png`` or ``.svg``)."""
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in ("png", "svg"):
        raise ParameterError(
            Message(N_("The chart file {file} must end in .png or .svg."), file=str(path))
        )
    from matplotlib.figure import Figure

    t = translator
    nights = report.nights
    figure = Figure(figsize=(10, 4.5), dpi=110, layout="constrained")
    axes = figure.add_subplot()
    xs = list(range(len(nights)))
    lows = [float(n.judgement.low) for n in nights]
    highs = [float(n.judgement.high) for n in nights]
    axes.bar(xs, [h - lo for lo, h in zip(lows, highs, strict=True)], bottom=lows, width=0.6,
             color="#dbe9f6", label=translate(LEGEND[0], t))  # fmt: skip
    axes.hlines([float(n.expected) for n in nights], [x - 0.3 for x in xs], [x + 0.3 for x in xs],
                colors="#1f4e79", label=translate(LEGEND[1], t))  # fmt: skip
    inside = [n.judgement.verdict == "ordinary" for n in nights]
    axes.scatter([x for x, ok in zip(xs, inside, strict=True) if ok],
                 [float(n.kept) for n, ok in zip(nights, inside, strict=True) if ok],
                 color="#2e7d32", zorder=3, label=translate(LEGEND[2], t))  # fmt: skip
    axes.scatter([x for x, ok in zip(xs, inside, strict=True) if not ok],
                 [float(n.kept) for n, ok in zip(nights, inside, strict=True) if not ok],
                 facecolors="none", edgecolors="#c62828", linewidths=2, zorder=3)  # fmt: skip
    axes.axhline(0, color="#888888", linewidth=0.8)
    room = max(0.0, (6 - len(nights)) / 2)  # a night or two: bars of a night's width
    axes.set_xlim(-0.6 - room, len(nights) - 0.4 + room)
    axes.set_xticks(xs, [str(n.key) for n in nights], rotation=45, ha="right", fontsize=8)
    axes.set_title(Message(N_("What the house kept each night, against its band")).localized(t))
    axes.legend(loc="best", fontsize=8)
    figure.savefig(path, format=suffix)
