"""The first-row drill: under this start rule, which row gets the first dealt card?

>>> import random
>>> from andar_bahar.engine.rules import find_procedure
>>> drill = first_row_drill(random.Random(1), find_procedure("classic"))
>>> drill.questions[0].expected, str(drill.explanation[0])
('andar', 'Under this start rule the first card always goes to Andar, whatever the cards.')
"""

from __future__ import annotations

import random

from andar_bahar.engine.cards import Card, Rank, shuffled
from andar_bahar.engine.rules import Procedure, Row, StartRule
from andar_bahar.games.drills.facts import target_fact
from andar_bahar.games.drills.questions import TITLES, AnswerKind, Drill, DrillKind, Question
from andar_bahar.i18n.messages import N_, Message

__all__ = ["first_row_drill"]


_BY_THE_CENTRE_CARD = N_(
    "The centre card {card} is {colour}: black → Andar first, red → Bahar first,"
    " so the first card goes to {row}."
)
_BY_THE_FIRST_CARD = N_(
    "The first dealt card {card} is {colour}, and its own colour decides its row"
    " (black → Andar, red → Bahar), so it goes to {row}."
)


def _by_colour(card: Card, why: str) -> tuple[Row, Message]:
    """The row *card*'s colour names (black → Andar, red → Bahar), and *why* in words."""
    row = Row.of_colour(card.colour)
    return row, Message(why, card=card, colour=card.colour, row=row)


def first_row_drill(rng: random.Random, procedure: Procedure) -> Drill:
    """A start rule and the cards it looks at; the row of the first dealt card to say."""
    deck = shuffled(rng)
    centre = deck[0] if procedure.has_centre else None
    first_card = deck[1] if procedure.has_centre else deck[0]
    target = rng.choice(list(Rank)) if centre is None else None
    facts = [Message(N_("Start rule: {rule}"), rule=procedure.start), target_fact(centre, target)]
    shown_first: Card | None = None
    if procedure.start is StartRule.ANDAR:
        row = Row.ANDAR
        why = Message(
            N_("Under this start rule the first card always goes to Andar, whatever the cards.")
        )
    elif procedure.start is StartRule.CENTRE_COLOUR:
        assert centre is not None  # a centre-colour procedure always turns a centre card
        row, why = _by_colour(centre, _BY_THE_CENTRE_CARD)
    else:
        shown_first = first_card
        facts.append(Message(N_("First card dealt: {card}"), card=first_card))
        row, why = _by_colour(first_card, _BY_THE_FIRST_CARD)
    explanation = [why]
    if centre is not None and procedure.start is not StartRule.CENTRE_COLOUR:
        explanation.append(Message(N_("The centre card's colour plays no part under this rule.")))
    question = Question(
        "row", Message(N_("Which row gets the first dealt card?")), row.value, AnswerKind.ROW
    )
    return Drill(
        DrillKind.FIRST_ROW,
        TITLES[DrillKind.FIRST_ROW],
        (question,),
        None,
        None,
        (),
        tuple(facts),
        procedure=procedure,
        centre=centre,
        first_card=shown_first,
        explanation=tuple(explanation),
    )
