"""What the club table's service answers: frozen records, never database rows.

A page or the JSON API gets these from :class:`~andar_bahar.club.service.TableService`.
The public view of a round (:class:`PublicRound`) never holds an undealt card:
until the round is settled only the deck's SHA-256 commitment is shown.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from functools import lru_cache

from andar_bahar.engine.cards import Card, Rank
from andar_bahar.engine.paytables import Paytable, load_paytable
from andar_bahar.engine.round import CardDealt, Round, RoundResult, RoundVoided
from andar_bahar.engine.rules import Procedure, Row
from andar_bahar.engine.settlement import SettledBet, Settlement
from andar_bahar.storage.models import TableRoundRow

__all__ = [
    "CreatedTable",
    "PlacedBet",
    "PlayerRound",
    "PlayerState",
    "PublicRound",
    "Reveal",
    "RoundSummary",
    "SettledRound",
    "TableSnapshot",
    "TableState",
    "centre_of_record",
    "commitment_of",
    "placed_from_json",
    "player_round",
    "public_round",
    "settled_bets",
    "settled_round",
    "stored_paytable",
    "stored_procedure",
]


@lru_cache(maxsize=256)
def stored_procedure(text: str) -> Procedure:
    """A table's procedure from the JSON it is stored as (parsed once per text: a table's
    rounds, pages and history all read the same few texts)."""
    return Procedure.from_dict(json.loads(text), source="table")


@lru_cache(maxsize=256)
def stored_paytable(text: str) -> Paytable:
    """A table's paytable from the TOML it is stored as (parsed once per text)."""
    return load_paytable(text, source="table")


def commitment_of(deck_text: str, salt: str) -> str:
    """SHA-256 (hex) of ``"<deck>|<salt>"``: what is shown before the deal.

    >>> commitment_of("A♠ 2♠", "00")[:16]  # the same as: printf 'A♠ 2♠|00' | sha256sum
    'd972aa62f7948f2c'
    """
    return hashlib.sha256(f"{deck_text}|{salt}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class CreatedTable:
    """A new table's code (for players) and the dealer's secret token."""

    code: str
    dealer_token: str


@dataclass(frozen=True, slots=True)
class PlayerState:
    name: str
    joined: bool
    balance: Decimal
    tokens: int
    result: Decimal = Decimal(0)
    """What the night's settled rounds changed in the balance (returns less stakes), from
    the whole ledger: bought in + topped up − cashed out + result = balance."""


@dataclass(frozen=True, slots=True)
class PlacedBet:
    """A bet as accepted (a repeated request gets the same answer)."""

    player: str
    bet: str
    stake: Decimal
    round: int
    player_id: int = 0
    """The player's id at the table (0: not known)."""
    total: Decimal | None = None
    """The player's whole stake on the bet after this one (``None``: not known, for an
    answer repeated from the first request's)."""


@dataclass(frozen=True, slots=True)
class PublicRound:
    """A round as a browser may see it: no undealt card, no deck until it is settled."""

    number: int
    status: str
    bets_open: bool
    physical: bool
    procedure: Procedure
    paytable: Paytable
    centre: Card | None
    target: Rank | None
    dealt: tuple[CardDealt, ...]
    first_row: Row | None
    wagers: tuple[tuple[str, str, Decimal], ...]
    markers: Mapping[str, Row]
    result: RoundResult | None
    settlement: Settlement | None
    commitment: str | None
    void_reason: str | None = None
    """Why the dealer called the round off (a void round of a real deck), else ``None``."""
    bets_deadline: datetime | None = None
    """The bet timer: bets are refused from this moment on and closed at it (UTC)."""
    centre_open: bool = False
    """The centre card is still to be turned in this open round: its bets are on the table
    (taken while :attr:`bets_open`, like the others; they close at the turn)."""
    centre_paid: tuple[SettledBet, ...] = ()
    """The bets on the centre card as settled when it was turned (paid with the round)."""

    @property
    def finished(self) -> bool:
        return self.status != "open"


@dataclass(frozen=True, slots=True)
class RoundSummary:
    number: int
    status: str
    winner: str | None
    cards_dealt: int | None
    centre: Card | None
    commitment: str | None
    settled_at: datetime | None


@dataclass(frozen=True, slots=True)
class PlayerRound:
    """A player's own bets in one settled round, and what each paid (their page's history)."""

    number: int
    winner: str | None
    cards_dealt: int | None
    bets: tuple[tuple[str, Decimal, str, Decimal], ...]
    """(bet, stake, outcome, returned) as the round's settlement recorded them."""
    staked: Decimal = field(init=False, compare=False)
    returned: Decimal = field(init=False, compare=False)
    net: Decimal = field(init=False, compare=False)
    """What the round changed in the player's balance."""

    def __post_init__(self) -> None:  # worked out once: the pages show them over and over
        staked = sum((b[1] for b in self.bets), Decimal(0))
        returned = sum((b[3] for b in self.bets), Decimal(0))
        object.__setattr__(self, "staked", staked)
        object.__setattr__(self, "returned", returned)
        object.__setattr__(self, "net", returned - staked)


def settled_bets(record: str) -> tuple[Mapping[str, str], ...]:
    """Every bet's settlement in a settled round's record (player, bet, stake, outcome,
    win, returned), read from the record's settle step, without replaying the round."""
    for op in json.loads(record).get("operations", []):
        if op.get("op") == "settle":
            return tuple(op.get("paid", []))
    return ()


def player_round(
    number: int,
    winner: str | None,
    cards: int | None,
    paid: Iterable[Mapping[str, str]],
    player: str,
) -> PlayerRound:
    """The bets of *player* in a settled round, from its :func:`settled_bets`."""
    bets = tuple(
        (str(b["bet"]), Decimal(str(b["stake"])), str(b["outcome"]), Decimal(str(b["returned"])))
        for b in paid
        if b.get("player") == player
    )
    return PlayerRound(number, winner, cards, bets)


@dataclass(frozen=True, slots=True)
class Reveal:
    """After settlement: the deck as it was shuffled, the salt, and the commitment."""

    number: int
    deck: str
    salt: str
    commitment: str
    dealt: tuple[str, ...] = ()
    """The cards turned, in order: the centre card first (if any), then every dealt card."""
    target: str | None = None
    """The rank the round matched (the centre card's, or the one chosen)."""

    @property
    def verified(self) -> bool:
        return commitment_of(self.deck, self.salt) == self.commitment

    @property
    def deals_as_shown(self) -> bool:
        """Whether the deck's order gives exactly the cards that were turned."""
        return tuple(self.deck.split()[: len(self.dealt)]) == self.dealt


@dataclass(frozen=True, slots=True)
class TableState:
    """Everything a page shows about a table (for the dealer or a player)."""

    code: str
    name: str
    kind: str
    procedure: Procedure
    paytable: Paytable
    """The paytable for the next round opened."""
    players: tuple[PlayerState, ...]
    round: PublicRound | None
    rounds_settled: int
    rounds_planned: int
    scoring: bool
    version: int = 0
    """The table's version this state was read at (live pages carry it)."""
    new_pays: bool = False
    """The dealer changed the paytable during this round: it applies from the next round
    (:attr:`paytable`), this round settles at its own (``round.paytable``)."""
    closed: bool = False
    """The dealer closed the table for the night: no round, bet, seat or join any more."""

    @property
    def teaching(self) -> bool:
        return self.kind == "teaching"

    @property
    def finished(self) -> bool:
        """A lesson is over after its planned rounds (betting tables never finish)."""
        return self.teaching and self.rounds_settled >= self.rounds_planned

    def standings(self) -> list[tuple[int, str, int]]:
        """(place, name, tokens), equal top scores sharing the first place."""
        ordered = sorted(self.players, key=lambda p: -p.tokens)
        return [
            (1 + sum(1 for o in ordered if o.tokens > p.tokens), p.name, p.tokens) for p in ordered
        ]


@dataclass(frozen=True, slots=True)
class SettledRound:
    """A settled round as the players' own histories read it: every bet's settlement."""

    number: int
    winner: str | None
    cards_dealt: int | None
    paid: tuple[Mapping[str, str], ...]
    """As :func:`settled_bets` reads them from the round's record."""
    by_player: Mapping[str, PlayerRound] = field(default_factory=dict, compare=False)
    """Each player's :class:`PlayerRound` of it (see :func:`settled_round`)."""


def settled_round(
    number: int, winner: str | None, cards: int | None, paid: tuple[Mapping[str, str], ...]
) -> SettledRound:
    """A settled round, with every player's own part of it worked out once."""
    players = dict.fromkeys(str(b.get("player")) for b in paid)
    mine = {p: player_round(number, winner, cards, paid, p) for p in players}
    return SettledRound(number, winner, cards, paid, mine)


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """The whole table at one version (as its dealer sees it), its last rounds, and its
    last settled rounds (for each player's own history): what the pages render from."""

    state: TableState
    recent: list[RoundSummary]
    settled: tuple[SettledRound, ...] = ()

    def player_rounds(self, player: str) -> list[PlayerRound]:
        """*player*'s bets and returns in the last settled rounds (only where they bet)."""
        rounds = (r.by_player.get(player) for r in self.settled)
        return [r for r in rounds if r is not None and r.bets]


def public_round(row: TableRoundRow, rnd: Round) -> PublicRound:
    """What a browser may see of the round *rnd* stored in *row*."""
    return PublicRound(
        number=row.number,
        status=row.status,
        bets_open=rnd.bets_open and row.status == "open",
        physical=rnd.deck is None,
        procedure=rnd.procedure,
        paytable=rnd.paytable,
        centre=rnd.centre,
        target=rnd.target,
        dealt=rnd.dealt,
        first_row=rnd.first_row,
        wagers=tuple((w.player, str(w.bet), w.stake) for w in rnd.wagers),
        markers=rnd.markers,
        result=rnd.result_or_none,
        settlement=rnd.settlement,
        commitment=row.commitment,
        void_reason=next((op.reason for op in rnd.operations if isinstance(op, RoundVoided)), None),
        bets_deadline=row.bets_deadline if rnd.bets_open and row.status == "open" else None,
        centre_open=rnd.procedure.has_centre and rnd.centre is None and row.status == "open",
        centre_paid=rnd.centre_settled,
    )


def centre_of_record(record: str) -> Card | None:
    """The centre card of a stored round record (``None`` before it is turned, or in chosen-rank)."""
    for op in json.loads(record).get("operations", []):
        if op.get("op") == "centre":
            return Card.parse(str(op["card"]))
    return None


def placed_from_json(data: Mapping[str, object]) -> PlacedBet:
    """A :class:`PlacedBet` from the answer kept for an idempotency key."""
    total = data.get("total")  # kept since the answers carry it
    return PlacedBet(
        str(data["player"]),
        str(data["bet"]),
        Decimal(str(data["stake"])),
        int(str(data["round"])),
        total=Decimal(str(total)) if total is not None else None,
    )
