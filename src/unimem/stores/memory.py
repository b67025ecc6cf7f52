"""In-process store: the zero-configuration default. Nothing survives the process."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..models import MemoryEntry, MemoryEvent, MemorySettings, SessionInfo
from .base import AppendResult, ContextSnapshot, plan_close, plan_entry, plan_event

__all__ = ["InMemoryStore"]


@dataclass(slots=True)
class _Session:
    state: SessionInfo
    entries: list[MemoryEntry] = field(default_factory=list)
    by_id: dict[str, MemoryEntry] = field(default_factory=dict)
    events: list[MemoryEvent] = field(default_factory=list)


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


class InMemoryStore:
    """Keeps everything in dicts of this process.

    Appends are atomic because they run without awaiting between reading and
    writing the session state.
    """

    def __init__(self) -> None:
        self._sessions: dict[str, _Session] = {}
        self._settings: dict[str, MemorySettings] = {}

    async def setup(self) -> None:
        return None

    async def aclose(self) -> None:
        return None

    async def append_entry(self, entry: MemoryEntry, *, trigger: str | None = None) -> AppendResult:
        session = self._sessions.get(entry.session_id)
        if session is not None:
            existing = session.by_id.get(entry.id)
            if existing is not None and existing.user_id == entry.user_id:
                return AppendResult(existing, [], created=False, session=session.state)
        state, stored, events = plan_entry(
            session.state if session else None, entry, trigger=trigger
        )
        if session is None:
            session = self._sessions[entry.session_id] = _Session(state)
        session.state = state
        session.entries.append(stored)
        session.by_id[stored.id] = stored
        session.events.extend(events)
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
            # entries are appended in seq order, so seq n sits at index n - 1
            entries = entries[: max(0, before_seq - 1)]
        return entries[-limit:]

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
        mine = [s.state for s in self._sessions.values() if s.state.user_id == user_id]
        mine.sort(key=lambda s: (s.last_active_at, s.session_id), reverse=True)
        return mine[offset : offset + limit]
