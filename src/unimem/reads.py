"""The read side of :class:`unimem.UnifiedMemoryService`: context, history,
events, sessions (a mixin, so ``service.py`` stays the orchestration of writes).

Every read is one store call (``load_context``, ``load_history``, ...), which
a layered store answers from Redis in one round trip when the session is cached.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from .config import MemoryConfig
from .encoding import model_json, model_json_with
from .errors import SessionNotFoundError
from .models import (
    ConversationContext,
    EventType,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    RagContext,
    SessionInfo,
    StoredEntries,
    context_of,
    utcnow,
)
from .stores.base import ContextSnapshot, DurableStore, stored_json_reader
from .validation import check_id, check_range

__all__ = [
    "CONTEXT_EVENT_LIMIT",
    "DEGRADATION_MEMORY_DISABLED",
    "SessionReads",
    "check_owner",
    "collect_rag",
]

#: How many language and mode events a context carries.
CONTEXT_EVENT_LIMIT = 5
#: Degradation of a context whose owner turned memory off.
DEGRADATION_MEMORY_DISABLED = "memory_disabled"


def collect_rag(entries: list[MemoryEntry]) -> RagContext:
    """Passages and sources of ``entries``, newest last, without repeats."""
    return _rag((entry.retrieved_passages, entry.sources) for entry in entries)


def _rag(entries: Iterable[tuple[list[str], list[dict[str, Any]]]]) -> RagContext:
    """``collect_rag`` of each entry's (passages, sources)."""
    passages: dict[str, None] = {}
    sources: list[dict[str, Any]] = []
    seen: set[str] = set()
    for entry_passages, entry_sources in entries:
        for passage in entry_passages:
            passages[passage] = None
        for source in entry_sources:
            key = repr(sorted(source.items()))
            if key not in seen:
                seen.add(key)
                sources.append(source)
    return RagContext(passages=list(passages), sources=sources)


def check_owner(state: SessionInfo | None, session_id: str, user_id: str | None) -> None:
    """Raise ``SessionNotFoundError`` when the session exists and ``user_id`` (if
    given) is not its owner: another user's session looks like no session."""
    if state is not None and user_id is not None and state.user_id != user_id:
        raise SessionNotFoundError(f"no session {session_id!r} for this user")


class SessionReads:
    """Mixin of :class:`unimem.UnifiedMemoryService` (which provides the members below)."""

    config: MemoryConfig

    if TYPE_CHECKING:  # provided by UnifiedMemoryService

        async def _store(self) -> DurableStore: ...

        def _user(self, user_id: str | None) -> str: ...

        async def _owned_session(
            self, session_id: str, user_id: str | None
        ) -> SessionInfo | None: ...

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

        An unknown session gives an empty context.
        """
        check_id(session_id, "session_id")
        check_range(max_messages, "max_messages", 1, self.config.max_context_messages)
        store = await self._store()
        snap = await store.load_context(
            session_id, max_messages=max_messages, event_limit=CONTEXT_EVENT_LIMIT
        )
        context, _ = await self._context(
            store, snap, session_id, max_messages, include_rag, user_id
        )
        return context

    async def get_context_json(
        self,
        session_id: str,
        max_messages: int = 10,
        include_rag: bool = True,
        *,
        user_id: str | None = None,
    ) -> tuple[bytes, list[str]]:
        """:meth:`get_context` as JSON, and the context's ``degradations``: the
        bytes ``model_dump_json()`` of the context would give, UTF-8 (what the
        server sends).

        A store that can (a layered one whose cache holds the session) hands
        over its cached entries as the JSON it stored; they go out as they
        are instead of being rebuilt as models and written again.
        """
        check_id(session_id, "session_id")
        check_range(max_messages, "max_messages", 1, self.config.max_context_messages)
        store = await self._store()
        load = stored_json_reader(store) or store.load_context
        snap = await load(session_id, max_messages=max_messages, event_limit=CONTEXT_EVENT_LIMIT)
        # the snapshot's entries kept as JSON, by the context field they fill
        stored: dict[str, StoredEntries] = {}
        for field, name in (("entries", "messages"), ("recent", "recent")):
            entries = getattr(snap, f"{field}_json", None)
            if entries is None:
                continue
            if entries.plain():
                stored[name] = entries
            else:  # not as decoding and writing would give it: as models
                setattr(snap, field, entries.entries())
        messages = stored.get("messages")
        context, whole = await self._context(
            store,
            snap,
            session_id,
            max_messages,
            include_rag,
            user_id,
            rag=messages.items if messages is not None else None,
        )
        if not whole:  # memory off: no entries
            return model_json(context), context.degradations
        if not context.settings.cross_session:
            stored.pop("recent", None)
        if stored:  # the context holds empty lists where these go
            body = model_json_with(context, {name: e.raw for name, e in stored.items()})
            if body is not None:
                return body, context.degradations
            for name, entries in stored.items():  # pydantic must write it: as models
                setattr(context, name, entries.entries())
        return model_json(context), context.degradations

    async def _context(
        self,
        store: DurableStore,
        snap: ContextSnapshot,
        session_id: str,
        max_messages: int,
        include_rag: bool,
        user_id: str | None,
        *,
        rag: list[dict[str, Any]] | None = None,
    ) -> tuple[ConversationContext, bool]:
        """The context of a snapshot, and whether it carries the snapshot's
        entries (not so when its owner turned memory off). ``rag``: the
        messages' JSON when the snapshot holds them as such (its ``entries``
        then empty)."""
        state = snap.session
        check_owner(state, session_id, user_id)
        owner = state.user_id if state is not None else self._user(user_id)
        if state is None:  # a new session: the owner's settings still decide recall
            snap.settings = await store.get_settings(owner)
        settings = snap.settings or MemorySettings()
        if not settings.enabled:  # memory off: nothing is recalled, whatever is stored
            context = ConversationContext(
                session_id=session_id,
                user_id=owner,
                settings=settings,
                degradations=[DEGRADATION_MEMORY_DISABLED],
            )
            return context, False
        if not include_rag:
            rag_context = RagContext()
        elif rag is not None:
            rag_context = _rag((item["retrieved_passages"], item["sources"]) for item in rag)
        else:
            rag_context = collect_rag(snap.entries)
        context = context_of(
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
            degradations=list(getattr(snap, "degradations", ())),
        )
        return context, True

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
        cached = getattr(snap, "recent", None)  # a layered store reads them with the context
        if cached is not None:
            return list(cached)
        since = utcnow() - timedelta(seconds=self.config.short_term_ttl_seconds)
        return await (await self._store()).recent_user_entries(
            owner, since=since, exclude_session=session_id, limit=limit
        )

    async def get_history(
        self,
        session_id: str,
        max_messages: int = 50,
        *,
        before_seq: int | None = None,
        user_id: str | None = None,
    ) -> list[MemoryEntry]:
        """Up to ``max_messages`` entries of the session, oldest first (those before
        ``before_seq`` when given, for paging back)."""
        check_id(session_id, "session_id")
        check_range(max_messages, "max_messages", 1, self.config.max_history_messages)
        if before_seq is not None:
            check_range(before_seq, "before_seq", 1, 2**62)
        state, entries = await (await self._store()).load_history(
            session_id, limit=max_messages, before_seq=before_seq
        )
        check_owner(state, session_id, user_id)
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
        check_range(limit, "limit", 1, self.config.max_events)
        kind = None
        if event_type is not None:
            kind = MemoryEvent(event_type=event_type).event_type
        await self._owned_session(session_id, user_id)
        return await (await self._store()).get_events(session_id, event_type=kind, limit=limit)

    async def get_session(self, session_id: str, *, user_id: str | None = None) -> SessionInfo:
        """The session's metadata. Raises ``SessionNotFoundError`` if unknown."""
        check_id(session_id, "session_id")
        state = await self._owned_session(session_id, user_id)
        if state is None:
            raise SessionNotFoundError(f"no session {session_id!r} for this user")
        return state

    async def list_sessions(
        self, user_id: str | None = None, *, limit: int = 20, offset: int = 0
    ) -> list[SessionInfo]:
        """The user's sessions, most recently active first."""
        check_range(limit, "limit", 1, 1000)
        check_range(offset, "offset", 0, 10**9)
        return await (await self._store()).list_sessions(
            self._user(user_id), limit=limit, offset=offset
        )
