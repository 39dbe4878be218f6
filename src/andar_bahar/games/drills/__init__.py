"""Drills for dealers and learners: questions with checked answers.

Four kinds of drill: read a finished layout (which row won, how many cards were
dealt), pay a set of bets under a paytable (the win only, after the table's
rounding), say which row gets the first card under a start rule, and say which
of two bets has the lower house edge. Every answer is checked at once and the
right answer is explained.

Pure core: no input, output or clock; randomness comes in as a
:class:`random.Random`, so a seed gives the same drill every time. Answers are
read forgivingly: ``Андар``, ``ბაჰარი``, ``a`` or ``B`` for a row, ``13,5`` or
``13.5`` for an amount; anything else is simply a wrong answer.

The package holds what a drill is (:mod:`~andar_bahar.games.drills.questions`), how
answers are read and checked (:mod:`~andar_bahar.games.drills.answers`), the facts a
drill shows (:mod:`~andar_bahar.games.drills.facts`) and each kind of drill in a module
of its own (``layout``, ``pay``, ``first_row``, ``house_edge``); the dealer school's
"pay the table" (:mod:`~andar_bahar.games.drills.school`) and "deal a real deck"
(:mod:`~andar_bahar.games.drills.real_deck`) besides. Every front end (the terminal app,
the browser) uses these, so the answers and explanations are the same everywhere.

>>> import random
>>> from andar_bahar.engine.rules import find_procedure
>>> drill = make_drill(DrillKind.LAYOUT, random.Random(22), procedure=find_procedure("classic"))
>>> [(q.key, str(q.prompt), q.expected) for q in drill.questions]
[('winner', 'Which row won?', 'bahar'), ('cards', 'How many cards were dealt (the centre card not counted)?', '4')]
>>> checked = check_answers(drill, {"winner": "Бахар", "cards": "5"})
>>> checked.correct, [(a.key, a.correct) for a in checked.answers]
(False, [('winner', True), ('cards', False)])
>>> for line in checked.explanation:
...     print(line)
K♥ matches the centre card's rank: it is card 4 of the deal, dealt to Bahar, so Bahar wins.
4 cards were dealt: count both rows, the matching card included, the centre card not.
The first card always goes to Andar, so an odd count means Andar won and an even one Bahar: 4 is even.

A pay drill asks for the win of each bet, after the paytable's rounding:

>>> from andar_bahar.engine.paytables import find_paytable
>>> pay = make_drill(DrillKind.PAY, random.Random(21), procedure=find_procedure("classic"),
...                  paytable=find_paytable("trainer-default"))
>>> for question in pay.questions:
...     print(question.key, question.prompt, "→", question.expected)
bet1 Bet 1: Ravi has 15 on Andar at 0.9 to 1. → 13
bet2 Bet 2: Nino has 50 on 1–5 cards dealt at 3 to 1. → 150
>>> paid = check_answers(pay, {"bet1": "13,5", "bet2": "150"})
>>> [answer.correct for answer in paid.answers], str(paid.explanation[1])
([False, True], 'Bet 1: 15 on Andar at 0.9 to 1 is 13.5, rounded down to the chip of 1: it wins 13.')
"""

from __future__ import annotations

import random

from andar_bahar.engine.paytables import PAYTABLES, Paytable, find_paytable
from andar_bahar.engine.rules import PROCEDURES, Procedure, StartRule
from andar_bahar.games.drills.answers import check_answers, parse_amount, parse_row, refusal
from andar_bahar.games.drills.first_row import first_row_drill
from andar_bahar.games.drills.house_edge import odds_drill
from andar_bahar.games.drills.layout import layout_drill
from andar_bahar.games.drills.pay import STAKES, pay_drill
from andar_bahar.games.drills.questions import (
    Answer,
    AnswerKind,
    Drill,
    DrillKind,
    DrillResult,
    Practice,
    Question,
    practice_title,
)

__all__ = [
    "STAKES",
    "Answer",
    "AnswerKind",
    "Drill",
    "DrillKind",
    "DrillResult",
    "Practice",
    "Question",
    "check_answers",
    "make_drill",
    "parse_amount",
    "parse_row",
    "pick_rules",
    "practice_title",
    "refusal",
]


def make_drill(
    kind: DrillKind,
    rng: random.Random,
    *,
    paytable: Paytable | None = None,
    procedure: Procedure | None = None,
) -> Drill:
    """A new drill of *kind*, drawn from *rng* (a preset procedure and paytable unless given).

    >>> from andar_bahar.engine.rules import find_procedure
    >>> drill = make_drill(DrillKind.ODDS, random.Random(2), procedure=find_procedure("classic"),
    ...                    paytable=find_paytable("wizard"))
    >>> print(drill.questions[0].prompt)
    Which bet has the lower house edge: 1) 11–15 cards dealt or 2) Andar? Answer 1 or 2.
    >>> drill.questions[0].expected, check_answers(drill, {"lower": "Андар"}).correct
    ('2', True)
    >>> for line in drill.explanation:
    ...     print(line)
    11–15 cards dealt wins 16.90 % of the time and pays 4.5 to 1: house edge 7.03 %.
    Andar wins 51.50 % of the time and pays 0.9 to 1: house edge 2.15 %.
    So 2) Andar has the lower house edge.
    """
    kind = DrillKind(kind)
    if kind is DrillKind.LAYOUT:
        return layout_drill(rng, procedure or _random_procedure(rng), paytable)
    if kind is DrillKind.PAY:
        rules = procedure or _random_procedure(rng, staked=True)
        return pay_drill(rng, rules, paytable or _table_for(rng, procedure))
    if kind is DrillKind.FIRST_ROW:
        return first_row_drill(rng, procedure or _first_row_procedure(rng))
    rules = procedure or _random_procedure(rng)
    return odds_drill(rng, rules, paytable or _table_for(rng, procedure))


def pick_rules(
    rng: random.Random,
    procedure: Procedure | None = None,
    paytable: Paytable | None = None,
    *,
    staked: bool = False,
) -> tuple[Procedure, Paytable]:
    """The procedure and paytable given, the missing ones drawn from the presets as the
    drills draw them (*staked*: a procedure that takes bets, not markers only).

    >>> from andar_bahar.engine.rules import find_procedure
    >>> rules = pick_rules(random.Random(3), find_procedure("classic"))
    >>> rules[0].name, rules[1].name
    ('classic', 'trainer-default')
    """
    rules = procedure or _random_procedure(rng, staked=staked)
    return rules, paytable or _table_for(rng, procedure)


def _random_procedure(rng: random.Random, *, staked: bool = False) -> Procedure:
    choices = [p for p in PROCEDURES.values() if not (staked and p.markers_only)]
    return rng.choice(choices)


def _first_row_procedure(rng: random.Random) -> Procedure:
    # Each start rule equally often, whatever the number of presets that use it.
    start = rng.choice(list(StartRule))
    return rng.choice([p for p in PROCEDURES.values() if p.start is start])


def _table_for(rng: random.Random, procedure: Procedure | None) -> Paytable:
    """The procedure's own paytable when it names a preset, otherwise a random preset."""
    if procedure is not None and procedure.paytable in PAYTABLES:
        return find_paytable(procedure.paytable)
    return rng.choice(list(PAYTABLES.values()))
