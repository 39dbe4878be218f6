"""A widget that draws a round the way a dealer sees it: the centre card and two rows."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from andar_bahar.engine.cards import Card, Colour
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Row
from andar_bahar.i18n.messages import N_, Message, Translator

__all__ = ["LayoutView", "layout_text"]


def _card(card: Card, translator: Translator | None, *, matched: bool = False) -> Text:
    style = "bold red" if card.colour is Colour.RED else "bold"
    if matched:
        style += " reverse"
    return Text(f" {card.localized(translator)} ", style=style)


def layout_text(rnd: Round, translator: Translator | None, *, upto: int | None = None) -> Text:
    """The layout of *rnd* (only its first *upto* dealt cards, when replaying)."""
    text = Text()
    dealt = rnd.dealt if upto is None else rnd.dealt[:upto]
    if rnd.centre is not None:
        text.append(Message(N_("Centre card (joker):")).localized(translator) + " ")
        text.append_text(_card(rnd.centre, translator))
    elif rnd.target is not None:
        text.append(Message(N_("Target rank: {rank}"), rank=rnd.target).localized(translator))
    else:
        text.append(
            Message(N_("The centre card is not turned yet.")).localized(translator),
            style="dim",
        )
    text.append("\n\n")
    first = dealt[0].row if dealt else rnd.first_row
    labels = {row: row.localized(translator) for row in Row}
    width = max(len(label) for label in labels.values()) + 3
    for row in Row:
        arrow = " →" if row is first else "  "
        text.append(f"{labels[row]}{arrow}".ljust(width), style="bold")
        for record in dealt:
            if record.row is row:
                text.append_text(_card(record.card, translator, matched=record.matched))
        text.append("\n")
    if dealt and dealt[-1].matched:
        last = dealt[-1]
        text.append("\n")
        text.append(
            Message(
                N_("{row} wins: {card} matches, card {n} of the deal."),
                row=last.row,
                card=last.card,
                n=last.number,
            ).localized(translator),
            style="bold green",
        )
    elif upto is None and rnd.result_or_none is not None and rnd.result_or_none.void:
        text.append("\n")
        text.append(
            Message(
                N_(
                    "No card matched: the round is void. Check that the deck is complete and repeat the round; every stake and marker is returned."
                )
            ).localized(translator),
            style="bold yellow",
        )
    return text


class LayoutView(Static):
    """Shows a round's layout; call :meth:`show` after every step."""

    DEFAULT_CSS = """
    LayoutView { height: auto; min-height: 6; padding: 1 2; border: round $accent; }
    """

    def show(self, rnd: Round, translator: Translator | None, *, upto: int | None = None) -> None:
        self.update(layout_text(rnd, translator, upto=upto))
