"""What a screen of the trainer may ask of the application it runs in.

The screens depend on this small protocol, not on the application's class: the
application (:mod:`andar_bahar.tui.app`) imports the screens, and no screen imports it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from andar_bahar.i18n.messages import Translator

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from andar_bahar.storage import Storage

__all__ = ["Trainer", "trainer"]

T = TypeVar("T")


class Trainer(Protocol):
    """The running trainer, as its screens see it."""

    language: str
    """The code of the language the trainer speaks now (``en``, ``ru`` or ``ka``)."""

    translator: Translator
    """The catalogue of that language, values quoted as the language quotes them."""

    def rng(self) -> random.Random:
        """A fresh source of randomness (secure, or seeded with ``--seed``)."""
        ...

    def history(
        self,
        work: Callable[[Storage], T],
        then: Callable[[T], object] | None = None,
        *,
        failed: Callable[[str], object] | None = None,
    ) -> None:
        """Run *work* on the history's thread; *then* gets its result, *failed* a sentence."""
        ...

    def choose_language(self, lang: str) -> None:
        """Switch every screen to *lang* (soon: the screen asking goes on meanwhile)."""
        ...

    def ask_to_quit(self) -> None:
        """Quit, asking first when a game in play would be left."""
        ...

    def failed(self, error: Exception) -> None:
        """The last resort: *error* logged, one sentence shown; the trainer goes on."""
        ...


def trainer(node: DOMNode) -> Trainer:
    """The running trainer of *node* (a screen or a widget)."""
    return cast("Trainer", node.app)
