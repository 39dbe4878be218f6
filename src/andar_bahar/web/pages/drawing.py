"""What the table pages draw, worked out in Python so the templates stay simple.

The player's phone, the dealer's screen and the room display show the same
table (:func:`card_face`, :func:`road`); the phone adds the bet spots and the
chips (:func:`spots`, :func:`chip_values`), the dealer the next step
(:func:`next_step`) and the bets per player (:func:`bets_by_player`).

>>> from andar_bahar.engine.paytables import find_paytable
>>> [str(v) for v in chip_values(find_paytable("wizard"))]
['1', '5', '10', '25', '100']
>>> [s.bet for s in spots(find_paytable("wizard"), (), "asha")][:3]
['andar', 'bahar', 'cards:1-5']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache, lru_cache
from typing import Any

from andar_bahar.club.values import PublicRound, RoundSummary, TableState
from andar_bahar.engine.bets import MAX_CARDS_DEALT, Bet, CardsBet, CentreKind, MainBet
from andar_bahar.engine.cards import Card, Rank, Suit
from andar_bahar.engine.money import as_decimal
from andar_bahar.engine.paytables import Odds, Paytable
from andar_bahar.engine.rules import Row
from andar_bahar.i18n import format_number, translations
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.web.http.forms import paytable_rows, per_paytable
from andar_bahar.web.http.templating import drawn

__all__ = [
    "CHIP_STEPS",
    "RANKS",
    "ROAD_LENGTH",
    "SUITS",
    "CardFace",
    "PlayerBets",
    "RoadEntry",
    "Spot",
    "Step",
    "bet_labels",
    "bets_by_player",
    "card_face",
    "chip_values",
    "common_context",
    "next_step",
    "road_of",
    "signed_amount",
    "spots",
    "staked",
]

CHIP_STEPS = (1, 5, 10, 25, 100, 500, 1000, 5000, 10000, 50000)
"""Chip denominations as multiples of the table's chip unit (a casino's usual set)."""
ROAD_LENGTH = 20
"""How many past rounds the result road shows."""
CHIP_COUNT = 5
"""How many chips the phone offers: one row of thumb-sized chips at 390 px."""
RANKS: tuple[Rank, ...] = tuple(Rank)
SUITS: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)
"""The suits as a dealer's picker shows them, black and red alternating."""

_SUIT_CARD_NAMES = {
    Suit.SPADES: N_("{rank} of spades"),
    Suit.HEARTS: N_("{rank} of hearts"),
    Suit.DIAMONDS: N_("{rank} of diamonds"),
    Suit.CLUBS: N_("{rank} of clubs"),
}
_SUIT_NAMES = {
    Suit.SPADES: N_("spades"),
    Suit.HEARTS: N_("hearts"),
    Suit.DIAMONDS: N_("diamonds"),
    Suit.CLUBS: N_("clubs"),
}
_SUIT_SYMBOLS = {
    Suit.SPADES: "spade",
    Suit.HEARTS: "heart",
    Suit.DIAMONDS: "diamond",
    Suit.CLUBS: "club",
}


@dataclass(frozen=True, slots=True)
class CardFace:
    """A card as the pages draw it: ``data-card`` is ``Q♠`` in every language."""

    card: Card
    rank: str
    """The rank as the page's language writes it (``Д`` for a queen in Russian)."""
    name: str
    """Its name for screen readers: "queen of spades"."""
    red: bool
    symbol: str
    """The id of the suit's SVG symbol (``spade``, ``heart`` …)."""

    @property
    def code(self) -> str:
        return str(self.card)


def card_face(card: Card, translator: Translator | None) -> CardFace:
    """How *card* is drawn and named in the language of *translator*.

    >>> face = card_face(Card.parse("Q♠"), None)
    >>> face.code, face.rank, face.name, face.red
    ('Q♠', 'Q', 'queen of spades', False)
    """
    name = Message(_SUIT_CARD_NAMES[card.suit], rank=card.rank.name_localized(translator))
    return CardFace(
        card=card,
        rank=card.rank.localized(translator),
        name=name.localized(translator),
        red=card.colour.value == "red",
        symbol=_SUIT_SYMBOLS[card.suit],
    )


def suit_name(suit: Suit, translator: Translator | None) -> str:
    """The suit's name in the page's language: "spades"."""
    return Message(_SUIT_NAMES[suit]).localized(translator)


def suit_symbol(suit: Suit) -> str:
    return _SUIT_SYMBOLS[suit]


# -- the player's spots and chips ---------------------------------------------------


def chip_values(paytable: Paytable, count: int = CHIP_COUNT) -> list[Decimal]:
    """The chips the phone offers: whole chips of the table, from its minimum to its maximum.

    The smallest chip is the table's minimum stake (rounded up to whole chips), so the
    first tap on a spot is always a stake the table takes.

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> from dataclasses import replace
    >>> club = replace(find_paytable("wizard"), min_stake=Decimal(5), max_stake=Decimal(200))
    >>> [str(v) for v in chip_values(club)]
    ['5', '10', '25', '100', '200']
    >>> [str(v) for v in chip_values(replace(club, chip=Decimal("0.5"), min_stake=Decimal("1.2")))]
    ['1.5', '2.5', '5', '12.5', '200']
    """
    unit = paytable.chip
    low = paytable.min_stake if paytable.min_stake is not None else unit
    if low % unit:
        low = (low // unit + 1) * unit
    high = paytable.max_stake
    values = [as_decimal(low)]
    for step in CHIP_STEPS:
        value = as_decimal(unit * step)
        if value > values[-1] and (high is None or value < high):
            values.append(value)
    if high is not None and high > values[-1]:
        values = [*values[: count - 1], as_decimal(high)]
    return values[:count]


@dataclass(frozen=True, slots=True)
class Spot:
    """A place on the phone's table to bet: a row, a band of cards dealt, or the centre card."""

    bet: str
    """The bet's name, the hook ``data-bet``: ``andar``, ``cards:1-5`` …"""
    main: bool
    label: object
    """What the spot says: "Andar", or a band "1–5" (a Message or a string)."""
    name: object
    """The bet's full name: "Andar", "1–5 cards dealt"."""
    pays: Odds | Message
    stake: Decimal
    """The player's stake on it now (0: none)."""
    centre: str = ""
    """A bet on the centre card: its kind (``suit``, ``rank`` …); ``""`` for the others."""


def spots(
    paytable: Paytable,
    wagers: Iterable[tuple[str, str, Decimal]],
    player: str,
    *,
    centre: bool = False,
) -> list[Spot]:
    """Every bet of *paytable*, with *player*'s stake on it in this round; those on the
    centre card only with *centre* (while it is still to be turned).

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> [s.bet for s in spots(find_paytable("joker"), (), "asha", centre=True)][10:13]
    ['centre:suit:♠', 'centre:suit:♥', 'centre:suit:♦']
    """
    mine: dict[str, Decimal] = {}
    for who, name, stake in wagers:
        if who == player:
            mine[name] = mine.get(name, Decimal(0)) + stake
    return [
        replace(spot, stake=as_decimal(mine[spot.bet])) if spot.bet in mine else spot
        for spot in per_paytable(_bare_spots, paytable)
        if centre or not spot.centre
    ]


def _bare_spots(paytable: Paytable) -> tuple[Spot, ...]:
    """Every bet of *paytable* as a spot with no stake (:func:`spots` asks for them once
    per paytable object: :func:`~andar_bahar.web.http.forms.per_paytable`)."""
    result: list[Spot] = []
    none = as_decimal(Decimal(0))
    for bet, pays in paytable_rows(paytable):
        if isinstance(bet, MainBet):
            label: object = bet.row
        elif isinstance(bet, CardsBet) and bet.low == bet.high:
            label = str(bet.low)
        elif isinstance(bet, CardsBet):
            label = f"{bet.low}+" if bet.high == MAX_CARDS_DEALT else f"{bet.low}–{bet.high}"
        else:
            continue  # a row of the paytable's bets on the centre card: one spot each below
        result.append(Spot(str(bet), isinstance(bet, MainBet), label, bet, pays, none))
    for centre in paytable.centre_bets:
        pays = paytable.odds_for(centre, first_row=None)
        label = centre.value or _CENTRE_LABELS[centre.kind]
        spot = Spot(str(centre), False, label, centre, pays, none, centre.kind.value)
        result.append(spot)
    return tuple(result)


@dataclass(frozen=True, slots=True)
class _Ranks:
    """``A–6``: a run of ranks as the language writes them (``Т–6`` in Russian)."""

    first: Rank
    last: Rank

    def localized(self, translator: Translator | None) -> str:
        return f"{self.first.localized(translator)}–{self.last.localized(translator)}"


_CENTRE_LABELS = {
    CentreKind.LOW: _Ranks(Rank.ACE, Rank.SIX),
    CentreKind.SEVEN: Rank.SEVEN,
    CentreKind.HIGH: _Ranks(Rank.EIGHT, Rank.KING),
}
"""What the spots of low, seven and high say: ``A–6``, ``7``, ``8–K`` (in Russian ``Т–6``)."""


def staked(wagers: Iterable[tuple[str, str, Decimal]], player: str) -> Decimal:
    """What *player* has at stake in this round."""
    return as_decimal(sum((s for who, _, s in wagers if who == player), Decimal(0)))


# -- the dealer ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """The dealer's next step: what the one big button does."""

    action: str
    """``open``, ``centre``, ``target``, ``close``, ``deal`` or ``settle``."""
    label: Message
    card: str
    """What the step needs from a real deck: ``""`` nothing, ``"card"`` a card, ``"rank"`` a rank."""


def next_step(rnd: PublicRound | None, *, finished_lesson: bool = False) -> Step | None:
    """The step that moves the round on (``None``: no round comes next, the lesson being
    over or the table closed: *finished_lesson*).

    >>> next_step(None).action
    'open'
    """
    if rnd is None or rnd.status == "settled":
        if finished_lesson:
            return None
        return Step("open", Message(N_("Open the next round")), "")
    if rnd.status == "finished":
        return Step("settle", Message(N_("Settle")), "")
    needs = "card" if rnd.physical else ""
    if rnd.procedure.has_centre and rnd.centre is None:
        return Step("centre", Message(N_("Turn the centre card")), needs)
    if rnd.target is None:
        return Step("target", Message(N_("Choose the target rank")), "rank")
    if rnd.bets_open:
        return Step("close", Message(N_("Close bets")), "")
    return Step("deal", Message(N_("Deal a card")), needs)


@dataclass(frozen=True, slots=True)
class PlayerBets:
    """One player's bets in the round, as the dealer's list shows them."""

    player: str
    bets: tuple[tuple[str, Decimal], ...]
    total: Decimal


def bets_by_player(
    wagers: Sequence[tuple[str, str, Decimal]], players: Iterable[str]
) -> list[PlayerBets]:
    """The round's bets grouped by player, in the order the players sit."""
    order = list(dict.fromkeys([*players, *(w[0] for w in wagers)]))
    grouped = []
    for name in order:
        bets = tuple((bet, stake) for who, bet, stake in wagers if who == name)
        if bets:
            grouped.append(PlayerBets(name, bets, staked(wagers, name)))
    return grouped


# -- the result road ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoadEntry:
    """One past round as the road shows it."""

    number: int
    winner: Row | None
    """``None`` for a void round or one still in play."""
    status: str
    void: bool
    cards_dealt: int | None
    centre: Card | None
    verifiable: bool


def road_of(rounds: Sequence[RoundSummary]) -> list[RoadEntry]:
    """The last rounds, oldest first, as a strip reads left to right."""
    entries = []
    for r in reversed(rounds):
        winner = Row(r.winner) if r.winner in ("andar", "bahar") else None
        entries.append(
            RoadEntry(
                number=r.number,
                winner=winner,
                status=r.status,
                void=r.winner == "void",
                cards_dealt=r.cards_dealt,
                centre=r.centre,
                verifiable=r.status == "settled" and bool(r.commitment),
            )
        )
    return entries


# -- what every table page's blocks see ----------------------------------------------------


def iso_time(moment: datetime) -> str:
    """A moment as page scripts read it: ISO 8601 in UTC, to the millisecond.

    >>> iso_time(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    '2026-01-02T03:04:05.000Z'
    """
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def signed_amount(amount: Decimal, lang: str) -> str:
    """A change of balance with its sign, as *lang* writes numbers: ``+9``, ``−12,5``.

    >>> signed_amount(Decimal("-12.5"), "ru"), signed_amount(Decimal(9), "en")
    ('−12,5', '+9')
    """
    text = format_number(abs(amount), lang)
    return f"+{text}" if amount > 0 else (f"−{text}" if amount < 0 else text)


@cache
def faces(lang: str) -> Callable[[Card], CardFace]:
    """:func:`card_face` in *lang*, each card worked out once (pages draw the same 52)."""
    words = translations(lang)
    return cache(lambda card: card_face(card, words))


@cache
def bet_labels(lang: str) -> Callable[[str], str]:
    """A bet's name (``cards:1-5``) in *lang*, each worked out once."""
    words = translations(lang)
    return lru_cache(maxsize=1024)(lambda text: Bet.parse(text).localized(words))


def common_context(
    state: TableState,
    recent: Sequence[RoundSummary],
    lang: str,
    now: datetime | str,
    *,
    road: bool = True,
) -> dict[str, Any]:
    """What every table page's blocks see, from the table alone (a live render has no request).

    The round's cards as faces (``face``), bets by name (``bet_label``), the road (unless
    *road* is false: the blocks drawn do not show it), the bet timer's deadline and the
    server's time for the countdown, the picker's ranks and suits.
    """
    words = translations(lang)
    rnd = state.round
    deadline = getattr(rnd, "bets_deadline", None) if rnd is not None else None
    return {
        "state": state,
        "round": rnd,
        "road_entries": road_of(recent) if road else (),
        "paytable_rows": paytable_rows(rnd.paytable if rnd else state.paytable),
        "deadline": iso_time(deadline) if isinstance(deadline, datetime) else None,
        "server_now": iso_time(now) if isinstance(now, datetime) else now,
        "face": faces(lang),
        "drawn_cards": drawn("cards", lang),
        "drawn_road": drawn("road", lang),  # a bead, a row of the road's table
        "lanes": {
            row.value: [d for d in rnd.dealt if d.row is row] if rnd is not None else []
            for row in Row
        },
        "bet_label": bet_labels(lang),
        "signed": lambda amount: signed_amount(amount, lang),
        "ranks": RANKS,
        "suits": SUITS,
        "suit_name": lambda suit: suit_name(suit, words),
        "suit_symbol": suit_symbol,
    }
