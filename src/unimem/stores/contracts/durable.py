"""The whole contract of a backend: the union of the concerns, and its life cycle."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .privacy import PrivacyStore, VaultStore
from .sessions import SessionStore
from .timeline import TimelineStore
from .user_data import UserDataStore

__all__ = ["DurableStore", "StoreLifecycle"]


class StoreLifecycle(Protocol):
    """How a store is opened and closed."""

    async def setup(self) -> None:
        """Create or migrate the schema and open connections. Idempotent."""

    async def aclose(self) -> None:
        """Release connections. Idempotent."""


@runtime_checkable
class DurableStore(
    StoreLifecycle,
    TimelineStore,
    SessionStore,
    UserDataStore,
    PrivacyStore,
    VaultStore,
    Protocol,
):
    """The whole contract of a storage backend (in-process, SQLite, PostgreSQL,
    the Redis-fronted layered store, and the wrappers around any of them)."""
