"""In-process store: the zero-configuration default. Nothing survives the process.

:class:`InMemoryStore` keeps the timeline and sessions itself; the other
concerns are mixins over the same dicts (:mod:`.user_data`, :mod:`.privacy`,
:mod:`.items`), and the keyword index, vectors and PHI vault plain classes
beside it (:mod:`.search`, :mod:`.vectors`, :mod:`.vault`).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from ...models import (
    AuditRecord,
    Fact,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    SessionInfo,
    StoredItem,
    Summary,
)
from ...recall.hits import SearchFilters
from ..contracts import (
    RECENT_SCAN,
    AppendResult,
    ContextSnapshot,
    PhiGuard,
    SettingsGuard,
    VaultValue,
)
from ..search import KeywordHit
from ..timeline import apply_entry_changes, check_write_guards, plan_close, plan_entry, plan_event
from ..vectors import PendingEntry, VectorBacklog, VectorRow, VectorStamp
from .items import MemoryItems
from .privacy import MemoryPrivacy
from .search import EntryIndex
from .session import StoredSession, last_events, seq_of
from .user_data import MemoryUserData
from .vault import MemoryVault
from .vectors import EntryVectors

__all__ = ["InMemoryStore"]


class InMemoryStore(MemoryUserData, MemoryPrivacy, MemoryItems):
    """Keeps everything in dicts of this process.

    Appends are atomic because they run without awaiting between reading and
    writing the session state.
    """

    def __init__(self) -> None:
        self._sessions: dict[str, StoredSession] = {}
        self._settings: dict[str, MemorySettings] = {}
        self._facts: dict[str, dict[str, Fact]] = {}
        self._summaries: dict[str, Summary] = {}
        self._audit: dict[str, list[AuditRecord]] = {}
        #: keyword index of every entry (``unimem.stores.memory.search``)
        self._search = EntryIndex()
        #: namespaced items per user (``unimem.stores.memory.items``)
        self._items: dict[str, dict[tuple[str, str], StoredItem]] = {}
        #: sealed PHI token values (``unimem.stores.memory.vault``)
        self._vault = MemoryVault()
        #: vectors of every entry and the queue waiting for them (``memory.vectors``)
        self._vectors = EntryVectors()

    async def setup(self) -> None:
        return None

    async def aclose(self) -> None:
        return None

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
        session = self._sessions.get(entry.session_id)
        if settings_guard is not None or phi_guard is not None:
            stored_settings = self._settings.get(entry.user_id)
            phi_seqs = [
                e.seq
                for e in (session.events if session is not None else [])
                if e.event_type == "phi_detected" and e.seq is not None
            ]
            check_write_guards(
                settings_guard,
                stored_settings.model_dump_json() if stored_settings is not None else None,
                phi_guard,
                max(phi_seqs, default=None),
            )
        if session is not None:
            existing = session.by_id.get(entry.id)
            if existing is not None and existing.user_id == entry.user_id:
                return AppendResult(existing, [], created=False, session=session.state)
        state, stored, events = plan_entry(
            session.state if session else None,
            entry,
            trigger=trigger,
            events_after=events_after,
            language_detected=language_detected,
        )
        if session is None:
            session = self._sessions[entry.session_id] = StoredSession(state)
        session.state = state
        session.entries.append(stored)
        session.by_id[stored.id] = stored
        session.events.extend(events)
        self._search.add(stored)
        self._vault.put(vault)
        self._vectors.add(stored)
        return AppendResult(stored, events, created=True, session=state)

    async def append_event(self, event: MemoryEvent) -> MemoryEvent:
        session = self._sessions.get(event.session_id)
        state, stored = plan_event(session.state if session else None, event)
        if session is None:
            session = self._sessions[event.session_id] = StoredSession(state)
        session.state = state
        session.events.append(stored)
        return stored

    async def get_session(self, session_id: str) -> SessionInfo | None:
        session = self._sessions.get(session_id)
        return session.state if session else None

    async def get_entries(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> list[MemoryEntry]:
        session = self._sessions.get(session_id)
        if session is None or limit <= 0:
            return []
        entries = session.entries
        if before_seq is not None:
            # entries stay in seq order, but deletions leave gaps: bisect, not index
            entries = entries[: bisect_left(entries, before_seq, key=seq_of)]
        return entries[-limit:]

    async def load_history(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> tuple[SessionInfo | None, list[MemoryEntry]]:
        state = await self.get_session(session_id)
        return state, await self.get_entries(session_id, limit=limit, before_seq=before_seq)

    async def get_entry(self, session_id: str, entry_id: str) -> MemoryEntry | None:
        session = self._sessions.get(session_id)
        return session.by_id.get(entry_id) if session else None

    async def get_events(
        self, session_id: str, *, event_type: str | None = None, limit: int
    ) -> list[MemoryEvent]:
        session = self._sessions.get(session_id)
        return last_events(session.events, event_type, limit) if session else []

    async def load_context(
        self, session_id: str, *, max_messages: int, event_limit: int
    ) -> ContextSnapshot:
        session = self._sessions.get(session_id)
        if session is None:
            return ContextSnapshot(None, [], [], [], None)
        return ContextSnapshot(
            session=session.state,
            entries=session.entries[-max_messages:],
            language_events=last_events(session.events, "language_switch", event_limit),
            mode_events=last_events(session.events, "mode_switch", event_limit),
            settings=self._settings.get(session.state.user_id),
        )

    async def close_session(self, session_id: str, *, now: datetime) -> SessionInfo:
        session = self._sessions.get(session_id)
        state = plan_close(session.state if session else None, session_id, None, now)
        assert session is not None
        session.state = state
        return state

    async def list_sessions(
        self, user_id: str, *, limit: int, offset: int = 0
    ) -> list[SessionInfo]:
        mine = (s.state for s in self._sessions.values() if s.state.user_id == user_id)
        # the first offset + limit only (a search reads the latest 20 of thousands)
        latest = heapq.nlargest(
            offset + limit, mine, key=lambda s: (s.last_active_at, s.session_id)
        )
        return latest[offset:]

    # -------------------------------------------------------------- later layers

    async def update_entry(
        self, session_id: str, entry_id: str, changes: dict[str, Any]
    ) -> MemoryEntry | None:
        session = self._sessions.get(session_id)
        old = session.by_id.get(entry_id) if session else None
        if session is None or old is None:
            return None
        new = apply_entry_changes(old, changes)
        index = bisect_left(session.entries, seq_of(old), key=seq_of)
        session.entries[index] = new
        session.by_id[entry_id] = new
        self._search.add(new)
        self._vectors.add(new)
        return new

    async def delete_entry(self, session_id: str, entry_id: str) -> bool:
        session = self._sessions.get(session_id)
        old = session.by_id.pop(entry_id, None) if session else None
        if session is None or old is None:
            return False
        del session.entries[bisect_left(session.entries, seq_of(old), key=seq_of)]
        session.recount()
        self._summaries.pop(session_id, None)
        self._forget([old])
        return True

    async def recent_user_entries(
        self, user_id: str, *, since: datetime, exclude_session: str | None, limit: int
    ) -> list[MemoryEntry]:
        if limit <= 0:
            return []
        found = [
            entry
            for session in self._sessions.values()
            if session.state.user_id == user_id
            for entry in session.entries
            if entry.timestamp is not None and entry.timestamp >= since
        ]
        found.sort(key=lambda e: (e.timestamp, e.id))
        return [e for e in found[-RECENT_SCAN:] if e.session_id != exclude_session][-limit:]

    async def keyword_search(
        self, user_id: str, terms: Sequence[str], *, filters: SearchFilters, limit: int
    ) -> list[KeywordHit]:
        return self._search.search(user_id, terms, filters=filters, limit=limit)

    def _forget(self, entries: Sequence[MemoryEntry]) -> None:
        self._search.remove(entries)
        self._vectors.remove(entries)

    async def pending_vectors(self, limit: int) -> list[PendingEntry]:
        return self._vectors.pending(limit)

    async def put_vectors(self, model: str, vectors: Sequence[tuple[PendingEntry, bytes]]) -> int:
        return self._vectors.put(model, vectors)

    async def vector_search(
        self,
        user_id: str,
        vector: npt.NDArray[np.float32],
        *,
        model: str,
        filters: SearchFilters,
        limit: int,
    ) -> list[KeywordHit]:
        return self._vectors.search(user_id, vector, model=model, filters=filters, limit=limit)

    async def vector_backlog(self) -> VectorBacklog:
        return self._vectors.backlog()

    async def vector_stamp(self, user_id: str, model: str) -> VectorStamp:
        return self._vectors.stamp(user_id, model)

    async def vector_rows(self, user_id: str, model: str, *, after: int) -> list[VectorRow]:
        return self._vectors.rows(user_id, model, after)

    async def vector_entries(
        self, user_id: str, model: str, keys: Sequence[tuple[str, int]], filters: SearchFilters
    ) -> list[tuple[MemoryEntry, bytes]]:
        return self._vectors.entries(user_id, model, keys, filters)
