"""Learners with a code: their names, the rules they practise on, their answers, their
schools.

A learner gets a code (:mod:`~andar_bahar.storage.learner_codes`) and a name (the names'
rule, :func:`~andar_bahar.engine.names.check_name`); only the code's hash is kept. Every
answer is a row of ``drill_attempts`` with the learner's id, so the browser's drills, the
dealer school and the terminal's drills (under the code) make one progress. An answer
names what was answered (``drill``): the same answer sent twice counts once. A session is
a sitting: answers less than :data:`SESSION_GAP` apart.

A learner joins a table's *school* with the table's code; that table's dealer sees the
learners of its school (:meth:`LearnerBook.school`). Nothing here touches a table's money:
no ledger row, no round, no audit entry.

>>> from datetime import UTC, datetime
>>> from decimal import Decimal
>>> from andar_bahar.storage import Storage
>>> with Storage.open("sqlite://") as storage:
...     book = LearnerBook(storage, now=lambda: datetime(2025, 3, 1, 18, 30, tzinfo=UTC))
...     with book.transaction() as session:
...         tamar, code = book.enrol(session, "  Tamar ")
...     book.record(tamar.id, "layout", [(True, Decimal("4.5"))], drill="d1")
...     book.record(tamar.id, "layout", [(True, Decimal("4.5"))], drill="d1")  # counted once
...     storage.record_drill(code, "pay", False, Decimal(9), session="terminal")
...     [(s.kind, s.attempts, s.correct) for s in book.progress(tamar.id)]
True
False
[('layout', 1, 1), ('pay', 1, 0)]
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from sqlalchemy import case, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.names import check_name
from andar_bahar.engine.paytables import Paytable, load_paytable
from andar_bahar.engine.rules import Procedure
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage import READ_ONLY_OPTION, DrillStats, Storage, StorageError, utc_now
from andar_bahar.storage.learner_codes import code_hash, code_key, code_text, learner_of, new_code
from andar_bahar.storage.models import ClubTableRow, DrillAttemptRow, LearnerRow, LearnerTableRow
from andar_bahar.storage.records import seconds_of

__all__ = [
    "MAX_LEARNER_NAME",
    "MAX_SECONDS",
    "SESSION_GAP",
    "KindStats",
    "Learner",
    "LearnerBook",
    "LearnerSummary",
]

MAX_LEARNER_NAME = 40
"""The longest learner's name (a player's at a table is as long)."""
SESSION_GAP = timedelta(minutes=30)
"""Answers further apart than this begin a new session."""
MAX_SECONDS = Decimal(600)
"""The longest time one answer counts: a drill left open over lunch counts ten minutes."""


@dataclass(frozen=True, slots=True)
class Learner:
    """A learner: the name, the school's level reached, the rules practised on."""

    id: int
    name: str
    level: int
    procedure: Procedure | None
    """``None``: the presets, varied."""
    paytable: Paytable | None
    """``None``: the presets, varied."""
    rules_source: str | None
    created_at: datetime
    rules_key: str
    """A short fingerprint of the rules: a drill shown under other rules is not checked."""


@dataclass(frozen=True, slots=True)
class KindStats:
    """A learner's answers of one kind, every session together."""

    kind: str
    attempts: int
    correct: int
    mean_seconds: Decimal
    """Rounded to the millisecond (half to even)."""
    last_at: datetime

    @property
    def accuracy(self) -> Fraction:
        return Fraction(self.correct, self.attempts)


@dataclass(frozen=True, slots=True)
class LearnerSummary:
    """What a club's trainer sees of a learner: level, answers by kind, schools."""

    id: int
    name: str
    level: int
    created_at: datetime
    sessions: int
    kinds: tuple[KindStats, ...]
    schools: tuple[str, ...]
    """The codes of the tables whose school the learner joined."""

    @property
    def attempts(self) -> int:
        return sum(k.attempts for k in self.kinds)

    @property
    def accuracy(self) -> Fraction | None:
        total = self.attempts
        return Fraction(sum(k.correct for k in self.kinds), total) if total else None

    @property
    def last_at(self) -> datetime | None:
        return max((k.last_at for k in self.kinds), default=None)


def _rules_key(procedure_json: str | None, paytable_toml: str | None) -> str:
    text = f"{procedure_json or ''}\n{paytable_toml or ''}"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _learner(row: LearnerRow) -> Learner:
    source = f"learner {row.id}"
    procedure = (
        Procedure.from_dict(json.loads(row.procedure_json), source=source)
        if row.procedure_json
        else None
    )
    paytable = load_paytable(row.paytable_toml, source=source) if row.paytable_toml else None
    return Learner(
        row.id, row.name, row.level, procedure, paytable, row.rules_source, row.created_at,
        _rules_key(row.procedure_json, row.paytable_toml),
    )  # fmt: skip


def check_learner_name(text: str) -> str:
    """*text* as a learner's name (the names' rule), or one sentence why it is none."""
    if any(unicodedata.category(ch) == "Cc" for ch in text.strip()):
        raise ParameterError(
            Message(
                N_(
                    "A name cannot hold a control character (a tab, a line break …): type it on"
                    " one line, without them."
                )
            )
        )
    name = check_name(text)
    if not name:
        raise ParameterError(Message(N_("A learner needs a name: type the name you go by.")))
    if len(name) > MAX_LEARNER_NAME:
        raise ParameterError(Message(N_("A name has at most {n} characters."), n=MAX_LEARNER_NAME))
    return name


class LearnerBook:
    """The learners of the history, their answers and their schools."""

    def __init__(self, storage: Storage, *, now: Callable[[], datetime] = utc_now) -> None:
        self.storage = storage
        self._sessions = sessionmaker(storage.engine, expire_on_commit=False)
        self._readers = sessionmaker(
            storage.engine.execution_options(**{READ_ONLY_OPTION: True}), expire_on_commit=False
        )
        self._now = now

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A write transaction (a caller may count its own attempts in it too)."""
        with self._sessions.begin() as session:
            yield session

    @contextmanager
    def _reading(self) -> Iterator[Session]:
        with self._readers.begin() as session:
            yield session

    # -- who -------------------------------------------------------------------------

    def enrol(self, session: Session, name: str) -> tuple[Learner, str]:
        """A new learner called *name*, in *session*: the learner and the code (``ABC-DEF``)."""
        checked = check_learner_name(name)
        while True:
            key = new_code()
            if learner_of(session, key) is None:
                break
        row = LearnerRow(code_hash=code_hash(key), name=checked, level=1, created_at=self._now())
        session.add(row)
        session.flush()
        return _learner(row), code_text(key)

    def find(self, session: Session, typed: str) -> Learner | None:
        """The learner whose code is *typed* (any spacing or case), ``None``: nobody's."""
        key = code_key(typed)
        row = learner_of(session, key) if key is not None else None
        return _learner(row) if row is not None else None

    def learner(self, key: str) -> Learner | None:
        """The learner of the code key *key* (a device's cookie), ``None``: nobody's now."""
        with self._reading() as session:
            row = learner_of(session, key)
            return _learner(row) if row is not None else None

    # -- what they practise on -----------------------------------------------------------

    def choose_rules(
        self,
        learner_id: int,
        procedure: Procedure | None,
        paytable: Paytable | None,
        source: str | None,
    ) -> Learner:
        """The rules the learner practises on from now (``None``: the presets, varied)."""
        with self.transaction() as session:
            row = self._row(session, learner_id)
            row.procedure_json = json.dumps(procedure.to_dict()) if procedure else None
            row.paytable_toml = paytable.to_toml() if paytable else None
            row.rules_source = source
            return _learner(row)

    def reach_level(self, learner_id: int, level: int) -> int:
        """The school's level is *level* now, if it is above the one reached; the level."""
        with self.transaction() as session:
            row = self._row(session, learner_id)
            row.level = max(row.level, level)
            return row.level

    # -- answers -----------------------------------------------------------------------

    def record(
        self,
        learner_id: int,
        kind: str,
        answers: Sequence[tuple[bool, Decimal]],
        *,
        drill: str,
        level: int | None = None,
    ) -> bool:
        """Store the answers of one drill: each right or wrong, with its seconds (at most
        :data:`MAX_SECONDS`); ``False`` (nothing stored) if *drill* was stored already."""
        now = self._now()
        try:
            with self.transaction() as session:
                row = self._row(session, learner_id)
                sitting = self._sitting(session, learner_id, now)
                for number, (correct, seconds) in enumerate(answers, start=1):
                    counted = min(max(Decimal(seconds), Decimal(0)), MAX_SECONDS)
                    session.add(
                        DrillAttemptRow(
                            learner=row.name, session=sitting, kind=kind, correct=bool(correct),
                            milliseconds=round(Fraction(counted) * 1000), created_at=now,
                            learner_id=learner_id, level=level, drill=f"{drill}:{number}"[:80],
                        )
                    )  # fmt: skip
        except IntegrityError:  # the same drill again (the unique learner and drill)
            return False
        return True

    @staticmethod
    def _sitting(session: Session, learner_id: int, now: datetime) -> str:
        last = session.execute(
            select(DrillAttemptRow.session, DrillAttemptRow.created_at)
            .where(DrillAttemptRow.learner_id == learner_id)
            .order_by(DrillAttemptRow.created_at.desc(), DrillAttemptRow.id.desc())
            .limit(1)
        ).first()
        if last is not None and now - last[1] <= SESSION_GAP:
            return str(last[0])
        return uuid.uuid4().hex[:12]

    def progress(self, learner_id: int) -> list[DrillStats]:
        """Session by session, kind by kind (as the terminal shows a learner's progress)."""
        return self.storage.progress_of(DrillAttemptRow.learner_id == learner_id)

    # -- schools -----------------------------------------------------------------------

    def join_school(self, learner_id: int, table_code: str) -> str:
        """The learner joins the school of table *table_code* (again: nothing changes);
        the table's name."""
        with self.transaction() as session:
            self._row(session, learner_id)
            table = _table(session, table_code)
            joined = _joined(session, learner_id, table.id)
            if joined is None:
                session.add(
                    LearnerTableRow(learner_id=learner_id, table_id=table.id, joined_at=self._now())
                )
            return table.name

    def leave_school(self, learner_id: int, table_code: str) -> None:
        """The learner is no longer in table *table_code*'s school (their answers stay)."""
        with self.transaction() as session:
            table = _table(session, table_code)
            joined = _joined(session, learner_id, table.id)
            if joined is not None:
                session.delete(joined)

    def schools(self, learner_id: int) -> list[tuple[str, str]]:
        """The tables whose school the learner joined: (code, name), first joined first."""
        with self._reading() as session:
            rows = session.execute(
                select(ClubTableRow.code, ClubTableRow.name)
                .join(LearnerTableRow, LearnerTableRow.table_id == ClubTableRow.id)
                .where(LearnerTableRow.learner_id == learner_id)
                .order_by(LearnerTableRow.joined_at, LearnerTableRow.id)
            )
            return [(str(code), str(name)) for code, name in rows]

    def school_rules(self, learner_id: int, table_code: str) -> tuple[Procedure, Paytable]:
        """The procedure and the paytable in force at a table of the learner's schools."""
        with self._reading() as session:
            table = _table(session, table_code)
            joined = _joined(session, learner_id, table.id)
            if joined is None:
                raise ParameterError(
                    Message(
                        N_("Join the school of table {code} first, to practise on its rules."),
                        code=table.code,
                    )
                )
            source = f"table {table.code}"
            procedure = Procedure.from_dict(json.loads(table.procedure_json), source=source)
            return procedure, load_paytable(table.paytable_toml, source=source)

    def school(self, table_code: str) -> list[LearnerSummary]:
        """The learners in table *table_code*'s school, by name."""
        with self._reading() as session:
            table = _table(session, table_code)
            ids = session.scalars(
                select(LearnerTableRow.learner_id).where(LearnerTableRow.table_id == table.id)
            ).all()
            return self._summaries(session, list(ids))

    def everyone(self) -> list[LearnerSummary]:
        """Every learner with a code, by name."""
        with self._reading() as session:
            return self._summaries(session, None)

    # -- helpers -----------------------------------------------------------------------

    def _summaries(self, session: Session, ids: list[int] | None) -> list[LearnerSummary]:
        learners = select(LearnerRow)
        if ids is not None:
            learners = learners.where(LearnerRow.id.in_(ids))
        rows = session.scalars(learners.order_by(LearnerRow.name, LearnerRow.id)).all()
        wanted = [row.id for row in rows]
        attempt = DrillAttemptRow
        per_kind = session.execute(
            select(
                attempt.learner_id, attempt.kind, func.count(attempt.id),
                func.sum(case((attempt.correct, 1), else_=0)),
                func.sum(attempt.milliseconds), func.max(attempt.created_at),
            )
            .where(attempt.learner_id.in_(wanted))
            .group_by(attempt.learner_id, attempt.kind)
            .order_by(attempt.learner_id, attempt.kind)
        ).all()  # fmt: skip
        sessions = {
            learner_id: int(count)
            for learner_id, count in session.execute(
                select(attempt.learner_id, func.count(func.distinct(attempt.session)))
                .where(attempt.learner_id.in_(wanted))
                .group_by(attempt.learner_id)
            )
        }
        schools: dict[int, list[str]] = {}
        for learner_id, code in session.execute(
            select(LearnerTableRow.learner_id, ClubTableRow.code)
            .join(ClubTableRow, LearnerTableRow.table_id == ClubTableRow.id)
            .where(LearnerTableRow.learner_id.in_(wanted))
            .order_by(LearnerTableRow.joined_at, LearnerTableRow.id)
        ):
            schools.setdefault(learner_id, []).append(code)
        kinds: dict[int, list[KindStats]] = {}
        for learner_id, kind, count, right, total, last in per_kind:
            mean = seconds_of(round(Fraction(int(total), int(count))))
            kinds.setdefault(learner_id, []).append(
                KindStats(kind, int(count), int(right or 0), mean, last)
            )
        return [
            LearnerSummary(
                row.id,
                row.name,
                row.level,
                row.created_at,
                int(sessions.get(row.id, 0)),
                tuple(kinds.get(row.id, ())),
                tuple(schools.get(row.id, ())),
            )
            for row in rows
        ]

    @staticmethod
    def _row(session: Session, learner_id: int) -> LearnerRow:
        row = session.get(LearnerRow, learner_id)
        if row is None:
            raise StorageError(
                Message(N_("There is no learner {id} in the history."), id=learner_id)
            )
        return row


def _table(session: Session, code: str) -> ClubTableRow:
    table = session.scalars(
        select(ClubTableRow).where(ClubTableRow.code == code.strip().upper())
    ).one_or_none()
    if table is None or "\x00" in code:
        raise ParameterError(
            Message(N_("There is no table with the code {code}: check the code."), code=code)
        )
    return table


def _joined(session: Session, learner_id: int, table_id: int) -> LearnerTableRow | None:
    """The learner's place in the table's school (``None``: not in it)."""
    return session.scalars(
        select(LearnerTableRow).where(
            LearnerTableRow.learner_id == learner_id, LearnerTableRow.table_id == table_id
        )
    ).first()
