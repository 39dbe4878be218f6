"""The layout drill: a round dealt to its end; which row won, how many cards were dealt.

>>> import random
>>> from andar_bahar.engine.rules import find_procedure
>>> drill = layout_drill(random.Random(22), find_procedure("classic"), None)
>>> [question.expected for question in drill.questions]
['bahar', '4']
"""

from __future__ import annotations

import random
from decimal import Decimal

from andar_bahar.engine.cards import FULL_DECK, Rank
from andar_bahar.engine.paytables import PAYTABLES, Paytable
from andar_bahar.engine.round import Round, RoundResult
from andar_bahar.engine.rules import Procedure, Row, StartRule
from andar_bahar.games.drills.facts import procedure_fact, target_fact
from andar_bahar.games.drills.questions import TITLES, AnswerKind, Drill, DrillKind, Question
from andar_bahar.i18n.messages import N_, NP_, Message

__all__ = ["deal", "layout_drill"]


def deal(rng: random.Random, procedure: Procedure, paytable: Paytable | None) -> RoundResult:
    """A round dealt to its end from a freshly shuffled deck."""
    target = None if procedure.has_centre else rng.choice(list(Rank))
    table = paytable or PAYTABLES["trainer-default"]
    return Round.shuffled(procedure, table, rng=rng, target=target).play()


def _count_prompt(procedure: Procedure) -> Message:
    if procedure.has_centre:
        return Message(N_("How many cards were dealt (the centre card not counted)?"))
    return Message(N_("How many cards were dealt?"))


def _match_line(result: RoundResult) -> Message:
    assert result.winner is not None
    return Message(
        N_(
            "{card} matches the centre card's rank: it is card {n} of the deal, dealt to {row}, so {row} wins."
        )
        if result.centre is not None
        else N_(
            "{card} matches the target rank: it is card {n} of the deal, dealt to {row}, so {row} wins."
        ),
        card=result.matching,
        n=result.cards_dealt,
        row=result.winner,
    )


def _count_line(result: RoundResult) -> Message:
    if result.centre is not None:
        return Message(
            NP_(
                "{n} card was dealt: count both rows, the matching card included, the centre card not.",
                "{n} cards were dealt: count both rows, the matching card included, the centre card not.",
            ),
            n=result.cards_dealt,
        )
    return Message(
        NP_(
            "{n} card was dealt: count both rows, the matching card included.",
            "{n} cards were dealt: count both rows, the matching card included.",
        ),
        n=result.cards_dealt,
    )


def _parity_line(result: RoundResult) -> Message:
    """The dealer's check: the first row wins on an odd count, the other on an even one."""
    first = result.first_row or Row.ANDAR
    odd = result.cards_dealt % 2 == 1
    if result.procedure.start is StartRule.ANDAR:
        return Message(
            N_(
                "The first card always goes to Andar, so an odd count means Andar won and an"
                " even one Bahar: {n} is odd."
            )
            if odd
            else N_(
                "The first card always goes to Andar, so an odd count means Andar won and an"
                " even one Bahar: {n} is even."
            ),
            n=result.cards_dealt,
        )
    return Message(
        N_(
            "The first card went to {first}, so an odd count means {first} won and an even"
            " one {other}: {n} is odd."
        )
        if odd
        else N_(
            "The first card went to {first}, so an odd count means {first} won and an even"
            " one {other}: {n} is even."
        ),
        first=first,
        other=first.other,
        n=result.cards_dealt,
    )


def layout_drill(rng: random.Random, procedure: Procedure, paytable: Paytable | None) -> Drill:
    """A finished layout to read: the winning row and the number of cards dealt."""
    result = deal(rng, procedure, paytable)
    assert result.winner is not None  # a full deck always holds a match
    questions = (
        Question("winner", Message(N_("Which row won?")), result.winner.value, AnswerKind.ROW),
        Question(
            "cards",
            _count_prompt(procedure),
            str(result.cards_dealt),
            least=Decimal(1),
            most=Decimal(len(FULL_DECK) - (1 if procedure.has_centre else 0)),
            whole=True,
        ),
    )
    facts = (procedure_fact(procedure), target_fact(result.centre, result.target))
    explanation = (_match_line(result), _count_line(result), _parity_line(result))
    return Drill(
        DrillKind.LAYOUT,
        TITLES[DrillKind.LAYOUT],
        questions,
        result,
        None,
        (),
        facts,
        procedure=procedure,
        centre=result.centre,
        explanation=explanation,
    )
