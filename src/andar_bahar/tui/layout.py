"""A widget that draws a round the way a dealer sees it: the centre card and two rows."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.visual import VisualType
from textual.widgets import Static

from andar_bahar.engine.cards import Card, Colour
from andar_bahar.engine.round import Round, RoundResult
from andar_bahar.engine.rules import Row
from andar_bahar.games.wording import CLUB, Wording
from andar_bahar.i18n.messages import N_, NP_, Message, Translator, translate

__all__ = ["LayoutView", "layout_text"]


def _card(card: Card, translator: Translator | None, *, matched: bool = False) -> Text:
    style = "bold red" if card.colour is Colour.RED else "bold"
    if matched:
        style += " reverse"
    return Text(f" {card.localized(translator)} ", style=style)


def layout_text(
    source: Round | RoundResult,
    translator: Translator | None,
    *,
    wording: Wording = CLUB,
    upto: int | None = None,
    verdict: bool = True,
    centre: bool = True,
    columns: int | None = None,
) -> Text:
    """The layout of a round in play or finished (its first *upto* cards, when replaying).

    *verdict* adds the number of cards dealt and the winner (or the void); *centre* the
    centre card or target line. A drill that asks for them leaves them out. A row longer
    than *columns* goes on under its first card, not under the row's name.
    """
    text = Text()
    dealt = source.dealt if upto is None else source.dealt[:upto]
    complete = len(dealt) == len(source.dealt)
    if centre:
        if source.centre is not None:
            text.append(translate(wording.centre_label, translator) + " ")
            text.append_text(_card(source.centre, translator))
        elif source.target is not None:
            text.append(
                Message(N_("Target rank: {rank}"), rank=source.target).localized(translator)
            )
        elif not source.procedure.has_centre:
            text.append(
                Message(N_("The target rank is not chosen yet.")).localized(translator),
                style="dim",
            )
        else:
            text.append(
                Message(N_("The centre card is not turned yet.")).localized(translator)
                if wording is CLUB
                else Message(N_("The centre card is not opened yet.")).localized(translator),
                style="dim",
            )
        text.append("\n")
    # the first row as far as the cards shown tell it (a replay does not give it away)
    first = (
        dealt[0].row if dealt else source.procedure.first_row(centre=source.centre, first_card=None)
    )
    labels = {row: row.localized(translator) for row in Row}
    width = max(len(label) for label in labels.values()) + 3
    for row in Row:
        arrow = " →" if row is first else "  "
        text.append(f"{labels[row]}{arrow}".ljust(width), style="bold")
        used = width
        for record in dealt:
            if record.row is row:
                card = _card(record.card, translator, matched=record.matched)
                if columns is not None and used + card.cell_len > columns > width:
                    text.append("\n" + " " * width)  # the row goes on under its cards
                    used = width
                text.append_text(card)
                used += card.cell_len
        text.append("\n")
    if dealt and verdict:
        text.append(
            Message(NP_("{n} card dealt", "{n} cards dealt"), n=len(dealt)).localized(translator),
            style="dim",
        )
    else:
        text.rstrip()
    if not verdict or not complete:
        text.rstrip()
        return text
    if dealt and dealt[-1].matched:
        last = dealt[-1]
        text.append("\n")
        text.append(
            Message(wording.wins, row=last.row, card=last.card, n=last.number).localized(
                translator
            ),
            style="bold green",
        )
    elif _void(source):
        text.append("\n")
        text.append(translate(wording.void, translator), style="bold yellow")
    return text


def _void(source: Round | RoundResult) -> bool:
    if isinstance(source, RoundResult):
        return source.void
    result = source.result_or_none
    return result is not None and result.void


class LayoutView(Static):
    """Shows a round's layout, fitted to its width; call :meth:`show` after every step."""

    DEFAULT_CSS = """
    LayoutView { height: auto; padding: 0 1; border: round $accent; margin: 0 0 1 0; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._shown: tuple[Round | RoundResult, Translator | None, dict[str, Any]] | None = None
        self._fitted = ""

    def show(
        self,
        source: Round | RoundResult,
        translator: Translator | None,
        *,
        wording: Wording = CLUB,
        upto: int | None = None,
        verdict: bool = True,
        centre: bool = True,
    ) -> None:
        options = {"wording": wording, "upto": upto, "verdict": verdict, "centre": centre}
        self._shown = (source, translator, options)
        self.update(self._text())

    def _text(self) -> Text:
        if self._shown is None:
            return Text()
        source, translator, options = self._shown
        return layout_text(source, translator, columns=self.size.width or None, **options)

    def on_resize(self) -> None:
        """Fitted to the new width: drawn again only if a row now goes on under its cards
        (or no longer does), not on every change of the screen's size."""
        if self._shown is not None:
            text = self._text()
            if text.plain != self._fitted:
                self.update(text)

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        if isinstance(content, Text):
            self._fitted = content.plain
        super().update(content, layout=layout)
