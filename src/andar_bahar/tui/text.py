"""Where a line of text may break on the terminal.

Rich and Textual wrap a line at any space, a no-break space (U+00A0) and a narrow
no-break space (U+202F) included, and a word joiner (U+2060) beside a space does not
hold it either: the space still ends the word before it. A percentage written
``+8,52 %`` therefore could end a line with ``+8,52`` and start the next with ``%``.
On the terminal a number is written against its percent sign instead, as English and
Georgian write it anyway (``+8,52%``); the web keeps its no-break space, which browsers
honour.
"""

from __future__ import annotations

import re

__all__ = ["unbroken"]

_SPACE_BEFORE_PERCENT = re.compile(r"(?<=\d)[ \u00a0\u202f](?=%(?!\w))")


def unbroken(text: str) -> str:
    """*text* with every number kept on one line with its percent sign.

    >>> unbroken("house edge +8,52 % (at 95\u00a0% confidence), 5 % ≤ 10")
    'house edge +8,52% (at 95% confidence), 5% ≤ 10'
    >>> unbroken("100 %s of chips, 50 % off")  # only a number's own sign
    '100 %s of chips, 50% off'
    """
    return _SPACE_BEFORE_PERCENT.sub("", text)
