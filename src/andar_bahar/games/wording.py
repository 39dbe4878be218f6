"""How the games speak: names of the presets on screen, the lesson's words and the club's.

The presets' names (``classic``, ``wizard`` …) are identifiers for the command line; on
screen they get a title in the user's language. The lesson speaks of the
*centre card* and of *markers*, never of a "joker" or of "bets": :data:`LESSON` holds
that wording and :data:`CLUB` the club's, so that the same layout and
dealer's controls speak as the game they serve.
"""

from __future__ import annotations

from dataclasses import dataclass

from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import (
    DESCRIPTION,
    START_NAMES,
    TARGET_NAMES,
    WINDOW_NAMES,
    BetWindow,
    Procedure,
    StartRule,
    TargetMode,
)
from andar_bahar.i18n.messages import N_, Message, Translator, translate

__all__ = [
    "CLUB",
    "LESSON",
    "PAYTABLE_TITLES",
    "PROCEDURE_TITLES",
    "Wording",
    "paytable_title",
    "procedure_title",
]

PROCEDURE_TITLES = {
    "classic": N_("Classic"),
    "home": N_("Home game"),
    "first-card": N_("First card's colour"),
    "mangatha": N_("Mangatha (a rank chosen in advance)"),
}
"""On-screen titles of the preset procedures (a club's own keeps its name)."""

PAYTABLE_TITLES = {
    "trainer-default": N_("The trainer's default"),
    "wizard": N_("Wizard of Odds"),
    "even-money": N_("Even money"),
    "andar-0.95": N_("Andar 0.95 to 1"),
    "joker": N_("With bets on the centre card"),
}
"""On-screen titles of the preset paytables (a club's own keeps its name)."""


def procedure_title(name: str, translator: Translator | None) -> str:
    """A preset's title in the user's language; a club's procedure by its own name."""
    msgid = PROCEDURE_TITLES.get(name)
    return translate(msgid, translator) if msgid is not None else name


def paytable_title(paytable: Paytable | str, translator: Translator | None) -> str:
    """A preset paytable's title in the user's language; a club's table by its own name."""
    name = paytable if isinstance(paytable, str) else paytable.name
    msgid = PAYTABLE_TITLES.get(name)
    if msgid is not None:
        return translate(msgid, translator)
    designed = name.removeprefix(DESIGNED)
    if designed != name:  # the paytable designer's name for a table it made
        return Message(
            N_("designed for the procedure {procedure}"),
            procedure=procedure_title(designed, translator),
        ).localized(translator)
    return name


DESIGNED = "designed for "
"""How the paytable designer (:mod:`andar_bahar.chance.design`) names a table it makes."""


@dataclass(frozen=True, slots=True)
class Wording:
    """How one game names the centre card, its window and its void round (the club's
    words for the rules are :mod:`~andar_bahar.engine.rules`' own; the lesson's differ)."""

    centre_label: str
    turn_centre: str
    starts: dict[StartRule, str]
    targets: dict[TargetMode, str]
    windows: dict[BetWindow, str]
    void: str
    wins: str
    void_question: str
    """Asked before a real deck's round is declared void ("Deck exhausted")."""

    def describe(self, procedure: Procedure, translator: Translator | None) -> str:
        """The procedure in one line, in this game's words."""
        return Message(
            DESCRIPTION,
            name=procedure_title(procedure.name, translator),
            start=translate(self.starts[procedure.start], translator),
            target=translate(self.targets[procedure.target], translator),
            window=translate(self.windows[procedure.window], translator),
        ).localized(translator)


CLUB = Wording(
    centre_label=N_("Centre card (joker):"),
    turn_centre=N_("Turn the centre card"),
    starts=START_NAMES,
    targets=TARGET_NAMES,
    windows=WINDOW_NAMES,
    void=N_(
        "No card matched: the round is void. Check that the deck is complete and repeat"
        " the round; every stake is returned."
    ),
    wins=N_("{row} wins: {card} matches, card {n} of the deal."),
    void_question=N_(
        "Is the deck exhausted with no match? Then the round is void: every stake is"
        " returned, and the round is played again."
    ),
)
"""The club's words: the centre card is also called the joker."""

LESSON = Wording(
    centre_label=N_("Centre card:"),
    turn_centre=N_("Open the centre card"),
    starts={
        **START_NAMES,
        StartRule.CENTRE_COLOUR: N_(
            "the colour of the centre card: black → Andar first, red → Bahar first"
        ),
    },
    targets={**TARGET_NAMES, TargetMode.CENTRE_CARD: N_("the rank of the centre card")},
    windows={
        BetWindow.BEFORE_CENTRE: N_("markers go down before the centre card is opened"),
        BetWindow.AFTER_CENTRE: N_("markers are locked at the first dealt card"),
    },
    void=N_(
        "No card matched: the round is void. Check that the deck is complete and repeat"
        " the round; no marker counts."
    ),
    wins=N_("{row} wins: {card} matches, card {n} of the deal."),
    void_question=N_(
        "Is the deck exhausted with no match? Then the round is void: no marker counts,"
        " and the round is played again with the same dealer."
    ),
)
"""The lesson's words: a centre card, not a joker; markers, not bets."""
