"""Text on the terminal: where a line may break, and how a value is quoted.

Rich and Textual wrap a line at any space, a no-break space (U+00A0) and a narrow
no-break space (U+202F) included, and a word joiner (U+2060) beside a space does not
hold it either: the space still ends the word before it. A percentage written
``+8,52 %`` therefore could end a line with ``+8,52`` and start the next with ``%``.
On the terminal a number is written against its percent sign instead, as English and
Georgian write it anyway (``+8,52%``); the web keeps its no-break space, which browsers
honour.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterable
from functools import cache

from rich.cells import cell_len, set_cell_size

__all__ = [
    "QUOTES",
    "QuotingTranslations",
    "quoted",
    "quoting_translations",
    "short_name",
    "unbroken",
]

_SPACE_BEFORE_PERCENT = re.compile(r"(?<=\d)[ \u00a0\u202f](?=%(?!\w))")


def unbroken(text: str) -> str:
    """*text* with every number kept on one line with its percent sign.

    >>> unbroken("house edge +8,52 % (at 95\u00a0% confidence), 5 % ≤ 10")
    'house edge +8,52% (at 95% confidence), 5% ≤ 10'
    >>> unbroken("100 %s of chips, 50 % off")  # only a number's own sign
    '100 %s of chips, 50% off'
    """
    return _SPACE_BEFORE_PERCENT.sub("", text)


QUOTES = {"en": ("“", "”"), "ru": ("«", "»"), "ka": ("„", "“")}
"""How each language quotes a value: “Asha”, «Asha», „Asha“."""

_QUOTED_VALUE = re.compile(r"'(\{[^{}']*\})'")


def quoted(template: str, lang: str) -> str:
    """*template* with every value it quotes (``'{text}'``) in the quotes of *lang*.

    The catalogues quote a value with apostrophes, as Python writes it; the terminal
    shows it as the language quotes.

    >>> quoted("The stake '{text}' is not a number.", "ru")
    'The stake «{text}» is not a number.'
    >>> print(quoted("the player's own '{name}'", "ka"))
    the player's own „{name}“
    """
    opening, closing = QUOTES.get(lang, QUOTES["en"])
    return _QUOTED_VALUE.sub(lambda match: f"{opening}{match.group(1)}{closing}", template)


class QuotingTranslations(gettext.GNUTranslations):
    """A catalogue of :func:`andar_bahar.i18n.translations` that quotes values as its
    language does (see :func:`quoted`)."""

    lang = "en"

    def gettext(self, message: str) -> str:
        return quoted(super().gettext(message), self.lang)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return quoted(super().ngettext(msgid1, msgid2, n), self.lang)


@cache
def quoting_translations(lang: str) -> QuotingTranslations:
    """The catalogue of *lang*, quoting values as *lang* does."""
    from andar_bahar.i18n import translations

    catalogue = QuotingTranslations.__new__(QuotingTranslations)
    catalogue.__dict__.update(translations(lang).__dict__)
    catalogue.lang = lang
    return catalogue


def short_name(name: str, others: Iterable[str], width: int) -> str:
    """*name* in *width* cells: in full if it fits, else cut with an ellipsis after the part
    that tells it from *others* (or, when that part is too long, its start and its end).

    >>> short_name("Asha", ["Ravi"], 10)
    'Asha'
    >>> short_name("Alexandra Konstantinopolskaya", ["Alexander Petrov"], 12)
    'Alexandra K…'
    >>> short_name("Tournament player number 12", ["Tournament player number 17"], 12)
    'Tourn…ber 12'
    """
    if cell_len(name) <= width:
        return name
    if width < 2:
        return "…"[:width]
    telling = 1 + max((_common_prefix(name, other) for other in others if other != name), default=0)
    if cell_len(name[:telling]) <= width - 1:
        return set_cell_size(name, width - 1) + "…"
    head = (width - 1) // 2
    tail = width - 1 - head
    return set_cell_size(name, head) + "…" + _last_cells(name, tail)


def _common_prefix(first: str, second: str) -> int:
    length = 0
    for one, two in zip(first, second, strict=False):
        if one != two:
            break
        length += 1
    return length


def _last_cells(text: str, cells: int) -> str:
    kept = ""
    for char in reversed(text):
        if cell_len(char + kept) > cells:
            break
        kept = char + kept
    return kept
