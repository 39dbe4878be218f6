"""The text of a live message: JSON whose blocks are encoded once, and the server's time.

A live message (:mod:`~andar_bahar.web.live.hub`) or an answer to a page's own action
(:func:`~andar_bahar.web.pages.shared.answer`) is ``{"v", "kind", …, "blocks", "data"}``.
The same blocks go to many pages (the renderer keeps them: the same text is the same
object), so :func:`message_text` encodes each block's HTML once; a block that shows the
server's time holds :data:`SERVER_NOW`, and every message is sent with the time it was
made there (:func:`with_now`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from andar_bahar.web.http.templating import Drawn

__all__ = ["ENCODED_MOST", "SERVER_NOW", "forget_encoded", "message_text", "with_now"]

SERVER_NOW = "@@server-now@@"
"""What a block may hold for the server's time (a countdown's ``data-now``): every message
is sent with the time it was made in its place (:func:`with_now`), so that a block's HTML
can be kept and sent again while what it shows is the same."""


def with_now(text: str, now: datetime) -> str:
    """*text* with the server's time *now* (ISO 8601, UTC, to the millisecond) for
    :data:`SERVER_NOW`."""
    if SERVER_NOW not in text:
        return text
    stamp = now.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return text.replace(SERVER_NOW, stamp)


ENCODED_MOST = 1024
"""Block HTML kept encoded as JSON strings (:func:`message_text`): the blocks in flight are
a few per table; a felt with many cards is some 10 kB, so this keeps memory to tens of MB."""
_ENCODED = Drawn(ENCODED_MOST)


def forget_encoded() -> None:
    """Let go of every block kept encoded (keys and values both hold a block's HTML: a
    table no longer followed keeps none of its blocks here)."""
    _ENCODED.clear()


def _encode(html: str) -> str:
    """*html* as a JSON string, each distinct text encoded once (the same blocks go to many
    pages, and the renderer keeps them: the same text is the same object)."""
    return _ENCODED.draw(html, json.dumps, html, ensure_ascii=False)


def message_text(
    head: Mapping[str, Any], blocks: Mapping[str, str], data: Mapping[str, Any], now: datetime
) -> str:
    """A live message as JSON text: *head*'s fields (``v``, ``kind`` …), then ``blocks`` and
    ``data``, with the server's time *now* for :data:`SERVER_NOW` (:func:`with_now`).

    The same as ``json.dumps({**head, "blocks": blocks, "data": data})`` (compact), but each
    block's HTML is encoded once however many messages carry it.

    >>> now = datetime(2026, 1, 2, tzinfo=UTC)
    >>> text = message_text({"v": 3}, {"table": '<p a="1">é</p>'}, {"n": 1}, now)
    >>> json.loads(text) == {"v": 3, "blocks": {"table": '<p a="1">é</p>'}, "data": {"n": 1}}
    True
    """
    parts = [_compact(head)[:-1]]
    parts.append(',"blocks":{' if head else '"blocks":{')
    parts.append(",".join(f"{_encode(name)}:{_encode(html)}" for name, html in blocks.items()))
    parts.append('},"data":')
    parts.append(_compact(data))
    parts.append("}")
    return with_now("".join(parts), now)


def _compact(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
