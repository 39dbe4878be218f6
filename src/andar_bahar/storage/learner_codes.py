"""Learner codes: six letters and digits that cannot be mistaken, read aloud as ``ABC-DEF``.

A learner code is what a learner keeps to come back on another device (or to answer drills
at the terminal under the same progress): like a seat code, it is made of letters and
digits that cannot be taken for one another, and only its hash is stored.

>>> code_key(" abc-def "), code_key("abc def"), code_key("ABCDE"), code_key("AB0-DEF")
('ABCDEF', 'ABCDEF', None, None)
>>> code_text("ABCDEF"), looks_like_code("Tamara"), looks_like_code("tam-ara")
('ABC-DEF', False, True)
"""

from __future__ import annotations

import hashlib
import re
import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session

from andar_bahar.storage.models import LearnerRow

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "code_hash",
    "code_key",
    "code_text",
    "learner_of",
    "looks_like_code",
    "new_code",
]

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Letters and digits that cannot be mistaken for one another (no O/0, I/1/L): the seat
codes' own."""
CODE_LENGTH = 6
_READ_ALOUD = re.compile(r"\s*[A-Za-z0-9]{3}-[A-Za-z0-9]{3}\s*")


def new_code() -> str:
    """A fresh random code (its key: ``ABCDEF``)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def code_key(text: str) -> str | None:
    """A typed code as it is compared (capitals, no spaces or dashes), or ``None`` when it
    cannot be one (too short, too long, a letter the codes never use)."""
    key = "".join(ch for ch in text.upper() if ch not in " -\t")
    if len(key) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in key):
        return None
    return key


def code_text(key: str) -> str:
    """A code as it is read aloud: ``ABC-DEF``."""
    return f"{key[:3]}-{key[3:]}"


def code_hash(key: str) -> str:
    """What is stored of a learner code: the SHA-256 of its key (hex)."""
    return hashlib.sha256(f"learner:{key}".encode()).hexdigest()


def looks_like_code(text: str) -> bool:
    """Whether a learner's name field holds a code as it is read aloud (``ABC-DEF``): the
    terminal takes a name or a code in one field, and no name is written so."""
    return _READ_ALOUD.fullmatch(text) is not None and code_key(text) is not None


def learner_of(session: Session, key: str) -> LearnerRow | None:
    """The learner whose code has the key *key* (``None``: nobody's)."""
    return session.scalars(
        select(LearnerRow).where(LearnerRow.code_hash == code_hash(key))
    ).one_or_none()
