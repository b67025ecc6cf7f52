"""A store wrapper that encrypts content fields at rest (see :mod:`unimem.privacy.crypto`).

:class:`EncryptedStore` wraps any :class:`~unimem.stores.contracts.DurableStore`
(SQLite, PostgreSQL, the Redis-fronted layered store): what it hands the
inner store is encrypted, what it returns is plaintext. Encrypted: an entry's
``content``, ``retrieved_passages``, ``sources`` and ``metadata``; a fact's
``text``, ``key``, ``value`` and attribute values; a summary's ``text``; a
namespaced item's ``value``. Not encrypted: ids, roles, modes, languages,
times, settings, namespaces and item keys, event data
(mode and language events drive the session state inside the store; other
event data is redacted by the privacy pipeline) and the audit log (ids and
counts only).

What is sealed and how is :mod:`unimem.privacy.sealing`; re-encryption under a
new key is :mod:`unimem.privacy.key_rotation`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

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
from ..stores.search import KeywordHit
from ..stores.vectors import PendingEntry, VectorBacklog
from .crypto import Keyring
from .key_rotation import rotate_user
from .sealing import Sealer, summary_aad

__all__ = ["EncryptedStore"]


class EncryptedStore:
    """``inner`` with content fields encrypted by ``keyring`` (AES-GCM).

    Implements the whole store contract and the session cache's ``extend_ttl``
    (:class:`~unimem.stores.contracts.SessionTtlStore`), each explicitly.
    """

    def __init__(self, inner: DurableStore, keyring: Keyring) -> None:
        self.inner = inner
        self.keyring = keyring
        self.sealer = Sealer(keyring)

    # ------------------------------------------------------------------ contract

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
        result = await self.inner.append_entry(
            self.sealer.seal_entry(entry),
            trigger=trigger,
            settings_guard=settings_guard,
            events_after=events_after,
            phi_guard=phi_guard,
            vault=vault,
            language_detected=language_detected,
        )
        result.entry = self.sealer.open_entry(result.entry)
        return result

    async def append_event(self, event: MemoryEvent) -> MemoryEvent:
        return await self.inner.append_event(event)

    async def get_session(self, session_id: str) -> SessionInfo | None:
        return await self.inner.get_session(session_id)

    async def get_entries(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> list[MemoryEntry]:
        found = await self.inner.get_entries(session_id, limit=limit, before_seq=before_seq)
        return self.sealer.open_entries(found)

    async def load_history(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> tuple[SessionInfo | None, list[MemoryEntry]]:
        state, found = await self.inner.load_history(session_id, limit=limit, before_seq=before_seq)
        return state, self.sealer.open_entries(found)

    async def get_entry(self, session_id: str, entry_id: str) -> MemoryEntry | None:
        entry = await self.inner.get_entry(session_id, entry_id)
        return self.sealer.open_entry(entry) if entry is not None else None

    async def get_events(
        self, session_id: str, *, event_type: str | None = None, limit: int
    ) -> list[MemoryEvent]:
        return await self.inner.get_events(session_id, event_type=event_type, limit=limit)

    async def load_context(
        self, session_id: str, *, max_messages: int, event_limit: int
    ) -> ContextSnapshot:
        snap = await self.inner.load_context(
            session_id, max_messages=max_messages, event_limit=event_limit
        )
        snap.entries = self.sealer.open_entries(snap.entries)
        if snap.recent is not None:  # a layered store's cross-session turns
            snap.recent = self.sealer.open_entries(snap.recent)
        return snap

    async def close_session(self, session_id: str, *, now: datetime) -> SessionInfo:
        return await self.inner.close_session(session_id, now=now)

    async def get_settings(self, user_id: str) -> MemorySettings | None:
        return await self.inner.get_settings(user_id)

    async def put_settings(self, user_id: str, settings: MemorySettings) -> None:
        await self.inner.put_settings(user_id, settings)

    async def list_sessions(
        self, user_id: str, *, limit: int, offset: int = 0
    ) -> list[SessionInfo]:
        return await self.inner.list_sessions(user_id, limit=limit, offset=offset)

    async def update_entry(
        self, session_id: str, entry_id: str, changes: dict[str, Any]
    ) -> MemoryEntry | None:
        sealed = self.sealer.seal_fields(session_id, entry_id, changes)
        entry = await self.inner.update_entry(session_id, entry_id, sealed)
        return self.sealer.open_entry(entry) if entry is not None else None

    async def delete_entry(self, session_id: str, entry_id: str) -> bool:
        return await self.inner.delete_entry(session_id, entry_id)

    async def keyword_search(
        self, user_id: str, terms: Sequence[str], *, filters: SearchFilters, limit: int
    ) -> list[KeywordHit]:
        """Nothing: the store's keyword index holds the sealed text, which no
        search term matches (content encrypted at rest is not searchable)."""
        return []

    # content sealed at rest gets no vectors, as it gets no keyword index: a
    # vector says what the text means. Its queue rows go with the entries.

    async def pending_vectors(self, limit: int) -> list[PendingEntry]:
        """Nothing to embed: the stored text is sealed."""
        return []

    async def put_vectors(self, model: str, vectors: Sequence[tuple[PendingEntry, bytes]]) -> int:
        """Stores nothing (no vector of sealed content is ever made)."""
        return 0

    async def vector_search(
        self,
        user_id: str,
        vector: npt.NDArray[np.float32],
        *,
        model: str,
        filters: SearchFilters,
        limit: int,
    ) -> list[KeywordHit]:
        """Nothing: sealed content has no vectors."""
        return []

    async def vector_backlog(self) -> VectorBacklog:
        """Nothing waits: sealed content is never embedded."""
        return VectorBacklog(0, None)

    async def recent_user_entries(
        self, user_id: str, *, since: datetime, exclude_session: str | None, limit: int
    ) -> list[MemoryEntry]:
        found = await self.inner.recent_user_entries(
            user_id, since=since, exclude_session=exclude_session, limit=limit
        )
        return self.sealer.open_entries(found)

    async def put_fact(self, fact: Fact) -> Fact:
        await self.inner.put_fact(self.sealer.seal_fact(fact))
        return fact

    async def list_facts(self, user_id: str) -> list[Fact]:
        return [self.sealer.open_fact(f) for f in await self.inner.list_facts(user_id)]

    async def apply_fact_changes(
        self,
        user_id: str,
        *,
        close: Sequence[tuple[str, datetime]] = (),
        add: Sequence[Fact] = (),
    ) -> list[Fact]:
        # closing sets valid_to only, which is not encrypted
        await self.inner.apply_fact_changes(
            user_id, close=close, add=[self.sealer.seal_fact(f) for f in add]
        )
        return list(add)

    async def delete_fact(self, user_id: str, fact_id: str) -> bool:
        return await self.inner.delete_fact(user_id, fact_id)

    async def put_summary(self, summary: Summary) -> None:
        await self.inner.put_summary(self.sealer.seal_summary(summary))

    async def get_summary(self, session_id: str) -> Summary | None:
        summary = await self.inner.get_summary(session_id)
        if summary is None:
            return None
        return self.sealer.open_summary(summary, session_id)

    async def delete_user_data(
        self,
        user_id: str,
        *,
        scope: DeleteScope,
        since: datetime | None = None,
        session_ids: Sequence[str] = (),
    ) -> dict[str, int]:
        return await self.inner.delete_user_data(
            user_id, scope=scope, since=since, session_ids=session_ids
        )

    async def sweep_expired(self, *, now: datetime, default_retention_days: int) -> int:
        return await self.inner.sweep_expired(
            now=now, default_retention_days=default_retention_days
        )

    async def export_user(self, user_id: str) -> dict[str, Any]:
        data = await self.inner.export_user(user_id)
        data["entries"] = [
            self.sealer.open_fields(e["session_id"], e["id"], e) for e in data.get("entries", [])
        ]
        data["facts"] = [
            self.sealer.fact_fields(f, self.sealer.open) for f in data.get("facts", [])
        ]
        data["summaries"] = [
            {**s, "text": self.sealer.open(s["text"], summary_aad(s["session_id"]))}
            for s in data.get("summaries", [])
        ]
        return data

    async def put_vault_values(self, values: Sequence[VaultValue]) -> None:
        await self.inner.put_vault_values(values)

    async def get_vault_values(self, user_id: str, session_ids: Sequence[str]) -> list[VaultValue]:
        return await self.inner.get_vault_values(user_id, session_ids)

    async def reseal_vault_values(self, values: Sequence[VaultValue]) -> int:
        return await self.inner.reseal_vault_values(values)

    async def append_audit(self, record: AuditRecord) -> None:
        await self.inner.append_audit(record)

    async def list_audit(self, user_id: str, *, limit: int) -> list[AuditRecord]:
        return await self.inner.list_audit(user_id, limit=limit)

    async def extend_ttl(self, session_id: str) -> bool:
        """The wrapped store's ``extend_ttl``; ``False`` when it has no expiring layer."""
        if not isinstance(self.inner, SessionTtlStore):
            return False
        return await self.inner.extend_ttl(session_id)

    # ------------------------------------------------------------------ rotation

    async def rotate_user(self, user_id: str) -> int:
        """Re-encrypt every encrypted value of the user that is not under the
        current key, the PHI vault's sealed values among them; returns how many
        records were rewritten. Plaintext written before encryption was turned
        on is encrypted too."""
        return await rotate_user(self, user_id)

    # ------------------------------------------------------------------ items

    def _items(self) -> ItemStore:
        found = item_store_of(self.inner)
        if found is None:
            raise ConfigurationError("the store keeps no namespaced items")
        return found

    async def put_item(self, user_id: str, item: StoredItem) -> StoredItem:
        stored = await self._items().put_item(user_id, self.sealer.seal_item(user_id, item))
        return stored.model_copy(update={"value": item.value})

    async def get_item(self, user_id: str, namespace: Sequence[str], key: str) -> StoredItem | None:
        found = await self._items().get_item(user_id, namespace, key)
        return self.sealer.open_item(user_id, found) if found is not None else None

    async def delete_item(self, user_id: str, namespace: Sequence[str], key: str) -> bool:
        return await self._items().delete_item(user_id, namespace, key)

    async def list_items(
        self, user_id: str, namespace_prefix: Sequence[str], *, limit: int
    ) -> list[StoredItem]:
        found = await self._items().list_items(user_id, namespace_prefix, limit=limit)
        return [self.sealer.open_item(user_id, i) for i in found]

    async def item_namespaces(self, user_id: str) -> list[list[str]]:
        return await self._items().item_namespaces(user_id)

    async def delete_user_items(self, user_id: str, *, since: datetime | None = None) -> int:
        return await self._items().delete_user_items(user_id, since=since)

    async def sweep_items(self, *, now: datetime, default_retention_days: int) -> int:
        return await self._items().sweep_items(
            now=now, default_retention_days=default_retention_days
        )

    async def export_items(self, user_id: str) -> list[StoredItem]:
        return [
            self.sealer.open_item(user_id, i) for i in await self._items().export_items(user_id)
        ]
