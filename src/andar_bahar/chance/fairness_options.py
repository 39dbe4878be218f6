"""The shuffle audit's choices, light enough for the command line to import at start-up
(the audit itself needs numpy and scipy: the ``sim`` extra)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ALPHA", "CARDS", "Source"]

ALPHA = 0.01
"""The significance level of every test: a fair shuffle fails each in one run out of 100."""
CARDS = 52


class Source(StrEnum):
    """Where the audited decks come from."""

    LIVE = "live"
    SIMULATOR = "simulator"
    BROKEN = "broken"
