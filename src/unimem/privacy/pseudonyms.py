"""Replacement tokens that stay consistent within a session.

``[PERSON_1]`` is the same person every time they appear in a session. A token
is found again through a keyed digest of the value (HMAC-SHA256 of session id,
PHI type and normalized value): the digest, never the value, is kept in the
session's ``phi_detected`` events, so the mapping survives restarts and is
shared by every process using the same key. Without the key a digest tells
nothing: a process without a configured key uses a random one, which keeps
tokens consistent within that process and never reuses a number (numbers are
counted from the token names already in the session).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["SessionTokens", "value_digest"]

_TOKEN_RE = re.compile(r"^\[([A-Z][A-Z_]*?)_(\d+)\]$")
#: Types whose identity is their digits: "555 1212" and "five five five one two one two".
_NUMERIC = frozenset({"PHONE", "SSN", "MRN", "ACCOUNT", "IP_ADDRESS"})
_WORDS = {
    "zero": "0",
    "oh": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
}


def _normal(phi_type: str, value: str) -> str:
    text = unicodedata.normalize("NFKC", value).casefold()
    if phi_type in _NUMERIC:
        digits = "".join(_WORDS.get(w, w) for w in re.findall(r"[^\W_]+", text))
        only = "".join(c for c in digits if c.isdigit())
        if only:
            return only
    return " ".join(re.findall(r"[^\W_]+", text))


def value_digest(key: bytes, session_id: str, phi_type: str, value: str) -> str:
    """The keyed digest (32 hex characters) identifying ``value`` within the session."""
    message = f"{session_id}\x1f{phi_type}\x1f{_normal(phi_type, value)}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:32]


class SessionTokens:
    """The session's replacement tokens: digest -> token, and the next number per type."""

    def __init__(self, key: bytes, session_id: str) -> None:
        self._key = key
        self._session_id = session_id
        self._by_digest: dict[str, str] = {}
        self._next: dict[str, int] = {}
        #: Tokens handed out by :meth:`token` since creation: token -> digest.
        self.used: dict[str, str] = {}

    def learn(self, tokens: Mapping[str, Any]) -> None:
        """Take in ``{token: digest}`` pairs recorded earlier in the session."""
        for token, digest in tokens.items():
            match = _TOKEN_RE.match(str(token))
            if match is None:
                continue
            kind, number = match.group(1), int(match.group(2))
            self._next[kind] = max(self._next.get(kind, 1), number + 1)
            if isinstance(digest, str) and digest:
                self._by_digest.setdefault(digest, str(token))

    def learn_events(self, datas: Iterable[Mapping[str, Any]]) -> None:
        """Take in the ``tokens`` of the session's ``phi_detected`` event data."""
        for data in datas:
            tokens = data.get("tokens")
            if isinstance(tokens, Mapping):
                self.learn(tokens)

    def token(self, phi_type: str, value: str) -> str:
        """The token of ``value``: the one it had before in the session, or the next free one."""
        kind = re.sub(r"[^A-Z_]", "_", phi_type.upper()) or "PHI"
        digest = value_digest(self._key, self._session_id, kind, value)
        token = self._by_digest.get(digest)
        if token is None:
            number = self._next.get(kind, 1)
            self._next[kind] = number + 1
            token = f"[{kind}_{number}]"
            self._by_digest[digest] = token
        self.used[token] = digest
        return token
