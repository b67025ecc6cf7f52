"""A store wrapper that times every call of the store contract into the
app's ``unimem_store_operation_duration_seconds`` histogram."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Sequence
from datetime import datetime
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ..errors import ConfigurationError
from ..models import (
    AuditRecord,
    Fact,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    SessionInfo,
    StoredItem,
    Summary,
)
from ..recall.hits import SearchFilters
from ..stores.contracts import (
    AppendResult,
    ContextSnapshot,
    DeleteScope,
    DurableStore,
    ItemStore,
    PhiGuard,
    SessionTtlStore,
    SettingsGuard,
    VaultValue,
)
from ..stores.items import item_store_of
from ..stores.search import KeywordHit, keyword_search_of
from ..stores.vectors import (
    PendingEntry,
    VectorBacklog,
    VectorRow,
    VectorSnapshots,
    VectorStamp,
    vector_snapshots_of,
    vector_store_of,
)
from .metrics import Metrics

__all__ = ["TimedStore"]

_T = TypeVar("_T")


class TimedStore:
    """``inner`` with each call of the :class:`~unimem.stores.contracts.DurableStore`
    contract observed under its name and outcome (``ok``, or ``error`` when it
    raises, cancellation included); ``setup`` and ``aclose`` are not timed.

    Args:
        inner: the store to time.
        metrics: the app's collectors.
    """

    def __init__(self, inner: DurableStore, metrics: Metrics) -> None:
        self.inner = inner
        self._metrics = metrics

    async def _timed(self, name: str, call: Awaitable[_T]) -> _T:
        start = time.perf_counter()
        outcome = "error"
        try:
            result = await call
            outcome = "ok"
            return result
        finally:
            self._metrics.observe_store(name, outcome, time.perf_counter() - start)

    async def setup(self) -> None:
        await self.inner.setup()

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def append_entry(
        self,
        entry: MemoryEntry,
        *,
        trigger: str | None = None,
        settings_guard: SettingsGuard | None = None,
        events_after: Sequence[MemoryEvent] = (),
        phi_guard: PhiGuard | None = None,
        vault: Sequence[VaultValue] = (),
        language_detected: bool = False,
    ) -> AppendResult:
        return await self._timed(
            "append_entry",
            self.inner.append_entry(
                entry,
                trigger=trigger,
                settings_guard=settings_guard,
                events_after=events_after,
                phi_guard=phi_guard,
                vault=vault,
                language_detected=language_detected,
            ),
        )

    async def append_event(self, event: MemoryEvent) -> MemoryEvent:
        return await self._timed("append_event", self.inner.append_event(event))

    async def get_entries(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> list[MemoryEntry]:
        return await self._timed(
            "get_entries", self.inner.get_entries(session_id, limit=limit, before_seq=before_seq)
        )

    async def load_history(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> tuple[SessionInfo | None, list[MemoryEntry]]:
        return await self._timed(
            "load_history", self.inner.load_history(session_id, limit=limit, before_seq=before_seq)
        )

    async def get_entry(self, session_id: str, entry_id: str) -> MemoryEntry | None:
        return await self._timed("get_entry", self.inner.get_entry(session_id, entry_id))

    async def get_events(
        self, session_id: str, *, event_type: str | None = None, limit: int
    ) -> list[MemoryEvent]:
        return await self._timed(
            "get_events", self.inner.get_events(session_id, event_type=event_type, limit=limit)
        )

    async def load_context(
        self, session_id: str, *, max_messages: int, event_limit: int
    ) -> ContextSnapshot:
        return await self._timed(
            "load_context",
            self.inner.load_context(session_id, max_messages=max_messages, event_limit=event_limit),
        )

    async def update_entry(
        self, session_id: str, entry_id: str, changes: dict[str, Any]
    ) -> MemoryEntry | None:
        return await self._timed(
            "update_entry", self.inner.update_entry(session_id, entry_id, changes)
        )

    async def delete_entry(self, session_id: str, entry_id: str) -> bool:
        return await self._timed("delete_entry", self.inner.delete_entry(session_id, entry_id))

    async def recent_user_entries(
        self, user_id: str, *, since: datetime, exclude_session: str | None, limit: int
    ) -> list[MemoryEntry]:
        return await self._timed(
            "recent_user_entries",
            self.inner.recent_user_entries(
                user_id, since=since, exclude_session=exclude_session, limit=limit
            ),
        )

    async def get_session(self, session_id: str) -> SessionInfo | None:
        return await self._timed("get_session", self.inner.get_session(session_id))

    async def close_session(self, session_id: str, *, now: datetime) -> SessionInfo:
        return await self._timed("close_session", self.inner.close_session(session_id, now=now))

    async def list_sessions(
        self, user_id: str, *, limit: int, offset: int = 0
    ) -> list[SessionInfo]:
        return await self._timed(
            "list_sessions", self.inner.list_sessions(user_id, limit=limit, offset=offset)
        )

    async def get_settings(self, user_id: str) -> MemorySettings | None:
        return await self._timed("get_settings", self.inner.get_settings(user_id))

    async def put_settings(self, user_id: str, settings: MemorySettings) -> None:
        return await self._timed("put_settings", self.inner.put_settings(user_id, settings))

    async def put_fact(self, fact: Fact) -> Fact:
        return await self._timed("put_fact", self.inner.put_fact(fact))

    async def list_facts(self, user_id: str) -> list[Fact]:
        return await self._timed("list_facts", self.inner.list_facts(user_id))

    async def delete_fact(self, user_id: str, fact_id: str) -> bool:
        return await self._timed("delete_fact", self.inner.delete_fact(user_id, fact_id))

    async def apply_fact_changes(
        self,
        user_id: str,
        *,
        close: Sequence[tuple[str, datetime]] = (),
        add: Sequence[Fact] = (),
    ) -> list[Fact]:
        return await self._timed(
            "apply_fact_changes", self.inner.apply_fact_changes(user_id, close=close, add=add)
        )

    async def put_summary(self, summary: Summary) -> None:
        return await self._timed("put_summary", self.inner.put_summary(summary))

    async def get_summary(self, session_id: str) -> Summary | None:
        return await self._timed("get_summary", self.inner.get_summary(session_id))

    async def delete_user_data(
        self,
        user_id: str,
        *,
        scope: DeleteScope,
        since: datetime | None = None,
        session_ids: Sequence[str] = (),
    ) -> dict[str, int]:
        return await self._timed(
            "delete_user_data",
            self.inner.delete_user_data(user_id, scope=scope, since=since, session_ids=session_ids),
        )

    async def sweep_expired(self, *, now: datetime, default_retention_days: int) -> int:
        return await self._timed(
            "sweep_expired",
            self.inner.sweep_expired(now=now, default_retention_days=default_retention_days),
        )

    async def export_user(self, user_id: str) -> dict[str, Any]:
        return await self._timed("export_user", self.inner.export_user(user_id))

    async def put_vault_values(self, values: Sequence[VaultValue]) -> None:
        return await self._timed("put_vault_values", self.inner.put_vault_values(values))

    async def get_vault_values(self, user_id: str, session_ids: Sequence[str]) -> list[VaultValue]:
        return await self._timed(
            "get_vault_values", self.inner.get_vault_values(user_id, session_ids)
        )

    async def reseal_vault_values(self, values: Sequence[VaultValue]) -> int:
        return await self._timed("reseal_vault_values", self.inner.reseal_vault_values(values))

    async def append_audit(self, record: AuditRecord) -> None:
        return await self._timed("append_audit", self.inner.append_audit(record))

    async def list_audit(self, user_id: str, *, limit: int) -> list[AuditRecord]:
        return await self._timed("list_audit", self.inner.list_audit(user_id, limit=limit))

    async def extend_ttl(self, session_id: str) -> bool:
        """The wrapped store's ``extend_ttl`` (:class:`SessionTtlStore`); ``False``
        when it has no expiring layer."""
        if not isinstance(self.inner, SessionTtlStore):
            return False
        return await self._timed("extend_ttl", self.inner.extend_ttl(session_id))

    async def keyword_search(
        self, user_id: str, terms: Sequence[str], *, filters: SearchFilters, limit: int
    ) -> list[KeywordHit]:
        """The wrapped store's keyword search (:class:`KeywordSearch`); nothing
        when it has none."""
        searcher = keyword_search_of(self.inner)
        if searcher is None:
            return []
        return await self._timed(
            "keyword_search",
            searcher.keyword_search(user_id, terms, filters=filters, limit=limit),
        )

    # ------------------------------------------------------------------ items

    def _items(self) -> ItemStore:
        found = item_store_of(self.inner)
        if found is None:
            raise ConfigurationError("the store keeps no namespaced items")
        return found

    async def put_item(self, user_id: str, item: StoredItem) -> StoredItem:
        return await self._timed("put_item", self._items().put_item(user_id, item))

    async def get_item(self, user_id: str, namespace: Sequence[str], key: str) -> StoredItem | None:
        return await self._timed("get_item", self._items().get_item(user_id, namespace, key))

    async def delete_item(self, user_id: str, namespace: Sequence[str], key: str) -> bool:
        return await self._timed("delete_item", self._items().delete_item(user_id, namespace, key))

    async def list_items(
        self, user_id: str, namespace_prefix: Sequence[str], *, limit: int
    ) -> list[StoredItem]:
        return await self._timed(
            "list_items", self._items().list_items(user_id, namespace_prefix, limit=limit)
        )

    async def item_namespaces(self, user_id: str) -> list[list[str]]:
        return await self._timed("item_namespaces", self._items().item_namespaces(user_id))

    async def delete_user_items(self, user_id: str, *, since: datetime | None = None) -> int:
        return await self._timed(
            "delete_user_items", self._items().delete_user_items(user_id, since=since)
        )

    async def sweep_items(self, *, now: datetime, default_retention_days: int) -> int:
        return await self._timed(
            "sweep_items",
            self._items().sweep_items(now=now, default_retention_days=default_retention_days),
        )

    async def export_items(self, user_id: str) -> list[StoredItem]:
        return await self._timed("export_items", self._items().export_items(user_id))

    # ------------------------------------------------------------------ vectors

    async def pending_vectors(self, limit: int) -> list[PendingEntry]:
        """The wrapped store's queue (:class:`VectorStore`); nothing when it keeps no vectors."""
        inner = vector_store_of(self.inner)
        if inner is None:
            return []
        return await self._timed("pending_vectors", inner.pending_vectors(limit))

    async def put_vectors(self, model: str, vectors: Sequence[tuple[PendingEntry, bytes]]) -> int:
        """The wrapped store's ``put_vectors``; 0 when it keeps no vectors."""
        inner = vector_store_of(self.inner)
        if inner is None:
            return 0
        return await self._timed("put_vectors", inner.put_vectors(model, vectors))

    async def vector_search(
        self,
        user_id: str,
        vector: npt.NDArray[np.float32],
        *,
        model: str,
        filters: SearchFilters,
        limit: int,
    ) -> list[KeywordHit]:
        """The wrapped store's vector search; nothing when it keeps no vectors."""
        inner = vector_store_of(self.inner)
        if inner is None:
            return []
        return await self._timed(
            "vector_search",
            inner.vector_search(user_id, vector, model=model, filters=filters, limit=limit),
        )

    async def vector_backlog(self) -> VectorBacklog:
        """The wrapped store's backlog; empty when it keeps no vectors."""
        inner = vector_store_of(self.inner)
        if inner is None:
            return VectorBacklog(0, None)
        return await self._timed("vector_backlog", inner.vector_backlog())

    def vector_snapshots(self) -> VectorSnapshots | None:
        """This store (its reads timed) when the wrapped store keeps vector rows."""
        return self if vector_snapshots_of(self.inner) is not None else None

    def _snapshots(self) -> VectorSnapshots:
        inner = vector_snapshots_of(self.inner)
        if inner is None:  # vector_snapshots() said None: callers do not come here
            raise ConfigurationError("the wrapped store keeps no vector rows")
        return inner

    async def vector_stamp(self, user_id: str, model: str) -> VectorStamp:
        """The wrapped store's :class:`~unimem.stores.vectors.VectorSnapshots` stamp."""
        inner = self._snapshots()
        return await self._timed("vector_stamp", inner.vector_stamp(user_id, model))

    async def vector_rows(self, user_id: str, model: str, *, after: int) -> list[VectorRow]:
        """The wrapped store's vector rows after ``after``."""
        inner = self._snapshots()
        return await self._timed("vector_rows", inner.vector_rows(user_id, model, after=after))

    async def vector_entries(
        self, user_id: str, model: str, keys: Sequence[tuple[str, int]], filters: SearchFilters
    ) -> list[tuple[MemoryEntry, bytes]]:
        """The wrapped store's entries at ``keys`` with their vectors."""
        inner = self._snapshots()
        return await self._timed(
            "vector_entries", inner.vector_entries(user_id, model, keys, filters)
        )
