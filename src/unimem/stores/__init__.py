"""Storage backends behind one contract (:class:`~unimem.stores.contracts.DurableStore`)."""

from __future__ import annotations

from ..errors import ConfigurationError
from .contracts import AppendResult, ContextSnapshot, DurableStore
from .memory import InMemoryStore
from .sqlite import SQLiteStore

__all__ = [
    "AppendResult",
    "ContextSnapshot",
    "DurableStore",
    "InMemoryStore",
    "SQLiteStore",
    "durable_store_from_url",
]


def durable_store_from_url(url: str) -> DurableStore:
    """Build the durable store named by ``url``.

    ``memory://`` keeps everything in this process; ``sqlite:///relative.db`` or
    ``sqlite:////absolute.db`` an embedded file; ``postgresql://...`` a server.
    """
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme == "memory":
        return InMemoryStore()
    if scheme == "sqlite":
        return SQLiteStore.from_url(url)
    if scheme in ("postgres", "postgresql"):
        try:
            from .postgres import PostgresStore  # type: ignore[import-not-found,unused-ignore]
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ConfigurationError(f"PostgreSQL support is not available: {exc}") from exc
        store: DurableStore = PostgresStore.from_url(url)
        return store
    raise ConfigurationError(
        f"unsupported store URL scheme {scheme or url!r}: use memory://, sqlite:///path.db "
        "or postgresql://user@host:port/db"
    )
