"""Drills for dealers and learners (SPEC §9): questions with checked answers.

Four kinds of drill: read a finished layout (which row won, how many cards were
dealt), pay a set of bets under a paytable (the win only, after the table's
rounding), say which row gets the first card under a start rule, and say which
of two bets has the lower house edge. Every answer is checked at once and the
right answer is explained.

Pure core: no input, output or clock; randomness comes in as a
:class:`random.Random`, so a seed gives the same drill every time. Answers are
read forgivingly: ``Андар``, ``ბაჰარი``, ``a`` or ``B`` for a row, ``13,5`` or
``13.5`` for an amount; anything else is simply a wrong answer.

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

>>> pay = make_drill(DrillKind.PAY, random.Random(21), procedure=find_procedure("classic"),
...                  paytable=find_paytable("trainer-default"))
>>> for question in pay.questions:
...     print(question.key, question.prompt, "→", question.expected)
bet1 Bet 1: Ravi has 15 on Andar at 0.9 to 1. How much does it win (0 if it loses)? → 13
bet2 Bet 2: Nino has 50 on 1–5 cards dealt at 3 to 1. How much does it win (0 if it loses)? → 150
>>> paid = check_answers(pay, {"bet1": "13,5", "bet2": "150"})
>>> [answer.correct for answer in paid.answers], str(paid.explanation[1])
([False, True], 'Bet 1: 15 on Andar at 0.9 to 1 is 13.5, rounded down to the chip of 1: it wins 13.')
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from fractions import Fraction

from andar_bahar.chance.odds import BetOdds, bet_odds, outcome_distribution, percent_text
from andar_bahar.engine.bets import Bet, MainBet, Wager
from andar_bahar.engine.cards import FULL_DECK, Card, Rank, shuffled
from andar_bahar.engine.errors import ActionError, AndarBaharError, BetError
from andar_bahar.engine.money import Amount, format_amount, to_decimal
from andar_bahar.engine.paytables import PAYTABLES, Paytable, find_paytable
from andar_bahar.engine.round import Round, RoundResult
from andar_bahar.engine.rules import PROCEDURES, BetWindow, Procedure, Row, StartRule
from andar_bahar.engine.settlement import Outcome, SettledBet, settle
from andar_bahar.games.wording import CLUB, paytable_title
from andar_bahar.i18n.messages import N_, NP_, Message, Translator

__all__ = [
    "STAKES",
    "Answer",
    "AnswerKind",
    "Drill",
    "DrillKind",
    "DrillResult",
    "Question",
    "check_answers",
    "make_drill",
    "parse_amount",
    "parse_row",
]

STAKES: tuple[int, ...] = (10, 15, 20, 25, 50, 100, 120)
"""Round stakes for the pay drill; 15, 25 and 120 give fractional pays at 0.9 or 0.95 to 1."""

_PLAYERS = ("Asha", "Ravi", "Nino", "Dato", "Lena", "Vikram")


class DrillKind(StrEnum):
    """What a drill asks."""

    LAYOUT = "layout"
    """Read a finished layout: which row won, how many cards were dealt."""
    PAY = "pay"
    """Pay a set of bets under a paytable."""
    FIRST_ROW = "first-row"
    """Say which row gets the first card under a start rule."""
    ODDS = "odds"
    """Say which of two bets has the lower house edge."""

    def localized(self, translator: Translator | None) -> str:
        return _TITLES[self].localized(translator)


_TITLES = {
    DrillKind.LAYOUT: Message(N_("Read the layout")),
    DrillKind.PAY: Message(N_("Pay the bets")),
    DrillKind.FIRST_ROW: Message(N_("Which row is dealt first?")),
    DrillKind.ODDS: Message(N_("Which bet is better for the player?")),
}


class AnswerKind(StrEnum):
    """How an answer is read."""

    ROW = "row"
    """A row, in any of the trainer's languages, or its first letter."""
    NUMBER = "number"
    """A number, with a decimal point or comma; compared exactly as a Decimal."""
    CHOICE = "choice"
    """One of the question's ``options``: its number (1, 2 …) or its bet name."""


@dataclass(frozen=True, slots=True)
class Question:
    """One question: ``expected`` is the canonical answer (``bahar``, ``4``, ``108``, ``1``).

    ``answer`` says how the learner's text is read; for a CHOICE question
    ``options`` are the canonical names of the choices in order and
    ``expected`` is the number of the right one.
    """

    key: str
    prompt: Message
    expected: str
    answer: AnswerKind = AnswerKind.NUMBER
    options: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Drill:
    """A drill ready to show: facts, then questions; the explanation is for after the answers.

    ``result`` is the finished round to show (LAYOUT, PAY); ``paytable`` and
    ``wagers`` the bets to pay (PAY) or the table compared (ODDS). ``centre``
    and ``first_card`` are the cards a FIRST_ROW drill shows (and the centre
    card an ODDS drill may show once bets are still open after it).
    """

    kind: DrillKind
    title: Message
    questions: tuple[Question, ...]
    result: RoundResult | None
    paytable: Paytable | None
    wagers: tuple[Wager, ...]
    facts: tuple[Message, ...]
    procedure: Procedure | None = None
    centre: Card | None = None
    first_card: Card | None = None
    explanation: tuple[Message, ...] = ()


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer as given, the expected answer, and whether they agree."""

    key: str
    given: str
    expected: str
    correct: bool


@dataclass(frozen=True, slots=True)
class DrillResult:
    """The checked answers: ``correct`` when every one is right, and why."""

    correct: bool
    answers: tuple[Answer, ...]
    explanation: tuple[Message, ...]

    @property
    def right(self) -> int:
        """How many answers were right."""
        return sum(1 for answer in self.answers if answer.correct)


# -- reading answers -------------------------------------------------------------

_ROW_ALIASES: dict[str, Row] = {
    alias: row
    for row, aliases in (
        (Row.ANDAR, ("andar", "a", "андар", "а", "ანდარი", "ანდარ", "ა")),
        (Row.BAHAR, ("bahar", "b", "бахар", "б", "ბაჰარი", "ბაჰარ", "ბ")),
    )
    for alias in aliases
}
_TRIM = " \t\r\n.!?,;:'\"«»„“”()"
_SPACES = (" ", "\u00a0", "\u202f", "\u2009", "_", "'", "’")


def _clean(text: object) -> str:
    return unicodedata.normalize("NFC", str(text)).strip(_TRIM).casefold()


def parse_row(text: object) -> Row | None:
    """A row named in English, Russian or Georgian (or by its first letter); ``None`` otherwise.

    >>> parse_row(" Андар "), parse_row("ბაჰარი"), parse_row("B"), parse_row("middle")
    (<Row.ANDAR: 'andar'>, <Row.BAHAR: 'bahar'>, <Row.BAHAR: 'bahar'>, None)
    """
    return _ROW_ALIASES.get(" ".join(_clean(text).split()))


def parse_amount(text: object) -> Decimal | None:
    """A number written with a decimal point or comma; ``None`` if it is not one.

    >>> parse_amount("13,5"), parse_amount(" 108 "), parse_amount("1 250.5"), parse_amount("lots")
    (Decimal('13.5'), Decimal('108'), Decimal('1250.5'), None)
    """
    cleaned = str(text).strip().rstrip(".")
    for space in _SPACES:
        cleaned = cleaned.replace(space, "")
    if "," in cleaned and "." in cleaned:
        # Both signs: the last one is the decimal sign, the other groups thousands.
        grouping = "," if cleaned.rfind(",") < cleaned.rfind(".") else "."
        cleaned = cleaned.replace(grouping, "").replace(",", ".")
    else:
        cleaned = cleaned.replace(",", ".")
    if not cleaned or len(cleaned) > 40:
        return None
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _choice(text: object, options: Sequence[str]) -> int | None:
    """The 0-based index of the option the answer names, or ``None``."""
    number = parse_amount(_clean(text))
    if number is not None:
        if number == number.to_integral_value() and 1 <= number <= len(options):
            return int(number) - 1
        return None
    names: list[str] = []
    row = parse_row(text)
    if row is not None:
        names.append(row.value)
    cleaned = _clean(text)
    for candidate in (cleaned, f"cards:{cleaned}"):
        try:
            names.append(str(Bet.parse(candidate.replace("–", "-"))))
        except AndarBaharError:
            continue
    for name in names:
        if name in options:
            return options.index(name)
    return None


def _is_correct(question: Question, given: str) -> bool:
    if question.answer is AnswerKind.ROW:
        row = parse_row(given)
        return row is not None and row is parse_row(question.expected)
    if question.answer is AnswerKind.CHOICE:
        index = _choice(given, question.options)
        return index is not None and str(index + 1) == question.expected.strip()
    amount, expected = parse_amount(given), parse_amount(question.expected)
    return amount is not None and amount == expected


def check_answers(drill: Drill, answers: Mapping[str, str]) -> DrillResult:
    """Check *answers* (question key → text as typed); a missing or unreadable one is wrong.

    >>> from andar_bahar.engine.rules import find_procedure
    >>> drill = make_drill(DrillKind.FIRST_ROW, random.Random(1), procedure=find_procedure("home"))
    >>> [str(fact) for fact in drill.facts]
    ["Start rule: centre card's colour: black → Andar first, red → Bahar first", 'Centre card (joker): A♥']
    >>> result = check_answers(drill, {"row": "???"})
    >>> result.correct, result.answers[0].expected, str(result.explanation[0])
    (False, 'bahar', 'The centre card A♥ is red: black → Andar first, red → Bahar first, so the first card goes to Bahar.')
    >>> check_answers(drill, {"row": "ბაჰარი"}).correct
    True
    """
    checked: list[Answer] = []
    for question in drill.questions:
        raw = answers.get(question.key, "")
        given = raw if isinstance(raw, str) else str(raw)
        checked.append(Answer(question.key, given, question.expected, _is_correct(question, given)))
    return DrillResult(all(answer.correct for answer in checked), tuple(checked), drill.explanation)


# -- making drills ---------------------------------------------------------------


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
        return _layout_drill(rng, procedure or _random_procedure(rng), paytable)
    if kind is DrillKind.PAY:
        rules = procedure or _random_procedure(rng, staked=True)
        return _pay_drill(rng, rules, paytable or _table_for(rng, procedure))
    if kind is DrillKind.FIRST_ROW:
        return _first_row_drill(rng, procedure or _first_row_procedure(rng))
    rules = procedure or _random_procedure(rng)
    return _odds_drill(rng, rules, paytable or _table_for(rng, procedure))


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


def _deal(rng: random.Random, procedure: Procedure, paytable: Paytable | None) -> RoundResult:
    """A round dealt to its end from a freshly shuffled deck."""
    target = None if procedure.has_centre else rng.choice(list(Rank))
    table = paytable or PAYTABLES["trainer-default"]
    return Round.shuffled(procedure, table, rng=rng, target=target).play()


class _Described:
    """A procedure shown in one line, in the user's language."""

    def __init__(self, procedure: Procedure) -> None:
        self.procedure = procedure

    def localized(self, translator: Translator | None) -> str:
        return CLUB.describe(self.procedure, translator)


class _Table:
    """A paytable by its title in the user's language (a club's by its own name)."""

    def __init__(self, paytable: Paytable) -> None:
        self.paytable = paytable

    def localized(self, translator: Translator | None) -> str:
        return paytable_title(self.paytable, translator)


class _Percent:
    """An exact fraction shown as a percentage with two decimals."""

    def __init__(self, value: Fraction) -> None:
        self.value = value

    def localized(self, translator: Translator | None) -> str:
        return percent_text(self.value, translator)


class _Exact:
    """An exact win before rounding: a decimal where it has one, else the fraction."""

    def __init__(self, value: Fraction) -> None:
        self.value = value

    def localized(self, translator: Translator | None) -> str:
        try:
            return Amount(to_decimal(self.value)).localized(translator)
        except ValueError:
            return str(self.value)


def _target_fact(result_centre: Card | None, target: Rank) -> Message:
    if result_centre is not None:
        return Message(N_("Centre card (joker): {card}"), card=result_centre)
    return Message(N_("Target rank, chosen before the deal: {rank}"), rank=target)


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


def _layout_drill(rng: random.Random, procedure: Procedure, paytable: Paytable | None) -> Drill:
    result = _deal(rng, procedure, paytable)
    assert result.winner is not None  # a full deck always holds a match
    questions = (
        Question("winner", Message(N_("Which row won?")), result.winner.value, AnswerKind.ROW),
        Question("cards", _count_prompt(procedure), str(result.cards_dealt)),
    )
    facts = (
        Message(N_("Procedure: {procedure}"), procedure=_Described(procedure)),
        _target_fact(result.centre, result.target),
    )
    explanation = (_match_line(result), _count_line(result), _parity_line(result))
    return Drill(
        DrillKind.LAYOUT,
        _TITLES[DrillKind.LAYOUT],
        questions,
        result,
        None,
        (),
        facts,
        procedure=procedure,
        centre=result.centre,
        explanation=explanation,
    )


# -- paying bets -----------------------------------------------------------------


def _stakes(paytable: Paytable) -> list[Decimal]:
    """The round stakes this table accepts (its chip unit and limits)."""
    accepted = []
    for stake in STAKES:
        try:
            paytable.check_stake(Decimal(stake))
        except BetError:
            continue
        accepted.append(Decimal(stake))
    if accepted:
        return accepted
    fallback = paytable.min_stake or paytable.chip
    return [fallback]


def _pick_bets(rng: random.Random, paytable: Paytable, result: RoundResult) -> list[Bet]:
    """2–4 different bets: at least one main bet, often the winning band too."""
    count = rng.randint(2, 4)
    bets: list[Bet] = [MainBet(rng.choice(list(Row)))]
    band = paytable.band_for(result.cards_dealt)
    if band is not None and rng.random() < 0.5:
        bets.append(band.bet)
    others = [bet for bet in paytable.bets if bet not in bets]
    rng.shuffle(others)
    bets.extend(others[: max(0, count - len(bets))])
    rng.shuffle(bets)
    return bets


def _pay_line(number: int, bet: SettledBet, paytable: Paytable, result: RoundResult) -> Message:
    if bet.outcome is Outcome.WIN and bet.rounded:
        return Message(
            N_(
                "Bet {i}: {stake} on {bet} at {odds} is {exact}, {rounding} of {chip}:"
                " it wins {win}."
            ),
            i=number,
            stake=Amount(bet.stake),
            bet=bet.bet,
            odds=bet.odds,
            exact=_Exact(bet.exact_win),
            rounding=paytable.rounding,
            chip=Amount(paytable.chip),
            win=Amount(bet.win),
        )
    if bet.outcome is Outcome.WIN:
        return Message(
            N_("Bet {i}: {stake} on {bet} at {odds} wins {win}."),
            i=number,
            stake=Amount(bet.stake),
            bet=bet.bet,
            odds=bet.odds,
            win=Amount(bet.win),
        )
    if isinstance(bet.bet, MainBet):
        return Message(
            N_("Bet {i}: {stake} on {bet} loses, because {row} won: it wins 0."),
            i=number,
            stake=Amount(bet.stake),
            bet=bet.bet,
            row=result.winner,
        )
    return Message(
        NP_(
            "Bet {i}: {stake} on {bet} loses, because {n} card was dealt: it wins 0.",
            "Bet {i}: {stake} on {bet} loses, because {n} cards were dealt: it wins 0.",
        ),
        i=number,
        stake=Amount(bet.stake),
        bet=bet.bet,
        n=result.cards_dealt,
    )


def _pay_drill(rng: random.Random, procedure: Procedure, paytable: Paytable) -> Drill:
    result = _deal(rng, procedure, paytable)
    assert result.winner is not None
    stakes = _stakes(paytable)
    bets = _pick_bets(rng, paytable, result)
    players = rng.sample(_PLAYERS, len(bets))
    wagers = tuple(
        Wager(player, bet, rng.choice(stakes)) for player, bet in zip(players, bets, strict=True)
    )
    settlement = settle(
        winner=result.winner,
        cards_dealt=result.cards_dealt,
        first_row=result.first_row,
        paytable=paytable,
        wagers=wagers,
    )
    questions = tuple(
        Question(
            f"bet{number}",
            Message(
                N_(
                    "Bet {i}: {player} has {stake} on {bet} at {odds}."
                    " How much does it win (0 if it loses)?"
                ),
                i=number,
                player=bet.player,
                stake=Amount(bet.stake),
                bet=bet.bet,
                odds=bet.odds,
            ),
            format_amount(bet.win),
        )
        for number, bet in enumerate(settlement.bets, start=1)
    )
    facts = (
        Message(N_("Procedure: {procedure}"), procedure=_Described(procedure)),
        _target_fact(result.centre, result.target),
        Message(
            N_(
                "Paytable: {name}; a win that is not a whole number of chips of {chip} is {rounding}."
            ),
            name=_Table(paytable),
            chip=Amount(paytable.chip),
            rounding=paytable.rounding,
        ),
        Message(N_("Answer with the win only, without the stake returned; 0 for a losing bet.")),
    )
    explanation = (
        Message(
            NP_("{row} won with {n} card dealt.", "{row} won with {n} cards dealt."),
            row=result.winner,
            n=result.cards_dealt,
        ),
        *(
            _pay_line(number, bet, paytable, result)
            for number, bet in enumerate(settlement.bets, start=1)
        ),
    )
    return Drill(
        DrillKind.PAY,
        _TITLES[DrillKind.PAY],
        questions,
        result,
        paytable,
        wagers,
        facts,
        procedure=procedure,
        centre=result.centre,
        explanation=explanation,
    )


# -- the first row ---------------------------------------------------------------


def _first_row_drill(rng: random.Random, procedure: Procedure) -> Drill:
    deck = shuffled(rng)
    centre = deck[0] if procedure.has_centre else None
    first_card = deck[1] if procedure.has_centre else deck[0]
    facts: list[Message] = [Message(N_("Start rule: {rule}"), rule=procedure.start)]
    if centre is not None:
        facts.append(Message(N_("Centre card (joker): {card}"), card=centre))
    else:
        target = rng.choice(list(Rank))
        facts.append(Message(N_("Target rank, chosen before the deal: {rank}"), rank=target))
    shown_first: Card | None = None
    explanation: list[Message] = []
    if procedure.start is StartRule.ANDAR:
        row = Row.ANDAR
        explanation.append(
            Message(
                N_("Under this start rule the first card always goes to Andar, whatever the cards.")
            )
        )
    elif procedure.start is StartRule.CENTRE_COLOUR:
        assert centre is not None  # a centre-colour procedure always turns a centre card
        row = Row.of_colour(centre.colour)
        explanation.append(
            Message(
                N_(
                    "The centre card {card} is {colour}: black → Andar first, red → Bahar first,"
                    " so the first card goes to {row}."
                ),
                card=centre,
                colour=centre.colour,
                row=row,
            )
        )
    else:
        shown_first = first_card
        row = Row.of_colour(first_card.colour)
        facts.append(Message(N_("First card dealt: {card}"), card=first_card))
        explanation.append(
            Message(
                N_(
                    "The first dealt card {card} is {colour}, and its own colour decides its row"
                    " (black → Andar, red → Bahar), so it goes to {row}."
                ),
                card=first_card,
                colour=first_card.colour,
                row=row,
            )
        )
    if centre is not None and procedure.start is not StartRule.CENTRE_COLOUR:
        explanation.append(Message(N_("The centre card's colour plays no part under this rule.")))
    question = Question(
        "row", Message(N_("Which row gets the first dealt card?")), row.value, AnswerKind.ROW
    )
    return Drill(
        DrillKind.FIRST_ROW,
        _TITLES[DrillKind.FIRST_ROW],
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


# -- odds --------------------------------------------------------------------------


def _pays(bet: Bet, paytable: Paytable) -> object:
    """What *bet* pays, as the odds table says it: by first row and by count too."""
    return paytable.pays_text(bet)


def _hundredths(value: Fraction) -> int:
    """The value as shown: whole hundredths of a percent."""
    return round(value * 10000)


def _odds_drill(rng: random.Random, procedure: Procedure, paytable: Paytable) -> Drill:
    centre: Card | None = None
    if (
        procedure.has_centre
        and procedure.window is BetWindow.AFTER_CENTRE
        and procedure.start is not StartRule.ANDAR
        and rng.random() < 0.5
    ):
        centre = rng.choice(FULL_DECK)
    colour = centre.colour if centre is not None else None
    distribution = outcome_distribution(procedure, centre=colour)
    worth = [bet_odds(bet, paytable, distribution, colour) for bet in paytable.bets]
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
    lower = 1 if first.house_edge < second.house_edge else 2
    facts: list[Message] = [
        Message(N_("Procedure: {procedure}"), procedure=_Described(procedure)),
        Message(N_("Paytable: {name}"), name=_Table(paytable)),
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
                pays=_pays(odds.bet, paytable),
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
        _TITLES[DrillKind.ODDS],
        (question,),
        None,
        paytable,
        (),
        tuple(facts),
        procedure=procedure,
        centre=centre,
        explanation=_odds_explanation(first, second, lower, paytable, centre),
    )


def _odds_explanation(
    first: BetOdds, second: BetOdds, lower: int, paytable: Paytable, centre: Card | None
) -> tuple[Message, ...]:
    lines = [
        Message(
            N_("{bet} wins {chance} of the time and pays {pays}: house edge {edge}."),
            bet=odds.bet,
            chance=_Percent(odds.probability),
            pays=_pays(odds.bet, paytable),
            edge=_Percent(odds.house_edge),
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
