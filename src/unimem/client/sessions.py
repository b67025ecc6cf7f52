""":class:`~unimem.client.MemoryClient`'s calls on sessions: the writes of a
turn (entries, events, switches) and the reads that continue a session."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter

from ..context.builder import LLMContext
from ..errors import SessionNotFoundError
from ..models import (
    ConversationContext,
    EventType,
    MemoryEntry,
    MemoryEvent,
    Mode,
    SessionInfo,
    SwitchTrigger,
)
from .transport import Transport, listed, wire_value

__all__ = ["SessionCalls"]

_ENTRIES = TypeAdapter(list[MemoryEntry])
_EVENTS = TypeAdapter(list[MemoryEvent])


class SessionCalls(Transport):
    """Entries, events and context of a session, over HTTP."""

    # ------------------------------------------------------------------ writes

    async def add_entry(
        self,
        session_id: str,
        entry: MemoryEntry | Mapping[str, Any],
        *,
        user_id: str | None = None,
        trigger: SwitchTrigger | str | None = None,
    ) -> MemoryEntry:
        """Store one message; see :meth:`UnifiedMemoryService.add_entry`."""
        self._user(user_id)
        body = entry.to_dict() if isinstance(entry, MemoryEntry) else dict(entry)
        if isinstance(entry, MemoryEntry) and not entry.user_id:
            body.pop("user_id", None)
        return await self._model(
            MemoryEntry,
            "POST",
            f"/v1/sessions/{session_id}/entries",
            json=body,
            params={"trigger": trigger},
        )

    async def add_event(
        self,
        session_id: str,
        event_type: EventType | str,
        data: Mapping[str, Any] | None = None,
        *,
        user_id: str | None = None,
    ) -> MemoryEvent:
        """Record an event; see :meth:`UnifiedMemoryService.add_event`."""
        self._user(user_id)
        body = {"event_type": wire_value(event_type), "data": dict(data or {})}
        return await self._model(
            MemoryEvent, "POST", f"/v1/sessions/{session_id}/events", json=body
        )

    async def track_language_switch(
        self,
        session_id: str,
        from_language: str,
        to_language: str,
        trigger: SwitchTrigger | str = SwitchTrigger.USER_REQUEST,
        *,
        user_id: str | None = None,
    ) -> MemoryEvent:
        """Record a language switch; see :meth:`UnifiedMemoryService.track_language_switch`."""
        self._user(user_id)
        body = {
            "from_language": from_language,
            "to_language": to_language,
            "trigger": wire_value(trigger),
        }
        return await self._model(
            MemoryEvent, "POST", f"/v1/sessions/{session_id}/language-switch", json=body
        )

    async def handle_mode_switch(
        self,
        session_id: str,
        from_mode: Mode | str,
        to_mode: Mode | str,
        *,
        user_id: str | None = None,
    ) -> ConversationContext:
        """Record a voice/text switch; see :meth:`UnifiedMemoryService.handle_mode_switch`."""
        self._user(user_id)
        body = {"from_mode": wire_value(from_mode), "to_mode": wire_value(to_mode)}
        return await self._model(
            ConversationContext, "POST", f"/v1/sessions/{session_id}/mode-switch", json=body
        )

    async def close_session(self, session_id: str, *, user_id: str | None = None) -> SessionInfo:
        """Close a session; see :meth:`UnifiedMemoryService.close_session`."""
        self._user(user_id)
        return await self._model(SessionInfo, "POST", f"/v1/sessions/{session_id}/close")

    async def mark_interrupted(
        self, session_id: str, entry_id: str, spoken_text: str, *, user_id: str | None = None
    ) -> MemoryEntry:
        """Keep what was heard of a cut-off answer; see
        :meth:`UnifiedMemoryService.mark_interrupted`."""
        self._user(user_id)
        return await self._model(
            MemoryEntry,
            "POST",
            f"/v1/sessions/{session_id}/entries/{entry_id}/interrupted",
            json={"spoken_text": spoken_text},
        )

    async def extend_ttl(self, session_id: str, *, user_id: str | None = None) -> bool:
        """Keep a session's cached layers alive for another idle period; whether
        the session exists. See :meth:`UnifiedMemoryService.extend_ttl`."""
        self._user(user_id)
        try:
            await self._request("POST", f"/v1/sessions/{session_id}/extend-ttl")
        except SessionNotFoundError:
            return False
        return True

    async def delete_entry(
        self, session_id: str, entry_id: str, *, user_id: str | None = None
    ) -> bool:
        """Delete one message; whether it existed. See
        :meth:`UnifiedMemoryService.delete_entry`."""
        self._user(user_id)
        return await self._deleted("DELETE", f"/v1/sessions/{session_id}/entries/{entry_id}")

    # ------------------------------------------------------------------ reads

    async def get_context(
        self,
        session_id: str,
        max_messages: int = 10,
        include_rag: bool = True,
        *,
        user_id: str | None = None,
    ) -> ConversationContext:
        """The context to continue a session; see :meth:`UnifiedMemoryService.get_context`."""
        self._user(user_id)
        params = {"max_messages": max_messages, "include_rag": str(include_rag).lower()}
        return await self._model(
            ConversationContext, "GET", f"/v1/sessions/{session_id}/context", params=params
        )

    async def get_history(
        self,
        session_id: str,
        max_messages: int = 50,
        *,
        before_seq: int | None = None,
        user_id: str | None = None,
        reveal: bool = False,
    ) -> list[MemoryEntry]:
        """Messages, oldest first (with ``reveal``, PHI tokens replaced by their
        values); see :meth:`UnifiedMemoryService.get_history`."""
        self._user(user_id)
        params: dict[str, Any] = {"max_messages": max_messages, "before_seq": before_seq}
        if reveal:
            params["reveal"] = "true"
        return await self._adapted(
            _ENTRIES, "GET", f"/v1/sessions/{session_id}/history", params=params
        )

    async def get_events(
        self,
        session_id: str,
        event_type: EventType | str | None = None,
        limit: int = 10,
        *,
        user_id: str | None = None,
    ) -> list[MemoryEvent]:
        """Events, newest last; see :meth:`UnifiedMemoryService.get_events`."""
        self._user(user_id)
        params = {"event_type": event_type, "limit": limit}
        return await self._adapted(
            _EVENTS, "GET", f"/v1/sessions/{session_id}/events", params=params
        )

    async def get_session(self, session_id: str, *, user_id: str | None = None) -> SessionInfo:
        """Session metadata; see :meth:`UnifiedMemoryService.get_session`."""
        self._user(user_id)
        return await self._model(SessionInfo, "GET", f"/v1/sessions/{session_id}")

    async def list_sessions(
        self, *, user_id: str | None = None, limit: int = 20, offset: int = 0
    ) -> list[SessionInfo]:
        """The user's sessions, most recently active first."""
        self._user(user_id)
        response = await self._request(
            "GET", "/v1/sessions", params={"limit": limit, "offset": offset}
        )
        return [SessionInfo.model_validate(s) for s in response.json()["sessions"]]

    async def build_llm_context(
        self,
        session_id: str,
        current_query: str,
        rag_results: Sequence[Any] | None = None,
        max_tokens: int = 4000,
        model: str = "gpt-4o",
        budget_ms: float | None = None,
        *,
        user_id: str | None = None,
        reveal_phi: bool = False,
    ) -> LLMContext:
        """LLM-ready messages within ``max_tokens``; see
        :meth:`UnifiedMemoryService.build_llm_context` (``reveal_phi`` only where
        the server's ``UNIMEM_LLM_PHI`` is ``allowed``)."""
        self._user(user_id)
        body = {
            "current_query": current_query,
            "rag_results": listed(rag_results),
            "max_tokens": max_tokens,
            "model": model,
            "budget_ms": budget_ms,
            "reveal_phi": reveal_phi,
        }
        response = await self._request("POST", f"/v1/sessions/{session_id}/llm-context", json=body)
        data = response.json()
        return LLMContext(
            data["messages"],
            token_count=data["token_count"],
            degradations=data["degradations"],
            summary_used=data.get("summary_used", False),
        )
