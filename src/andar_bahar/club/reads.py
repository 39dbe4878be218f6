"""What pages show of a table: its state, its last rounds, revealed decks, audit and ledger sums.

:class:`Reads` is a part of :class:`~andar_bahar.club.service.TableService`. Nothing here
shows an undealt card: a deck is revealed only once its round is settled.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from andar_bahar.club.cashier import PlayerStatement, player_account
from andar_bahar.club.store import Store, ledger_sum
from andar_bahar.club.values import (
    PlayerRound,
    PlayerState,
    PublicRound,
    Reveal,
    RoundSummary,
    SettledRound,
    TableSnapshot,
    TableState,
    centre_of_record,
    player_round,
    settled_bets,
    settled_round,
    stored_paytable,
    stored_procedure,
)
from andar_bahar.engine.errors import AccessError, ActionError
from andar_bahar.engine.names import printable
from andar_bahar.engine.round import Round
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage.models import (
    AuditRow,
    ClubTableRow,
    DealerSessionRow,
    LedgerRow,
    TablePlayerRow,
    TableRoundRow,
)

__all__ = ["NIGHT_PAGE", "RECENT", "Onlooker", "PlayerNight", "Reads", "visible_to"]

RECENT = 10
"""How many of the last rounds pages show (a player recalls the last ten)."""
NIGHT_PAGE = 50
"""A player's rounds on one page of their night (:meth:`Reads.player_night`)."""

# The reads of a whole table, built once with bound parameters (see store.py).
JOINED = select(TablePlayerRow.name, TablePlayerRow.token_hash).where(
    TablePlayerRow.table_id == bindparam("table"), TablePlayerRow.released_at.is_(None)
)
RECENT_ROUNDS = (
    select(
        TableRoundRow.id,
        TableRoundRow.number,
        TableRoundRow.status,
        TableRoundRow.winner,
        TableRoundRow.cards_dealt,
        TableRoundRow.commitment,
        TableRoundRow.settled_at,
    )
    .where(TableRoundRow.table_id == bindparam("table"))
    .order_by(TableRoundRow.number.desc())
    .limit(bindparam("limit"))
)
SETTLED_ROUNDS = (
    select(TableRoundRow.id, TableRoundRow.number, TableRoundRow.winner, TableRoundRow.cards_dealt)
    .where(TableRoundRow.table_id == bindparam("table"), TableRoundRow.status == "settled")
    .order_by(TableRoundRow.number.desc())
    .limit(bindparam("limit"))
)
RECORD = select(TableRoundRow.record).where(TableRoundRow.id == bindparam("round"))
ACCOUNT = (
    select(LedgerRow.kind, func.sum(LedgerRow.amount))
    .where(LedgerRow.player_id == bindparam("player"))
    .group_by(LedgerRow.kind)
)
_PLAYED = (
    select(LedgerRow.round_id)
    .where(LedgerRow.player_id == bindparam("player"), LedgerRow.round_id.is_not(None))
    .distinct()
)
PLAYED_COUNT = select(func.count()).select_from(_PLAYED.subquery())
PLAYED_ROUNDS = (
    select(TableRoundRow.id, TableRoundRow.number, TableRoundRow.winner, TableRoundRow.cards_dealt)
    .where(TableRoundRow.id.in_(_PLAYED))
    .order_by(TableRoundRow.number.desc())
    .limit(bindparam("limit"))
    .offset(bindparam("skip"))
)
"""A player's rounds: those with a posting of theirs (a stake taken at settlement)."""


@dataclass(frozen=True, slots=True)
class PlayerNight:
    """A player's whole night at a table, from the ledger: the totals, and one page of the
    rounds they bet in (newest first), each with its bets as the round's record paid them."""

    account: PlayerStatement
    rounds: tuple[PlayerRound, ...]
    page: int
    pages: int
    """How many pages the rounds fill (at least one)."""


@dataclass(frozen=True, slots=True)
class Onlooker:
    """Who looks at a table: its dealer, one seated player (by name), or anyone."""

    dealer: bool = False
    player: str | None = None

    @property
    def public(self) -> bool:
        return not self.dealer and self.player is None


def visible_to(state: TableState, onlooker: Onlooker) -> TableState:
    """What *onlooker* may see of *state* (the one rule for the API, the pages and live updates).

    The dealer sees everything; a player sees their own balance, bets and settlement;
    anyone else sees the table, the procedure, the round and its dealt cards, the
    commitment, markers and tokens of a lesson — never a balance nor anyone's bets.
    No one ever sees an undealt card: :class:`TableState` holds none.
    """
    if onlooker.dealer:
        return state
    mine = onlooker.player
    players = tuple(p for p in state.players if p.name == mine)
    if state.teaching:
        players = state.players  # tokens of a lesson are its public score; no chips
    return replace(state, players=players, round=_round_for(state.round, mine))


def _round_for(rnd: PublicRound | None, player: str | None) -> PublicRound | None:
    if rnd is None:
        return None
    settlement = rnd.settlement
    if settlement is not None:
        settlement = replace(
            settlement, bets=tuple(b for b in settlement.bets if b.player == player)
        )
    return replace(
        rnd,
        wagers=tuple(w for w in rnd.wagers if w[0] == player),
        settlement=settlement,
        centre_paid=tuple(b for b in rnd.centre_paid if b.player == player),
    )


class Reads:
    """The table as pages and the API show it: reads only, none of which waits for the
    writer (each in a read transaction of its own)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def view(self, code: str, *, dealer_token: str = "", player_token: str = "") -> TableState:
        """The table as the holder of a token sees it (see :func:`visible_to`)."""
        with self.store.transactions.read() as session:
            table = self.store.table(session, code, lock=False)
            dealer = bool(dealer_token) and self.store.dealer_session(session, table, dealer_token)
            name = self.store.player(session, table, player_token).name if player_token else None
        return visible_to(self.state(code), Onlooker(dealer=dealer, player=name))

    def state(self, code: str) -> TableState:
        """The whole table, as its dealer sees it (no undealt card is ever part of it).

        Whoever else looks gets :func:`visible_to` of it.
        """
        return self.snapshot(code)[0]

    def snapshot(self, code: str, limit: int = RECENT) -> tuple[TableState, list[RoundSummary]]:
        """The whole table and its last rounds, read together (see :meth:`table_snapshot`)."""
        kept = self.table_snapshot(code, limit)
        return kept.state, kept.recent

    def table_snapshot(
        self, code: str, limit: int = RECENT, *, known: int | None = None
    ) -> TableSnapshot:
        """The whole table, its last *limit* rounds and its last *limit* settled rounds, read
        together (one transaction).

        Kept in memory with the table's version: while the version in the database is
        the one it was kept at (one indexed read of one row), nothing else is read; a
        change made in this process — a step of the round, a round opened or settled — moves
        it on without a read.
        *known*: a version the caller knows the table has reached (a change it committed,
        an event it was sent): the table kept at that version or a later one is taken
        without reading even its version — it may be older than the database's, never
        older than *known*.
        """
        if known is not None:
            kept = self._kept_at_least(code, limit, known)
            if kept is not None:
                return kept
        found = self.store.kept.version_of(code)
        if found is not None:
            kept = self.store.kept.snapshots.get((found[0], limit))
            if kept is not None and kept.state.version == found[1]:
                return kept
        with self.store.transactions.read() as session:
            table = self.store.table(session, code, lock=False)
            kept = self.store.kept.snapshots.get((table.id, limit))
            if kept is not None and kept.state.version == table.version:
                return kept
            state = self._state(session, table)
            fresh = TableSnapshot(
                state,
                self._recent(session, table, limit, state),
                self._settled(session, table, limit),
            )
            if kept is None or kept.state.version < table.version:
                self.store.kept.snapshots[(table.id, limit)] = fresh
            self.store.kept.ids[table.code] = table.id
            return fresh

    def _kept_at_least(self, code: str, limit: int, version: int) -> TableSnapshot | None:
        """Table *code* as kept, if kept at *version* or later (else ``None``: read it)."""
        table_id = self.store.kept.ids.get(code.strip().upper())
        kept = self.store.kept.snapshots.get((table_id, limit)) if table_id is not None else None
        return kept if kept is not None and kept.state.version >= version else None

    def _state(self, session: Session, table: ClubTableRow) -> TableState:
        row = self.store.current(session, table)
        public = self.store.kept.public_of(table, row) if row is not None else None
        paytable = stored_paytable(table.paytable_toml)
        settled = self.store.rounds_played(session, table)
        tokens = self._scores(session, table) if table.kind == "teaching" and table.scoring else {}
        accounts = self.store.accounts(session, table)
        joined = {
            name: token is not None for name, token in session.execute(JOINED, {"table": table.id})
        }
        return TableState(
            code=table.code,
            name=table.name,
            kind=table.kind,
            procedure=stored_procedure(table.procedure_json),
            paytable=paytable,
            players=tuple(
                PlayerState(name, joined[name], balance, tokens.get(name, 0), result)
                for name, (balance, result) in accounts.items()
                if name in joined
            ),
            round=public,
            rounds_settled=settled,
            rounds_planned=table.rounds_planned,
            scoring=table.scoring,
            version=table.version,
            new_pays=public is not None and public.paytable != paytable,
            closed=table.closed_at is not None,
        )

    def _scores(self, session: Session, table: ClubTableRow) -> dict[str, int]:
        """Teaching tokens: one for each marker on the winning row of a settled round."""
        tokens: dict[str, int] = {}
        rows = session.execute(
            select(TableRoundRow.id, TableRoundRow.winner).where(
                TableRoundRow.table_id == table.id, TableRoundRow.status == "settled"
            )
        ).all()
        for round_id, winner in rows:
            if winner not in ("andar", "bahar"):
                continue
            markers = self.store.kept.markers.get(round_id)
            if markers is None:  # a settled round never changes: read its record once
                record = session.scalar(
                    select(TableRoundRow.record).where(TableRoundRow.id == round_id)
                )
                markers = {n: r.value for n, r in Round.loads(record or "").markers.items()}
                self.store.kept.markers[round_id] = markers
            for name, marked in markers.items():
                tokens[name] = tokens.get(name, 0) + int(marked == winner)
        return tokens

    def recent_rounds(self, code: str, limit: int = 10) -> list[RoundSummary]:
        """The table's last rounds, newest first (a player recalls the last ten)."""
        with self.store.transactions.read() as session:
            return self._recent(session, self.store.table(session, code, lock=False), limit)

    def _recent(
        self, session: Session, table: ClubTableRow, limit: int, state: TableState | None = None
    ) -> list[RoundSummary]:
        rows = session.execute(RECENT_ROUNDS, {"table": table.id, "limit": limit}).all()
        current = state.round if state is not None else None
        summaries = []
        for round_id, number, status, winner, dealt, commitment, settled_at in rows:
            if current is not None and current.number == number:
                centre = current.centre
            elif round_id in self.store.kept.centres:  # a settled round never changes
                centre = self.store.kept.centres[round_id]
            else:
                record = session.scalar(RECORD, {"round": round_id})
                centre = centre_of_record(record or "{}")
                if status == "settled":
                    self.store.kept.centres[round_id] = centre
            summaries.append(
                RoundSummary(number, status, winner, dealt, centre, commitment, settled_at)
            )
        return summaries

    def player_rounds(self, code: str, player: str, limit: int = 20) -> list[PlayerRound]:
        """*player*'s bets and returns in the table's last *limit* settled rounds, newest first
        (only the rounds where they bet): their page's own history of the night."""
        return self.table_snapshot(code, limit).player_rounds(player)

    def player_night(self, code: str, player_token: str, page: int = 1) -> PlayerNight:
        """The night of the player whose phone holds *player_token*: every posting of theirs
        added up by the database (one aggregate), and page *page* of the rounds that have
        a posting of theirs (:data:`NIGHT_PAGE` a page) — the whole night, never a window."""
        with self.store.transactions.read() as session:
            table = self.store.table(session, code, lock=False)
            player = self.store.player(session, table, player_token)
            sums = session.execute(ACCOUNT, {"player": player.id}).all()
            by_kind = {str(kind): Decimal(total) for kind, total in sums}
            account = player_account(printable(player.name), by_kind, released=False)
            count = session.scalar(PLAYED_COUNT, {"player": player.id}) or 0
            pages = max(1, -(-count // NIGHT_PAGE))
            page = min(max(1, page), pages)
            rows = session.execute(
                PLAYED_ROUNDS,
                {"player": player.id, "limit": NIGHT_PAGE, "skip": (page - 1) * NIGHT_PAGE},
            ).all()
            paid = self._read_paid(session, [row.id for row in rows])
        self.store.kept.settled_kept(table.id, paid)  # a page further back: read again
        rounds = tuple(
            player_round(number, winner, cards, paid[round_id], player.name)
            for round_id, number, winner, cards in rows
        )
        return PlayerNight(account, rounds, page, pages)

    def _read_paid(
        self, session: Session, round_ids: list[int]
    ) -> dict[int, tuple[Mapping[str, str], ...]]:
        """Every bet's settlement in the settled rounds *round_ids*, from their records
        (read once while kept: a settled round never changes; see Kept.settled_kept)."""
        kept = self.store.kept.paid
        found = {i: kept[i] for i in round_ids if i in kept}
        missing = [i for i in round_ids if i not in found]
        if missing:
            for round_id, record in session.execute(
                select(TableRoundRow.id, TableRoundRow.record).where(TableRoundRow.id.in_(missing))
            ):
                found[round_id] = kept[round_id] = settled_bets(record)
        return found

    def _settled(
        self, session: Session, table: ClubTableRow, limit: int
    ) -> tuple[SettledRound, ...]:
        """The table's last *limit* settled rounds, newest first, with every bet's settlement."""
        rows = session.execute(SETTLED_ROUNDS, {"table": table.id, "limit": limit}).all()
        paid = self._read_paid(session, [row.id for row in rows])
        settled = tuple(self._settled_round(i, n, w, c, paid[i]) for i, n, w, c in rows)
        self.store.kept.settled_kept(table.id, paid)
        return settled

    def _settled_round(
        self,
        round_id: int,
        number: int,
        winner: str | None,
        cards: int | None,
        paid: tuple[Mapping[str, str], ...],
    ) -> SettledRound:
        kept = self.store.kept.rounds_paid.get(round_id)  # a settled round never changes
        if kept is None:
            kept = self.store.kept.rounds_paid[round_id] = settled_round(
                number, winner, cards, paid
            )
        return kept

    def reveal(self, code: str, number: int) -> Reveal:
        """The deck and salt of a settled round, for anyone to check the commitment."""
        with self.store.transactions.read() as session:
            table = self.store.table(session, code, lock=False)
            row = (
                session.scalars(
                    select(TableRoundRow).where(
                        TableRoundRow.table_id == table.id, TableRoundRow.number == number
                    )
                ).one_or_none()
                if 1 <= number <= 2**31  # a number no round can have never reaches the database
                else None
            )
            if row is None:
                raise ActionError(
                    Message(N_("Table {code} has no round {n}."), code=table.code, n=number)
                )
            if row.status != "settled":
                raise AccessError(
                    Message(
                        N_("The deck of round {n} is shown once the round is settled."), n=number
                    )
                )
            if row.salt is None or row.commitment is None:
                raise ActionError(
                    Message(
                        N_("Round {n} was dealt from a real deck: there is no commitment."),
                        n=number,
                    )
                )
            deck = json.loads(row.record)["deck"]
            rnd = Round.loads(row.record)
            turned = [rnd.centre] if rnd.centre is not None else []
            turned += [d.card for d in rnd.dealt]
            target = rnd.target.value if rnd.target is not None else None
            return Reveal(
                number, deck, row.salt, row.commitment, tuple(str(c) for c in turned), target
            )

    def credentials(self, code: str) -> frozenset[str]:
        """The hashes of the tokens that hold a seat or a dealer's sign-in at *code* now."""
        with self.store.transactions.read() as session:
            table = self.store.table(session, code, lock=False)
            seats = session.scalars(
                select(TablePlayerRow.token_hash).where(
                    TablePlayerRow.table_id == table.id, TablePlayerRow.token_hash.is_not(None)
                )
            ).all()
            dealers = session.scalars(
                select(DealerSessionRow.token_hash).where(DealerSessionRow.table_id == table.id)
            ).all()
            return frozenset(h for h in (*seats, *dealers) if h is not None)

    def audit_log(self, code: str, dealer_token: str) -> list[AuditRow]:
        """Who changed what at the table, oldest first (for its dealer)."""
        with self.store.transactions.read() as session:
            table = self.store.dealer(session, code, dealer_token, lock=False)
            return list(
                session.scalars(
                    select(AuditRow).where(AuditRow.table_id == table.id).order_by(AuditRow.id)
                )
            )

    def round_ledger_sum(self, code: str, number: int) -> Decimal:
        """The sum of a round's ledger entries, house included: always zero."""
        with self.store.transactions.read() as session:
            table = self.store.table(session, code, lock=False)
            round_id = select(TableRoundRow.id).where(
                TableRoundRow.table_id == table.id, TableRoundRow.number == number
            )
            return ledger_sum(session, LedgerRow.round_id == round_id.scalar_subquery())

    def ledger_total(self, code: str) -> Decimal:
        """The sum of every ledger entry of the table: always zero."""
        with self.store.transactions.read() as session:
            table = self.store.table(session, code, lock=False)
            return ledger_sum(session, LedgerRow.table_id == table.id)
