"""Replacement tokens that stay consistent within a session, across processes.

The numbering itself is :class:`unimem.privacy.PhiTokenMap` (``[PERSON_1]`` is
the same person every time, "Carter" alone included). This module keeps a
session's map in the store without keeping any value: each ``phi_detected``
event carries the map entries it added (``{keyed hash: token}``), and the map
is rebuilt from those events. The hash key is derived per session from the
service's token key, so the same person in two sessions gets unrelated
hashes, and whoever reads the store without the key learns nothing from them.
A process without a configured key uses a random one: tokens stay consistent
within that process and numbers are never reused (they are counted from the
token names already in the session).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .phi_redact import PhiTokenMap

__all__ = ["SessionTokens"]

_TOKEN_RE = re.compile(r"^\[([A-Z][A-Z0-9_]*?)_(\d+)\]$")
_MAP_VERSION = 1


def session_key(key: bytes, session_id: str) -> bytes:
    """The hash key of one session's map, derived from the service's token key."""
    return hmac.new(
        key, b"unimem session tokens\x1f" + session_id.encode(), hashlib.sha256
    ).digest()


class SessionTokens:
    """One session's token map, and the entries added since it was loaded."""

    def __init__(self, key: bytes, session_id: str, known: Mapping[str, str] | None = None):
        tokens = {str(h): str(t) for h, t in (known or {}).items()}
        counters: dict[str, int] = {}
        for token in tokens.values():
            match = _TOKEN_RE.fullmatch(token)
            if match is not None:
                kind, number = match.group(1), int(match.group(2))
                counters[kind] = max(counters.get(kind, 0), number)
        data = {"version": _MAP_VERSION, "counters": counters, "tokens": tokens}
        self.map = PhiTokenMap.from_dict(data, key=session_key(key, session_id))
        self._known = set(tokens.values())
        #: values of the tokens made since loading or the last commit (in memory
        #: only, for the PHI vault: ``unimem.privacy.vault``)
        self._values: dict[str, str] = {}

    @classmethod
    def from_events(
        cls, key: bytes, session_id: str, datas: Iterable[Mapping[str, Any]]
    ) -> SessionTokens:
        """The map rebuilt from the ``tokens`` of the session's ``phi_detected`` event data."""
        known: dict[str, str] = {}
        for data in datas:
            tokens = data.get("tokens")
            if isinstance(tokens, Mapping):
                for digest, token in tokens.items():
                    if isinstance(token, str) and _TOKEN_RE.fullmatch(token):
                        known.setdefault(str(digest), token)
        return cls(key, session_id, known)

    def token(self, phi_type: str, value: str) -> str:
        """The token of ``value``: the one it had before in the session, or the next free one."""
        token = self.map.token_for(phi_type, value)
        if token not in self._known:
            self._known.add(token)
            self._values[token] = value
        return token

    def commit(self) -> None:
        """Mark the entries added so far as kept (their event was stored)."""
        self.map.mark_saved()
        self._values = {}

    @property
    def new_values(self) -> dict[str, str]:
        """Token -> original value of the tokens made since loading or the last
        :meth:`commit`: what the PHI vault keeps with them (never logged)."""
        return dict(self._values)

    @property
    def added(self) -> dict[str, str]:
        """Map entries (``{keyed hash: token}``) made since loading or the last
        :meth:`commit`: what an event keeps (not a walk of the whole map)."""
        return self.map.new_entries()
