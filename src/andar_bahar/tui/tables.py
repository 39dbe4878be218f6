"""A table of text that fits the width of the screen: long headers and long cells wrap.

Textual's data table gives every column the width of its widest cell, and a table wider
than the screen is cut at its right edge (at 80 columns: the house edge of the Odds
table, the cards of History, a learner's mean time). Here the columns are fitted to
the width the table has: headers wrap first (between words), then the widest wordy
columns wrap their cells, never narrower than their longest word. What still does not
fit (very long words) can be scrolled sideways: the table then takes the focus.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.widgets import DataTable

from andar_bahar.tui.text import unbroken

__all__ = ["Table", "fit_widths"]

PADDING = 2
"""The cells each column adds to its width (Textual's cell padding, one each side)."""


def _longest_word(text: str) -> int:
    return max((cell_len(word) for word in text.split()), default=0)


def fit_widths(columns: Sequence[Sequence[str]], room: int, fixed: Iterable[int] = ()) -> list[int]:
    """The width of each column (its header first, then its cells) in *room* cells.

    A header wraps first, to the width of its column's widest cell; then the widest
    column gives way, one cell at a time, never narrower than its longest word. The
    cells of a *fixed* column (numbers) never wrap.

    >>> columns = [["bet", "Andar", "cards dealt: 41-49"], ["house edge", "2.15 %"]]
    >>> fit_widths(columns, 40, fixed=[1])
    [18, 10]
    >>> fit_widths(columns, 30, fixed=[1])
    [18, 6]
    >>> fit_widths(columns, 24, fixed=[1])
    [14, 6]
    """
    fixed = set(fixed)
    widths = [max((cell_len(text) for text in column), default=0) for column in columns]
    cells = [max((cell_len(text) for text in column[1:]), default=0) for column in columns]
    floors = [
        max(_longest_word(column[0]), cells[i] if i in fixed else _longest_word_of(column[1:]), 1)
        for i, column in enumerate(columns)
    ]
    spare = sum(widths) + PADDING * len(widths) - room
    for index in sorted(range(len(columns)), key=lambda i: cells[i] - widths[i]):
        if spare <= 0:  # the headers wider than their cells wrap, the widest first
            break
        narrower = max(cells[index], floors[index])
        spare -= widths[index] - min(widths[index], narrower)
        widths[index] = min(widths[index], narrower)
    while spare > 0:  # then the widest column that can give way, a cell at a time
        shrinkable = [i for i, width in enumerate(widths) if width > floors[i]]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda i: widths[i])
        widths[widest] -= 1
        spare -= 1
    return widths


def _longest_word_of(texts: Sequence[str]) -> int:
    return max((_longest_word(text) for text in texts), default=0)


class Table(DataTable[Text]):
    """A table filled from rows of text (shown literally, a number kept with its percent
    sign); its rows are given, not added.

    It fits the width it is given: see :func:`fit_widths`.
    """

    DEFAULT_CSS = """
    Table { height: auto; margin: 0 0 1 0; }
    Table.-cursor { max-height: 16; }
    """

    def __init__(
        self,
        headers: Sequence[str],
        rows: Iterable[Sequence[str]] = (),
        keys: Sequence[str] | None = None,
        *,
        right: Iterable[int] = (),
        cursor: bool = False,
        focusable: bool | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(
            id=id,
            cursor_type="row" if cursor else "none",
            show_cursor=cursor,
            zebra_stripes=True,
        )
        self.set_class(cursor, "-cursor")  # a list to choose from scrolls; the rest is shown
        self._focusable = cursor if focusable is None else focusable
        self.can_focus = self._focusable
        self._headers = list(headers)
        self._rows = [list(row) for row in rows]
        self._keys = list(keys) if keys is not None else None
        self._right = set(right)
        self._filled = False
        self._fitted_to = -1
        self._shown_keys: list[str] | None = None

    def on_mount(self) -> None:
        self.fill(self._headers, self._rows, keys=self._keys)

    def on_resize(self, event: events.Resize) -> None:
        if self._filled and self._room() != self._fitted_to:
            self._draw()

    def fill(
        self,
        headers: Sequence[str],
        rows: Iterable[Sequence[str]],
        keys: Sequence[str] | None = None,
    ) -> None:
        """Show *rows* under *headers* (a key per row, for rows that can be chosen).

        Nothing is redrawn when they are the same as shown (a screen shows its state often).
        """
        shown = (self._headers, self._rows, self._keys)
        self._headers = [unbroken(header) for header in headers]
        self._rows = [[unbroken(cell) for cell in row] for row in rows]
        self._keys = list(keys) if keys is not None else None
        if self.is_mounted and self._filled and shown == (self._headers, self._rows, self._keys):
            return
        self._filled = True
        self._draw()

    def _room(self) -> int:
        """The cells the columns can use (a vertical scrollbar's place kept free)."""
        return max(0, self.region.width - self.styles.scrollbar_size_vertical)

    def _draw(self) -> None:
        room = self._room()
        self._fitted_to = room
        columns = [
            [header, *(row[index] for row in self._rows if index < len(row))]
            for index, header in enumerate(self._headers)
        ]
        widths = (
            fit_widths(columns, room, self._right)
            if room
            else [max(map(cell_len, c)) for c in columns]
        )
        labels = [self._wrap(header, widths[i]) for i, header in enumerate(self._headers)]
        rows = [[self._wrap(cell, widths[i]) for i, cell in enumerate(row)] for row in self._rows]
        for index, width in enumerate(widths):  # a wrapped column: as wide as its lines
            lines = [labels[index], *(row[index] for row in rows if index < len(row))]
            widths[index] = min(width, max(cell_len(line) for t in lines for line in t.split("\n")))
        row, key = self.cursor_row, self._key_at(self.cursor_row)
        self.clear(columns=True)
        self.header_height = max((len(label.split("\n")) for label in labels), default=1)
        for index, label in enumerate(labels):
            self.add_column(self._text(label, index), width=widths[index])
        for number, cells in enumerate(rows):
            height = max((len(cell.split("\n")) for cell in cells), default=1)
            self.add_row(
                *(self._text(cell, i) for i, cell in enumerate(cells)),
                height=height,
                key=self._keys[number] if self._keys is not None else None,
            )
        self._keep_cursor(row, key)
        overflow = sum(widths) + PADDING * len(widths) > room > 0
        self.can_focus = self._focusable or overflow  # what does not fit can be scrolled to

    def _key_at(self, row: int) -> str | None:
        if self._shown_keys is None or not 0 <= row < len(self._shown_keys):
            return None
        return self._shown_keys[row]

    def _keep_cursor(self, row: int, key: str | None) -> None:
        """The cursor on the row it was on: the same key (a player topped up stays chosen),
        or the same place (the next player, once one has left)."""
        self._shown_keys = list(self._keys) if self._keys is not None else None
        if not self.row_count or not self.show_cursor:
            return
        if key is not None and self._shown_keys is not None and key in self._shown_keys:
            row = self._shown_keys.index(key)
        self.move_cursor(row=max(0, min(row, self.row_count - 1)), animate=False)

    def _wrap(self, text: str, width: int) -> str:
        if cell_len(text) <= width:
            return text
        lines = Text(text).wrap(self.app.console, width, justify="left")
        return "\n".join(line.plain.rstrip() for line in lines)

    def _text(self, text: str, index: int) -> Text:
        return Text(text, justify="right" if index in self._right else "left")
