"""What only some stores can do: named capabilities, checked with ``isinstance``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from ...models import MemoryEvent, SessionInfo, StoredItem

__all__ = ["EventStateStore", "ItemStore", "SessionTtlStore", "SweepReportStore"]


@runtime_checkable
class SessionTtlStore(Protocol):
    """A store whose sessions expire when idle (a session cache)."""

    async def extend_ttl(self, session_id: str) -> bool:
        """Keep the session's cached layers for another idle period; whether it was cached."""


@runtime_checkable
class EventStateStore(Protocol):
    """A store that hands back the session's new state with an appended event."""

    async def append_event_with_state(self, event: MemoryEvent) -> tuple[MemoryEvent, SessionInfo]:
        """:meth:`TimelineStore.append_event`, and the session's state after it."""


@runtime_checkable
class SweepReportStore(Protocol):
    """A store whose retention sweep reports the sessions it touched."""

    async def sweep(self, *, now: datetime, default_retention_days: int) -> tuple[int, list[str]]:
        """:meth:`PrivacyStore.sweep_expired`, and the ids of the sessions it
        deleted from."""


@runtime_checkable
class ItemStore(Protocol):
    """A store of users' namespaced JSON items (:mod:`unimem.service.items`).

    Every call names the user, and only that user's items are read or written.
    Namespaces arrive checked (non-empty labels without ``.``), values as the
    service prepared them (validated, redacted).
    """

    async def put_item(self, user_id: str, item: StoredItem) -> StoredItem:
        """Insert or replace ``item``; one already under its namespace and key
        keeps its ``created_at``. Returns the item as stored."""

    async def get_item(self, user_id: str, namespace: Sequence[str], key: str) -> StoredItem | None:
        """The item under ``namespace`` and ``key``, or ``None``."""

    async def delete_item(self, user_id: str, namespace: Sequence[str], key: str) -> bool:
        """Delete one item; whether it existed."""

    async def list_items(
        self, user_id: str, namespace_prefix: Sequence[str], *, limit: int
    ) -> list[StoredItem]:
        """The user's items whose namespace starts with ``namespace_prefix`` (all
        of them for ``()``), most recently updated first, at most ``limit``."""

    async def item_namespaces(self, user_id: str) -> list[list[str]]:
        """Every namespace holding an item of the user, sorted."""

    async def delete_user_items(self, user_id: str, *, since: datetime | None = None) -> int:
        """Delete the user's items (those updated at or after ``since`` when
        given); how many."""

    async def sweep_items(self, *, now: datetime, default_retention_days: int) -> int:
        """Delete items not updated within their owner's ``retention_days``
        (``default_retention_days`` for users without settings); how many."""

    async def export_items(self, user_id: str) -> list[StoredItem]:
        """Every item of the user, oldest first."""
