"""Translatable messages, kept as data until an adapter renders them.

The core never looks up a language: it builds :class:`Message` values (a
``msgid`` with named parameters, optionally a plural form and a count), and an
adapter renders them with the translations of the user's language.

>>> m = Message(N_("The deck is missing {cards}."), cards="Q♥")
>>> str(m)
'The deck is missing Q♥.'
>>> str(Message(NP_("{n} card dealt", "{n} cards dealt"), n=5))
'5 cards dealt'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

__all__ = ["NP_", "N_", "Localizable", "Message", "Sentence", "Translator", "render", "translate"]


def N_(msgid: str) -> str:
    """Mark *msgid* for extraction into the catalogues; return it unchanged."""
    return msgid


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a message with a plural form for extraction; return both forms."""
    return (singular, plural)


class Translator(Protocol):
    """The part of :class:`gettext.NullTranslations` that rendering needs."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, msgid1: str, msgid2: str, n: int, /) -> str: ...


def translate(text: str, translator: Translator | None) -> str:
    """*text* (a marked msgid) in the language of *translator*; English when ``None``."""
    return translator.gettext(text) if translator is not None else text


@runtime_checkable
class Localizable(Protocol):
    """A value that knows how to show itself in the user's language."""

    def localized(self, translator: Translator | None) -> str: ...


@dataclass(frozen=True, slots=True)
class Message:
    """A message id with named parameters, rendered late in the user's language.

    *msgid* is a string marked with :func:`N_`, or a (singular, plural) pair
    marked with :func:`NP_` and chosen by the count *n*.
    """

    msgid: str
    plural: str | None = None
    n: int | None = None
    params: Mapping[str, object] = field(default_factory=dict)

    def __init__(
        self, msgid: str | tuple[str, str], *, n: int | None = None, **params: object
    ) -> None:
        singular, plural = (msgid, None) if isinstance(msgid, str) else msgid
        object.__setattr__(self, "msgid", singular)
        object.__setattr__(self, "plural", plural)
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "params", dict(params))

    def localized(self, translator: Translator | None) -> str:
        """Render in the language of *translator* (English when ``None``)."""
        if self.plural is not None:
            count = self.n if self.n is not None else 0
            template = (
                translator.ngettext(self.msgid, self.plural, count)
                if translator is not None
                else (self.msgid if count == 1 else self.plural)
            )
        else:
            template = translator.gettext(self.msgid) if translator is not None else self.msgid
        values = {key: render(value, translator) for key, value in self.params.items()}
        if self.n is not None:
            values.setdefault("n", str(self.n))
        return template.format(**values)

    def __str__(self) -> str:
        return self.localized(None)


_MAX_QUOTED = 200


def render(value: object, translator: Translator | None) -> str:
    r"""Render one parameter: localizable values in the user's language, others as text.

    Text from outside (what a user typed, a value of a file) is shown on one line and at
    most 200 characters, so that every sentence stays one readable line.

    >>> render("Q\nX", None), len(render("9" * 500, None))
    ('Q\\nX', 200)
    """
    # isinstance(value, Localizable) says the same, but a runtime protocol check is slow,
    # and pages render thousands of values.
    localized = getattr(value, "localized", None)
    if callable(localized) and not isinstance(value, type):
        return str(localized(translator))
    if isinstance(value, (list, tuple)):
        return ", ".join(render(item, translator) for item in value)
    try:
        text = str(value)
    except ValueError:  # an integer too long to write (Python's 4,300-digit limit)
        text = "…"
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    if len(text) > _MAX_QUOTED:
        text = text[: _MAX_QUOTED - 1] + "…"
    return text


@dataclass(frozen=True, slots=True)
class Sentence:
    """A message that ends with a full stop, whether or not its template has one."""

    message: Message

    def localized(self, translator: Translator | None) -> str:
        text = self.message.localized(translator)
        return text if text.endswith((".", "!", "?")) else text + "."

    def __str__(self) -> str:
        return self.localized(None)
