"""Configuration: where data lives and the limits the service enforces.

Nothing is read at import time; call :func:`load_config` (or build
:class:`MemoryConfig` yourself) when the application starts.

Environment variables:

==============================  ==============================================
``UNIMEM_DATABASE_URL``         durable store: ``sqlite:///path.db``, ``postgresql://...``
                                or ``memory://`` (default: ``sqlite:///<data dir>/unimem.db``
                                for the server, ``memory://`` for the bare library)
``UNIMEM_REDIS_URL``            session cache: ``redis://...`` or ``redis+cluster://...``
``UNIMEM_MAX_CONTENT_BYTES``    largest ``content`` accepted, in UTF-8 bytes (32768)
``UNIMEM_HOT_WINDOW``           messages kept hot per session (50)
``UNIMEM_SESSION_TTL``          idle seconds before a cached session expires (86400)
``VOICEASSIST_DATA_DIR``        data directory (also ``UNIMEM_DATA_DIR``; default ``./data``)
==============================  ==============================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigurationError

__all__ = ["MemoryConfig", "_resolve_data_dir", "load_config", "resolve_data_dir"]

DEFAULT_USER_ID = "local"


#: The variables naming the data directory, first set wins.
DATA_DIR_ENV = ("VOICEASSIST_DATA_DIR", "UNIMEM_DATA_DIR")


def resolve_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """The data directory: ``VOICEASSIST_DATA_DIR`` or ``UNIMEM_DATA_DIR`` if set, else ``./data``.

    The path is returned as given (relative paths stay relative to the working
    directory); it is not created.
    """
    env = os.environ if env is None else env
    for name in DATA_DIR_ENV:
        value = env.get(name, "").strip()
        if value:
            return Path(value).expanduser()
    return Path("./data")


#: Alias kept for code written against the original design page.
_resolve_data_dir = resolve_data_dir


@dataclass(frozen=True, slots=True)
class MemoryConfig:
    """Service-wide limits and defaults (per-user choices live in ``MemorySettings``)."""

    max_content_bytes: int = 32 * 1024
    hot_window: int = 50
    session_ttl_seconds: int = 24 * 3600
    short_term_ttl_seconds: int = 24 * 3600
    default_user_id: str = DEFAULT_USER_ID
    max_context_messages: int = 200
    max_history_messages: int = 10_000
    max_events: int = 1_000

    def __post_init__(self) -> None:
        for name in (
            "max_content_bytes",
            "hot_window",
            "session_ttl_seconds",
            "short_term_ttl_seconds",
            "max_context_messages",
            "max_history_messages",
            "max_events",
        ):
            if getattr(self, name) < 1:
                raise ConfigurationError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.default_user_id:
            raise ConfigurationError("default_user_id must not be empty")


def _int_env(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ConfigurationError(f"{name} must be a whole number, got {raw!r}") from None


def load_config(env: Mapping[str, str] | None = None) -> MemoryConfig:
    """Build a :class:`MemoryConfig` from ``UNIMEM_*`` environment variables."""
    env = os.environ if env is None else env
    return MemoryConfig(
        max_content_bytes=_int_env(env, "UNIMEM_MAX_CONTENT_BYTES", 32 * 1024),
        hot_window=_int_env(env, "UNIMEM_HOT_WINDOW", 50),
        session_ttl_seconds=_int_env(env, "UNIMEM_SESSION_TTL", 24 * 3600),
        short_term_ttl_seconds=_int_env(env, "UNIMEM_SHORT_TERM_TTL", 24 * 3600),
    )
