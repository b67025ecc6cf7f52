"""In-process store: the zero-configuration default. Nothing survives the process."""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InvalidInputError
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
from .contracts import (
    RECENT_SCAN,
    AppendResult,
    ContextSnapshot,
    DeleteScope,
    FactsChanged,
    PhiGuard,
    SettingsGuard,
    VaultValue,
)
from .memory_items import MemoryItems
from .memory_search import EntryIndex
from .memory_vault import MemoryVault
from .memory_vectors import EntryVectors
from .search import KeywordHit
from .timeline import apply_entry_changes, check_write_guards, plan_close, plan_entry, plan_event
from .vectors import PendingEntry, VectorBacklog, VectorRow, VectorStamp, export_vectors

__all__ = ["InMemoryStore"]


@dataclass(slots=True)
class _Session:
    state: SessionInfo
    entries: list[MemoryEntry] = field(default_factory=list)
    by_id: dict[str, MemoryEntry] = field(default_factory=dict)
    events: list[MemoryEvent] = field(default_factory=list)

    def recount(self) -> None:
        """Make the state's counts what is left after a deletion (its last seqs stay)."""
        counts = {"message_count": len(self.entries), "event_count": len(self.events)}
        if (self.state.message_count, self.state.event_count) != tuple(counts.values()):
            self.state = self.state.model_copy(update=counts)


def _last(items: list[MemoryEvent], event_type: str | None, limit: int) -> list[MemoryEvent]:
    if event_type is None:
        return items[-limit:] if limit else []
    found: list[MemoryEvent] = []
    for event in reversed(items):
        if event.event_type == event_type:
            found.append(event)
            if len(found) == limit:
                break
    found.reverse()
    return found


def _seq(entry: MemoryEntry) -> int:
    assert entry.seq is not None
    return entry.seq


def _before(timestamp: datetime | None, cutoff: datetime) -> bool:
    return timestamp is not None and timestamp < cutoff


class InMemoryStore(MemoryItems):
    """Keeps everything in dicts of this process.

    Appends are atomic because they run without awaiting between reading and
    writing the session state.
    """

    def __init__(self) -> None:
        self._sessions: dict[str, _Session] = {}
        self._settings: dict[str, MemorySettings] = {}
        self._facts: dict[str, dict[str, Fact]] = {}
        self._summaries: dict[str, Summary] = {}
        self._audit: dict[str, list[AuditRecord]] = {}
        #: keyword index of every entry (``unimem.stores.memory_search``)
        self._search = EntryIndex()
        #: namespaced items per user (``unimem.stores.memory_items``)
        self._items: dict[str, dict[tuple[str, str], StoredItem]] = {}
        #: sealed PHI token values (``unimem.stores.memory_vault``)
        self._vault = MemoryVault()
        #: vectors of every entry and the queue waiting for them (``memory_vectors``)
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
            session.state if session else None, entry, trigger=trigger, events_after=events_after
        )
        if session is None:
            session = self._sessions[entry.session_id] = _Session(state)
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
            session = self._sessions[event.session_id] = _Session(state)
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
            entries = entries[: bisect_left(entries, before_seq, key=_seq)]
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
        return _last(session.events, event_type, limit) if session else []

    async def load_context(
        self, session_id: str, *, max_messages: int, event_limit: int
    ) -> ContextSnapshot:
        session = self._sessions.get(session_id)
        if session is None:
            return ContextSnapshot(None, [], [], [], None)
        return ContextSnapshot(
            session=session.state,
            entries=session.entries[-max_messages:],
            language_events=_last(session.events, "language_switch", event_limit),
            mode_events=_last(session.events, "mode_switch", event_limit),
            settings=self._settings.get(session.state.user_id),
        )

    async def close_session(self, session_id: str, *, now: datetime) -> SessionInfo:
        session = self._sessions.get(session_id)
        state = plan_close(session.state if session else None, session_id, None, now)
        assert session is not None
        session.state = state
        return state

    async def get_settings(self, user_id: str) -> MemorySettings | None:
        return self._settings.get(user_id)

    async def put_settings(self, user_id: str, settings: MemorySettings) -> None:
        self._settings[user_id] = settings

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
        index = bisect_left(session.entries, _seq(old), key=_seq)
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
        del session.entries[bisect_left(session.entries, _seq(old), key=_seq)]
        session.recount()
        self._summaries.pop(session_id, None)
        self._forget([old])
        return True

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

    async def put_fact(self, fact: Fact) -> Fact:
        self._facts.setdefault(fact.user_id, {})[fact.id] = fact
        return fact

    async def list_facts(self, user_id: str) -> list[Fact]:
        facts = list(self._facts.get(user_id, {}).values())
        facts.sort(key=lambda f: (f.created_at is None, f.created_at, f.id))
        return facts

    async def delete_fact(self, user_id: str, fact_id: str) -> bool:
        return self._facts.get(user_id, {}).pop(fact_id, None) is not None

    async def apply_fact_changes(
        self,
        user_id: str,
        *,
        close: Sequence[tuple[str, datetime]] = (),
        add: Sequence[Fact] = (),
    ) -> list[Fact]:
        # checked in full before anything changes, with no await in between
        facts = self._facts.setdefault(user_id, {})
        for fact_id, _ in close:
            held = facts.get(fact_id)
            if held is None or not held.current:
                raise FactsChanged(fact_id)
        for fact_id, valid_to in close:
            facts[fact_id] = facts[fact_id].model_copy(update={"valid_to": valid_to})
        for fact in add:
            facts[fact.id] = fact
        return list(add)

    async def put_summary(self, summary: Summary) -> None:
        self._summaries[summary.session_id] = summary

    async def get_summary(self, session_id: str) -> Summary | None:
        return self._summaries.get(session_id)

    def _drop_session(self, session_id: str, counts: dict[str, int]) -> None:
        session = self._sessions.pop(session_id)
        self._forget(session.entries)
        counts["entries"] += len(session.entries)
        counts["events"] += len(session.events)
        counts["sessions"] += 1
        counts["summaries"] += self._summaries.pop(session_id, None) is not None

    async def delete_user_data(
        self,
        user_id: str,
        *,
        scope: DeleteScope,
        since: datetime | None = None,
        session_ids: Sequence[str] = (),
    ) -> dict[str, int]:
        counts = dict.fromkeys(("entries", "events", "sessions", "summaries", "facts"), 0)
        mine = [sid for sid, s in self._sessions.items() if s.state.user_id == user_id]
        if scope == "all":
            for sid in mine:
                self._drop_session(sid, counts)
            counts["facts"] = len(self._facts.pop(user_id, {}))
            self._vault.drop(user_id)
        elif scope == "session":
            dropped = set(session_ids) & set(mine)
            for sid in dropped:
                self._drop_session(sid, counts)
            self._vault.drop_sessions(user_id, dropped)
            facts = self._facts.get(user_id, {})
            # facts found in those sessions' turns go with them; pinned ones stay
            for fact in [
                f for f in facts.values() if f.source_entry_ids and f.session_id in dropped
            ]:
                del facts[fact.id]
                counts["facts"] += 1
        elif scope == "day":
            if since is None:
                raise InvalidInputError("scope 'day' needs `since`", field="since")
            for sid in mine:
                session = self._sessions[sid]
                keep = [e for e in session.entries if _before(e.timestamp, since)]
                kept_events = [e for e in session.events if _before(e.timestamp, since)]
                gone = len(session.entries) - len(keep) + len(session.events) - len(kept_events)
                if not gone:
                    continue
                counts["entries"] += len(session.entries) - len(keep)
                self._forget([e for e in session.entries if not _before(e.timestamp, since)])
                counts["events"] += len(session.events) - len(kept_events)
                session.entries, session.events = keep, kept_events
                session.by_id = {e.id: e for e in keep}
                counts["summaries"] += self._summaries.pop(sid, None) is not None
                session.recount()
                if not keep and not kept_events:
                    del self._sessions[sid]
                    counts["sessions"] += 1
            facts = self._facts.get(user_id, {})
            for fact in [f for f in facts.values() if not _before(f.created_at, since)]:
                del facts[fact.id]
                counts["facts"] += 1
            self._vault.drop_since(user_id, since)
        else:
            raise InvalidInputError(
                f"scope must be session, day or all, got {scope!r}", field="scope"
            )
        return counts

    async def sweep_expired(self, *, now: datetime, default_retention_days: int) -> int:
        deleted = 0
        for sid, session in list(self._sessions.items()):
            settings = self._settings.get(session.state.user_id)
            days = settings.retention_days if settings else default_retention_days
            cutoff = now - timedelta(days=days)
            entries = [e for e in session.entries if not _before(e.timestamp, cutoff)]
            events = [e for e in session.events if not _before(e.timestamp, cutoff)]
            deleted += len(session.entries) - len(entries) + len(session.events) - len(events)
            swept_any = len(entries) != len(session.entries)
            if swept_any:
                self._forget([e for e in session.entries if _before(e.timestamp, cutoff)])
                session.entries = entries
                session.by_id = {e.id: e for e in entries}
            session.events = events
            session.recount()
            summary = self._summaries.get(sid)
            # a summary goes with the entries it summarized, however recently written
            if summary is not None and (summary.created_at < cutoff or swept_any):
                del self._summaries[sid]
                deleted += 1
            if not entries and not events and session.state.last_active_at < cutoff:
                del self._sessions[sid]
                deleted += 1 + (self._summaries.pop(sid, None) is not None)
        for user_id, facts in self._facts.items():
            settings = self._settings.get(user_id)
            days = settings.retention_days if settings else default_retention_days
            cutoff = now - timedelta(days=days)
            # facts found in turns expire like the turns; pinned facts stay
            for fact in [f for f in facts.values() if f.source_entry_ids]:
                if _before(fact.created_at, cutoff):
                    del facts[fact.id]
                    deleted += 1
        for user_id in self._vault.users():
            settings = self._settings.get(user_id)
            days = settings.retention_days if settings else default_retention_days
            cutoff = now - timedelta(days=days)
            # a token's value expires with the phi_detected event that numbered it
            self._vault.drop_before(user_id, cutoff)
        return deleted

    async def export_user(self, user_id: str) -> dict[str, Any]:
        settings = self._settings.get(user_id)
        sessions = [s for s in self._sessions.values() if s.state.user_id == user_id]
        sessions.sort(key=lambda s: (s.state.started_at, s.state.session_id))
        return {
            "settings": settings.model_dump(mode="json") if settings else None,
            "sessions": [s.state.model_dump(mode="json") for s in sessions],
            "entries": [e.to_dict() for s in sessions for e in s.entries],
            "events": [e.to_dict() for s in sessions for e in s.events],
            "facts": [f.model_dump(mode="json") for f in await self.list_facts(user_id)],
            "summaries": [
                self._summaries[s.state.session_id].model_dump(mode="json")
                for s in sessions
                if s.state.session_id in self._summaries
            ],
            "vectors": export_vectors(self._vectors.export(user_id)),
        }

    async def put_vault_values(self, values: Sequence[VaultValue]) -> None:
        self._vault.put(values)

    async def get_vault_values(self, user_id: str, session_ids: Sequence[str]) -> list[VaultValue]:
        return self._vault.get(user_id, session_ids)

    async def reseal_vault_values(self, values: Sequence[VaultValue]) -> int:
        return self._vault.replace(values)

    async def append_audit(self, record: AuditRecord) -> None:
        self._audit.setdefault(record.user_id, []).append(record)

    async def list_audit(self, user_id: str, *, limit: int) -> list[AuditRecord]:
        records = self._audit.get(user_id, [])
        return records[-limit:] if limit > 0 else []
