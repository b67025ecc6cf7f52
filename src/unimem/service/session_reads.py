"""The service's reads: context, history, events, sessions.

Every read is one store call (``load_context``, ``load_history``, ...), which
a layered store answers from Redis in one round trip when the session is cached.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ..errors import SessionNotFoundError
from ..models import (
    ConversationContext,
    EventType,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    RagContext,
    SessionInfo,
    utcnow,
)
from ..stores.contracts import ContextSnapshot, DurableStore
from ..validation import check_flag, check_id, check_range
from .core import ServiceCore, check_owner, visible
from .reveal import RevealOperations

__all__ = [
    "CONTEXT_EVENT_LIMIT",
    "DEGRADATION_MEMORY_DISABLED",
    "SessionReads",
    "collect_rag",
]

#: How many language and mode events a context carries.
CONTEXT_EVENT_LIMIT = 5
#: Degradation of a context whose owner turned memory off.
DEGRADATION_MEMORY_DISABLED = "memory_disabled"


def collect_rag(entries: list[MemoryEntry]) -> RagContext:
    """Passages and sources of ``entries``, newest last, without repeats."""
    passages: dict[str, None] = {}
    sources: list[dict[str, Any]] = []
    seen: set[str] = set()
    for entry in entries:
        for passage in entry.retrieved_passages:
            passages[passage] = None
        for source in entry.sources:
            key = repr(sorted(source.items()))
            if key not in seen:
                seen.add(key)
                sources.append(source)
    return RagContext(passages=list(passages), sources=sources)


def _unused() -> ContextSnapshot:
    """The snapshot of a session never used (and of another user's, so the two
    cannot be told apart)."""
    return ContextSnapshot(
        session=None, entries=[], language_events=[], mode_events=[], settings=None
    )


class SessionReads:
    """Reads of sessions, for :class:`unimem.UnifiedMemoryService`.

    Args:
        core: the shared state.
        reveal: the owner's view of their history (PHI tokens given their values).
    """

    def __init__(self, core: ServiceCore, reveal: RevealOperations) -> None:
        self._core = core
        self._reveal = reveal

    async def get_context(
        self,
        session_id: str,
        max_messages: int = 10,
        include_rag: bool = True,
        *,
        user_id: str | None = None,
    ) -> ConversationContext:
        """The last ``max_messages`` messages (oldest first) with the session's mode,
        language, recent switches, RAG context, settings and metadata.

        An unknown session, or another user's, gives an empty context.
        """
        check_id(session_id, "session_id")
        check_range(max_messages, "max_messages", 1, self._core.config.max_context_messages)
        store = await self._core.ready_store()
        snap = await store.load_context(
            session_id, max_messages=max_messages, event_limit=CONTEXT_EVENT_LIMIT
        )
        if snap.session is not None and not visible(snap.session, user_id):
            snap = _unused()
        return await self._context(store, snap, session_id, max_messages, include_rag, user_id)

    async def _context(
        self,
        store: DurableStore,
        snap: ContextSnapshot,
        session_id: str,
        max_messages: int,
        include_rag: bool,
        user_id: str | None,
    ) -> ConversationContext:
        """The context of a snapshot (no entries when its owner turned memory off).

        Built with ``model_construct``: every part is already a validated
        model (the store's or the service's), and validating the whole again
        would cost about 10 µs a read."""
        state = snap.session
        check_owner(state, session_id, user_id)
        owner = state.user_id if state is not None else self._core.user(user_id)
        if state is None:  # a new session: the owner's settings still decide recall
            snap.settings = await store.get_settings(owner)
        settings = snap.settings or MemorySettings()
        if not settings.enabled:  # memory off: nothing is recalled, whatever is stored
            return ConversationContext(
                session_id=session_id,
                user_id=owner,
                settings=settings,
                degradations=[DEGRADATION_MEMORY_DISABLED],
            )
        rag_context = collect_rag(snap.entries) if include_rag else RagContext()
        return ConversationContext.model_construct(
            session_id=session_id,
            user_id=owner,
            messages=list(snap.entries),
            current_mode=state.current_mode if state else None,
            current_language=state.current_language if state else None,
            language_events=list(snap.language_events),
            mode_events=list(snap.mode_events),
            rag_context=rag_context,
            recent=await self._recent_turns(snap, session_id, owner, settings, max_messages),
            settings=settings,
            session=state,
            # a layered store reports e.g. session_cache_unavailable here
            degradations=list(snap.degradations),
        )

    async def _recent_turns(
        self,
        snap: ContextSnapshot,
        session_id: str,
        owner: str,
        settings: MemorySettings,
        limit: int,
    ) -> list[MemoryEntry]:
        """The owner's turns of the last ``short_term_ttl_seconds`` in other sessions
        (``context.recent``), when ``cross_session`` is on."""
        if not settings.cross_session:
            return []
        if snap.recent is not None:  # a layered store reads them with the context
            return list(snap.recent)
        since = utcnow() - timedelta(seconds=self._core.config.short_term_ttl_seconds)
        return await (await self._core.ready_store()).recent_user_entries(
            owner, since=since, exclude_session=session_id, limit=limit
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
        """Up to ``max_messages`` entries of the session, oldest first (those before
        ``before_seq`` when given, for paging back).

        ``reveal``: with ``anonymize_phi`` on, give the owner their own words
        back: each PHI token (``[PERSON_1]``) replaced by its value from the
        vault (kept only when encryption keys are set; without, the text is as
        stored). Audited (``reveal``: how many values, never which). Another
        user's session is empty either way.

        Raises:
            InvalidInputError: a bad argument (named in the error).
        """
        check_id(session_id, "session_id")
        check_range(max_messages, "max_messages", 1, self._core.config.max_history_messages)
        if before_seq is not None:
            check_range(before_seq, "before_seq", 1, 2**62)
        state, entries = await (await self._core.ready_store()).load_history(
            session_id, limit=max_messages, before_seq=before_seq
        )
        entries = entries if visible(state, user_id) else []
        if check_flag(reveal, "reveal"):
            entries = await self._reveal.entries(entries, session_id)
        return entries

    async def get_events(
        self,
        session_id: str,
        event_type: EventType | str | None = None,
        limit: int = 10,
        *,
        user_id: str | None = None,
    ) -> list[MemoryEvent]:
        """The last ``limit`` events of the session (of ``event_type`` if given), newest last."""
        check_id(session_id, "session_id")
        check_range(limit, "limit", 1, self._core.config.max_events)
        kind = None
        if event_type is not None:
            kind = MemoryEvent(event_type=event_type).event_type
        store = await self._core.ready_store()
        if user_id is not None and not visible(await store.get_session(session_id), user_id):
            return []
        return await store.get_events(session_id, event_type=kind, limit=limit)

    async def get_session(self, session_id: str, *, user_id: str | None = None) -> SessionInfo:
        """The session's metadata. Raises ``SessionNotFoundError`` if unknown
        (or another user's: the same error, word for word)."""
        check_id(session_id, "session_id")
        state = await (await self._core.ready_store()).get_session(session_id)
        if state is None or not visible(state, user_id):
            raise SessionNotFoundError(f"no session {session_id!r} for this user")
        return state

    async def list_sessions(
        self, *, user_id: str | None = None, limit: int = 20, offset: int = 0
    ) -> list[SessionInfo]:
        """The user's sessions, most recently active first."""
        check_range(limit, "limit", 1, 1000)
        check_range(offset, "offset", 0, 10**9)
        return await (await self._core.ready_store()).list_sessions(
            self._core.user(user_id), limit=limit, offset=offset
        )
