"""The ``store`` section: where data lives and the limits the service enforces."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from ..config import DEFAULT_USER_ID, MemoryConfig
from .section import Section

__all__ = ["StoreSettings"]


class StoreSettings(Section):
    """Where data lives and the limits the service enforces."""

    #: The durable store's URL; ``None``: SQLite in :attr:`data_dir`.
    database_url: str | None = None
    #: The Redis session cache in front of it (optional).
    redis_url: str | None = None
    #: Data directory, relative to the working directory unless absolute.
    data_dir: Path = Path("./data")
    max_content_bytes: int = Field(32 * 1024, ge=1)
    hot_window: int = Field(50, ge=1)
    session_ttl: int = Field(24 * 3600, ge=1)
    short_term_ttl: int = Field(24 * 3600, ge=1)
    #: Seconds an entry's timestamp may be ahead of the server's clock.
    max_clock_skew: int = Field(300, ge=0)
    #: The user of calls that name none (and of local mode).
    default_user_id: str = DEFAULT_USER_ID
    max_context_messages: int = Field(200, ge=1)
    max_history_messages: int = Field(10_000, ge=1)
    max_events: int = Field(1_000, ge=1)
    #: MiB of dense recall's per-user vector matrices and indexes (0: the store scans).
    vector_cache_mb: int = Field(256, ge=0)

    @property
    def durable_url(self) -> str:
        """``database_url``, or ``sqlite:///<data dir>/unimem.db``."""
        return self.database_url or f"sqlite:///{self.data_dir.expanduser() / 'unimem.db'}"

    def memory_config(self) -> MemoryConfig:
        """The service limits these settings name."""
        return MemoryConfig(
            max_content_bytes=self.max_content_bytes,
            hot_window=self.hot_window,
            session_ttl_seconds=self.session_ttl,
            short_term_ttl_seconds=self.short_term_ttl,
            default_user_id=self.default_user_id,
            max_context_messages=self.max_context_messages,
            max_history_messages=self.max_history_messages,
            max_events=self.max_events,
            max_clock_skew_seconds=self.max_clock_skew,
            vector_cache_bytes=self.vector_cache_mb * 1024 * 1024,
        )
