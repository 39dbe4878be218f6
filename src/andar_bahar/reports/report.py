"""Text for people: the layout of a round, a settlement, a paytable.

Pure functions from results to text in the user's language; adapters print
what they return.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from decimal import Decimal

from andar_bahar.engine.bets import CentreBet
from andar_bahar.engine.operations import AddedBets, RoundResult
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import Row, StartRule
from andar_bahar.engine.settlement import SettledBet, Settlement
from andar_bahar.i18n import format_number, language_of
from andar_bahar.i18n.messages import N_, NP_, Message, Translator, render, translate

__all__ = ["AndList", "render_layout", "render_paytable", "render_settlement"]

_COLUMNS_PER_BLOCK = 12


def _t(message: Message, translator: Translator | None) -> str:
    return message.localized(translator)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - len(text))


def render_layout(result: RoundResult, translator: Translator | None = None) -> str:
    """The round as a dealer sees it: the centre card, both rows in order, the match.

    >>> from andar_bahar.engine.cards import Card
    >>> from andar_bahar.engine.round import Round
    >>> from andar_bahar.engine.rules import find_procedure
    >>> from andar_bahar.engine.paytables import find_paytable
    >>> rnd = Round(find_procedure("home"), find_paytable("wizard"))
    >>> _ = rnd.turn_centre(Card.parse("Q♥"))
    >>> for card in Card.parse_many("4♣ 7♦ Q♠"):
    ...     _ = rnd.deal(card)
    >>> print(render_layout(rnd.result))
    Procedure: home — start: centre card's colour: black → Andar first, red → Bahar first; target: the centre card's rank; bets close at the first dealt card
    Centre card (joker): Q♥
    <BLANKLINE>
               1     2
    Andar      7♦
    Bahar  →   4♣    [Q♠]
    <BLANKLINE>
    Bahar wins: Q♠ matches the centre card's rank, card 3 of the deal.
    3 cards dealt; the first card went to Bahar.
    """
    t = translator
    lines = [_t(Message(N_("Procedure: {procedure}"), procedure=_Describe(result)), t)]
    if result.centre is not None:
        lines.append(_t(Message(N_("Centre card (joker): {card}"), card=result.centre), t))
    else:
        lines.append(
            _t(
                Message(
                    N_("Target rank, chosen before the deal: {rank} ({name})"),
                    rank=result.target,
                    name=result.target.name_localized(t),
                ),
                t,
            )
        )
    lines.extend(_grid(result, t))
    lines.append("")
    lines.extend(_outcome(result, t))
    return "\n".join(lines)


def _grid(result: RoundResult, t: Translator | None) -> list[str]:
    """Both rows in order, in blocks of 12 columns; the first row marked, the match bracketed."""
    lines: list[str] = []
    rows = {Row.ANDAR: list(result.andar), Row.BAHAR: list(result.bahar)}
    labels = {row: row.localized(t) for row in Row}
    label_width = max(len(label) for label in labels.values()) + 4
    columns = max((len(cards) for cards in rows.values()), default=0)
    matching = result.matching
    for start in range(0, max(columns, 1), _COLUMNS_PER_BLOCK):
        stop = min(start + _COLUMNS_PER_BLOCK, columns)
        lines.append("")
        header = " " * label_width + "".join(_pad(str(i + 1), 6) for i in range(start, stop))
        lines.append(header.rstrip())
        for row in Row:
            arrow = "→" if row is result.first_row else ""
            label = _pad(f"{labels[row]}  {arrow}", label_width - 1) + " "
            cells = []
            for card in rows[row][start:stop]:
                shown = card.localized(t)
                cells.append(_pad(f"[{shown}]" if card == matching else shown, 6))
            lines.append((label + "".join(cells)).rstrip())
    return lines


def _outcome(result: RoundResult, t: Translator | None) -> list[str]:
    """Who won and on which card, and the count of cards dealt with its check; or the void."""
    matching = result.matching
    if result.winner is None:
        return [
            _t(
                Message(
                    N_(
                        "No card matched: the round is void. Check that the deck is complete"
                        " and repeat the round; every stake and marker is returned."
                    )
                ),
                t,
            )
        ]
    assert matching is not None
    lines = [
        _t(
            Message(
                N_("{row} wins: {card} matches the centre card's rank, card {n} of the deal.")
                if result.centre is not None
                else N_("{row} wins: {card} matches the target rank, card {n} of the deal."),
                row=result.winner,
                card=matching,
                n=result.cards_dealt,
            ),
            t,
        )
    ]
    count = _t(Message(NP_("{n} card dealt", "{n} cards dealt"), n=result.cards_dealt), t)
    first = result.first_row or Row.ANDAR
    if result.procedure.start is StartRule.ANDAR:
        parity = (
            Message(N_("odd, so Andar wins"))
            if result.cards_dealt % 2
            else Message(N_("even, so Bahar wins"))
        )
        lines.append(
            _t(
                Message(
                    N_("{count}: {parity} (the first card always goes to Andar)."),
                    count=_Capital(count),
                    parity=parity,
                ),
                t,
            )
        )
    else:
        lines.append(
            _t(
                Message(
                    N_("{count}; the first card went to {row}."), count=_Capital(count), row=first
                ),
                t,
            )
        )
    return lines


class _Describe:
    def __init__(self, result: RoundResult) -> None:
        self.result = result

    def localized(self, translator: Translator | None) -> str:
        return self.result.procedure.describe(translator)


class _Capital:
    def __init__(self, text: str) -> None:
        self.text = text

    def localized(self, translator: Translator | None) -> str:
        # Georgian has no capital letters in running text (upper() gives Mtavruli).
        first = self.text[:1]
        if first and unicodedata.name(first, "").startswith(("LATIN", "CYRILLIC")):
            return first.upper() + self.text[1:]
        return self.text


class AndList:
    """Items joined as the language joins a list: ``Andar and Bahar``, ``Андар и Бахар``.

    >>> AndList(["Andar", "Bahar", "1–5"]).localized(None)
    'Andar, Bahar, and 1–5'
    """

    def __init__(self, items: Sequence[object]) -> None:
        self.items = items

    def localized(self, translator: Translator | None) -> str:
        from babel.lists import format_list

        texts = [render(item, translator) for item in self.items]
        return format_list(texts, locale=language_of(translator)) if texts else ""


def money(value: Decimal, translator: Translator | None) -> str:
    """An amount in the user's language (decimal comma in Russian and Georgian)."""
    return format_number(value, language_of(translator))


class _Money:
    """An amount in a message, written as the settlement's table writes it (:func:`money`)."""

    def __init__(self, value: Decimal) -> None:
        self.value = value

    def localized(self, translator: Translator | None) -> str:
        return money(self.value, translator)


def render_settlement(
    settlement: Settlement,
    paytable: Paytable,
    translator: Translator | None = None,
    *,
    added: Sequence[AddedBets] = (),
    show_players: bool | None = None,
) -> str:
    """Each bet's stake, odds, outcome, win and return, then the totals, as a dealer pays.

    With several players (or *show_players*) a player column and each player's totals
    are shown; *added* (from :func:`~andar_bahar.engine.operations.added_together`)
    says which stakes were bets on one spot added together.
    """
    t = translator
    players = settlement.players
    by_player = len(players) > 1 if show_players is None else show_players
    headers = [
        translate(text, t)
        for text in (N_("bet"), N_("stake"), N_("pays"), N_("outcome"), N_("win"), N_("returned"))
    ]
    if by_player:
        headers.insert(0, translate(N_("player"), t))
    rows: list[list[str]] = []
    notes = [_t(a.message(with_player=by_player, written=_Money), t) for a in added]
    for bet in settlement.bets:
        row = [
            bet.bet.localized(t),
            money(bet.stake, t),
            bet.odds.localized(t),
            bet.outcome.localized(t),
            money(bet.win, t),
            money(bet.returned, t),
        ]
        rows.append([bet.player, *row] if by_player else row)
        if bet.rounded:
            notes.append(_t(_rounding_note(bet, paytable, t), t))
    if by_player and len(players) > 1:
        for name, totals in players.items():
            rows.append(
                [
                    name,
                    _t(Message(N_("total")), t),
                    money(totals.staked, t),
                    "",
                    "",
                    money(totals.win, t),
                    money(totals.returned, t),
                ]
            )
    total = [
        _t(Message(N_("total")), t),
        money(settlement.total_staked, t),
        "",
        "",
        money(settlement.total_win, t),
        money(settlement.total_returned, t),
    ]
    rows.append(["", *total] if by_player else total)
    text = table_text(headers, rows)
    if settlement.void:
        notes.insert(
            0, _t(Message(N_("The round is void: every stake is returned to its player.")), t)
        )
    return text + ("\n\n" + "\n".join(notes) if notes else "")


def _rounding_note(bet: SettledBet, paytable: Paytable, t: Translator | None) -> Message:
    return Message(
        N_("{bet}: {stake} × {odds} = {exact}, paid {win} ({rule}, chip {chip})."),
        bet=bet.bet,
        stake=money(bet.stake, t),
        odds=bet.odds,
        exact=money(Decimal(bet.exact_win.numerator) / bet.exact_win.denominator, t),
        win=money(bet.win, t),
        rule=paytable.rounding,
        chip=money(paytable.chip, t),
    )


def table_text(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]
    lines = ["  ".join(_pad(h, w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths).rstrip())
    for row in rows:
        lines.append("  ".join(_pad(c, w) for c, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines)


def render_paytable(paytable: Paytable, translator: Translator | None = None) -> str:
    """The paytable as the trainer shows it: every bet "to 1", as written, and the rules.

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> print(render_paytable(find_paytable("wizard")))  # doctest: +ELLIPSIS
    Paytable: wizard
    ...
    cards dealt 1–5  2.5 to 1  3.5 for 1
    ...
    """
    t = translator
    lines = [_t(Message(N_("Paytable: {name}"), name=paytable.name), t)]
    if paytable.source:
        source = t.gettext(paytable.source) if t is not None else paytable.source
        lines.append(_t(Message(N_("Source: {source}"), source=source), t))
    headers = [
        _t(Message(N_("bet")), t),
        _t(Message(N_("pays")), t),
        _t(Message(N_("as written")), t),
    ]
    rows: list[list[str]] = []
    main_labels = (
        (Row.ANDAR.localized(t), Row.BAHAR.localized(t))
        if paytable.keyed_by.value == "row"
        else (
            _t(Message(N_("the row dealt first")), t),
            _t(Message(N_("the other row")), t),
        )
    )
    for label, odds in zip(main_labels, paytable.main, strict=True):
        rows.append([label, odds.localized(t), odds.written])
    for pays in paytable.main_by_count:
        for label, special in zip(main_labels, pays.main, strict=True):
            if special is not None:
                when = Message(
                    NP_("{bet} if {counts} card is dealt", "{bet} if {counts} cards are dealt"),
                    n=pays.counts.high,
                    bet=label,
                    counts=pays.label,
                )
                rows.append([_t(when, t), special.localized(t), special.written])
    for band in paytable.bands:
        rows.append(
            [
                _t(Message(N_("cards dealt {band}"), band=band.label), t),
                band.odds.localized(t),
                band.odds.written,
            ]
        )
    for centre in paytable.centre:  # each kind of bet on the centre card
        odds = centre.odds
        rows.append([CentreBet(centre.kind).localized(t), odds.localized(t), odds.written])
    lines.append(table_text(headers, rows))
    lines.append("")
    lines.append(
        _t(
            Message(
                N_("Wins are paid in chips of {chip}, {rule}; the stake is returned with the win."),
                chip=money(paytable.chip, t),
                rule=paytable.rounding,
            ),
            t,
        )
    )
    if paytable.min_stake is not None or paytable.max_stake is not None:
        lines.append(
            _t(
                Message(
                    N_("Table limits: {low} to {high}."),
                    low=money(paytable.min_stake, t) if paytable.min_stake is not None else "—",
                    high=money(paytable.max_stake, t) if paytable.max_stake is not None else "—",
                ),
                t,
            )
        )
    return "\n".join(lines)
