"""The simulator's choices, light enough for the command line to import at start-up."""

from __future__ import annotations

from enum import StrEnum

from andar_bahar.i18n.messages import N_, Translator, translate

__all__ = ["Engine", "System"]


class Engine(StrEnum):
    """Which simulator runs."""

    CARDS = "cards"
    """Deals real shuffled decks card by card."""
    OUTCOMES = "outcomes"
    """Samples round outcomes from the exact distribution."""


class System(StrEnum):
    """A betting system: how the next stake follows the last result."""

    FLAT = "flat"
    """The same stake every round."""
    MARTINGALE = "martingale"
    """Double the stake after a loss, back to the base stake after a win."""
    DALEMBERT = "dalembert"
    """One base stake more after a loss, one less after a win (never below the base)."""

    def localized(self, translator: Translator | None) -> str:
        return translate(_SYSTEM_NAMES[self], translator)


_SYSTEM_NAMES = {
    System.FLAT: N_("flat stakes"),
    System.MARTINGALE: N_("Martingale (double after a loss)"),
    System.DALEMBERT: N_("d'Alembert (one unit up after a loss, down after a win)"),
}
