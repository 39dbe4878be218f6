"""A learner's progress drawn: accuracy and time per answer, session by session.

:func:`progress_svg` draws one line of points, a session each (oldest on the left), as SVG
text for a web page: no script, no font or file from elsewhere; the colours come from the
page's style sheet (classes ``grid``, ``axis``, ``line``, ``point``). The values come as
plain pairs, so the chart knows nothing of the history.

>>> from fractions import Fraction
>>> svg = progress_svg([("03-01", Fraction(1, 2)), ("03-02", Fraction(3, 4))], PERCENT,
...                    title="Accuracy")
>>> svg.count("<circle"), "75 %" in svg, svg.startswith("<svg")
(2, True, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from html import escape
from typing import Literal

from andar_bahar.engine.money import Amount
from andar_bahar.i18n.messages import Translator

__all__ = ["PERCENT", "SECONDS", "progress_svg"]

PERCENT: Literal["percent"] = "percent"
SECONDS: Literal["seconds"] = "seconds"
_WIDTH, _HEIGHT = 640, 240
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 16, 16, 36


def _seconds_ticks(high: float) -> list[float]:
    """Round values from 0 to *high* (1, 2 or 5 × a power of ten apart)."""
    raw = (high or 1.0) / 4
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return [i * step for i in range(int(high / step) + 2)]


def _label(value: float, unit: str, translator: Translator | None) -> str:
    if unit == PERCENT:
        return f"{round(value)} %"
    shown = Decimal(str(round(value, 1))).normalize() + 0
    return f"{Amount(shown).localized(translator)} s"


def progress_svg(
    points: Sequence[tuple[str, Fraction | Decimal]],
    unit: Literal["percent", "seconds"],
    *,
    title: str,
    translator: Translator | None = None,
) -> str:
    """*points* (a label, a value: a fraction for ``percent``, seconds for ``seconds``)
    as a line chart titled *title*; empty without points."""
    if not points:
        return ""
    values = [float(v) * (100 if unit == PERCENT else 1) for _, v in points]
    ticks = [0.0, 25.0, 50.0, 75.0, 100.0] if unit == PERCENT else _seconds_ticks(max(values))
    top = ticks[-1] or 1.0
    inner_w, inner_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM
    step = inner_w / len(points)

    def y(value: float) -> float:
        return _TOP + inner_h * (1 - value / top)

    name = escape(title)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img"'
        f' aria-label="{name}" class="progress-chart" preserveAspectRatio="xMidYMid meet">',
        f"<title>{name}</title>",
    ]
    for tick in ticks:
        ty = y(tick)
        parts.append(
            f'<line x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" y1="{ty:.1f}" y2="{ty:.1f}" class="grid"/>'
            f'<text x="{_LEFT - 6}" y="{ty + 5:.1f}" text-anchor="end" class="axis">'
            f"{escape(_label(tick, unit, translator))}</text>"
        )
    xs = [_LEFT + step * (i + 0.5) for i in range(len(points))]
    if len(points) > 1:
        path = " ".join(f"{x:.1f},{y(v):.1f}" for x, v in zip(xs, values, strict=True))
        parts.append(f'<polyline points="{path}" class="line"/>')
    every = max(1, math.ceil(len(points) / 8))
    for i, ((label, _), x, value) in enumerate(zip(points, xs, values, strict=True)):
        shown = escape(f"{label}: {_label(value, unit, translator)}")
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y(value):.1f}" r="6" class="point"><title>{shown}'
            "</title></circle>"
        )
        if i % every == 0:
            parts.append(
                f'<text x="{x:.1f}" y="{_HEIGHT - _BOTTOM + 22}" text-anchor="middle"'
                f' class="axis">{escape(label)}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)
