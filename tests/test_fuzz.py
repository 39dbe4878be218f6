"""Fuzzing (issue: the parsers, paytable TOML, the round state machine, the web forms).

The only failures allowed anywhere are the project's own errors (:class:`AndarBaharError`)
with one clear sentence. Four parts:

1. The parsers (Card.parse, Card.parse_many, Bet.parse, parse_stake, Odds.parse) on any
   text and on text built from ranks, suits, separators, Cyrillic letters and digits,
   with the round trips that hold.
2. Paytable and procedure TOML: documents built from the real field names mixed with
   junk, values of every TOML type (written by the small writer in tests/strategies.py),
   and raw garbage.
3. The club table as a state machine over :class:`TableService` on one in-memory SQLite
   database: admissions, joins, rounds (virtual and real decks), bets with idempotency
   keys drawn from a small pool, markers, every dealer step, settlements, paytable
   changes, restarts (a new service over the same database) and crashes (the process
   dies at the N-th SQL statement of an action, before its commit). A model — the
   engine itself, fed only the accepted actions — says what every action must answer;
   after every step the table's ledger sums to zero, each balance is the model's (chips
   in plus settlement nets, never negative) and the stored round is exactly the model's
   round (every accepted bet once, nothing else). 2,000 examples of 50 steps.
4. The web forms and the JSON API through FastAPI's TestClient: never a 500, never a
   traceback, every refusal one sentence (#errors on a page, {"error": …} for the API).

The bugs the fuzz found are fixed; each is kept at the end as a regression test that
says what is now guaranteed. The fuzz filters none of their inputs out: amounts of any
size, NaN and infinities, any text with line breaks and control characters, club files
with numbers of any size, round numbers past 2**63.
"""

from __future__ import annotations

import html
import json
import os
import random
import re
import tomllib
import unicodedata
from collections.abc import Callable, Iterator
from decimal import Decimal
from fractions import Fraction
from typing import Any, ClassVar

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
)
from sqlalchemy import event as sa_event
from sqlalchemy import select
from sqlalchemy.orm import Session

from andar_bahar.club.limits import MAX_CHIPS, RequestConflict, check_bet_return
from andar_bahar.club.service import (
    CODE_ALPHABET,
    PlacedBet,
    PublicRound,
    TableService,
    commitment_of,
)
from andar_bahar.club.store import token_hash
from andar_bahar.engine.bets import MAX_CARDS_DEALT, Bet, CardsBet, CentreBet, MainBet
from andar_bahar.engine.cards import FULL_DECK, Card, check_complete
from andar_bahar.engine.errors import (
    AccessError,
    ActionError,
    AndarBaharError,
    BetError,
    CardError,
    ParameterError,
    PaytableError,
    ProcedureError,
)
from andar_bahar.engine.money import as_decimal, format_amount, parse_stake
from andar_bahar.engine.paytables import PAYTABLES, Odds, Paytable, check_paytable, load_paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import PROCEDURES, BetWindow, Procedure, load_procedure
from andar_bahar.storage import Storage
from andar_bahar.storage.models import ClubTableRow, DealerSessionRow
from andar_bahar.web.app import create_app
from strategies import (
    RANKS,
    amount_text,
    any_text,
    bet_text,
    card_piece,
    card_text,
    cards_text,
    junk_document,
    odds_text,
    one_line_text,
    paytable_document,
    procedure_document,
    to_toml,
    toml_garbage,
)
from web_support import csrf

FULL_FUZZ = os.environ.get("ANDAR_BAHAR_FULL_FUZZ") == "1"
"""The long tier (.ci/run sets it): the state machine's 2,000 runs of 50 steps (everyday:
10), 300 examples of each web fuzzer (everyday: 60) and 1,000 of each parser's (everyday:
100)."""
WEB_EXAMPLES = 300 if FULL_FUZZ else 60
FAST = settings(max_examples=1000 if FULL_FUZZ else 100, deadline=None)
"""The parsers and the TOML loaders: cheap, a hundred examples each every day."""

MAX_SENTENCE = 400
"""No message of the project is longer than this, once the user's own text is taken out."""


def assert_one_sentence(
    error: BaseException,
    *,
    echoed: tuple[str, ...] = (),
    source: str | None = None,
    limit: int = MAX_SENTENCE,
) -> None:
    """*error* is the project's and its text is one sentence on one line ending in a stop.

    Text the user typed may be quoted back (*echoed*: its length does not count), its
    line breaks shown escaped, so that the sentence stays on one line.
    """
    assert isinstance(error, AndarBaharError), f"{type(error).__name__}: {error!r}"
    sentence = str(error)
    assert sentence == str(error.message)
    assert sentence.strip(), "an empty message"
    assert len(sentence.splitlines()) == 1, f"not one line: {sentence!r}"
    assert sentence.endswith((".", "!", "?")), f"no full stop: {sentence!r}"
    assert len(sentence) <= limit + sum(map(len, echoed)), f"too long: {sentence[:200]!r}"
    if source is not None:
        assert source in sentence, f"the source {source!r} is not named: {sentence!r}"


def attempt(call: Callable[[], Any]) -> tuple[Any, AndarBaharError | None]:
    """(value, None), or (None, the project's error); any other exception fails the test."""
    try:
        return call(), None
    except AndarBaharError as error:
        return None, error


# == 1. the parsers ===========================================================================


@FAST
@given(text=card_text)
def test_card_parse_gives_a_card_or_one_sentence(text: str) -> None:
    """Card.parse reads any text into one of the 52 cards or refuses it with a CardError
    sentence; a card's own text (symbol, ASCII, any case, padded) reads back to it."""
    card, error = attempt(lambda: Card.parse(text))
    if error is not None:
        assert isinstance(error, CardError)
        assert_one_sentence(error, echoed=(text,))
        return
    assert card in FULL_DECK
    assert Card.parse(str(card)) == card
    assert Card.parse(card.ascii) == card
    assert Card.parse(card.ascii.lower()) == card
    assert Card.parse(f" \t{text}\n ") == card
    assert eval(repr(card), {"Card": Card}) == card  # the repr pastes back


@FAST
@given(text=cards_text)
def test_card_parse_many_reads_each_piece_or_one_sentence(text: str) -> None:
    """Card.parse_many gives the cards in order (each as Card.parse reads its piece) or a
    CardError sentence; the cards written back with any separator read back the same."""
    cards, error = attempt(lambda: Card.parse_many(text))
    if error is not None:
        assert isinstance(error, CardError)
        assert_one_sentence(error, echoed=(text,))
        return
    pieces = [piece for piece in re.split(r"[\s,;]+", text.strip()) if piece]
    assert cards == tuple(Card.parse(piece) for piece in pieces)
    for separator in (" ", ", ", ";", "\n"):
        assert Card.parse_many(separator.join(str(c) for c in cards)) == cards


@FAST
@given(text=bet_text)
def test_bet_parse_gives_a_bet_or_one_sentence(text: str) -> None:
    """Bet.parse reads a row, a count of cards between 1 and 49 or a bet on the centre
    card, or refuses with a BetError sentence; str(bet) is the bet's canonical name and
    reads back equal."""
    bet, error = attempt(lambda: Bet.parse(text))
    if error is not None:
        assert isinstance(error, BetError)
        assert_one_sentence(error, echoed=(text,))
        return
    assert isinstance(bet, (MainBet, CardsBet)) or (isinstance(bet, CentreBet) and bet.placeable)
    if isinstance(bet, CardsBet):
        assert 1 <= bet.low <= bet.high <= MAX_CARDS_DEALT
    assert Bet.parse(str(bet)) == bet
    assert Bet.parse(str(bet).upper()) == bet
    assert str(Bet.parse(str(bet))) == str(bet)


@FAST
@given(
    value=st.one_of(amount_text, any_text, st.integers(), st.decimals(), st.booleans()),
    lang=st.sampled_from([None, "en", "ru", "ka"]),
)
def test_parse_stake_gives_a_finite_decimal_or_one_sentence(value: Any, lang: str | None) -> None:
    """parse_stake turns text (as people of *lang* write amounts), an int or a Decimal
    into a finite Decimal, or refuses with a BetError sentence; the amount written by
    format_amount reads back equal, or — three decimals after a short whole part, which
    another language would read as thousands — is refused as ambiguous, never misread."""
    amount, error = attempt(lambda: parse_stake(value, lang=lang))
    if error is not None:
        assert isinstance(error, BetError)
        assert_one_sentence(error, echoed=(str(value),))
        return
    assert isinstance(amount, Decimal) and amount.is_finite()
    assert parse_stake(amount) == amount
    again, refused = attempt(lambda: parse_stake(format_amount(amount), lang=lang))
    assert again == amount or "could be" in str(refused)


@FAST
@given(
    value=st.one_of(
        odds_text,
        st.integers(-5, 10**6),
        st.integers(),
        st.decimals(min_value=-5, max_value=10**6, places=4, allow_nan=False),
        st.decimals(),  # NaN, sNaN, infinities, any exponent
    )
)
def test_odds_parse_gives_positive_odds_or_one_sentence(value: Any) -> None:
    """Odds.parse reads "X to 1", "X for 1", "X:1", a fraction or a bare number into odds
    greater than zero, or refuses with a PaytableError sentence; str(odds) reads back equal."""
    odds, error = attempt(lambda: Odds.parse(value))
    if error is not None:
        assert isinstance(error, PaytableError)
        assert_one_sentence(error, echoed=(str(value),))
        return
    assert isinstance(odds.to_one, Fraction) and odds.to_one > 0
    assert odds.for_one == odds.to_one + 1
    assert Odds.parse(str(odds)) == odds
    assert Odds.parse(f"{odds.for_one} for 1") == odds


# == 2. paytable and procedure TOML ===========================================================

SOURCE = "club.toml"


def _check_paytable_text(text: str) -> Paytable | None:
    """The properties every paytable text must have; the paytable if it loads."""
    problems = check_paytable(text, source=SOURCE)  # never raises
    assert isinstance(problems, list)
    limit = MAX_SENTENCE + 10 * len(text)  # a value of the file may be quoted back (as repr)
    for problem in problems:
        assert_one_sentence(PaytableError(problem), source=SOURCE, limit=limit)
    paytable, error = attempt(lambda: load_paytable(text, source=SOURCE))
    if error is not None:
        assert isinstance(error, PaytableError)
        assert problems, "load_paytable refused a paytable in which check_paytable saw nothing"
        assert str(error) == str(problems[0])
        assert_one_sentence(error, source=SOURCE, limit=limit)
        return None
    assert problems == []
    return paytable


@FAST
@given(document=st.one_of(paytable_document, junk_document))
def test_paytable_documents_load_or_name_every_problem(document: dict[str, Any]) -> None:
    """A TOML document shaped like a paytable (any field may be wrong, missing or junk):
    check_paytable never raises and lists problems that each name the file and the entry;
    load_paytable refuses exactly when there are problems, with the first one as its
    sentence; a paytable that loads writes TOML that loads back equal and clean."""
    source = to_toml(document)
    tomllib.loads(source)  # the writer wrote TOML: the fuzz reaches the validation
    paytable = _check_paytable_text(source)
    if paytable is not None:
        event("paytable loaded")
        again = paytable.to_toml()
        assert check_paytable(again) == []
        assert load_paytable(again) == paytable
        assert paytable.bets[:2] == (Bet.parse("andar"), Bet.parse("bahar"))


@FAST
@given(text=toml_garbage)
def test_paytable_garbage_is_one_sentence(text: str) -> None:
    """Text that is not a paytable (mostly not TOML) is refused by load_paytable with one
    sentence naming the file; check_paytable lists the same problem and never raises."""
    _check_paytable_text(text)


def _check_procedure_text(text: str) -> Procedure | None:
    procedure, error = attempt(lambda: load_procedure(text, source=SOURCE))
    if error is not None:
        assert isinstance(error, ProcedureError)
        limit = MAX_SENTENCE + 10 * len(text)  # a value of the file may be quoted back
        assert_one_sentence(error, source=SOURCE, limit=limit)
        return None
    assert isinstance(procedure, Procedure)
    return procedure


@FAST
@given(document=st.one_of(procedure_document, junk_document))
def test_procedure_documents_load_or_one_sentence(document: dict[str, Any]) -> None:
    """A TOML document shaped like a procedure: load_procedure gives a procedure whose
    fields are all valid (written back as TOML it loads equal), or one ProcedureError
    sentence naming the file."""
    source = to_toml(document)
    tomllib.loads(source)
    procedure = _check_procedure_text(source)
    if procedure is not None:
        event("procedure loaded")
        assert procedure.name.strip() and 1 <= procedure.rounds <= 1000
        assert Procedure.from_dict(procedure.to_dict()) == procedure
        assert load_procedure(to_toml(procedure.to_dict())) == procedure


@FAST
@given(text=toml_garbage)
def test_procedure_garbage_is_one_sentence(text: str) -> None:
    """Text that is not a procedure is refused by load_procedure with one sentence."""
    _check_procedure_text(text)


# == 3. the club table as a state machine =====================================================


class SimulatedCrash(Exception):
    """The server process dies at this SQL statement, before its transaction commits."""


class Faults:
    """Kills "the server" at the N-th SQL statement of the next action (an engine hook)."""

    def __init__(self) -> None:
        self.countdown: int | None = None

    def before_cursor_execute(self, *_: object) -> None:
        if self.countdown is not None:
            self.countdown -= 1
            if self.countdown <= 0:
                self.countdown = None
                raise SimulatedCrash


class Club:
    """One in-memory database for the whole run, and a fresh table for each example.

    ``create_table`` hashes the PIN with scrypt (tens of milliseconds). It runs once, for
    a template; each example's table is a copy of that row with its own code and the
    kind, procedure, paytable and rounds of the example, written as ``create_table``
    writes them (``test_a_copied_table_is_what_create_table_makes`` checks that), so
    that 2,000 examples fit in CI. The dealer's token is the template's.
    """

    storage: ClassVar[Storage | None] = None
    faults: ClassVar[Faults] = Faults()
    template: ClassVar[tuple[str, str] | None] = None
    counter: ClassVar[int] = 0
    raw: ClassVar[Any] = None

    @classmethod
    def open(cls) -> Storage:
        if cls.storage is None:
            cls.storage = Storage.open("sqlite://")
            sa_event.listen(
                cls.storage.engine, "before_cursor_execute", cls.faults.before_cursor_execute
            )
        return cls.storage

    @classmethod
    def sql(cls) -> Any:
        """The in-memory database's own sqlite3 connection (StaticPool: there is one)."""
        if cls.raw is None:
            cls.raw = cls.open().engine.raw_connection().driver_connection
        return cls.raw

    @classmethod
    def table(
        cls, kind: str, procedure: Procedure, paytable: Paytable, rounds: int
    ) -> tuple[str, str, int]:
        """A fresh table as ``create_table`` makes it: (code, dealer token, row id)."""
        storage = cls.open()
        if cls.template is None:
            created = TableService(storage).create_table(
                name="Fuzz", kind="betting", pin="246813", procedure=PROCEDURES["classic"],
                paytable=PAYTABLES["wizard"],
            )  # fmt: skip
            cls.template = (created.code, created.dealer_token)
        template_code, token = cls.template
        with Session(storage.engine) as session, session.begin():
            template = session.scalars(
                select(ClubTableRow).where(ClubTableRow.code == template_code)
            ).one()
            while True:
                cls.counter += 1
                number, digits = cls.counter, []
                for _ in range(5):
                    number, digit = divmod(number, len(CODE_ALPHABET))
                    digits.append(CODE_ALPHABET[digit])
                code = "Z" + "".join(digits)
                taken = session.scalars(select(ClubTableRow.id).where(ClubTableRow.code == code))
                if taken.first() is None:
                    break
            rules = procedure.replace(markers_only=kind == "teaching")  # as create_table does
            row = ClubTableRow(
                code=code, name=template.name, kind=kind,
                procedure_json=json.dumps(rules.to_dict()), paytable_toml=paytable.to_toml(),
                pin_hash=template.pin_hash,
                rounds_planned=rounds, scoring=True, created_at=template.created_at,
            )  # fmt: skip
            session.add(row)
            session.flush()
            token = f"{token}-{code}"  # every table its own dealer device, as create_table makes
            session.add(DealerSessionRow(table_id=row.id, token_hash=token_hash(token),
                                         client="local", created_at=template.created_at))  # fmt: skip
            return code, token, row.id


CLUB_PAYTABLES = [
    *PAYTABLES.values(),
    load_paytable(
        'name = "club-limits"\nchip = "5"\nrounding = "up"\n[main]\nandar = "0.9 to 1"\n'
        'bahar = "1 to 1"\n[limits]\nmin = "5"\nmax = "100"\n[[cards]]\nrange = "1-5"\n'
        'pays = "3 to 1"\n[[cards]]\nrange = "7"\npays = "10 to 1"\n'
    ),
    load_paytable(
        'name = "club-first"\nkeyed_by = "first-row"\nchip = "0.5"\nrounding = "half-up"\n'
        '[main]\nfirst = "0.9 to 1"\nsecond = "1 to 1"\n[[cards]]\nrange = "1-9"\n'
        'pays = "2.5 to 1"\n'
    ),
]
"""The presets and two club files: chips of 5 and 0.5, limits, first-row keying, an exact count."""

PLAYERS = ["Asha", "Ravi", "Нино", "ლალი"]
ADMIT_NAMES = [*PLAYERS, " Asha ", "Ravi\u00a0", "", "   ", "x" * 41, "Mallory"]
JOIN_NAMES = [*PLAYERS, " Нино ", "Mallory", "", "nobody"]
WHO = [*PLAYERS, "dealer", "forged", "nobody"]
DEALER = ["dealer", "dealer", "dealer", "dealer", "Asha", "forged", "nobody"]
DEALER_STEPS = ["close", "centre", "deal", "void", "target"]
ACTORS = ["dealer"] * 6 + ["player"] * 5 + ["door"] * 2 + ["restart"]
ACTORS_BETTING = ["dealer"] * 3 + ["player"] * 8 + ["door"] * 2 + ["restart"]
"""Who acts at each step, weighted: mostly the dealer, mostly the players while bets are open."""
GOOD_KEYS = ["k1", "k2", "k3", " k1 ", "k4", "k5", "ключ", "k" * 80]
keys = st.one_of(st.sampled_from(["", "   ", "x" * 81]), *[st.sampled_from(GOOD_KEYS)] * 4)
"""Idempotency keys from a small pool, so that requests are repeated (" k1 " is "k1")."""
ROWS = ["andar", "bahar", " Bahar ", "ANDAR", "cards:1-5", "middle", "", "андар"]
DECK_TEXT = [str(c) for c in FULL_DECK] + [c.ascii.lower() for c in FULL_DECK]
REASONS = ["club night", "", "   ", "new\nodds"]

deck_card = st.sampled_from(DECK_TEXT)
typed_card = st.one_of(
    st.none(), deck_card, card_piece, st.sampled_from(["", " ", "Z♥", "joker", "Q♥ 4♣"])
)
stake_text = st.one_of(st.sampled_from(["5", "10", "100", "2.5", "1000", "0.5"]), amount_text)
good_bet = st.sampled_from(["andar", "bahar", "cards:1-5", "cards:6-10", "cards:7", "cards:1-9"])
good_stake = st.sampled_from(["5", "10", "25", "50", "100", "2.5", "0.5"])
row_text = st.one_of(st.sampled_from(ROWS), one_line_text)


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """("ok", value) or ("error", the project's error). Anything else fails the test."""
    try:
        return "ok", call()
    except AndarBaharError as error:
        assert_one_sentence(error, echoed=tuple(ECHOED))
        return "error", error


ECHOED: list[str] = []
"""The user's text of the action under way (quoted back in some sentences)."""


def _card_or_none(card: str | None) -> Card | None:
    return Card.parse(card) if card is not None and card.strip() else None


def _seen(placed: object) -> tuple[object, ...]:
    """What a caller is told of an accepted bet: who, which spot, the stake, the round and
    the spot's total (the player's id is the service's own)."""
    assert isinstance(placed, PlacedBet), placed
    return (placed.player, placed.bet, placed.stake, placed.round, placed.total)


class TableMachine(RuleBasedStateMachine):
    """The club table: any order of actions, restarts and crashes; the engine as the model."""

    def __init__(self) -> None:
        super().__init__()
        self.ready = False

    # -- the table and the model -------------------------------------------------------------

    @initialize(
        kind=st.sampled_from(["betting", "betting", "betting", "betting", "teaching"]),
        name=st.sampled_from(sorted(PROCEDURES)),
        window=st.sampled_from([None, BetWindow.BEFORE_CENTRE, BetWindow.AFTER_CENTRE]),
        paytable=st.sampled_from(CLUB_PAYTABLES),
        rounds=st.integers(1, 3),
        seed=st.integers(0, 2**32),
        players=st.lists(
            st.tuples(
                st.sampled_from(PLAYERS),
                st.sampled_from(["500", "1000", "250", "75", "12.5", "0"]) | stake_text,
            ),
            min_size=1,
            max_size=3,
        ),
    )
    def open_table(
        self,
        kind: str,
        name: str,
        window: BetWindow | None,
        paytable: Paytable,
        rounds: int,
        seed: int,
        players: list[tuple[str, str]],
    ) -> None:
        procedure = PROCEDURES[name] if window is None else PROCEDURES[name].replace(window=window)
        self.storage = Club.open()
        self.sql = Club.sql()
        self.code, self.dealer, self.table_id = Club.table(kind, procedure, paytable, rounds)
        self.service = TableService(self.storage, rng=random.Random(seed))
        self.kind, self.rounds_planned = kind, rounds
        self.procedure = procedure.replace(markers_only=kind == "teaching")
        self.paytable = paytable  # in force for the next round opened
        self.balance: dict[str, Decimal] = {}  # every admitted player: chips in + nets
        self.tokens: dict[str, str] = {}  # who has joined, with their secret token
        self.seats: dict[str, str] = {}  # the seat code each admitted player was given
        self.requests: dict[tuple[str, str], tuple[str, str, str]] = {}  # what a key asked
        self.answers: dict[tuple[str, str], PlacedBet] = {}  # (player, key) → first answer
        self.sent: list[tuple[str, str, str | None, str]] = []  # accepted requests, to resend
        self.scores: dict[str, int] = {}  # teaching tokens
        self.round: Round | None = None  # the engine's round, fed the accepted actions
        self.number, self.status = 0, "none"  # the latest round: open, finished, settled
        self.counted = 0  # settled rounds that were not void
        self.ready = True
        for player, balance in players:  # most examples start with people at the table
            self.do_admit(player, balance)
            self.do_join(player)

    def paytable_of_round(self) -> Paytable:
        assert self.round is not None
        return self.round.paytable

    def token(self, who: str) -> str:
        if who in self.tokens:
            return self.tokens[who]
        return {"dealer": self.dealer, "forged": "forged-" + "x" * 32}.get(who, "")

    def call(self, action: Callable[[], Any], *echoed: str | None) -> tuple[str, Any]:
        """Run one action of the service (the armed crash, if any, strikes inside it)."""
        ECHOED[:] = [e for e in echoed if e]
        if self.crash_at is not None:
            Club.faults.countdown, self.crash_at = self.crash_at, None
        try:
            return _outcome(action)
        finally:
            Club.faults.countdown = None

    crash_at: int | None = None

    @staticmethod
    def expect(got: tuple[str, Any], kind: type[AndarBaharError]) -> None:
        assert got[0] == "error" and type(got[1]) is kind, f"expected a {kind.__name__}: {got}"

    @staticmethod
    def same(got: tuple[str, Any], model: tuple[str, Any]) -> None:
        """The service answered as the engine did: the same error, word for word, or success."""
        if model[0] == "error":
            assert got[0] == "error", f"the service accepted what the engine refuses: {model[1]}"
            assert type(got[1]) is type(model[1]) and str(got[1]) == str(model[1]), (got, model)
        else:
            assert got[0] == "ok", f"the service refused what the engine accepts: {got[1]}"

    # -- admissions and seats -----------------------------------------------------------------

    def do_admit(self, name: str, balance: str) -> None:
        got = self.call(
            lambda: self.service.admit_player(self.code, self.dealer, name, balance), name, balance
        )
        player = name.strip()
        if not player or len(player) > 40:
            return self.expect(got, ParameterError)
        amount = Decimal(0)
        if self.kind == "betting":
            try:
                amount = parse_stake(balance)
            except BetError:
                return self.expect(got, BetError)
        if amount < 0 or (amount and (amount % self.paytable.chip or amount > MAX_CHIPS)):
            return self.expect(got, BetError)  # whole chips of the table, within the ledger
        if player in self.balance:  # (no two names of the model look alike)
            return self.expect(got, ParameterError)
        assert got[0] == "ok", got
        self.seats[player] = got[1]
        self.balance[player] = as_decimal(amount) if amount else Decimal(0)  # no entry for 0
        rnd = self.round
        if rnd is not None and self.status == "open" and rnd.balances is not None and rnd.bets_open:
            rnd.balances[player] = as_decimal(amount)  # seated during betting: may bet at once
        return None

    def do_join(self, name: str) -> None:
        """A phone joins with the seat code *name* was given (or, for a stranger, a name)."""
        player = name.strip()
        seat = self.seats.get(player, name)
        got = self.call(lambda: self.service.join(self.code, seat), seat)
        if player not in self.seats or player in self.tokens:
            return self.expect(got, AccessError)  # a name alone, or a seat code used once
        assert got[0] == "ok" and got[1], got
        self.tokens[player] = got[1]
        return None

    # -- rounds --------------------------------------------------------------------------------

    def do_open(self, who: str, physical: bool) -> None:
        got = self.call(
            lambda: self.service.open_round(self.code, self.token(who), physical=physical)
        )
        if who != "dealer":
            return self.expect(got, AccessError)
        if self.status in ("open", "finished"):
            return self.expect(got, ActionError)
        if self.kind == "teaching" and self.counted >= self.rounds_planned:
            return self.expect(got, ActionError)  # the lesson is over
        assert got[0] == "ok", got
        self.number, self.status = self.number + 1, "open"
        record, salt, commitment = self.stored(self.number)
        data = json.loads(record)
        deck = None
        if not physical:
            deck = Card.parse_many(data["deck"])
            check_complete(deck)
            assert commitment == commitment_of(data["deck"], salt) and len(salt) == 32
        else:
            assert "deck" not in data and salt is None and commitment is None
        balances = dict(self.balance) if self.kind == "betting" else None
        self.round = Round(self.procedure, self.paytable, deck=deck, balances=balances)
        if not physical and not self.procedure.has_centre:  # the service chose the rank
            [chosen] = [op["rank"] for op in data["operations"] if op["op"] == "target"]
            self.round.choose_target(chosen)
        self.check_public(got[1])
        event("round opened")
        return None

    def stored(self, number: int) -> tuple[str, str | None, str | None]:
        """The stored record, salt and commitment of round *number* (read past the service)."""
        row = self.sql.execute(
            "SELECT record, salt, commitment FROM table_rounds WHERE table_id = ? AND number = ?",
            (self.table_id, number),
        ).fetchone()
        return row[0], row[1], row[2]

    def check_public(self, public: PublicRound) -> None:
        """What the service shows of the round is the model's round, and no more."""
        model = self.round
        assert model is not None
        assert public.number == self.number and public.status == self.status
        assert public.bets_open == (model.bets_open and self.status == "open")
        assert public.physical == (model.deck is None)
        assert public.procedure == model.procedure and public.paytable == model.paytable
        assert public.centre == model.centre and public.target == model.target
        assert public.dealt == model.dealt and public.first_row == model.first_row
        assert public.wagers == tuple((w.player, str(w.bet), w.stake) for w in model.wagers)
        assert dict(public.markers) == dict(model.markers)
        assert public.result == model.result_or_none
        assert public.settlement == model.settlement
        assert not hasattr(public, "deck")

    # -- bets and markers ------------------------------------------------------------------------

    def do_bet(self, who: str, bet: str, stake: str | None, key: str) -> None:
        """A bet (stake given) or a withdrawal (stake None) with an idempotency key."""
        token = self.token(who)
        if stake is None:
            got = self.call(
                lambda: self.service.withdraw_bet(self.code, token, bet, key=key), bet, key
            )
        else:
            got = self.call(
                lambda: self.service.place_bet(self.code, token, bet, stake, key=key),
                bet, stake, key,
            )  # fmt: skip
        key = key.strip()
        if not key or len(key) > 80:
            return self.expect(got, ParameterError)
        if who not in self.tokens:
            return self.expect(got, AccessError)
        asked = ("bet" if stake is not None else "withdraw", bet.strip(), (stake or "").strip())
        if (who, key) in self.answers:  # the same request again: the same answer, nothing new
            if self.requests[(who, key)] != asked:  # the same key, another request: 409
                event("conflicting key")
                return self.expect(got, RequestConflict)
            event("repeated key")
            assert got[0] == "ok" and _seen(got[1]) == _seen(self.answers[(who, key)]), got
            return None
        if self.status not in ("open", "finished"):
            return self.expect(got, ActionError)
        assert self.round is not None
        if stake is None:
            model = _outcome(lambda: self.round.withdraw_bet(who, bet))  # type: ignore[union-attr]
        else:
            verified = _outcome(lambda: self.round.verify_bet(who, bet, stake))  # type: ignore[union-attr]
            if verified[0] == "ok":  # the table pays at most MAX_CHIPS on one bet
                wager = verified[1]
                bound = _outcome(
                    lambda: check_bet_return(self.paytable_of_round(), str(wager.bet), wager.stake)
                )
                if bound[0] == "error":
                    return self.expect(got, BetError)
            model = _outcome(lambda: self.round.place_bet(who, bet, stake))  # type: ignore[union-attr]
        self.same(got, model)
        if model[0] == "ok":
            record = model[1]
            on_spot = sum(
                (w.stake for w in self.round.wagers if w.player == who and w.bet == record.bet),
                Decimal(0),
            )
            expected = PlacedBet(
                who, str(record.bet), getattr(record, "stake", Decimal(0)), self.number,
                total=on_spot,
            )  # fmt: skip
            assert _seen(got[1]) == _seen(expected), (got[1], expected)
            self.answers[(who, key)] = got[1]
            self.requests[(who, key)] = asked
            self.sent.append((who, bet, stake, key))
            event("bet accepted" if stake is not None else "bet withdrawn")
        return None

    def do_marker(self, who: str, row: str) -> None:
        got = self.call(lambda: self.service.place_marker(self.code, self.token(who), row), row)
        if who not in self.tokens:
            return self.expect(got, AccessError)
        if self.status not in ("open", "finished"):
            return self.expect(got, ActionError)
        assert self.round is not None
        self.same(got, _outcome(lambda: self.round.place_marker(who, row)))  # type: ignore[union-attr]
        return None

    # -- the dealer's steps ------------------------------------------------------------------------

    def do_step(self, step: str, who: str, card: str | None) -> None:
        token = self.token(who)
        service: dict[str, Callable[[], PublicRound]] = {
            "close": lambda: self.service.close_bets(self.code, token),
            "centre": lambda: self.service.turn_centre(self.code, token, card),
            "deal": lambda: self.service.deal(self.code, token, card),
            "void": lambda: self.service.void(self.code, token, "deck exhausted"),
            "target": lambda: self.service.choose_target(self.code, token, card or ""),
        }
        got = self.call(service[step], card)
        if who != "dealer":
            return self.expect(got, AccessError)
        if self.status != "open":
            return self.expect(got, ActionError)  # no round, or over: settle it
        rnd = self.round
        assert rnd is not None

        def deal() -> object:
            if rnd.procedure.has_centre and rnd.centre is None:
                return rnd.turn_centre(_card_or_none(card))
            return rnd.deal(_card_or_none(card))

        model: dict[str, Callable[[], object]] = {
            "close": rnd.close_bets,
            "centre": lambda: rnd.turn_centre(_card_or_none(card)),
            "deal": deal,
            "void": lambda: rnd.void("deck exhausted"),
            "target": lambda: rnd.choose_target(card or ""),
        }
        self.same(got, _outcome(model[step]))
        if got[0] == "ok":
            if rnd.finished:
                self.status = "finished"
                event("round finished" if not rnd.result.void else "round void")
            self.check_public(got[1])
        return None

    def do_settle(self, who: str) -> None:
        got = self.call(lambda: self.service.settle(self.code, self.token(who)))
        if who != "dealer":
            return self.expect(got, AccessError)
        if self.status not in ("open", "finished"):
            return self.expect(got, ActionError)
        rnd = self.round
        assert rnd is not None
        model = _outcome(rnd.settle)
        self.same(got, model)
        if model[0] == "error":
            return None
        self.status = "settled"
        settlement = rnd.settlement
        assert settlement is not None
        for bet in settlement.bets:
            assert bet.net == bet.returned - bet.stake and bet.returned >= 0
            self.balance[bet.player] += bet.net
        result = rnd.result
        if result.winner is not None:
            self.counted += 1
            for player, row in rnd.markers.items():
                self.scores[player] = self.scores.get(player, 0) + int(row is result.winner)
        self.check_public(got[1])
        assert self.service.round_ledger_sum(self.code, self.number) == 0
        assert json.loads(self.stored(self.number)[0]) == rnd.to_dict()
        event("round settled")
        return None

    def do_change_paytable(self, who: str, paytable: Paytable, reason: str) -> None:
        got = self.call(
            lambda: self.service.change_paytable(self.code, self.token(who), paytable, reason),
            reason,
        )
        if not reason.strip() or any(unicodedata.category(c) == "Cc" for c in reason.strip()):
            return self.expect(got, ParameterError)  # none, or on more than one line
        if who != "dealer":
            return self.expect(got, AccessError)
        assert got[0] == "ok", got
        self.paytable = paytable  # from the next round on
        return None

    # -- restarts and crashes ----------------------------------------------------------------------

    def restart_service(self, seed: int) -> None:
        """A new service over the same database: what a restarted server is."""
        self.service = TableService(self.storage, rng=random.Random(seed))
        self.check_state()

    def restart(self, data: st.DataObject) -> None:
        """The server stops and starts again — or is killed at the at-th SQL statement of an
        action first: that action left no trace (if it had fewer statements, it was done
        whole). The restarted server shows exactly the model's table."""
        if data.draw(st.booleans(), label="crash"):
            self.crash_during(data, data.draw(st.integers(1, 10), label="at statement"))
        self.restart_service(data.draw(st.integers(0, 2**32), label="seed"))

    def crash_during(self, data: st.DataObject, at: int) -> None:
        """Arm the crash, then run an action that gets far enough to write something."""
        rnd = self.round
        joined = sorted(self.tokens)
        actions: list[Callable[[], None]] = [
            lambda: self.do_admit(data.draw(st.sampled_from(PLAYERS)), "100"),
            lambda: self.do_join(data.draw(st.sampled_from(PLAYERS))),
            lambda: self.do_change_paytable(
                "dealer", data.draw(st.sampled_from(CLUB_PAYTABLES)), "crash test"
            ),
        ]
        if self.status in ("none", "settled"):
            actions += [lambda: self.do_open("dealer", data.draw(st.booleans()))] * 3
        elif self.status == "finished":
            actions += [lambda: self.do_settle("dealer")] * 3
        elif rnd is not None:
            card = None
            if rnd.deck is None:  # a card not seen yet in this round, for a real deck
                seen = {rnd.centre, *(d.card for d in rnd.dealt)}
                card = data.draw(st.sampled_from([str(c) for c in FULL_DECK if c not in seen]))
            actions += [lambda: self.do_step("deal", "dealer", card)] * 2
            if joined and rnd.bets_open:

                def bet() -> None:
                    who = data.draw(st.sampled_from(joined))
                    self.do_bet(who, data.draw(good_bet), data.draw(good_stake), "crash")

                actions += [bet, bet]
                actions.append(lambda: self.do_marker(data.draw(st.sampled_from(joined)), "bahar"))
            if rnd.wagers and rnd.bets_open:
                wager = data.draw(st.sampled_from(rnd.wagers))
                actions.append(lambda: self.do_bet(wager.player, str(wager.bet), None, "withdraw"))
        self.crash_at = at
        try:
            data.draw(st.sampled_from(actions), label="action")()
        except SimulatedCrash:
            event("crashed mid-action")
        finally:
            self.crash_at = None

    # -- the steps: who acts, and what they do (weighted by where the round stands) ----------------

    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        """One step: the dealer (most often), a player, the door (admissions, joins) or a
        restart of the server, with or without a crash."""
        betting = self.round is not None and self.status == "open" and self.round.bets_open
        actor = data.draw(st.sampled_from(ACTORS_BETTING if betting else ACTORS), label="actor")
        {"dealer": self.dealer_acts, "player": self.player_acts, "door": self.door_acts,
         "restart": self.restart}[actor](data)  # fmt: skip

    def dealer_acts(self, data: st.DataObject) -> None:
        if self.status in ("none", "settled"):
            choices = ["open"] * 5 + ["paytable", "settle", "deal", "intruder"]
        elif self.status == "finished":
            choices = ["settle"] * 5 + ["deal", "open", "void", "paytable", "intruder"]
        else:
            choices = ["deal on"] * 3 + ["deal", "centre", "close", "void", "target", "settle"]
            choices += ["open", "paytable", "intruder"]
        what = data.draw(st.sampled_from(choices), label="dealer")
        if what == "open":
            self.do_open("dealer", data.draw(st.booleans(), label="physical"))
            for _ in range(data.draw(st.integers(0, 2), label="bets") if self.tokens else 0):
                self.do_bet(
                    data.draw(st.sampled_from(sorted(self.tokens))), data.draw(good_bet),
                    data.draw(good_stake), data.draw(st.sampled_from(GOOD_KEYS)),
                )  # fmt: skip
        elif what == "settle":
            self.do_settle("dealer")
        elif what == "paytable":
            self.do_change_paytable(
                data.draw(st.sampled_from(DEALER)), data.draw(st.sampled_from(CLUB_PAYTABLES)),
                data.draw(st.one_of(st.sampled_from(REASONS), one_line_text), label="reason"),
            )  # fmt: skip
        elif what == "intruder":
            who = data.draw(st.sampled_from(["Asha", "forged", "nobody"]), label="who")
            step = data.draw(st.sampled_from(["open", "settle", *DEALER_STEPS]), label="step")
            if step == "open":
                self.do_open(who, physical=False)
            elif step == "settle":
                self.do_settle(who)
            else:
                self.do_step(step, who, None)
        elif what == "deal on":
            self.deal_on(data)
        else:
            card = data.draw(st.one_of(typed_card, st.sampled_from(RANKS)), label="card")
            self.do_step(what, "dealer", card)

    def deal_on(self, data: st.DataObject) -> None:
        """The dealer deals on: from the stored deck, or the cards typed from a real one."""
        assert self.round is not None
        if self.round.target is None and not self.round.procedure.has_centre:
            self.do_step("target", "dealer", data.draw(st.sampled_from(RANKS[:13]), label="rank"))
        physical = self.round.deck is None
        for card in data.draw(st.lists(deck_card, min_size=1, max_size=6), label="cards"):
            if self.status != "open":
                break
            self.do_step("deal", "dealer", card if physical else None)

    def player_acts(self, data: st.DataObject) -> None:
        joined = sorted(self.tokens)
        if joined and data.draw(st.sampled_from([False, True, True, True, True]), label="seated"):
            who = data.draw(st.sampled_from(joined), label="who")
        else:
            who = data.draw(st.sampled_from(WHO), label="who")
        open_ = self.round is not None and self.status == "open" and self.round.bets_open
        if self.kind == "teaching":
            choices = ["marker"] * 4 + ["bet", "withdraw", "again"]
        elif open_:
            choices = ["bet"] * 5 + ["junk bet", "withdraw", "marker", "again"]
        else:  # too late (or too early): requests that must change nothing
            choices = ["bet", "junk bet", "withdraw", "marker", "again", "again"]
        what = data.draw(st.sampled_from(choices), label="player")
        if what == "bet":
            self.do_bet(
                who,
                data.draw(good_bet),
                data.draw(good_stake),
                data.draw(st.sampled_from(GOOD_KEYS)),
            )
        elif what == "junk bet":
            self.do_bet(who, data.draw(bet_text), data.draw(stake_text), data.draw(keys))
        elif what == "withdraw":
            self.do_bet(who, data.draw(good_bet | bet_text), None, data.draw(keys))
        elif what == "marker":
            self.do_marker(who, data.draw(row_text, label="row"))
        elif self.sent:  # "again": the phone sends one of its earlier requests once more
            self.do_bet(*data.draw(st.sampled_from(self.sent), label="request"))

    def door_acts(self, data: st.DataObject) -> None:
        what = data.draw(st.sampled_from(["admit", "admit", "join", "join", "intruder"]))
        if what == "admit":
            self.do_admit(
                data.draw(st.sampled_from(ADMIT_NAMES), label="name"),
                data.draw(st.sampled_from(["500", "100", "12.5"]) | stake_text, label="balance"),
            )
        elif what == "join":
            self.do_join(data.draw(st.sampled_from(JOIN_NAMES), label="name"))
        else:  # only the dealer seats players (names are checked first)
            who = data.draw(st.sampled_from(["Asha", "forged"]), label="who")
            name = data.draw(st.sampled_from(ADMIT_NAMES), label="name")
            got = self.call(
                lambda: self.service.admit_player(self.code, self.token(who), name, "10")
            )
            if name.strip() and len(name.strip()) <= 40:
                self.expect(got, AccessError)

    # -- what must always hold -----------------------------------------------------------------------

    @invariant()
    def ledger_and_stored_round(self) -> None:
        """The ledger sums to zero, each balance is the model's and never negative, and the
        stored round is the model's round: every accepted bet once, nothing else."""
        if not self.ready:
            return
        sql = self.sql  # the driver's own connection: no SQLAlchemy, no crash hook
        players = sql.execute(
            "SELECT id, name FROM table_players WHERE table_id = ?", (self.table_id,)
        ).fetchall()
        entries = sql.execute(
            "SELECT player_id, amount_micros FROM ledger WHERE table_id = ?", (self.table_id,)
        ).fetchall()
        latest = sql.execute(
            "SELECT record FROM table_rounds WHERE table_id = ? ORDER BY number DESC LIMIT 1",
            (self.table_id,),
        ).fetchone()
        names = dict(players)
        assert sorted(names.values()) == sorted(self.balance)
        balances = dict.fromkeys(self.balance, Decimal(0))
        total = Decimal(0)
        for player_id, micros in entries:  # whole millionths of a chip
            amount = Decimal(micros).scaleb(-6)
            total += amount
            if player_id is not None:
                balances[names[player_id]] += amount
        assert total == 0, f"the ledger sums to {total}"
        assert balances == self.balance
        assert all(amount >= 0 for amount in balances.values()), balances
        if self.round is None:
            assert latest is None
            return
        assert latest is not None
        seen = (latest[0], len(self.round.operations), len(self.round.balances or ()))
        if seen != self.verified:  # the model changes only through the rules above
            stored, model = json.loads(latest[0]), self.round.to_dict()
            assert stored == model, {
                k: (stored.get(k), v) for k, v in model.items() if stored.get(k) != v
            }
            self.verified = seen

    verified: tuple[str, int, int] | None = None

    def check_state(self) -> None:
        """Everything the pages show (service.state) is the model's table."""
        state = self.service.state(self.code)
        assert state.kind == self.kind and state.procedure == self.procedure
        assert state.paytable == self.paytable
        assert {p.name: p.balance for p in state.players} == self.balance
        assert {p.name for p in state.players if p.joined} == set(self.tokens)
        if self.kind == "teaching":
            assert {p.name: p.tokens for p in state.players if p.tokens} == {
                name: n for name, n in self.scores.items() if n
            }
        assert state.rounds_settled == self.counted
        assert self.service.ledger_total(self.code) == 0
        if self.round is None:
            assert state.round is None
        else:
            assert state.round is not None
            self.check_public(state.round)
            assert state.round.wagers == tuple(
                (w.player, str(w.bet), w.stake) for w in self.round.wagers
            )

    def teardown(self) -> None:
        if self.ready:
            self.check_state()


MACHINE_RUNS, MACHINE_PARTS = (2000, 4) if FULL_FUZZ else (10, 1)
"""The state machine's runs, in parts of equal size that pytest-xdist's workers share (each
part its own test, drawing its own random runs): the long tier's 2,000 on both cores."""
for _part in range(1, MACHINE_PARTS + 1):
    _case = type(
        f"TableMachineRuns{_part}",
        (TableMachine.TestCase,),
        {
            "settings": settings(
                max_examples=MACHINE_RUNS // MACHINE_PARTS,
                stateful_step_count=50,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
            ),
            "__doc__": """Any order of the table's actions, with restarts and crashes: every
action succeeds exactly when the engine (fed the accepted actions) says it must, or fails
with the same sentence; the ledger sums to zero, no balance is negative, a repeated
request counts once, the stored round is the model's.""",
        },
    )
    _name = "test_the_club_table_as_a_state_machine"
    globals()[_name if MACHINE_PARTS == 1 else f"{_name}_part_{_part}"] = _case
del _case  # pytest collects every TestCase in the module: the last part ran twice as `_case`


def test_a_copied_table_is_what_create_table_makes() -> None:
    """The state machine's tables (copies of a template row) are stored exactly as
    create_table stores a table with the same kind, procedure, paytable and rounds."""
    storage = Club.open()
    procedure = PROCEDURES["home"].replace(window=BetWindow.BEFORE_CENTRE)
    paytable = CLUB_PAYTABLES[-1]
    made = TableService(storage).create_table(
        name="Fuzz", kind="teaching", pin="246813", procedure=procedure, paytable=paytable,
        rounds=3,
    )  # fmt: skip
    copied, token, _ = Club.table("teaching", procedure, paytable, 3)
    fields = ("name", "kind", "procedure_json", "paytable_toml", "rounds_planned", "scoring")
    with Session(storage.engine) as session:
        rows = {
            row.code: row
            for row in session.scalars(
                select(ClubTableRow).where(ClubTableRow.code.in_([made.code, copied]))
            )
        }
    assert [getattr(rows[copied], f) for f in fields] == [
        getattr(rows[made.code], f) for f in fields
    ]
    assert TableService(storage).is_dealer(copied, token)


# == 4. the web forms and the JSON API ========================================================

ALERT = re.compile(r'<p class="error" role="alert">(.*?)</p>', re.DOTALL)
LANGS = ["", "?lang=ru", "?lang=ka", "?lang=en"]


class Web:
    """One app on an in-memory database: a table made through the forms, a dealer's
    browser, a seated player's browser, a stranger's, and API tokens."""

    def __init__(self) -> None:
        self.app = create_app(database_url="sqlite://", secret=b"f" * 32)
        self.dealer, self.player, self.stranger = (TestClient(self.app) for _ in range(3))
        self.csrf = {id(c): csrf(c) for c in (self.dealer, self.player, self.stranger)}
        form = {"name": "Fuzz", "pin": "246813", "paytable": "wizard"}
        created = self.post(self.dealer, "/tables", form)
        assert created.status_code == 303, created.text
        self.code = created.headers["location"].rsplit("/", 1)[-1]
        self.sync()
        seats = {
            name: self.stranger.post(
                f"/api/tables/{self.code}/players", json={"name": name, "balance": balance},
                headers={"Authorization": f"Bearer {self.dealer_token}"},
            ).json()["seat_code"]
            for name, balance in (("Asha", "500"), ("Ravi", "300"))
        }  # fmt: skip
        joined = self.post(self.player, "/join", {"code": self.code, "seat": seats["Asha"]})
        assert joined.status_code == 303, joined.text
        ravi = self.stranger.post(
            f"/api/tables/{self.code}/join", json={"seat_code": seats["Ravi"]}
        )
        self.ravi = ravi.json()["token"]
        assert self.post(self.dealer, f"/dealer/{self.code}/round/open", {}).status_code == 303

    def sync(self) -> None:
        """The dealer's token for the API: the one in the dealer's browser (a login by PIN,
        which the fuzz may post, gives a new one and ends the old)."""
        signed = self.dealer.cookies.get(f"dealer_{self.code}", "")
        self.dealer_token = self.app.state.site.signer("dealer").unsign(signed) or ""

    def post(self, client: TestClient, path: str, data: dict[str, str], **extra: Any) -> Any:
        headers = {"X-CSRF-Token": self.csrf[id(client)], **extra.pop("headers", {})}
        return client.post(path, data=data, headers=headers, follow_redirects=False, **extra)


@pytest.fixture(scope="module")
def web() -> Iterator[Web]:
    site = Web()
    yield site
    site.app.state.service.storage.close()


def assert_answer(response: Any, echoed: list[str]) -> None:
    """Never a 500 nor a traceback; a refusal is one sentence, in #errors or as JSON."""
    assert response.status_code < 500, response.text[:500]
    body = response.text
    assert "Traceback" not in body and 'File "' not in body
    refused = response.status_code >= 400 or "HX-Retarget" in response.headers
    if not refused:
        return
    if response.request.url.path.startswith("/api/"):
        data = response.json()
        assert isinstance(data, dict) and set(data) == {"error"}, data
        sentence = data["error"]
    else:
        alerts = ALERT.findall(body)
        assert len(alerts) == 1, body[:500]
        sentence = html.unescape(alerts[0])
    assert sentence.strip() and len(sentence.splitlines()) == 1, sentence
    assert sentence.rstrip().endswith((".", "!", "?")), sentence


generic_value = st.one_of(
    any_text, one_line_text, st.just("x" * 5000), st.sampled_from(["", " ", "\x00"])
)
FIELD_VALUES: dict[str, st.SearchStrategy[str]] = {
    "code": st.sampled_from(["CODE", "code", " CODE ", "NOSUCH", "", "Z"]),
    "name": st.sampled_from(["Asha", "Ravi", "Нино", "ლალი", " ", "x" * 41, "Mallory"]),
    "pin": st.sampled_from(["246813", "", "12", "000000", "  246813  ", "x" * 129]),
    "seat": st.sampled_from(["", "ABC-DEF", "abcdef", "x" * 40]),
    "kind": st.sampled_from(["betting", "teaching", "poker", ""]),
    "procedure": st.sampled_from([*PROCEDURES, "katti", ""]),
    "start": st.sampled_from(["", "andar", "centre-colour", "first-card-colour", "left"]),
    "target": st.sampled_from(["", "centre-card", "chosen-rank", "rank"]),
    "window": st.sampled_from(["", "before-centre", "after-centre", "never"]),
    "paytable": st.sampled_from([*PAYTABLES, "vegas", "", "club.toml"]),
    "rounds": st.sampled_from(["10", "0", "1", "1000", "1001", "-1", "abc", "٣", "9" * 5000]),
    "scoring": st.sampled_from(["", "on", "off"]),
    "balance": st.one_of(st.sampled_from(["500", "100", "0"]), amount_text),
    "stake": st.one_of(good_stake, good_stake, amount_text),
    "card": st.one_of(st.sampled_from(DECK_TEXT), card_text),
    "physical": st.sampled_from(["", "on", "0"]),
    "reason": st.sampled_from(["club night", "", " ", "new\nodds"]),
    "bet": st.one_of(good_bet, good_bet, bet_text),
    "key": st.one_of(st.sampled_from(GOOD_KEYS), st.sampled_from(GOOD_KEYS), keys, any_text),
    "row": row_text,
}


def _field(name: str) -> st.SearchStrategy[str | None]:
    plausible = FIELD_VALUES.get(name, generic_value)
    return st.one_of(plausible, plausible, plausible, plausible, st.none(), generic_value)


uploads = st.one_of(
    st.none(),
    st.one_of(paytable_document.map(to_toml), toml_garbage).map(str.encode),
    st.binary(max_size=40),
    st.just(b"name = 'x'\n" + b"#" * 70_000),
)
"""Club files of every kind, numbers of any size in them (a chip of 1e-300, odds of 30 digits)."""

FORMS: list[tuple[str, str, tuple[str, ...]]] = [
    ("stranger", "/join", ("code", "seat")),
    ("stranger", "/tables", ("name", "pin", "kind", "procedure", "start", "target", "window",
                             "paytable", "rounds", "scoring")),
    ("stranger", "/tables/preview", ("procedure", "start", "target", "window", "paytable")),
    ("dealer", "/dealer/{code}/players", ("name", "balance")),
    ("dealer", "/dealer/{code}/round/{action}", ("card", "physical")),
    ("dealer", "/dealer/{code}/paytable", ("reason", "paytable")),
    ("dealer", "/dealer/{code}/login", ("pin",)),
    ("player", "/play/{code}/bet", ("bet", "stake", "key")),
    ("player", "/play/{code}/withdraw", ("bet", "key")),
    ("player", "/play/{code}/marker", ("row",)),
]  # fmt: skip
ACTIONS = ["open", "centre", "target", "close", "deal", "deal", "deal", "void", "settle", "nope"]


@settings(max_examples=WEB_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    form=st.sampled_from(FORMS),
    action=st.sampled_from(ACTIONS),
    code=st.one_of(*[st.just("CODE")] * 8, st.sampled_from(["nosuch", "ZZ ZZ", "%2F", "ф"])),
    csrf=st.sampled_from(["none", "field", "header", "header", "header", "header"]),
    htmx=st.booleans(),
    lang=st.sampled_from(LANGS),
    upload=uploads,
)
def test_web_forms_answer_with_one_sentence(
    web: Web, data: st.DataObject, form: tuple[str, str, tuple[str, ...]], action: str,
    code: str, csrf: str, htmx: bool, lang: str, upload: bytes | None,
) -> None:  # fmt: skip
    """Any form posted to the pages — fields missing, empty, huge, unicode, junk; with or
    without the CSRF token; as htmx or not; in any language — is answered without a 500 or
    a traceback, and a refusal is one sentence in the #errors region or the error page."""
    who, path, names = form
    client = {"dealer": web.dealer, "player": web.player, "stranger": web.stranger}[who]
    fields: dict[str, str] = {}
    for name in names:
        value = data.draw(_field(name), label=name)
        if value is not None:
            fields[name] = value.replace("CODE", web.code)
    extra_field = data.draw(st.none() | st.tuples(one_line_text, generic_value), label="extra")
    if extra_field is not None:
        fields.setdefault(*extra_field)
    url = path.format(code=code.replace("CODE", web.code), action=action) + lang
    headers = {"HX-Request": "true"} if htmx else {}
    if csrf == "header":
        headers["X-CSRF-Token"] = web.csrf[id(client)]
    elif csrf == "field":
        fields["csrf_token"] = web.csrf[id(client)]
    files = None
    if upload is not None and "paytable" in names:
        files = {"paytable_file": ("club.toml", upload, "text/plain")}
    response = client.post(url, data=fields, files=files, headers=headers, follow_redirects=False)
    web.sync()
    event(f"status {response.status_code}")
    assert_answer(response, list(fields.values()))


json_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.integers(),
    st.floats() | st.sampled_from([float("nan"), float("inf")]),
    any_text, amount_text, bet_text, card_text,
)  # fmt: skip
json_value = st.recursive(
    json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(one_line_text, inner, max_size=3),
    max_leaves=6,
)
API_KEYS = ["name", "pin", "kind", "procedure", "paytable", "rounds", "balance", "physical"]
API_KEYS += ["card", "bet", "stake", "key", "row", "start", "target", "window"]
API: dict[tuple[str, str], tuple[str, ...]] = {
    ("POST", "/api/tables"): ("name", "pin", "kind", "procedure", "paytable", "rounds"),
    ("POST", "/api/tables/{code}/players"): ("name", "balance"),
    ("POST", "/api/tables/{code}/join"): ("seat_code",),
    ("POST", "/api/tables/{code}/login"): ("pin",),
    ("POST", "/api/tables/{code}/cash"): ("name", "amount", "action", "reason"),
    ("POST", "/api/tables/{code}/seats/{action}"): ("name", "reason"),
    ("GET", "/api/tables/{code}/statement"): (),
    ("GET", "/api/tables/{code}/audit"): (),
    ("POST", "/api/tables/{code}/rounds"): ("physical",),
    ("POST", "/api/tables/{code}/actions/{action}"): ("card",),
    ("POST", "/api/tables/{code}/bets"): ("bet", "stake", "key"),
    ("POST", "/api/tables/{code}/markers"): ("row",),
    ("GET", "/api/tables/{code}"): (),
    ("GET", "/api/tables/{code}/rounds/{number}/reveal"): (),
}
"""Each endpoint of the JSON API and the fields its body has."""


@settings(max_examples=WEB_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    endpoint=st.sampled_from(sorted(API)),
    action=st.sampled_from(ACTIONS),
    number=st.one_of(
        st.sampled_from(["1", "2", "0", "-1", "x", "1.5", str(2**63 - 1), str(2**63), "9" * 40]),
        st.integers().map(str),
    ),
    code=st.one_of(*[st.just("CODE")] * 8, st.sampled_from(["nosuch", "code", "ф"])),
    token=st.sampled_from(["none", "forged", "player", "player", "dealer", "dealer", "dealer"]),
    content_type=st.sampled_from(["", "text/plain"] + ["application/json"] * 8),
)
def test_the_json_api_answers_with_one_sentence(
    web: Web, data: st.DataObject, endpoint: tuple[str, str], action: str, number: str,
    code: str, token: str, content_type: str,
) -> None:  # fmt: skip
    """Any request to the JSON API — any JSON (or none), any token, any path — is answered
    without a 500, and a refusal is {"error": one sentence}."""
    method, path = endpoint
    plausible = st.fixed_dictionaries(
        {name: FIELD_VALUES.get(name, generic_value) for name in API[endpoint]}
    )
    junk = st.dictionaries(st.sampled_from(API_KEYS), json_value, max_size=5)
    bodies = st.one_of(plausible, plausible, plausible, junk, json_value, st.binary(max_size=30))
    body = data.draw(bodies, label="body")
    url = path.format(code=code.replace("CODE", web.code), action=action, number=number)
    headers = {"Content-Type": content_type} if content_type else {}
    bearer = {"dealer": web.dealer_token, "player": web.ravi, "forged": "x" * 32}.get(token)
    if bearer is not None:
        headers["Authorization"] = f"Bearer {bearer}"
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = web.stranger.request(method, url, content=content, headers=headers)
    event(f"status {response.status_code}")
    echoed = [str(v) for v in body.values()] if isinstance(body, dict) else []
    assert_answer(response, echoed)


# == 5. the bugs the fuzz found, fixed: what each regression test now guarantees ==========


def _seated_table(balance: str = "500", *, physical: bool = False) -> tuple[Any, str, str]:
    """A betting table (classic, wizard) with Asha seated and a round open."""
    service = TableService(Storage.open("sqlite://"), rng=random.Random(1))
    table = service.create_table(
        name="Bugs", kind="betting", pin="246813", procedure=PROCEDURES["classic"],
        paytable=PAYTABLES["wizard"],
    )  # fmt: skip
    asha = service.join(
        table.code, service.admit_player(table.code, table.dealer_token, "Asha", balance)
    )
    service.open_round(table.code, table.dealer_token, physical=physical)
    return service, table, asha


def test_a_vanishing_stake_is_refused_and_the_table_plays_on() -> None:
    """place_bet(stake="1e-2000000") must be refused (BetError) and change nothing."""
    service, table, asha = _seated_table()
    try:
        placed = service.place_bet(table.code, asha, "andar", "1e-2000000", key="k")
    except BetError:
        placed = None
    assert placed is None, f"accepted: {placed}"  # once: PlacedBet(stake=Decimal('0'))
    service.state(table.code)  # once: BetError "The stake 0 must be greater than zero."


def test_a_tiny_stake_is_refused_in_a_short_sentence() -> None:
    service, table, asha = _seated_table()
    with pytest.raises(BetError) as refused:
        service.place_bet(table.code, asha, "andar", "1e-100000", key="k")
    assert len(str(refused.value)) < MAX_SENTENCE, len(str(refused.value))


def test_a_huge_stake_is_refused_with_a_sentence() -> None:
    service, table, asha = _seated_table()
    with pytest.raises(BetError):
        service.place_bet(table.code, asha, "andar", "1e30", key="k")


def test_a_huge_balance_is_refused_with_a_sentence() -> None:
    service, table, _ = _seated_table()
    with pytest.raises(AndarBaharError):
        service.admit_player(table.code, table.dealer_token, "Ravi", "1e30")


def test_amounts_past_15_digits_are_refused_at_the_door() -> None:
    """Regression: amounts past 15 digits are refused at the door, so no settlement can overflow."""
    with pytest.raises(BetError, match="out of range"):
        _seated_table("9" * 28, physical=True)


def test_a_chip_below_a_millionth_is_refused() -> None:
    """Regression: a chip below a millionth is refused when the file is read."""
    with pytest.raises(PaytableError, match="chip"):
        load_paytable(
            'name = "club"\nchip = "0.000000000000000000000000001"\n'
            '[main]\nandar = "1 to 1"\nbahar = "1 to 1"\n'
        )


def test_odds_past_28_digits_are_refused_naming_the_entry() -> None:
    """Regression: odds with too many digits are refused, naming the entry."""
    with pytest.raises(PaytableError, match=r"main\.andar"):
        load_paytable(
            'name = "club"\n[main]\nandar = "10000000000000000000000000000 to 1"\nbahar = 1\n'
        )


def test_odds_with_more_digits_than_a_paytable_holds_are_refused() -> None:
    """Regression: odds with more digits than a paytable can hold are refused."""
    with pytest.raises(PaytableError):
        load_paytable(
            'name = "club"\n[main]\nandar = "1234567890123456789012345.123456 to 1"\nbahar = 1\n'
        )


@pytest.mark.parametrize("escaped", ["\\n", "\\u007f", "\\u001b", "\\u0085"])
def test_to_toml_escapes_control_characters(escaped: str) -> None:
    """A paytable name with a control character (U+007F once made every page answer 400)."""
    table = load_paytable(f'name = "a{escaped}b"\n[main]\nandar = 1\nbahar = 1\n')
    service = TableService(Storage.open("sqlite://"))
    created = service.create_table(
        name="x", kind="betting", pin="246813", procedure=PROCEDURES["classic"], paytable=table
    )
    assert service.state(created.code).paytable == table  # once: "table is not valid TOML"
    assert load_paytable(table.to_toml()) == table


@pytest.mark.parametrize("odds", ["nan", "inf", "-inf"])
def test_nan_or_infinite_odds_are_refused_naming_the_entry(odds: str) -> None:
    problems = check_paytable(f'name = "club"\n[main]\nandar = {odds}\nbahar = 1\n')
    assert problems and "main.andar" in str(problems[0])


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda: Bet.parse("cards:" + "1" * 4301), id="Bet.parse"),
        pytest.param(lambda: Odds.parse("1/" + "1" * 4301), id="Odds.parse"),
        pytest.param(
            lambda: check_paytable('name = "x"\nchip = ' + "1" * 4301 + "\n"), id="decimal-int"
        ),
        pytest.param(
            lambda: check_paytable('name = "x"\nchip = 0x' + "f" * 4000 + "\n"), id="hex-chip"
        ),
        pytest.param(
            lambda: load_procedure('name = "x"\nrounds = 0x' + "f" * 4000), id="hex-rounds"
        ),
    ],
)
def test_integers_past_4300_digits_are_refused_with_a_sentence(call: Callable[[], Any]) -> None:
    try:
        result = call()
    except AndarBaharError:
        return
    assert isinstance(result, list) and result  # check_paytable lists the problem


def test_a_huge_round_number_is_refused_with_a_sentence() -> None:
    service, table, _ = _seated_table()
    with pytest.raises(AndarBaharError):
        service.reveal(table.code, 2**64)


def test_error_sentences_quote_line_breaks_escaped() -> None:
    with pytest.raises(CardError) as refused:
        Card.parse("Q\nX")
    assert len(str(refused.value).splitlines()) == 1, str(refused.value)


@pytest.mark.parametrize("text", ['name = " "', 'name = "x"\nrounds = 0'])
def test_procedure_errors_name_the_file(text: str) -> None:
    with pytest.raises(ProcedureError) as refused:
        load_procedure(text, source="club.toml")
    assert "club.toml" in str(refused.value), str(refused.value)


def test_a_balance_of_minus_zero_is_never_shown_as_minus_zero() -> None:
    service, table, _ = _seated_table()
    ravi = service.join(
        table.code, service.admit_player(table.code, table.dealer_token, "Ravi", "-0")
    )
    with pytest.raises(BetError) as refused:
        service.place_bet(table.code, ravi, "andar", "5", key="k")
    assert "-0" not in str(refused.value), str(refused.value)


@pytest.fixture
def fragile_site() -> Iterator[tuple[TestClient, Web]]:
    """The web table with its server's exceptions answered as they are in production."""
    site = Web()
    client = TestClient(site.app, raise_server_exceptions=False)
    client.cookies = site.player.cookies
    yield client, site
    site.app.state.service.storage.close()


@pytest.mark.parametrize("case", ["stake", "upload"])
def test_web_forms_refuse_a_huge_stake_and_nan_odds_with_400(
    fragile_site: tuple[TestClient, Web], case: str
) -> None:
    client, site = fragile_site
    headers = {"X-CSRF-Token": site.csrf[id(site.player)]}
    if case == "stake":
        response = client.post(
            f"/play/{site.code}/bet", data={"bet": "andar", "stake": "1e30", "key": "k"},
            headers=headers, follow_redirects=False,
        )  # fmt: skip
    else:
        bad = b'name = "club"\n[main]\nandar = nan\nbahar = 1\n'
        response = client.post(
            "/tables", data={"name": "x", "pin": "246813"}, headers=headers,
            files={"paytable_file": ("club.toml", bad, "text/plain")}, follow_redirects=False,
        )  # fmt: skip
    assert response.status_code == 400, response.status_code
