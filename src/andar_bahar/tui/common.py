"""Small helpers every screen uses: text in the user's language, error labels."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.dom import DOMNode

from andar_bahar.i18n.messages import Message

if TYPE_CHECKING:
    from andar_bahar.tui.app import TrainerApp

__all__ = ["tr", "trainer"]


def trainer(node: DOMNode) -> TrainerApp:
    """The running trainer application, typed."""
    return cast("TrainerApp", node.app)


def tr(node: DOMNode, message: Message) -> str:
    """*message* in the language the app is set to."""
    return message.localized(trainer(node).translator)
