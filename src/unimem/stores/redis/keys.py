"""Every Redis key name unimem uses, made here and nowhere else.

Keys of one session share the hash tag ``{s:<session_id>}`` and keys of one
user share ``{u:<user_id>}``, so in Redis Cluster each group lives in one slot:
every script and ``MULTI`` touches one slot only (no ``CROSSSLOT``). Session
and user ids cannot contain braces (see :func:`unimem.validation.check_id`),
so the tag is always the first ``{...}`` of the key.

=====================================  ======  ===========================================
key                                     type    holds
=====================================  ======  ===========================================
``<p>:{s:<sid>}:meta``                  hash    ``state`` (SessionInfo JSON), ``mc``/``ec``
                                                (message/event counts), ``complete``
``<p>:{s:<sid>}:win``                   zset    hot window: entry JSON scored by ``seq``
``<p>:{s:<sid>}:lang``                  list    last language_switch events (JSON)
``<p>:{s:<sid>}:mode``                  list    last mode_switch events (JSON)
``<p>:{s:<sid>}:rebuild``               string  read-through rebuild token (short TTL)
``<p>:{u:<uid>}:recent``                zset    short-term layer: ``<sid> <entry id>`` by ms
``<p>:{u:<uid>}:recent:data``           hash    short-term layer: member -> entry JSON
``<p>:{u:<uid>}:recent:warm``           string  set while the short-term layer is complete
``<p>:{u:<uid>}:sessions``              zset    the user's cached session ids by newest ms
``<p>:{u:<uid>}:settings``              string  MemorySettings JSON (``""``: none stored)
=====================================  ======  ===========================================
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

__all__ = ["SessionKeys", "UserKeys", "session_keys", "user_keys"]

DEFAULT_PREFIX = "unimem"


@dataclass(frozen=True, slots=True)
class SessionKeys:
    """The keys of one session (one cluster slot)."""

    meta: str
    window: str
    lang: str
    mode: str
    rebuild: str

    def all(self) -> tuple[str, str, str, str, str]:
        """Every key, in the order the scripts take them."""
        return (self.meta, self.window, self.lang, self.mode, self.rebuild)

    def session_read(self) -> tuple[str, str, str, str]:
        """The keys the session read takes (meta, window, language, mode)."""
        return (self.meta, self.window, self.lang, self.mode)


@dataclass(frozen=True, slots=True)
class UserKeys:
    """The keys of one user (one cluster slot)."""

    recent: str
    recent_data: str
    warm: str
    sessions: str
    settings: str

    def short_term(self) -> tuple[str, str, str, str]:
        """The short-term layer's keys (everything but settings)."""
        return (self.recent, self.recent_data, self.warm, self.sessions)

    def user_read(self) -> tuple[str, str, str, str, str]:
        """The keys the user read takes (settings, recent, recent data, warm, sessions)."""
        return (self.settings, self.recent, self.recent_data, self.warm, self.sessions)


@lru_cache(maxsize=4096)
def session_keys(session_id: str, prefix: str = DEFAULT_PREFIX) -> SessionKeys:
    """Keys of ``session_id`` under ``prefix`` (memoized: every read and write
    of a session names them)."""
    base = f"{prefix}:{{s:{session_id}}}"
    return SessionKeys(
        meta=f"{base}:meta",
        window=f"{base}:win",
        lang=f"{base}:lang",
        mode=f"{base}:mode",
        rebuild=f"{base}:rebuild",
    )


@lru_cache(maxsize=4096)
def user_keys(user_id: str, prefix: str = DEFAULT_PREFIX) -> UserKeys:
    """Keys of ``user_id`` under ``prefix`` (memoized)."""
    base = f"{prefix}:{{u:{user_id}}}"
    return UserKeys(
        recent=f"{base}:recent",
        recent_data=f"{base}:recent:data",
        warm=f"{base}:recent:warm",
        sessions=f"{base}:sessions",
        settings=f"{base}:settings",
    )


def recent_member(session_id: str, entry_id: str) -> str:
    """Member name of an entry in the short-term layer (ids contain no spaces)."""
    return f"{session_id} {entry_id}"
