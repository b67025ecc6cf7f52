"""What a layered store's durable store alone keeps: the cache holds none of it,
so each call goes straight through (named one by one, no forwarding)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ...errors import ConfigurationError
from ...models import (
    AuditRecord,
    Fact,
    MemoryEntry,
    MemoryEvent,
    SessionInfo,
    StoredItem,
    Summary,
)
from ...recall.hits import SearchFilters
from ..contracts import ItemStore, VaultValue
from ..items import item_store_of
from ..search import KeywordHit, keyword_search_of
from ..vectors import (
    PendingEntry,
    VectorBacklog,
    VectorSnapshots,
    vector_snapshots_of,
    vector_store_of,
)

if TYPE_CHECKING:
    from ..contracts import DurableStore

__all__ = ["DurableOnly"]


class DurableOnly:
    """Mixin of :class:`~unimem.stores.layered.LayeredStore`: the calls its
    durable store answers alone."""

    if TYPE_CHECKING:  # provided by LayeredStore
        durable: DurableStore

    # ------------------------------------------------------------------ timeline and sessions

    async def get_entry(self, session_id: str, entry_id: str) -> MemoryEntry | None:
        return await self.durable.get_entry(session_id, entry_id)

    async def get_events(
        self, session_id: str, *, event_type: str | None = None, limit: int
    ) -> list[MemoryEvent]:
        return await self.durable.get_events(session_id, event_type=event_type, limit=limit)

    async def list_sessions(
        self, user_id: str, *, limit: int, offset: int = 0
    ) -> list[SessionInfo]:
        return await self.durable.list_sessions(user_id, limit=limit, offset=offset)

    async def recent_user_entries(
        self, user_id: str, *, since: datetime, exclude_session: str | None, limit: int
    ) -> list[MemoryEntry]:
        return await self.durable.recent_user_entries(
            user_id, since=since, exclude_session=exclude_session, limit=limit
        )

    # ------------------------------------------------------------------ user data

    async def put_fact(self, fact: Fact) -> Fact:
        return await self.durable.put_fact(fact)

    async def list_facts(self, user_id: str) -> list[Fact]:
        return await self.durable.list_facts(user_id)

    async def delete_fact(self, user_id: str, fact_id: str) -> bool:
        return await self.durable.delete_fact(user_id, fact_id)

    async def apply_fact_changes(
        self,
        user_id: str,
        *,
        close: Sequence[tuple[str, datetime]] = (),
        add: Sequence[Fact] = (),
    ) -> list[Fact]:
        return await self.durable.apply_fact_changes(user_id, close=close, add=add)

    async def put_summary(self, summary: Summary) -> None:
        await self.durable.put_summary(summary)

    async def get_summary(self, session_id: str) -> Summary | None:
        return await self.durable.get_summary(session_id)

    # ------------------------------------------------------------------ privacy

    async def export_user(self, user_id: str) -> dict[str, Any]:
        return await self.durable.export_user(user_id)

    async def put_vault_values(self, values: Sequence[VaultValue]) -> None:
        await self.durable.put_vault_values(values)

    async def get_vault_values(self, user_id: str, session_ids: Sequence[str]) -> list[VaultValue]:
        return await self.durable.get_vault_values(user_id, session_ids)

    async def reseal_vault_values(self, values: Sequence[VaultValue]) -> int:
        return await self.durable.reseal_vault_values(values)

    async def append_audit(self, record: AuditRecord) -> None:
        await self.durable.append_audit(record)

    async def list_audit(self, user_id: str, *, limit: int) -> list[AuditRecord]:
        return await self.durable.list_audit(user_id, limit=limit)

    # ------------------------------------------------------------------ search and vectors

    async def keyword_search(
        self, user_id: str, terms: Sequence[str], *, filters: SearchFilters, limit: int
    ) -> list[KeywordHit]:
        """The durable store's keyword search (the cache holds no index)."""
        searcher = keyword_search_of(self.durable)
        if searcher is None:
            return []
        return await searcher.keyword_search(user_id, terms, filters=filters, limit=limit)

    # the durable store keeps the vectors (the cache holds none)

    async def pending_vectors(self, limit: int) -> list[PendingEntry]:
        vectors = vector_store_of(self.durable)
        return await vectors.pending_vectors(limit) if vectors is not None else []

    async def put_vectors(self, model: str, vectors: Sequence[tuple[PendingEntry, bytes]]) -> int:
        durable = vector_store_of(self.durable)
        return await durable.put_vectors(model, vectors) if durable is not None else 0

    async def vector_search(
        self,
        user_id: str,
        vector: npt.NDArray[np.float32],
        *,
        model: str,
        filters: SearchFilters,
        limit: int,
    ) -> list[KeywordHit]:
        durable = vector_store_of(self.durable)
        if durable is None:
            return []
        return await durable.vector_search(
            user_id, vector, model=model, filters=filters, limit=limit
        )

    async def vector_backlog(self) -> VectorBacklog:
        durable = vector_store_of(self.durable)
        return await durable.vector_backlog() if durable is not None else VectorBacklog(0, None)

    def vector_snapshots(self) -> VectorSnapshots | None:
        return vector_snapshots_of(self.durable)

    # ------------------------------------------------------------------ items

    def _items(self) -> ItemStore:
        found = item_store_of(self.durable)
        if found is None:
            raise ConfigurationError("the durable store keeps no namespaced items")
        return found

    async def put_item(self, user_id: str, item: StoredItem) -> StoredItem:
        """The durable store's (the cache holds no items)."""
        return await self._items().put_item(user_id, item)

    async def get_item(self, user_id: str, namespace: Sequence[str], key: str) -> StoredItem | None:
        return await self._items().get_item(user_id, namespace, key)

    async def delete_item(self, user_id: str, namespace: Sequence[str], key: str) -> bool:
        return await self._items().delete_item(user_id, namespace, key)

    async def list_items(
        self, user_id: str, namespace_prefix: Sequence[str], *, limit: int
    ) -> list[StoredItem]:
        return await self._items().list_items(user_id, namespace_prefix, limit=limit)

    async def item_namespaces(self, user_id: str) -> list[list[str]]:
        return await self._items().item_namespaces(user_id)

    async def delete_user_items(self, user_id: str, *, since: datetime | None = None) -> int:
        return await self._items().delete_user_items(user_id, since=since)

    async def sweep_items(self, *, now: datetime, default_retention_days: int) -> int:
        return await self._items().sweep_items(
            now=now, default_retention_days=default_retention_days
        )

    async def export_items(self, user_id: str) -> list[StoredItem]:
        return await self._items().export_items(user_id)
