"""A round at a club table: open it, take bets and markers, deal, settle.

A mixin of :class:`~andar_bahar.web.service.TableService`; each method is one
transaction (see :mod:`andar_bahar.web.store`). The shuffled deck is stored
when the round opens, with a random salt; only its SHA-256 commitment is shown
until the round is settled.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable
from decimal import Decimal

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from andar_bahar.engine.cards import Card, Rank, shuffled
from andar_bahar.engine.errors import ActionError, ParameterError
from andar_bahar.engine.money import format_amount
from andar_bahar.engine.paytables import load_paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Procedure
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage.models import IdempotencyRow, TablePlayerRow, TableRoundRow
from andar_bahar.web.cashier import check_balanced, post
from andar_bahar.web.limits import MAX_REASON, RequestConflict, check_bet_return, check_text
from andar_bahar.web.records import (
    PlacedBet,
    PublicRound,
    commitment_of,
    placed_from_json,
    public_round,
)
from andar_bahar.web.store import TableStore

__all__ = ["Dealing"]


class Dealing(TableStore):
    """Open a round, take the players' bets and markers, deal it, and settle it in the ledger."""

    def open_round(self, code: str, dealer_token: str, *, physical: bool = False) -> PublicRound:
        """Shuffle (unless a real deck is typed in), store the deck, show its commitment."""
        with self._tx() as session:
            table = self._dealer(session, code, dealer_token)
            current = self._current(session, table)
            if current is not None and current.status != "settled":
                raise ActionError(
                    Message(N_("Round {n} is still in play: settle it first."), n=current.number)
                )
            if table.kind == "teaching":
                settled = (
                    session.scalar(
                        select(func.count())
                        .select_from(TableRoundRow)
                        .where(
                            TableRoundRow.table_id == table.id,
                            TableRoundRow.status == "settled",
                            TableRoundRow.winner != "void",
                        )
                    )
                    or 0
                )
                if settled >= table.rounds_planned:
                    raise ActionError(
                        Message(
                            N_("The lesson is over: {n} rounds have been played."),
                            n=table.rounds_planned,
                        )
                    )
            procedure = Procedure.from_dict(json.loads(table.procedure_json), source="table")
            paytable = load_paytable(table.paytable_toml, source="table")
            balances = self._balances(session, table) if table.kind == "betting" else None
            deck = None if physical else shuffled(self._rng)
            rnd = Round(procedure, paytable, deck=deck, balances=balances)
            if not procedure.has_centre and not physical:
                rnd.choose_target(self._rng.choice(list(Rank)))
            salt = commitment = None
            if deck is not None:
                salt = secrets.token_hex(16)
                commitment = commitment_of(" ".join(str(c) for c in deck), salt)
            row = TableRoundRow(
                table_id=table.id,
                number=(current.number + 1) if current else 1,
                status="open",
                record=rnd.dumps(),
                salt=salt,
                commitment=commitment,
                winner=None,
                cards_dealt=None,
                opened_at=self._now(),
                settled_at=None,
            )
            session.add(row)
            session.flush()
            return public_round(row, rnd)

    def place_bet(
        self, code: str, player_token: str, bet: str, stake: str, *, key: str
    ) -> PlacedBet:
        """Place (or change) one's own bet; a request repeated with the same key counts once.

        The same key with a different bet or stake is refused (409), never answered as
        the first request was.
        """

        def place(rnd: Round, name: str) -> object:
            placed = rnd.place_bet(name, bet, stake)
            check_bet_return(rnd.paytable, str(placed.bet), placed.stake)
            return placed

        return self._idempotent(code, player_token, key, place, ("bet", bet, stake))

    def withdraw_bet(self, code: str, player_token: str, bet: str, *, key: str) -> PlacedBet:
        return self._idempotent(
            code, player_token, key, lambda rnd, name: rnd.withdraw_bet(name, bet),
            ("withdraw", bet, ""),
        )  # fmt: skip

    def place_marker(self, code: str, player_token: str, row: str) -> None:
        with self._tx() as session:
            table = self._table(session, code)
            player = self._player(session, table, player_token)
            round_row, rnd = self._open_round(session, table)
            rnd.place_marker(player.name, row)
            self._save(round_row, rnd)

    def _idempotent(
        self,
        code: str,
        token: str,
        key: str,
        action: Callable[[Round, str], object],
        request: tuple[str, str, str],
    ) -> PlacedBet:
        key = key.strip()
        asked = hashlib.sha256("\0".join(part.strip() for part in request).encode()).hexdigest()
        if not key or len(key) > 80:
            raise ParameterError(
                Message(N_("Every bet request needs its own key (1 to 80 characters)."))
            )
        try:
            with self._tx() as session:
                table = self._table(session, code)
                player = self._player(session, table, token)
                done = session.scalars(
                    select(IdempotencyRow).where(
                        IdempotencyRow.player_id == player.id, IdempotencyRow.key == key
                    )
                ).one_or_none()
                if done is not None:
                    return _answered(done, asked)
                round_row, rnd = self._open_round(session, table)
                record = action(rnd, player.name)
                self._save(round_row, rnd)
                stake = getattr(record, "stake", Decimal(0))
                placed = PlacedBet(
                    player.name, str(getattr(record, "bet", "")), stake, round_row.number
                )
                session.add(
                    IdempotencyRow(
                        player_id=player.id,
                        key=key,
                        request=asked,
                        response=json.dumps(
                            {
                                "player": placed.player,
                                "bet": placed.bet,
                                "stake": format_amount(placed.stake),
                                "round": placed.round,
                            }
                        ),
                        created_at=self._now(),
                    )
                )
                return placed
        except IntegrityError:  # the same key raced in from a second request: answer as it did
            with self._tx() as session:
                table = self._table(session, code, lock=False)
                player = self._player(session, table, token)
                done = session.scalars(
                    select(IdempotencyRow).where(
                        IdempotencyRow.player_id == player.id, IdempotencyRow.key == key
                    )
                ).one()
                return _answered(done, asked)

    def close_bets(self, code: str, dealer_token: str) -> PublicRound:
        return self._dealer_step(code, dealer_token, lambda rnd: rnd.close_bets())

    def turn_centre(self, code: str, dealer_token: str, card: str | None = None) -> PublicRound:
        return self._dealer_step(code, dealer_token, lambda rnd: rnd.turn_centre(_card(card)))

    def choose_target(self, code: str, dealer_token: str, rank: str) -> PublicRound:
        return self._dealer_step(code, dealer_token, lambda rnd: rnd.choose_target(rank))

    def deal(self, code: str, dealer_token: str, card: str | None = None) -> PublicRound:
        """Deal the next card: from the stored deck, or the card the dealer typed."""

        def step(rnd: Round) -> object:
            if rnd.procedure.has_centre and rnd.centre is None:
                return rnd.turn_centre(_card(card))
            return rnd.deal(_card(card))

        return self._dealer_step(code, dealer_token, step)

    def void(self, code: str, dealer_token: str, reason: str = "") -> PublicRound:
        """Call off a round dealt from a real deck (exhausted, a misdeal …), with a reason.

        Every stake is returned at settlement; the reason is kept in the round's record and
        the audit log. A round dealt from the committed, shuffled deck cannot be void.
        """

        def step(rnd: Round) -> object:
            if not rnd.can_void():
                return rnd.void()  # refused, with the engine's sentence
            return rnd.void(check_text(reason, "reason", MAX_REASON))

        return self._dealer_step(code, dealer_token, step, audit=reason.strip())

    def _dealer_step(
        self, code: str, token: str, step: Callable[[Round], object], audit: str | None = None
    ) -> PublicRound:
        with self._tx() as session:
            table = self._dealer(session, code, token)
            row, rnd = self._open_round(session, table)
            if row.status != "open":
                raise ActionError(Message(N_("The round is over: settle it.")))
            step(rnd)
            self._save(row, rnd)
            if audit is not None:
                self._audit(session, table, "dealer", "void", str(row.number), None, audit)
            return public_round(row, rnd)

    def settle(self, code: str, dealer_token: str) -> PublicRound:
        """Settle the finished round: ledger entries for every stake and every return."""
        with self._tx() as session:
            table = self._dealer(session, code, dealer_token)
            row, rnd = self._open_round(session, table)
            settlement = rnd.settle().settlement
            assert settlement is not None
            players = {
                p.name: p
                for p in session.scalars(
                    select(TablePlayerRow).where(TablePlayerRow.table_id == table.id)
                )
            }
            now = self._now()
            for player, amount, reason in settlement.postings():
                kind = "stake" if amount < 0 else "return"
                post(session, table, players[player], amount, kind, reason, now, row.id)
            check_balanced(session, table, row.id)  # in this transaction: else nothing is kept
            row.status = "settled"
            row.settled_at = now
            self._save(row, rnd)
            return public_round(row, rnd)


def _answered(done: IdempotencyRow, asked: str) -> PlacedBet:
    """The first answer to a key, if this is the same request (older keys kept none)."""
    if done.request is not None and done.request != asked:
        raise RequestConflict(
            Message(
                N_(
                    "This request key was already used for a different bet: send a new key"
                    " with a new request."
                )
            )
        )
    return placed_from_json(json.loads(done.response))


def _card(text: str | None) -> Card | None:
    return Card.parse(text) if text is not None and text.strip() else None
