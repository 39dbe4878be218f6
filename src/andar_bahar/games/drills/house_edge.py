"""The odds drill: of two bets of a paytable, which has the lower house edge?

Two bets are compared only when their house edges differ as shown (in whole hundredths
of a percent); the explanation gives each bet's chance, pay and edge, exactly computed.
The bets on the centre card take part while it is still to be turned.
"""

from __future__ import annotations

import random
from fractions import Fraction

from andar_bahar.chance.odds import BetOdds, Percent, bet_odds, outcome_distribution
from andar_bahar.engine.bets import MainBet
from andar_bahar.engine.cards import FULL_DECK, Card
from andar_bahar.engine.errors import ActionError
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import BetWindow, Procedure, StartRule
from andar_bahar.games.drills.facts import TableName, bets_to_ask, procedure_fact
from andar_bahar.games.drills.questions import TITLES, AnswerKind, Drill, DrillKind, Question
from andar_bahar.i18n.messages import N_, Message

__all__ = ["odds_drill"]


def _hundredths(value: Fraction) -> int:
    """The value as shown: whole hundredths of a percent.

    >>> _hundredths(Fraction(179, 8330))  # 2.1488… %
    215
    """
    return round(value * 10000)


def _seen_centre(rng: random.Random, procedure: Procedure) -> Card | None:
    """Half the time, a centre card already turned while bets are still open (if they are)."""
    if (
        procedure.has_centre
        and procedure.window is BetWindow.AFTER_CENTRE
        and procedure.start is not StartRule.ANDAR
        and rng.random() < 0.5
    ):
        return rng.choice(FULL_DECK)
    return None


def _compared(
    rng: random.Random, procedure: Procedure, paytable: Paytable, centre: Card | None
) -> tuple[BetOdds, BetOdds]:
    """Two bets whose house edges differ as shown, often a main bet among them."""
    colour = centre.colour if centre is not None else None
    distribution = outcome_distribution(procedure, centre=colour)
    asked = bets_to_ask(rng, paytable, centre=procedure.has_centre and centre is None)
    worth = [bet_odds(bet, paytable, distribution, colour) for bet in asked]
    pairs = [
        (a, b)
        for i, a in enumerate(worth)
        for b in worth[i + 1 :]
        if _hundredths(a.house_edge) != _hundredths(b.house_edge)
    ]
    if not pairs:
        raise ActionError(
            Message(
                N_(
                    "Under the procedure '{procedure}' every bet of the paytable '{paytable}'"
                    " has the same house edge: there is nothing to compare."
                ),
                procedure=procedure.name,
                paytable=paytable.name,
            )
        )
    with_main = [pair for pair in pairs if any(isinstance(b.bet, MainBet) for b in pair)]
    first, second = rng.choice(with_main if with_main and rng.random() < 0.5 else pairs)
    if rng.random() < 0.5:
        first, second = second, first
    return first, second


def odds_drill(rng: random.Random, procedure: Procedure, paytable: Paytable) -> Drill:
    """Two bets of *paytable* under *procedure*; which has the lower house edge?"""
    centre = _seen_centre(rng, procedure)
    first, second = _compared(rng, procedure, paytable, centre)
    lower = 1 if first.house_edge < second.house_edge else 2
    facts: list[Message] = [
        procedure_fact(procedure),
        Message(N_("Paytable: {name}"), name=TableName(paytable)),
    ]
    if centre is not None:
        facts.append(
            Message(
                N_("The centre card is {card} ({colour}) and bets are still open."),
                card=centre,
                colour=centre.colour,
            )
        )
    for number, odds in ((1, first), (2, second)):
        facts.append(
            Message(
                N_("{i}) {bet} pays {pays}."),
                i=number,
                bet=odds.bet,
                pays=paytable.pays_text(odds.bet),
            )
        )
    question = Question(
        "lower",
        Message(
            N_("Which bet has the lower house edge: 1) {first} or 2) {second}? Answer 1 or 2."),
            first=first.bet,
            second=second.bet,
        ),
        str(lower),
        AnswerKind.CHOICE,
        (str(first.bet), str(second.bet)),
    )
    return Drill(
        DrillKind.ODDS,
        TITLES[DrillKind.ODDS],
        (question,),
        None,
        paytable,
        (),
        tuple(facts),
        procedure=procedure,
        centre=centre,
        explanation=_explanation(first, second, lower, paytable, centre),
    )


def _explanation(
    first: BetOdds, second: BetOdds, lower: int, paytable: Paytable, centre: Card | None
) -> tuple[Message, ...]:
    lines = [
        Message(
            N_("{bet} wins {chance} of the time and pays {pays}: house edge {edge}."),
            bet=odds.bet,
            chance=Percent(odds.probability),
            pays=paytable.pays_text(odds.bet),
            edge=Percent(odds.house_edge),
        )
        for odds in (first, second)
    ]
    better = first if lower == 1 else second
    lines.append(Message(N_("So {i}) {bet} has the lower house edge."), i=lower, bet=better.bet))
    if centre is not None:
        lines.append(
            Message(
                N_("These figures count the centre card {card} as already seen."),
                card=centre,
            )
        )
    if first.house_edge < 0 or second.house_edge < 0:
        lines.append(
            Message(
                N_(
                    "A negative house edge means the player, not the house, has the edge on"
                    " that bet."
                )
            )
        )
    return tuple(lines)
