"""Small helpers every screen uses: text in the user's language, error labels."""

from __future__ import annotations

from typing import Protocol

from textual.dom import DOMNode

from andar_bahar.messages import Message, Translator

__all__ = ["tr"]


class _HasTranslator(Protocol):
    translator: Translator


def tr(node: DOMNode, message: Message) -> str:
    """*message* in the language the app is set to."""
    app: _HasTranslator = node.app  # type: ignore[assignment]
    return message.localized(app.translator)
