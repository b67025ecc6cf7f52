"""The in-process store's privacy operations: deletion, the retention sweep,
export, the PHI vault and the audit log."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ...errors import InvalidInputError
from ...models import AuditRecord, Fact, MemoryEntry, MemorySettings, Summary
from ..contracts import DeleteScope, VaultValue
from ..vectors import export_vectors
from .session import StoredSession, before

if TYPE_CHECKING:
    from .vault import MemoryVault
    from .vectors import EntryVectors

__all__ = ["MemoryPrivacy"]


class MemoryPrivacy:
    """Mixin of :class:`~unimem.stores.memory.InMemoryStore`: what deletes,
    exports and audits a user's memory."""

    if TYPE_CHECKING:  # provided by InMemoryStore
        _sessions: dict[str, StoredSession]
        _settings: dict[str, MemorySettings]
        _facts: dict[str, dict[str, Fact]]
        _summaries: dict[str, Summary]
        _audit: dict[str, list[AuditRecord]]
        _vault: MemoryVault
        _vectors: EntryVectors

        def _forget(self, entries: Sequence[MemoryEntry]) -> None: ...

        async def list_facts(self, user_id: str) -> list[Fact]: ...

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
            self._vectors.erase(user_id)
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
                keep = [e for e in session.entries if before(e.timestamp, since)]
                kept_events = [e for e in session.events if before(e.timestamp, since)]
                gone = len(session.entries) - len(keep) + len(session.events) - len(kept_events)
                if not gone:
                    continue
                counts["entries"] += len(session.entries) - len(keep)
                self._forget([e for e in session.entries if not before(e.timestamp, since)])
                counts["events"] += len(session.events) - len(kept_events)
                session.entries, session.events = keep, kept_events
                session.by_id = {e.id: e for e in keep}
                counts["summaries"] += self._summaries.pop(sid, None) is not None
                session.recount()
                if not keep and not kept_events:
                    del self._sessions[sid]
                    counts["sessions"] += 1
            facts = self._facts.get(user_id, {})
            for fact in [f for f in facts.values() if not before(f.created_at, since)]:
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
            entries = [e for e in session.entries if not before(e.timestamp, cutoff)]
            events = [e for e in session.events if not before(e.timestamp, cutoff)]
            deleted += len(session.entries) - len(entries) + len(session.events) - len(events)
            swept_any = len(entries) != len(session.entries)
            if swept_any:
                self._forget([e for e in session.entries if before(e.timestamp, cutoff)])
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
                if before(fact.created_at, cutoff):
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
