"""The people of the web load benchmark: phones, dealers, and how fast they act.

Imported by ``bench_web_load.py`` (beside it). A :class:`Page` is a browser page that
follows its table live as ``live.js`` does; a :class:`Club` is one table with its dealer
and players; :func:`play` plays its rounds, paced as people act (:class:`Pacing`) or in a
closed loop (``Pacing.saturate``: every phone bets the instant its page shows the round
open, the dealer deals the instant an answer comes back).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import re
import secrets
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from html.parser import HTMLParser
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

try:  # the client shares the cores with the server: parse the many live messages fast
    import orjson

    loads: Callable[[str | bytes], Any] = orjson.loads
except ImportError:  # pragma: no cover - orjson is optional
    loads = json.loads

PAYTABLE = "wizard"
BALANCE = Decimal(10_000)
PIN = "246813"
TIMEOUT = 60.0
KINDS = ("open", "bet", "bet again", "deal", "settle")
LANGUAGES = ("en", "ru", "ka")
"""The phones' languages, in turn (the shared blocks are drawn once per language)."""


# -- how fast people act ---------------------------------------------------------------------


@dataclass(frozen=True)
class Pacing:
    """Seconds between what people do, each drawn uniformly from its (low, high) range.

    The defaults are faster than a club night (more load than real people make):

    - ``reaction``: a phone's first tap after its page shows the round open. Real players
      take the whole bet window (15–30 s with a timer); here every bet is in within 3 s.
    - ``again``: a phone's second tap (one phone in five bets on two spots) after the
      first one's answer.
    - ``card``: the dealer between two steps — before the first card (once every bet is
      answered), between two cards, before settling, before opening the next round. A
      dealer turning cards by hand takes about a second a card.
    - ``start``: when each table opens its first round. The tables of a club are not in
      step; left in step, every table would open, deal and settle in the same
      milliseconds all night.

    - ``sleep``: how long a phone that sleeps mid-round (its screen off: its socket closed)
      stays away before it connects again with the version its page has; ``sleepers``:
      the share of the phones that do so in each round, after their bets (the dealer
      goes on dealing meanwhile).

    ``saturate``: no pauses at all — the closed loop that measures capacity (the sleepers
    still sleep: a reconnection's full set is part of the work).
    """

    reaction: tuple[float, float] = (0.3, 3.0)
    again: tuple[float, float] = (0.3, 1.0)
    card: tuple[float, float] = (0.3, 0.5)
    start: tuple[float, float] = (0.0, 5.0)
    sleep: tuple[float, float] = (1.0, 3.0)
    sleepers: float = 0.05
    saturate: bool = False

    async def pause(self, rng: random.Random, span: tuple[float, float]) -> None:
        if not self.saturate:
            await asyncio.sleep(rng.uniform(*span))

    async def doze(self, rng: random.Random) -> None:
        """A sleeping phone's time away (in the closed loop too, a tenth of it)."""
        await asyncio.sleep(rng.uniform(*self.sleep) * (0.1 if self.saturate else 1))

    def describe(self) -> dict[str, Any]:
        if self.saturate:
            return {"mode": "saturate", "closed_loop": True}
        return {"mode": "paced", "reaction_s": list(self.reaction), "second_bet_s": list(self.again),
                "dealer_step_s": list(self.card), "table_start_s": list(self.start),
                "sleep_s": list(self.sleep), "sleepers": self.sleepers}  # fmt: skip


def seconds_range(text: str) -> tuple[float, float]:
    """``"0.3:3"`` → (0.3, 3.0) (a single number: that many seconds every time)."""
    low, _, high = text.partition(":")
    values = float(low), float(high or low)
    if not 0 <= values[0] <= values[1] or not all(math.isfinite(v) for v in values):
        raise ValueError(f"not a range of seconds LOW:HIGH: {text!r}")
    return values


# -- measuring ----------------------------------------------------------------------------------


@dataclass
class Recorder:
    """Every request's latency and outcome, by kind."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)

    async def post(
        self, client: httpx.AsyncClient, kind: str, path: str, **options: Any
    ) -> dict[str, Any] | None:
        """The answer as the page's script reads it (JSON), or ``None`` for an error
        (counted, with a few samples kept): no answer, a status other than 2xx, or an
        answer that is not JSON."""
        started = time.perf_counter()
        try:
            response = await client.post(path, **options)
        except (httpx.HTTPError, OSError) as error:
            self.latencies[kind].append(time.perf_counter() - started)
            self._error(kind, f"{kind} {path}: {type(error).__name__} {error}")
            return None
        self.latencies[kind].append(time.perf_counter() - started)
        if not response.is_success:
            self._error(kind, f"{kind} {path}: {response.status_code} {response.text[:160]}")
            return None
        try:
            message: dict[str, Any] = loads(response.content)
        except ValueError:
            type_ = response.headers.get("content-type", "")
            self._error(kind, f"{kind} {path}: {response.status_code} {type_}, not JSON: "
                              f"{response.text[:160]!r}")  # fmt: skip
            return None
        return message

    def _error(self, kind: str, text: str) -> None:
        self.errors[kind] += 1
        if len(self.samples) < 10:
            self.samples.append(text)

    @property
    def requests(self) -> int:
        return sum(len(self.latencies[k]) for k in KINDS)


# -- the people at a table ----------------------------------------------------------------------


class Swap(HTMLParser):
    """What a browser does with a block's HTML before it swaps it in (``innerHTML``):
    parse it into elements (counted; an end tag without its start is counted apart)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements = 0
        self.stray = 0
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements += 1
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            while self.open.pop() != tag:
                pass
        else:
            self.stray += 1


VOID = frozenset({"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                  "track", "wbr"})  # fmt: skip


PARSED: dict[str, tuple[int, int]] = {}
"""What :func:`parse` found in each HTML text this process has parsed (cleared at
:data:`PARSED_MOST` texts)."""
PARSED_MOST = 2_000


def parse(html: str) -> tuple[int, int]:
    """*html* parsed as a browser does before it swaps it in (:class:`Swap`): (elements,
    end tags without their start). Each phone is a device of its own that parses what it
    is sent on its own processor, at the same time as the others: so a text this process
    has parsed for one phone is not parsed again for the next (the same text, the same
    elements), or the phones' times would wait for the benchmark's own parsing of the
    same block for every other phone before them."""
    found = PARSED.get(html)
    if found is None:
        if len(PARSED) >= PARSED_MOST:
            PARSED.clear()
        swap = Swap()
        swap.feed(html)
        swap.close()
        found = PARSED[html] = (swap.elements, swap.stray)
    return found


ROUND = re.compile(r'data-round="(\d+)"')
ROW_COUNT = re.compile(r'(<span class="row-count"[^>]*>)\d+(</span>)')
DEALT_COUNT = re.compile(r'<p class="dealt-count">.*?</p>', re.DOTALL)


def append_cards(html: str, pile: dict[str, Any]) -> str | None:
    """The felt *html* with *pile*'s cards appended, as ``live.js`` does to the page's DOM:
    each card it lacks (it may have some: the answer to a deal and the socket's message
    race) as a slot at the end of its row's cards, the row's count set, the room screen's
    line of cards dealt replaced; ``None`` where ``live.js`` refuses (the felt is not at
    the round, or has fewer cards than the message starts from, or more than it brings:
    the page asks for every block)."""
    state = ROUND.search(html)
    if state is None or int(state.group(1)) != pile["round"]:
        return None
    has = html.count('<span class="slot">')
    if not pile["from"] <= has <= pile["from"] + len(pile["cards"]):
        return None
    if has == pile["from"] + len(pile["cards"]):
        return html
    for card in pile["cards"][has - pile["from"] :]:
        lane = html.find(f'data-row="{card["row"]}"')
        end = html.find("</div>", lane)  # a lane holds no div: its end
        close = html.rfind("</span>", lane, end)  # the end of the row's cards
        counted = ROW_COUNT.search(html, lane, close) if lane >= 0 else None
        if counted is None:
            return None
        count = f"{counted.group(1)}{card['count']}{counted.group(2)}"
        html = (
            html[: counted.start()]
            + count
            + html[counted.end() : close]
            + card["html"]
            + html[close:]
        )
    if "dealt" in pile:
        html, found = DEALT_COUNT.subn(pile["dealt"], html, count=1)
        if not found:
            return None
    return html


def html_version(message: dict[str, Any]) -> int:
    """The version of a live message's HTML: ``h`` where the server says it is newer than
    ``v`` (as live.js reads it)."""
    return int(message.get("h", message["v"]))


@dataclass
class Page:
    """A browser page that follows the table live: its cookies, token, version and blocks."""

    cookies: str
    csrf: str
    version: int
    blocks: dict[str, str] = field(default_factory=dict)
    shown: dict[str, int] = field(default_factory=dict)
    """The version each block's HTML is at."""
    socket: ClientConnection | None = None
    seen: dict[tuple[int, int], float] = field(default_factory=dict)
    """(round, cards turned) → when this page first showed that many cards of the round."""
    latest: int = 0
    """The latest round this page has shown."""
    opened: asyncio.Queue[int] = field(default_factory=asyncio.Queue)
    """Rounds whose opening this page has seen (the players bet then)."""
    messages: int = 0
    received: int = 0
    """The live messages' bytes (UTF-8), as the phone's socket got them."""
    socket_id: str = field(default_factory=lambda: secrets.token_hex(12))
    """As live.js: the id its socket opens with (``?s=``) and its actions send."""
    address: str = ""
    """Its socket's URL less the version (``…&v=``)."""
    elements: int = 0
    """The elements of every block it swapped in, parsed as a browser does (:class:`Swap`)."""
    stray: int = 0
    """End tags without their start in what it swapped in (0 for well-formed blocks)."""
    refused: int = 0
    """Cards it could not append (its felt not where the message started from: 0)."""
    awake: asyncio.Event = field(default_factory=asyncio.Event)
    absent: list[tuple[float, float]] = field(default_factory=list)
    """(from, to): when its socket was closed (asleep), for the card latencies."""

    def headers(self) -> dict[str, str]:
        return {"Cookie": self.cookies, "HX-Request": "true", "X-CSRF-Token": self.csrf,
                "X-Live-Socket": self.socket_id}  # fmt: skip

    def apply(self, message: dict[str, Any], *, complete: bool = True) -> None:
        """As live.js does: blocks replaced unless the page shows them newer (``h``, else
        ``v``: the version of the message's HTML); the version only from a complete message."""
        at = html_version(message)
        for name, html in message.get("blocks", {}).items():
            if self.shown.get(name, -1) <= at:
                self.swap_in(html)
                self.blocks[name], self.shown[name] = html, at
        current = self.append(message, at)
        if complete and current:
            self.version = max(self.version, int(message["v"]))
        data, now = message.get("data", {}), time.perf_counter()
        number = data.get("round")
        if number is None:
            return
        self.latest = max(self.latest, int(number))
        turned = int(data.get("dealt") or 0) + (1 if data.get("card") else 0)
        for count in range(1, turned + 1):
            self.seen.setdefault((number, count), now)
        if data.get("bets_open"):
            self.opened.put_nowait(number)

    def swap_in(self, html: str) -> None:
        """Count *html*'s elements and stray end tags, as its page parses it to swap it in."""
        elements, stray = parse(html)
        self.elements, self.stray = self.elements + elements, self.stray + stray

    def append(self, message: dict[str, Any], at: int) -> bool:
        """As live.js does: the cards of the message's piles appended to its felt (each
        card's HTML parsed); ``False`` where its felt was not where they start from (live.js
        then asks for every block again: this page counts it, and takes every block next)."""
        for name, pile in message.get("piles", {}).items():
            if self.shown.get(name, -1) >= at:
                continue  # has these already (the answer and the socket race)
            html = append_cards(self.blocks.get(name, ""), pile)
            if html is None:
                self.refused += 1
                self.version = -1
                return False
            for card in pile["cards"]:
                self.swap_in(card["html"])
            self.blocks[name], self.shown[name] = html, at
        return True

    def away(self, since: float, until: float) -> bool:
        """Whether its socket was closed at some time between *since* and *until*."""
        return any(start <= until and since <= end for start, end in self.absent)

    async def connect(self) -> None:
        """Open its socket as live.js does: with the version the page has."""
        self.socket = await connect(
            f"{self.address}{self.version}", additional_headers={"Cookie": self.cookies},
            open_timeout=TIMEOUT, max_queue=None, compression=None,
        )  # fmt: skip
        self.awake.set()

    async def doze(self, pacing: Pacing, rng: random.Random) -> None:
        """Sleep (its socket closed) and wake up: connect again with the page's version."""
        if self.socket is None or not self.awake.is_set():
            return
        self.awake.clear()
        started = time.perf_counter()
        await self.socket.close()
        await pacing.doze(rng)
        await self.connect()
        self.absent.append((started, time.perf_counter()))

    def shown_or_passed(self, card: tuple[int, int]) -> bool:
        """Whether this page has shown *card* (round, cards turned), or a later round: a
        render that starts after the dealer has settled and opened the next round draws
        the newest table (the settled round in the road), as the live pages intend."""
        return card in self.seen or self.latest > card[0]

    async def follow(self) -> None:
        """Apply its socket's messages until the socket closes (while it sleeps: again
        once it has woken up)."""
        while True:
            socket = self.socket
            assert socket is not None
            with contextlib.suppress(Exception):  # closed at the end, or by the server
                async for text in socket:
                    if text in ("pong", "beat"):  # as live.js: the server's answer, its heartbeat
                        continue
                    message = loads(text)
                    self.messages += 1
                    self.received += len(text.encode())
                    if html_version(message) > self.version:  # as live.js
                        self.apply(message)
            if self.awake.is_set() and self.socket is socket:
                return
            await self.awake.wait()


@dataclass
class Player:
    name: str
    page: Page
    accepted: dict[tuple[int, str], str] = field(default_factory=dict)
    """(round, bet) → stake, for every bet the page saw accepted."""
    unknown: int = 0


@dataclass
class Club:
    code: str
    token: str
    client: httpx.AsyncClient
    dealer: Page
    players: list[Player]
    rng: random.Random
    dealt_at: dict[tuple[int, int], float] = field(default_factory=dict)
    """(round, cards turned) → when the dealer's page sent the deal that turned it."""
    rounds: int = 0
    dozing: list[asyncio.Future[None]] = field(default_factory=list)
    """The phones sleeping now (each wakes up before the next round opens)."""


async def page_of(base: str, path: str, form: dict[str, str], lang: str = "en") -> tuple[str, str]:
    """Post *form* to *path* as a fresh browser in *lang*: its cookies (the language's
    among them) and its page's CSRF token."""
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as browser:
        home = await browser.get(f"/?lang={lang}")
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', home.text)
        assert csrf, "no CSRF token on the home page"
        answer = await browser.post(path, data={**form, "csrf_token": csrf.group(1)})
        if answer.status_code >= 400:
            raise SystemExit(f"{path}: {answer.status_code} {answer.text[:200]}")
        cookies = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
        return cookies, csrf.group(1)


async def live_page(
    base: str, url: str, cookies: str, csrf: str, kind: str, lang: str = "en"
) -> Page:
    """Load the page once (its version) and follow it over the WebSocket."""
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as browser:
        loaded = await browser.get(url, headers={"Cookie": cookies})
    version = re.search(r'data-live-version="(\d+)"', loaded.text)
    assert version, f"{url} is not a live page: {loaded.status_code}"
    page = Page(cookies, csrf, int(version.group(1)))
    code = url.rsplit("/", 1)[-1]
    ws = base.replace("http://", "ws://")
    page.address = f"{ws}/ws/{code}?page={kind}&lang={lang}&s={page.socket_id}&v="
    await page.connect()
    return page


async def close_table(base: str, club: Club) -> None:
    """The night's end: the dealer closes the table through the API (its pages still
    following: the server tells them, then ends their sockets)."""
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as api:
        closed = await api.post(f"/api/tables/{club.code}/close", json={"reason": "benchmark"},
                                headers={"Authorization": f"Bearer {club.token}"})  # fmt: skip
        if closed.status_code != 200:
            raise SystemExit(f"closing {club.code}: {closed.status_code} {closed.text[:200]}")


async def set_up(name: str, base: str, players: int, rng: random.Random) -> Club:
    """A new table *name* with its dealer and *players* phones, each following its page."""
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as api:
        created = (await api.post("/api/tables", json={
            "name": name, "pin": PIN, "paytable": PAYTABLE})).json()  # fmt: skip
        code, token = created["code"], created["dealer_token"]
        seats = []
        for n in range(players):
            admitted = await api.post(
                f"/api/tables/{code}/players", headers={"Authorization": f"Bearer {token}"},
                json={"name": f"{name}-{n + 1}", "balance": str(BALANCE)},
            )  # fmt: skip
            seats.append((f"{name}-{n + 1}", admitted.json()["seat_code"]))
    cookies, csrf = await page_of(base, f"/dealer/{code}/login", {"pin": PIN})
    dealer = await live_page(base, f"/dealer/{code}", cookies, csrf, "dealer")
    people = []
    for n, (player, seat) in enumerate(seats):
        lang = LANGUAGES[n % len(LANGUAGES)]
        cookies, csrf = await page_of(base, "/join", {"code": code, "seat": seat}, lang)
        page = await live_page(base, f"/play/{code}", cookies, csrf, "player", lang)
        people.append(Player(player, page))
    limits = httpx.Limits(max_connections=players + 4, max_keepalive_connections=players + 4,
                          keepalive_expiry=4.0)  # fmt: skip
    client = httpx.AsyncClient(base_url=base, timeout=TIMEOUT, limits=limits)
    return Club(code, token, client, dealer, people, rng)


# -- a round ----------------------------------------------------------------------------------------


async def act(club: Club, action: str, recorder: Recorder) -> dict[str, Any] | None:
    """The dealer's page presses a button; its answer brings the page's new blocks."""
    message = await recorder.post(
        club.client, action, f"/dealer/{club.code}/round/{action}", headers=club.dealer.headers()
    )
    if message is None:
        return None
    club.dealer.apply(message, complete=bool(message.get("complete")))
    return message


async def bet(club: Club, player: Player, number: int, spot: str, recorder: Recorder,
              resend: float) -> None:  # fmt: skip
    path = f"/play/{club.code}/bet"
    form = {"bet": spot, "stake": str(club.rng.randint(1, 10)), "key": secrets.token_hex(10)}
    options = {"data": form, "headers": player.page.headers()}
    roll = club.rng.random()
    answers: list[dict[str, Any] | None]
    if roll < resend / 2:  # the same request twice at once (a double tap)
        answers = list(await asyncio.gather(recorder.post(club.client, "bet", path, **options),
                                            recorder.post(club.client, "bet again", path, **options)))  # fmt: skip
    else:
        answers = [None]
        for _ in range(3):  # an unanswered request is sent again with its key
            answers[0] = await recorder.post(club.client, "bet", path, **options)
            if answers[0] is not None:
                break
        if roll < resend:  # again after its answer (a retry after a lost answer)
            answers.append(await recorder.post(club.client, "bet again", path, **options))
    good = [a for a in answers if a is not None]
    if not good:
        player.unknown += 1
        return
    for answer in good:
        player.page.apply(answer, complete=False)
    player.accepted[(number, spot)] = form["stake"]


async def bets_of(club: Club, player: Player, number: int, spots: list[str], recorder: Recorder,
                  resend: float, pacing: Pacing) -> None:  # fmt: skip
    """The phone waits until its page shows the round open, then its player taps; one phone
    in twenty (``pacing.sleepers``) then sleeps through part of the deal."""
    while True:
        seen = await asyncio.wait_for(player.page.opened.get(), TIMEOUT)
        if seen == number:
            break
    chosen = club.rng.sample(spots, 2 if club.rng.random() < 0.2 else 1)
    await pacing.pause(club.rng, pacing.reaction)
    for index, spot in enumerate(chosen):
        if index:
            await pacing.pause(club.rng, pacing.again)
        await bet(club, player, number, spot, recorder, resend)
    if club.rng.random() < pacing.sleepers:
        club.dozing.append(asyncio.ensure_future(player.page.doze(pacing, club.rng)))


async def play(club: Club, rounds: int, spots: list[str], recorder: Recorder, resend: float,
               pacing: Pacing) -> None:  # fmt: skip
    """The dealer's rounds: open, turn the centre card while the bets come in (the bets
    stay open after it), wait for every phone's bets, deal to the end, settle."""
    await pacing.pause(club.rng, pacing.start)
    for index in range(rounds):
        if index:
            await pacing.pause(club.rng, pacing.card)
        opened = await act(club, "open", recorder)
        if opened is None:
            continue
        number = int(opened["data"]["round"])
        betting = asyncio.gather(*(bets_of(club, p, number, spots, recorder, resend, pacing)
                                   for p in club.players))  # fmt: skip
        status, turned, failures = "open", 0, 0
        while status == "open" and failures < 5:
            await pacing.pause(club.rng, pacing.card)
            if turned:  # past the centre card: the next one closes the bets
                await betting
            sent = time.perf_counter()
            dealt = await act(club, "deal", recorder)
            if dealt is None:
                failures += 1
                continue
            data = dealt["data"]
            turned = int(data.get("dealt") or 0) + (1 if data.get("card") else 0)
            club.dealt_at[(number, turned)] = sent
            status = data["status"]
        await betting
        await pacing.pause(club.rng, pacing.card)
        for _ in range(3):
            if await act(club, "settle", recorder) is not None:
                club.rounds += 1
                break
        await asyncio.gather(*club.dozing)  # the sleepers awake before the next round
        club.dozing.clear()
