"""The web infrastructure: vendored htmx, CSRF, languages, errors, live updates, ``serve``.

The page routes are not here: these tests register demo routes and demo templates
of their own on an app made with ``pages=None``. The last test drives a real
browser (Chromium through Playwright) when one is installed.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import shutil
import socket
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Form, Request
from fastapi.responses import HTMLResponse, Response
from jinja2 import ChoiceLoader, DictLoader
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

from andar_bahar.cli import app as cli_app
from andar_bahar.club.events import TABLE_CLOSED, TableEvent
from andar_bahar.engine.errors import AccessError
from andar_bahar.engine.money import parse_stake
from andar_bahar.i18n import translations
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.web import Hub, create_app, hub_of, redirect, render
from andar_bahar.web.http.security import CSRF_REFUSED, load_or_create_secret
from andar_bahar.web.live import hub as live_hub
from andar_bahar.web.live.hub import POLICY_VIOLATION, QUEUE
from andar_bahar.web.live.memory import stop_idle_threads
from andar_bahar.web.live.protocol import Rendered, Viewer
from andar_bahar.web.live.sockets import add_live_route

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2")  # Starlette 1.x would like httpx2
    from fastapi.testclient import TestClient

WEB = Path(str(resources.files("andar_bahar.web")))
SECRET = b"k" * 32
CSRF_SENTENCE = str(CSRF_REFUSED)
STAKE_SENTENCE = "The stake 'abc' is not a number: write an amount such as 100 or 12.5."
STAKE_SENTENCE_RU = "Сумма ставки 'abc' не является числом"

DEMO_TEMPLATES = {
    "demo.html": """{% extends "base.html" %}
{% block content %}
<h1 id="word">{{ _("Andar") }}</h1>
<form method="post" action="/echo">{{ csrf_field }}<input name="name" value="Nino">
<button id="plain">Send</button></form>
{% endblock %}""",
    "live.html": """{% extends "base.html" %}
{% block content %}
<div id="count" data-live-block="count">
{%- block count %}{{ count }}{% endblock -%}
</div>
<button id="bet" hx-post="/table/{{ live_table }}/bet" hx-target="#answer">{{ _("Andar") }}</button>
<button id="bad" hx-post="/table/{{ live_table }}/bad" hx-target="#answer">?</button>
<button id="forged" hx-post="/echo" hx-headers='{"X-CSRF-Token": "forged"}' hx-target="#answer">!</button>
<p id="answer"></p>
{% endblock %}
{% block aside %}<p id="side">{{ _("Bahar") }}</p>{% endblock %}""",
}


class CountRenderer:
    """A demo table: its version is the number of bets; one shared block, ``count``."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts

    def read(self, code: str, known: int | None = None) -> int:
        return self.counts.get(code.upper(), 0)

    def version(self, snapshot: int) -> int:
        return snapshot

    def deadline(self, snapshot: int) -> None:
        return None

    def closed(self, snapshot: int) -> bool:
        return False

    def shared(self, snapshot: int, group: tuple[str, str, str]) -> Rendered:
        return Rendered({"count": str(snapshot)}, {"count": snapshot})

    def private(self, snapshot: int, viewer: Viewer) -> Rendered:
        return Rendered({})

    def allowed(self, snapshot: int, viewer: Viewer) -> bool:
        return True

    def close_expired(self, code: str) -> None:
        return None

    def forget(self, code: str) -> None:
        return None

    def release(self, code: str) -> None:
        return None

    def rest(self) -> None:
        return None


def demo_app(hub: Hub | None = None, **options: Any) -> FastAPI:
    """The infrastructure with a few demo routes, as ``pages.register`` would add them."""
    app = create_app(database_url="sqlite://", secret=SECRET, hub=hub, pages=None, **options)
    env = app.state.site.env
    env.loader = ChoiceLoader([DictLoader(DEMO_TEMPLATES), env.loader])
    counts: dict[str, int] = {}
    app.state.hub.renderer = CountRenderer(counts)

    @app.get("/demo")
    def demo(request: Request) -> HTMLResponse:
        return render(request, "demo.html")

    @app.api_route("/echo", methods=["POST", "PUT", "PATCH", "DELETE"])
    async def echo(request: Request) -> HTMLResponse:
        form = await request.form()
        return HTMLResponse(f"<p id='echo'>ok {form.get('name', '')}</p>")

    @app.post("/named")
    def named(name: str = Form()) -> HTMLResponse:
        return HTMLResponse(f"<p>{name}</p>")

    @app.post("/go")
    def go(request: Request) -> Response:
        return redirect(request, "/demo")

    @app.get("/fail")
    def fail() -> None:
        parse_stake("abc")

    @app.post("/fail")
    def fail_post() -> None:
        parse_stake("abc")

    @app.get("/access")
    def access() -> None:
        raise AccessError(Message(N_("Only the dealer can do this at table {code}."), code="K7"))

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("secret internals")

    @app.get("/table/{code}")
    def table(request: Request, code: str) -> HTMLResponse:
        count = counts.get(code.upper(), 0)
        return render(
            request, "live.html", live_table=code, live_page="demo", live_version=count,
            count=count,
        )  # fmt: skip

    @app.post("/table/{code}/bet")
    def bet(request: Request, code: str) -> HTMLResponse:
        counts[code.upper()] = counts.get(code.upper(), 0) + 1
        hub_of(request).deliver_threadsafe(TableEvent(code.upper(), counts[code.upper()], "bet"))
        return HTMLResponse("<span>placed</span>")

    @app.post("/table/{code}/bad")
    def bad(code: str) -> None:
        parse_stake("abc")

    async def identify(websocket: Any, code: str) -> Viewer:
        return Viewer("demo", "public", "en")

    add_live_route(app, app.state.hub, identify)
    return app


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(demo_app(), raise_server_exceptions=False) as test_client:
        yield test_client


def token_of(page: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert match, "the page has no CSRF field"
    return match.group(1)


def word_of(page: str) -> str:
    match = re.search(r'<h1 id="word">([^<]*)</h1>', page)
    assert match
    return match.group(1)


# -- htmx is ours, nothing comes from the network --------------------------------------------

EXTERNAL = [
    re.compile(r"<script\b[^>]*\bsrc\s*=\s*[\"']?\s*(?:https?:)?//", re.IGNORECASE),
    re.compile(r"<link\b[^>]*\bhref\s*=\s*[\"']?\s*(?:https?:)?//", re.IGNORECASE),
    re.compile(r"@import\s+(?:url\()?\s*[\"']?\s*(?:https?:)?//", re.IGNORECASE),
    re.compile(r"url\(\s*[\"']?\s*(?:https?:)?//", re.IGNORECASE),
]


def test_vendored_htmx_is_served_with_its_licence(client: TestClient) -> None:
    vendor = WEB / "static" / "vendor"
    response = client.get("/static/vendor/htmx.min.js")
    assert response.status_code == 200
    assert "javascript" in response.headers["content-type"]
    assert response.content == (vendor / "htmx.min.js").read_bytes()
    assert 'version:"2.' in response.text
    assert "Zero-Clause BSD" in (vendor / "htmx.LICENSE").read_text(encoding="utf-8")
    readme = (vendor / "README.md").read_text(encoding="utf-8")
    assert "htmx.org" in readme and "2.0.11" in readme and "npm pack htmx.org@2" in readme
    page = client.get("/demo").text
    assert re.search(r'<script src="/static/vendor/htmx\.min\.js\?v=\w+" defer>', page)
    assert client.get("/static/app.css").status_code == 200
    assert client.get("/static/live.js").status_code == 200


def test_no_template_or_static_file_loads_from_the_network(client: TestClient) -> None:
    files = [
        path
        for folder in (WEB / "templates", WEB / "static")
        for path in folder.rglob("*")
        if path.suffix in {".html", ".css", ".js"}
    ]
    assert len(files) >= 6
    for path in files:
        text = path.read_text(encoding="utf-8")
        for pattern in EXTERNAL:
            assert not pattern.search(text), f"{path} loads {pattern.search(text)}"
    for page in (
        client.get("/demo").text,
        client.get("/table/T1").text,
        client.get("/nowhere").text,
    ):
        for pattern in EXTERNAL:
            assert not pattern.search(page)


def test_security_headers(client: TestClient) -> None:
    headers = client.get("/demo").headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "ws://testserver" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"


# -- CSRF --------------------------------------------------------------------------------------


def test_csrf_cookie_is_lax_and_http_only(client: TestClient) -> None:
    # Lax, not Strict: a link from another site must not arrive without it (and so get a new
    # one, expiring the tokens of the browser's other tabs); see web/http/security.py.
    response = client.get("/demo")
    cookies = response.headers.get_list("set-cookie")
    csrf = next(c for c in cookies if c.startswith("ab_csrf="))
    assert "HttpOnly" in csrf and "SameSite=Lax" in csrf and "Path=/" in csrf
    assert "Secure" not in csrf  # plain HTTP on the club's network
    body = response.text
    token = token_of(body)
    assert f"{{&#34;X-CSRF-Token&#34;: &#34;{token}&#34;}}" in body  # hx-headers on <body>
    again = client.get("/demo")
    assert "ab_csrf=" not in " ".join(again.headers.get_list("set-cookie"))
    assert token_of(again.text) == token


def test_post_without_token_is_refused_with_a_sentence(client: TestClient) -> None:
    client.get("/demo")
    response = client.post("/echo", data={"name": "Nino"})
    assert response.status_code == 403
    assert (
        f'<p class="error" role="alert">{CSRF_SENTENCE}</p>'.replace("'", "&#39;") in response.text
    )
    assert "<html" in response.text
    for method in ("PUT", "PATCH", "DELETE"):
        assert client.request(method, "/echo").status_code == 403


def test_post_with_a_wrong_token_is_refused(client: TestClient) -> None:
    token = token_of(client.get("/demo").text)
    wrong = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert client.post("/echo", data={"csrf_token": wrong}).status_code == 403
    assert client.post("/echo", headers={"X-CSRF-Token": "ü-not-ascii".encode()}).status_code == 403
    with TestClient(demo_app()) as other:  # another browser's token
        other_token = token_of(other.get("/demo").text)
    assert client.post("/echo", data={"csrf_token": other_token}).status_code == 403


def test_post_with_the_right_token_passes(client: TestClient) -> None:
    token = token_of(client.get("/demo").text)
    by_field = client.post("/echo", data={"csrf_token": token, "name": "Nino"})
    assert by_field.status_code == 200 and "ok Nino" in by_field.text
    by_header = client.post("/echo", data={"name": "Gela"}, headers={"X-CSRF-Token": token})
    assert by_header.status_code == 200 and "ok Gela" in by_header.text
    multipart = client.post(
        "/echo", data={"csrf_token": token, "name": "Tamar"}, files={"f": ("a.toml", b"x=1")}
    )
    assert multipart.status_code == 200 and "ok Tamar" in multipart.text
    # FastAPI's Form() parameters still read the body the check has read
    assert client.post("/named", data={"csrf_token": token, "name": "Lela"}).text == "<p>Lela</p>"
    for method in ("PUT", "PATCH", "DELETE"):
        assert client.request(method, "/echo", headers={"X-CSRF-Token": token}).status_code == 200


def test_redirect_after_a_form(client: TestClient) -> None:
    token = token_of(client.get("/demo").text)
    headers = {"X-CSRF-Token": token}
    plain = client.post("/go", headers=headers, follow_redirects=False)
    assert plain.status_code == 303 and plain.headers["location"] == "/demo"
    hx = client.post("/go", headers={**headers, "HX-Request": "true"})
    assert hx.status_code == 204 and hx.headers["hx-redirect"] == "/demo"


def test_a_browser_without_the_cookie_is_refused(client: TestClient) -> None:
    token = token_of(client.get("/demo").text)
    with TestClient(demo_app()) as fresh:
        response = fresh.post("/echo", data={"csrf_token": token})
        assert response.status_code == 403
        assert "ab_csrf=" in response.headers["set-cookie"]  # a reload then works


def test_cross_origin_post_is_refused_even_with_the_token(client: TestClient) -> None:
    token = token_of(client.get("/demo").text)
    headers = {"X-CSRF-Token": token}
    evil = client.post("/echo", headers={**headers, "Origin": "http://evil.example"})
    assert evil.status_code == 403
    assert "This request came from another site and was refused." in evil.text
    assert client.post("/echo", headers={**headers, "Origin": "null"}).status_code == 403
    other_port = client.post("/echo", headers={**headers, "Origin": "http://testserver:8001"})
    assert other_port.status_code == 403
    site_header = {**headers, "Sec-Fetch-Site": "cross-site"}
    assert client.post("/echo", headers=site_header).status_code == 403
    same = client.post("/echo", headers={**headers, "Origin": "http://testserver"})
    assert same.status_code == 200


def test_trusted_origins_may_post() -> None:
    with TestClient(demo_app(trusted_origins=["https://club.example"])) as client:
        token = token_of(client.get("/demo").text)
        headers = {"X-CSRF-Token": token, "Origin": "https://club.example"}
        assert client.post("/echo", headers=headers).status_code == 200
        headers["Origin"] = "https://other.example"
        assert client.post("/echo", headers=headers).status_code == 403


def test_htmx_post_without_token_gets_a_fragment_for_errors(client: TestClient) -> None:
    client.get("/demo")
    response = client.post("/echo", headers={"HX-Request": "true"})
    assert response.status_code == 403
    assert response.headers["hx-retarget"] == "#errors"
    assert response.text.strip().startswith('<p class="error" role="alert">')
    assert "<html" not in response.text


def test_csrf_refusal_is_in_the_users_language(client: TestClient) -> None:
    client.get("/demo?lang=ru")
    response = client.post("/echo")
    assert response.status_code == 403
    assert '<html lang="ru">' in response.text and 'aria-label="Язык"' in response.text
    sentence = CSRF_REFUSED.localized(translations("ru"))  # English until translated
    assert html.escape(sentence) in response.text


# -- languages ---------------------------------------------------------------------------------


def test_language_by_query_then_cookie_then_header(client: TestClient) -> None:
    assert word_of(client.get("/demo").text) == "Andar"
    response = client.get("/demo?lang=ru")
    assert word_of(response.text) == "Андар"
    assert '<html lang="ru">' in response.text
    lang_cookie = next(c for c in response.headers.get_list("set-cookie") if "ab_lang" in c)
    assert "ab_lang=ru" in lang_cookie and "SameSite=Lax" in lang_cookie
    assert "HttpOnly" in lang_cookie
    assert word_of(client.get("/demo").text) == "Андар"  # the cookie remembers
    assert word_of(client.get("/demo", headers={"Accept-Language": "ka"}).text) == "Андар"
    assert word_of(client.get("/demo?lang=ka").text) == "ანდარი"
    assert word_of(client.get("/demo?lang=xx").text) == "ანდარი"  # unknown: ignored


def test_language_from_accept_language() -> None:
    with TestClient(demo_app()) as client:
        for header, word in [
            ("ka-GE,ka;q=0.9,en;q=0.8", "ანდარი"),
            ("ru-RU,ru;q=0.9", "Андар"),
            ("de-DE,de;q=0.9", "Andar"),
            ("en;q=0.5,ru;q=0.9", "Андар"),
        ]:
            page = client.get("/demo", headers={"Accept-Language": header}).text
            assert word_of(page) == word, header
        assert "ab_lang" not in str(client.cookies)  # only ?lang= sets the cookie


def test_language_switcher_keeps_the_path(client: TestClient) -> None:
    page = client.get("/demo?seat=3").text
    assert 'href="/demo?seat=3&amp;lang=ru" hreflang="ru"' in page
    assert 'href="/demo?seat=3&amp;lang=ka" hreflang="ka"' in page
    assert 'hreflang="en" lang="en" aria-current="true"' in page
    page = client.get("/table/K7?lang=ka").text
    assert 'href="/table/K7?lang=en"' in page and "ბაჰარი" in page


# -- errors ------------------------------------------------------------------------------------


def test_project_error_is_a_400_page_with_the_sentence(client: TestClient) -> None:
    response = client.get("/fail")
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("text/html")
    assert STAKE_SENTENCE.replace("'", "&#39;") in response.text
    assert 'id="errors"' in response.text and "<html" in response.text
    assert "Traceback" not in response.text
    russian = client.get("/fail?lang=ru")
    assert russian.status_code == 400 and STAKE_SENTENCE_RU.replace("'", "&#39;") in russian.text


def test_project_error_for_htmx_is_a_fragment_retargeted_to_errors(client: TestClient) -> None:
    response = client.get("/fail", headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert response.headers["hx-retarget"] == "#errors"
    assert response.headers["hx-reswap"] == "innerHTML"
    expected = STAKE_SENTENCE.replace("'", "&#39;")
    assert response.text.strip() == f'<p class="error" role="alert">{expected}</p>'
    token = token_of(client.get("/demo").text)
    posted = client.post("/fail", headers={"HX-Request": "true", "X-CSRF-Token": token})
    assert posted.status_code == 200 and posted.headers["hx-retarget"] == "#errors"


def test_access_error_is_a_403(client: TestClient) -> None:
    response = client.get("/access")
    assert response.status_code == 403
    assert "Only the dealer can do this at table K7." in response.text


def test_unexpected_error_shows_a_sentence_and_no_traceback(client: TestClient) -> None:
    response = client.get("/boom")
    assert response.status_code == 500
    assert "Something went wrong on the server" in response.text
    assert "secret internals" not in response.text and "Traceback" not in response.text
    hx = client.get("/boom", headers={"HX-Request": "true"})
    assert hx.status_code == 500 and hx.headers["hx-retarget"] == "#errors"


def test_not_found_and_bad_forms_are_sentences(client: TestClient) -> None:
    missing = client.get("/nowhere?lang=ru")
    assert missing.status_code == 404 and '<html lang="ru">' in missing.text
    from andar_bahar.i18n import translations

    assert translations("ru").gettext("There is no such page.") in missing.text
    assert client.get("/static/nothing.css").status_code == 404
    token = token_of(client.get("/demo?lang=en").text)  # back to English for the rest
    invalid = client.post("/named", data={"csrf_token": token})
    assert invalid.status_code == 422
    assert "Some fields of the form are missing or wrong: name." in invalid.text
    wrong_method = client.get("/named")
    assert wrong_method.status_code == 405 and wrong_method.headers["allow"] == "POST"


# -- live updates ------------------------------------------------------------------------------


def test_hub_renders_once_and_sends_what_changed_to_followers_of_that_table_only() -> None:
    counts = {"K7": 0}

    async def scenario() -> list[dict[str, Any]]:
        hub = Hub(CountRenderer(counts))
        hub.bind(asyncio.get_running_loop())
        async with hub.follow("k7", Viewer("demo", "public", "en"), 0) as follower:
            assert hub.followers("K7") == 1
            while follower.full:  # its page is at version 0, as the table: nothing to send
                await asyncio.sleep(0.01)
            counts["K7"] = 1
            thread = threading.Thread(
                target=hub.deliver_threadsafe, args=(TableEvent("K7", 1, "from a thread"),)
            )
            thread.start()
            thread.join()
            hub.deliver(TableEvent("OTHER", 1, "elsewhere"))
            first = await asyncio.wait_for(follower.queue.get(), 5)
            counts["K7"] = 2
            hub.deliver(TableEvent("K7", 2, "card"))
            hub.deliver(TableEvent("K7", 2, "card"))  # the same version again: nothing new
            second = await asyncio.wait_for(follower.queue.get(), 5)
            assert follower.queue.empty()
        assert hub.followers("K7") == 0
        return [json.loads(first or ""), json.loads(second or "")]

    first, second = asyncio.run(scenario())
    assert (first["v"], first["kind"], first["blocks"]) == (1, "from a thread", {"count": "1"})
    assert (second["v"], second["kind"], second["blocks"]) == (2, "card", {"count": "2"})


def test_a_message_drawn_after_the_table_moved_on_says_how_new_its_html_is() -> None:
    """The render for event 1 reads the table at version 3 (two more changes committed
    meanwhile): its message stands for event 1 (``v``) with HTML of version 3 (``h``), so
    that a page orders its blocks by what they show (live/hub.py)."""
    counts = {"K7": 0}

    async def scenario() -> list[dict[str, Any]]:
        hub = Hub(CountRenderer(counts))
        hub.bind(asyncio.get_running_loop())
        async with hub.follow("K7", Viewer("demo", "public", "en"), 0) as follower:
            while follower.full:
                await asyncio.sleep(0.01)
            counts["K7"] = 3
            hub.deliver(TableEvent("K7", 1, "card"))
            first = await asyncio.wait_for(follower.queue.get(), 5)
            counts["K7"] = 4
            hub.deliver(TableEvent("K7", 4, "card"))
            second = await asyncio.wait_for(follower.queue.get(), 5)
        return [json.loads(first or ""), json.loads(second or "")]

    first, second = asyncio.run(scenario())
    assert (first["v"], first["h"], first["blocks"]) == (1, 3, {"count": "3"})
    assert (second["v"], second["blocks"]) == (4, {"count": "4"}) and "h" not in second


def test_a_late_follower_catches_up_in_one_message_and_a_current_one_gets_nothing() -> None:
    counts = {"K7": 5}

    async def scenario() -> tuple[str | None, bool]:
        hub = Hub(CountRenderer(counts))
        async with hub.follow("K7", Viewer("demo", "public", "en"), 3) as late:
            caught_up = await asyncio.wait_for(late.queue.get(), 5)
        async with hub.follow("K7", Viewer("demo", "public", "en"), 5) as current:
            await asyncio.sleep(0.2)
            return caught_up, current.queue.empty()

    caught_up, nothing = asyncio.run(scenario())
    assert json.loads(caught_up or "")["kind"] == "sync"
    assert json.loads(caught_up or "")["blocks"] == {"count": "5"}
    assert nothing


def test_a_socket_too_far_behind_gets_the_full_set_instead_of_the_backlog() -> None:
    counts = {"K7": 0}

    async def scenario() -> list[dict[str, Any]]:
        hub = Hub(CountRenderer(counts))
        async with hub.follow("K7", Viewer("demo", "public", "en"), 0) as follower:
            while follower.full:
                await asyncio.sleep(0.01)
            for n in range(QUEUE):  # a socket that does not read: its queue is full
                follower.queue.put_nowait(f"old {n}")
            counts["K7"] = 1
            hub.deliver(TableEvent("K7", 1, "card"))
            while follower.queue.empty() or follower.queue.qsize() == QUEUE:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)
            return [
                json.loads(follower.queue.get_nowait() or "") for _ in range(follower.queue.qsize())
            ]

    messages = asyncio.run(scenario())
    assert [(m["v"], m["kind"], m["blocks"]) for m in messages] == [(1, "sync", {"count": "1"})]


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Until *condition* holds (the server's loop runs in another thread), or fail."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)


class ReleasingRenderer(CountRenderer):
    """Counts the tables it is told to let go of."""

    def __init__(self, counts: dict[str, int]) -> None:
        super().__init__(counts)
        self.released: list[str] = []

    def release(self, code: str) -> None:
        self.released.append(code)

    def rest(self) -> None:
        self.released.append("(the night's end)")


def test_a_table_is_let_go_of_a_beat_after_its_last_socket_closes_and_not_before() -> None:
    """live/hub.py: while one socket follows a table the renderer keeps it; when the last
    one closes, the room goes, and a beat later the renderer is told to release the table
    (once) — unless a socket follows it again meanwhile (a phone that lost its line). A
    phone that merely left is not the night's end: the renderer is not told to rest."""
    hub = Hub(beat=0.5)
    app = demo_app(hub)
    renderer = ReleasingRenderer({})
    hub.renderer = renderer
    with TestClient(app) as client:
        with client.websocket_connect("/ws/K7?v=0"):
            with client.websocket_connect("/ws/K7?v=0"):
                assert hub.followers("K7") == 2
            wait_until(lambda: hub.followers("K7") == 1)
        wait_until(lambda: "K7" not in hub.rooms)
        with client.websocket_connect("/ws/K7?v=0"):  # back within the beat
            wait_until(lambda: not hub.tasks)  # the first release has had its beat
            assert renderer.released == []
        wait_until(lambda: renderer.released == ["K7"] and not hub.tasks)  # its release done
        assert renderer.released == ["K7"]
        assert "K7" not in hub.rooms


def test_the_process_rests_when_its_last_followed_table_is_closed_for_the_night() -> None:
    """live/hub.py: a table closed for the night while another is still followed is
    released alone; when the last followed table is closed, the renderer is also told to
    rest (the service then closes its idle database connections)."""
    hub = Hub()
    app = demo_app(hub)
    renderer = ReleasingRenderer({})
    hub.renderer = renderer
    with TestClient(app) as client:
        with client.websocket_connect("/ws/Q2?v=0") as q2:
            with client.websocket_connect("/ws/K7?v=0") as k7:
                hub.deliver_threadsafe(TableEvent("K7", 1, TABLE_CLOSED))
                while k7.receive()["type"] != "websocket.close":
                    pass
            wait_until(lambda: renderer.released == ["K7"] and not hub.tasks)
            assert renderer.released == ["K7"] and hub.followers("Q2") == 1
            hub.deliver_threadsafe(TableEvent("Q2", 1, TABLE_CLOSED))
            while q2.receive()["type"] != "websocket.close":
                pass
        wait_until(lambda: renderer.released == ["K7", "Q2", "(the night's end)"])


class ClosedRenderer(ReleasingRenderer):
    """Every table it reads is closed for the night."""

    def closed(self, snapshot: int) -> bool:
        return True


def test_a_socket_let_in_just_before_the_close_ends_and_the_night_ends_at_once() -> None:
    """live/hub.py: a page let in just before its table closed follows it after the close's
    event came (no room had it then): the first render shows the table closed, so its
    socket ends as every closed table's does (1008) and, the last table followed here, the
    table is released and the renderer rests at once — not a beat later, and not never."""
    hub = Hub(beat=3600)  # a beat no test waits for
    app = demo_app(hub)
    renderer = ClosedRenderer({})
    hub.renderer = renderer
    with TestClient(app) as client, client.websocket_connect("/ws/K7?v=-1") as k7:
        wait_until(lambda: renderer.released == ["K7", "(the night's end)"])  # the server's doing
        assert json.loads(k7.receive_text())["kind"] == "sync"  # its page shows the close
        assert k7.receive() == {"type": "websocket.close", "code": POLICY_VIOLATION, "reason": ""}


def test_the_nights_end_stops_the_threads_the_night_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """live/hub.py: the last table followed here closed, the hub stops the thread pool's
    idle threads (the renders ran in them: AnyIO alone would keep them) and they end."""
    stopped: list[threading.Thread] = []

    def recorded() -> list[threading.Thread]:
        found = stop_idle_threads()
        stopped.extend(found)
        return found

    monkeypatch.setattr(live_hub, "stop_idle_threads", recorded)
    hub = Hub(beat=3600)  # a beat no test waits for: the close ends the night at once
    app = demo_app(hub)
    renderer = ClosedRenderer({})
    hub.renderer = renderer
    with TestClient(app) as client, client.websocket_connect("/ws/K7?v=-1"):
        wait_until(lambda: renderer.released == ["K7", "(the night's end)"])
        wait_until(lambda: bool(stopped))  # at least the thread that drew the table
        wait_until(lambda: not any(thread.is_alive() for thread in stopped))


def test_websocket_receives_what_changed() -> None:
    hub = Hub()
    with TestClient(demo_app(hub)) as client, client.websocket_connect("/ws/K7?v=0") as ws:
        assert hub.followers("K7") == 1
        client.post("/table/K7/bet", data={"csrf_token": token_of(client.get("/demo").text)})
        message = ws.receive_json()
        assert (message["v"], message["kind"], message["blocks"]) == (1, "bet", {"count": "1"})
        ws.send_text("ping")
        assert ws.receive_text() == "pong"
    assert hub.followers("K7") == 0


def test_websocket_refuses_bad_codes_and_other_sites(client: TestClient) -> None:
    with client.websocket_connect("/ws/no%20such!") as ws:
        assert ws.receive() == {"type": "websocket.close", "code": 1008, "reason": ""}
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect("/ws/K7", headers={"Origin": "http://evil.example"}),
    ):
        pass
    assert refused.value.code == 1008


def test_live_page_loads_live_js_and_names_its_socket(client: TestClient) -> None:
    page = client.get("/table/K7").text
    assert 'data-live-path="/ws/K7"' in page
    assert re.search(r'<script src="/static/live\.js\?v=\w+" defer>', page)
    assert 'id="live-status"' in page and "hidden" in page
    assert 'data-live-page="demo" data-live-version="0"' in page
    assert "live.js" not in client.get("/demo").text


# -- registration of the page routes --------------------------------------------------------------


def test_create_app_registers_the_pages_it_is_given() -> None:
    calls: list[tuple[object, object]] = []
    app = create_app(database_url="sqlite://", pages=lambda app, site: calls.append((app, site)))
    assert calls == [(app, app.state.site)]
    assert app.state.site.database_url == "sqlite://"
    bare = {getattr(route, "path", "") for route in create_app(pages=None).routes}
    assert "/" not in bare and "/ws/{code}" not in bare  # None: no page at all


def test_create_app_registers_the_club_pages_by_default() -> None:
    # the default is the club's own pages, imported plainly (no module found by its name)
    paths = {getattr(route, "path", "") for route in create_app(database_url="sqlite://").routes}
    assert {"/", "/dealer/{code}", "/play/{code}", "/ws/{code}", "/api/tables"} <= paths


# -- serve -------------------------------------------------------------------------------------


def test_serve_help() -> None:
    result = CliRunner().invoke(cli_app, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--db", "--lang"):
        assert option in result.output


def test_serve_runs_uvicorn_with_the_app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import uvicorn

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    runs: list[tuple[FastAPI, str, int]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, host, port, **_: runs.append((app, host, port)))
    db = tmp_path / "club.sqlite3"
    result = CliRunner().invoke(
        cli_app, ["serve", "--db", str(db), "--port", "8123", "--lang", "en"]
    )
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Open http://127.0.0.1:8123/ in a browser on this computer")
    assert len(result.output.strip().splitlines()) == 1
    app, host, port = runs[0]
    assert (host, port) == ("127.0.0.1", 8123)
    assert app.state.site.database_url == f"sqlite:///{db.resolve()}"
    secret_file = tmp_path / "data" / "andar-bahar" / "web-secret"
    assert app.state.site.secret == load_or_create_secret(secret_file)
    assert secret_file.stat().st_mode & 0o077 == 0


# -- a real browser ------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _Server:
    """The demo app under uvicorn in a thread, stoppable and restartable on one port."""

    def __init__(self, app: FastAPI, port: int, **settings: Any) -> None:
        import uvicorn

        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=port,
            **{"log_level": "error", "timeout_graceful_shutdown": 1, **settings},
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> _Server:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def _browser(playwright):  # type: ignore[no-untyped-def]
    try:
        return playwright.chromium.launch()
    except Exception:
        for name in ("chromium", "chromium-browser", "google-chrome"):
            path = shutil.which(name)
            if path:
                return playwright.chromium.launch(executable_path=path)
    pytest.skip("no Chromium for Playwright here")


def test_in_a_browser_htmx_csrf_errors_and_live_updates() -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    hub = Hub()
    with sync_api.sync_playwright() as playwright:
        browser = _browser(playwright)
        try:
            context = browser.new_context(viewport={"width": 360, "height": 740})
            page = context.new_page()
            problems: list[str] = []
            page.on("pageerror", lambda error: problems.append(str(error)))
            page.on(
                "console",
                lambda message: (
                    problems.append(message.text)
                    if "Content Security Policy" in message.text
                    else None
                ),
            )
            with _Server(demo_app(hub), port):
                page.goto(f"{base}/table/K7?lang=ka")
                page.wait_for_function("() => window.htmx && window.htmx.version.startsWith('2.')")
                # one column at 360 px, nothing wider than the screen
                assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
                font = page.evaluate("() => getComputedStyle(document.body).fontFamily")
                assert font.startswith('"Noto Sans Georgian"')
                page.wait_for_function("() => document.getElementById('live-status').hidden")
                deadline = time.monotonic() + 5
                while hub.followers("K7") == 0:
                    assert time.monotonic() < deadline, "live.js did not connect"
                    time.sleep(0.05)
                # an htmx POST carries the token from hx-headers; its event brings the new
                # #count over the socket, and the page sends no request for it
                requests: list[str] = []
                page.on("request", lambda request: requests.append(request.url))
                page.click("#bet")
                page.wait_for_function(
                    "() => document.getElementById('answer').textContent === 'placed'"
                )
                page.wait_for_function("() => document.getElementById('count').textContent === '1'")
                assert page.evaluate("() => document.body.dataset.liveVersion") == "1"
                assert [url for url in requests if not url.endswith("/K7/bet")] == []
                # an error shows in #errors, in Georgian
                page.click("#bad")
                page.wait_for_selector("#errors p.error[role=alert]")
                assert "ფსონის თანხა" in page.inner_text("#errors")
                assert page.inner_text("#answer") == "placed"
                # a forged token: 403, and htmx shows the refusal in #errors as well
                page.click("#forged")
                page.wait_for_function(
                    "(text) => document.getElementById('errors').textContent.includes(text)",
                    arg=CSRF_REFUSED.localized(translations("ka")),
                )
                assert page.inner_text("#answer") == "placed"
                # on a laptop the aside stands beside the content
                page.set_viewport_size({"width": 1280, "height": 800})
                primary = page.locator(".primary").bounding_box()
                aside = page.locator(".secondary").bounding_box()
                assert primary and aside and aside["x"] >= primary["x"] + primary["width"]
                page.set_viewport_size({"width": 360, "height": 740})
                aside = page.locator(".secondary").bounding_box()
                assert aside and aside["x"] < 40  # one column on a phone
            # the server is down: the badge shows
            page.wait_for_function(
                "() => !document.getElementById('live-status').hidden", timeout=10000
            )
            moved_on = demo_app()
            moved_on.state.hub.renderer.counts["K7"] = 3  # type: ignore[union-attr]
            with _Server(moved_on, port):
                page.wait_for_function(
                    "() => document.getElementById('live-status').hidden", timeout=15000
                )
                # meanwhile the table moved on: the page catches up as it reconnects
                page.wait_for_function(
                    "() => document.getElementById('count').textContent === '3'", timeout=5000
                )
            assert problems == []
        finally:
            browser.close()


def test_serve_closes_a_socket_that_sends_more_than_a_ping() -> None:
    """serve's uvicorn settings (web/connections.server_settings): a page sends only
    ``ping`` on its socket; 64 KiB from a stranger closes the socket with 1009 (message too
    big) before the server reads it, and the server goes on answering pings on other sockets."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from andar_bahar.web.http.connections import server_settings

    port = _free_port()
    settings = {key: value for key, value in server_settings().items() if key != "log_level"}
    with _Server(demo_app(), port, **settings):
        url = f"ws://127.0.0.1:{port}/ws/K7?v=0"
        with connect(url) as abuser, connect(url) as phone:
            abuser.send("x" * 65536)
            with pytest.raises(ConnectionClosed) as closed:
                abuser.recv(timeout=5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
            phone.send("ping")
            assert phone.recv(timeout=5) == "pong"


def test_a_serving_app_freezes_what_it_started_with_and_collects_young_objects_later() -> None:
    """serve's app (serving=True) tunes the garbage collector once started (fewer, shorter
    pauses: docs/performance.md); an app made for a test leaves it alone."""
    import gc

    from andar_bahar.web.app import GC_YOUNG

    before = gc.get_threshold()
    try:
        with TestClient(create_app(secret=b"k" * 32, pages=None)):
            assert gc.get_threshold() == before
        with TestClient(create_app(secret=b"k" * 32, pages=None, serving=True)):
            assert gc.get_threshold()[0] >= GC_YOUNG
            assert gc.get_freeze_count() > 0
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def test_blocking_work_runs_on_at_most_the_stated_threads() -> None:
    """The app's blocking work (its routes written as plain functions, the live renders)
    runs on WORKER_THREADS threads at once, not AnyIO's forty: of three times as many
    tasks, each blocked until the test lets them go, that many run and the rest wait
    (docs/performance.md says why)."""
    import anyio.to_thread

    from andar_bahar.web.app import WORKER_THREADS

    tasks = 3 * WORKER_THREADS
    running = 0
    lock, release = threading.Lock(), threading.Event()

    def blocking() -> None:
        nonlocal running
        with lock:
            running += 1
        release.wait(10)  # a deadline: the test sets it
        with lock:
            running -= 1

    async def burst() -> tuple[int, int]:
        limiter = anyio.to_thread.current_default_thread_limiter()
        async with anyio.create_task_group() as group:
            for _ in range(tasks):
                group.start_soon(anyio.to_thread.run_sync, blocking)
            deadline = time.monotonic() + 10
            while True:  # until every task runs or waits for a thread
                shown = limiter.statistics()
                if running == shown.borrowed_tokens and running + shown.tasks_waiting == tasks:
                    seen = running, shown.tasks_waiting
                    break
                assert time.monotonic() < deadline, (running, shown)
                await anyio.sleep(0.01)
            release.set()
        return seen

    with TestClient(create_app(secret=b"k" * 32, pages=None)) as client:
        at_once, waiting = client.portal.call(burst)  # in the app's own event loop
    assert (at_once, waiting) == (WORKER_THREADS, tasks - WORKER_THREADS)
