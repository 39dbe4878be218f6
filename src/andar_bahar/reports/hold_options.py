"""The hold report's and the shuffle check's choices, light enough for the command line to
import at start-up (the reports themselves are imported when a command runs)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["By", "Deck"]


class By(StrEnum):
    """How the hold report's lines are grouped."""

    NIGHT = "night"
    DEALER = "dealer"
    BET = "bet"


class Deck(StrEnum):
    """Which rounds the shuffle check reads: the real decks, the server's (the control), or
    all together."""

    REAL = "real"
    SERVER = "server"
    ALL = "all"
