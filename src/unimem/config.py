"""Configuration: where data lives and the limits the service enforces.

Nothing is read at import time. Every setting and its environment variable
is in :mod:`unimem.settings` (:class:`unimem.settings.Settings`); the
functions here read the same variables for code written before it.
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
    #: How far (seconds) a client's entry ``timestamp`` may be ahead of this
    #: clock; one further in the future is refused (it would escape retention).
    max_clock_skew_seconds: int = 300
    #: Whether each user and assistant turn updates the user's facts
    #: (``UNIMEM_AUTO_FACTS``); facts pinned by hand work either way.
    auto_facts: bool = True
    #: Most memory (bytes) dense recall's per-user vector matrices and indexes
    #: take (``UNIMEM_VECTOR_CACHE_MB``); 0 scans the store for every search
    #: (``unimem.service.vector_cache``).
    vector_cache_bytes: int = 256 * 1024 * 1024

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
        if self.vector_cache_bytes < 0:
            raise ConfigurationError(
                f"vector_cache_bytes must be at least 0, got {self.vector_cache_bytes}"
            )
        if self.max_clock_skew_seconds < 0:
            raise ConfigurationError(
                f"max_clock_skew_seconds must be at least 0, got {self.max_clock_skew_seconds}"
            )
        if not self.default_user_id:
            raise ConfigurationError("default_user_id must not be empty")


def load_config(env: Mapping[str, str] | None = None) -> MemoryConfig:
    """The :class:`MemoryConfig` of the ``UNIMEM_*`` variables (``os.environ`` by
    default): ``Settings.from_env(env).store.memory_config()``.

    Raises:
        ConfigurationError: a variable cannot work as given (the message names it).
    """
    from .settings import Settings

    return Settings.from_env(env).store.memory_config()
