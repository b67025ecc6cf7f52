"""``/v1/sessions``: entries, context, history, events, switches, LLM context,
interruptions and closing. Every call passes the authenticated user's id, so a
session of another user answers 404 exactly like a missing one."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response
from pydantic import BaseModel

from ..config import MemoryConfig
from ..errors import InvalidInputError, SessionNotFoundError
from ..models import (
    ConversationContext,
    EventType,
    MemoryEntry,
    MemoryEvent,
    SessionInfo,
    SwitchTrigger,
)
from ..validation import ID_PATTERN
from .deps import MetricsDep, ServiceDep, SettingsDep, UserDep
from .error_handlers import ERROR_RESPONSES
from .responses import ModelResponse
from .schemas import (
    EntryDeleted,
    EventIn,
    InterruptedIn,
    LanguageSwitchIn,
    LlmContextIn,
    LlmContextOut,
    ModeSwitchIn,
    SessionPage,
)

__all__ = ["ID_PATTERN", "SessionId", "router"]

_LIMITS = MemoryConfig()

SessionId = Annotated[
    str, Path(min_length=1, max_length=128, pattern=ID_PATTERN, description="session id")
]
EntryId = Annotated[str, Path(min_length=1, max_length=128, pattern=ID_PATTERN)]

router = APIRouter(prefix="/v1", tags=["sessions"], responses=ERROR_RESPONSES)


@router.post(
    "/sessions/{session_id}/entries",
    operation_id="add_entry",
    status_code=201,
    response_model=MemoryEntry,
    summary="Store one message",
)
async def add_entry(
    session_id: SessionId,
    entry: MemoryEntry,
    service: ServiceDep,
    user: UserDep,
    trigger: Annotated[SwitchTrigger | None, Query()] = None,
) -> Response:
    """Store a message and return it as stored (``id``, ``seq``, ``timestamp``,
    ``detected_language``, ``language_switched``, ``phi_detected`` set). Re-sending
    the same ``id`` returns the stored entry unchanged."""
    stored = await service.add_entry(session_id, entry, user_id=user, trigger=trigger)
    return ModelResponse(stored, 201)


@router.get(
    "/sessions/{session_id}/context",
    operation_id="get_context",
    response_model=ConversationContext,
    summary="Context to continue the session",
)
async def get_context(
    session_id: SessionId,
    service: ServiceDep,
    user: UserDep,
    metrics: MetricsDep,
    max_messages: Annotated[int, Query(ge=1, le=_LIMITS.max_context_messages)] = 10,
    include_rag: bool = True,
) -> Response:
    """The last messages with the session's mode, language, switches and RAG context.
    An unknown session gives an empty context."""
    context = await service.get_context(session_id, max_messages, include_rag, user_id=user)
    if context.degradations:
        metrics.count_degradations(context.degradations)
    return ModelResponse(context)


@router.get(
    "/sessions/{session_id}/history",
    operation_id="get_history",
    response_model=list[MemoryEntry],
    summary="Messages of the session, oldest first",
)
async def get_history(
    session_id: SessionId,
    service: ServiceDep,
    user: UserDep,
    max_messages: Annotated[int, Query(ge=1, le=_LIMITS.max_history_messages)] = 50,
    before_seq: Annotated[int | None, Query(ge=1, le=2**62)] = None,
    reveal: Annotated[bool, Query(description="PHI tokens replaced by their values")] = False,
) -> Response:
    """Up to ``max_messages`` entries (those before ``before_seq`` when paging
    back); with ``reveal``, the caller's own words in place of PHI tokens
    (audited; another user's session stays empty)."""
    entries = await service.get_history(
        session_id, max_messages, before_seq=before_seq, user_id=user, reveal=reveal
    )
    return ModelResponse(entries)


@router.get(
    "/sessions/{session_id}",
    operation_id="get_session",
    response_model=SessionInfo,
    summary="Session metadata",
)
async def get_session(session_id: SessionId, service: ServiceDep, user: UserDep) -> Response:
    """Owner, times, current mode and language, counts."""
    return ModelResponse(await service.get_session(session_id, user_id=user))


@router.post(
    "/sessions/{session_id}/events",
    operation_id="add_event",
    status_code=201,
    response_model=MemoryEvent,
    summary="Record an event",
)
async def add_event(
    session_id: SessionId, body: EventIn, service: ServiceDep, user: UserDep
) -> Response:
    """Record an event on the session's timeline."""
    event = await service.add_event(session_id, body.event_type, body.data, user_id=user)
    return ModelResponse(event, 201)


@router.get(
    "/sessions/{session_id}/events",
    operation_id="get_events",
    response_model=list[MemoryEvent],
    summary="Events of the session, newest last",
)
async def get_events(
    session_id: SessionId,
    service: ServiceDep,
    user: UserDep,
    event_type: Annotated[EventType | str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query(ge=1, le=_LIMITS.max_events)] = 10,
) -> Response:
    """The last ``limit`` events, of ``event_type`` when given."""
    events = await service.get_events(session_id, event_type or None, limit, user_id=user)
    return ModelResponse(events)


@router.post(
    "/sessions/{session_id}/mode-switch",
    operation_id="handle_mode_switch",
    response_model=ConversationContext,
    summary="Switch between voice and text",
)
async def mode_switch(
    session_id: SessionId, body: ModeSwitchIn, service: ServiceDep, user: UserDep
) -> Response:
    """Record the switch and return the context to continue with."""
    context = await service.handle_mode_switch(
        session_id, body.from_mode, body.to_mode, user_id=user
    )
    return ModelResponse(context)


@router.post(
    "/sessions/{session_id}/language-switch",
    operation_id="track_language_switch",
    status_code=201,
    response_model=MemoryEvent,
    summary="Switch the conversation's language",
)
async def language_switch(
    session_id: SessionId, body: LanguageSwitchIn, service: ServiceDep, user: UserDep
) -> Response:
    """Record the switch and make ``to_language`` the session's language."""
    event = await service.track_language_switch(
        session_id, body.from_language, body.to_language, body.trigger, user_id=user
    )
    return ModelResponse(event, 201)


@router.post(
    "/sessions/{session_id}/llm-context",
    operation_id="build_llm_context",
    response_model=LlmContextOut,
    summary="LLM-ready messages within a token limit",
)
async def llm_context(
    session_id: SessionId,
    body: LlmContextIn,
    service: ServiceDep,
    user: UserDep,
    metrics: MetricsDep,
    settings: SettingsDep,
) -> Response:
    """Messages for the model within ``max_tokens`` (and ``budget_ms`` when given),
    with the token count and what was degraded to fit. ``reveal_phi`` (PHI
    values in place of tokens) only where ``UNIMEM_LLM_PHI=allowed``."""
    if body.reveal_phi and settings.llm_phi != "allowed":
        raise InvalidInputError(
            "reveal_phi is off on this server (UNIMEM_LLM_PHI=tokens): the LLM sees "
            "PHI tokens only; ask without reveal_phi, or have the operator set "
            "UNIMEM_LLM_PHI=allowed for an LLM the deployment trusts",
            field="reveal_phi",
        )
    built = await service.build_llm_context(
        session_id,
        body.current_query,
        body.rag_results,
        body.max_tokens,
        body.model,
        body.budget_ms,
        user_id=user,
        reveal_phi=body.reveal_phi,
    )
    degradations = list(built.degradations)
    if degradations:
        metrics.count_degradations(degradations)
    out = LlmContextOut(
        messages=list(built),
        token_count=built.token_count,
        degradations=degradations,
        summary_used=built.summary_used,
    )
    return ModelResponse(out)


@router.post(
    "/sessions/{session_id}/entries/{entry_id}/interrupted",
    operation_id="mark_interrupted",
    response_model=MemoryEntry,
    summary="Record that an assistant turn was cut off",
)
async def mark_interrupted(
    session_id: SessionId,
    entry_id: EntryId,
    body: InterruptedIn,
    service: ServiceDep,
    user: UserDep,
) -> Response:
    """Keep only what was actually spoken of an interrupted assistant entry."""
    entry = await service.mark_interrupted(session_id, entry_id, body.spoken_text, user_id=user)
    return ModelResponse(entry)


@router.delete(
    "/sessions/{session_id}/entries/{entry_id}",
    operation_id="delete_entry",
    response_model=EntryDeleted,
    summary="Delete one message",
)
async def delete_entry(
    session_id: SessionId, entry_id: EntryId, service: ServiceDep, user: UserDep
) -> Response:
    """Delete one message from every layer (the session's summary is rebuilt).
    ``deleted`` says whether the caller's session had it; another user's entry
    deletes nothing and reads as one that never existed."""
    deleted = await service.delete_entry(session_id, entry_id, user_id=user, actor=user)
    return ModelResponse(EntryDeleted(session_id=session_id, entry_id=entry_id, deleted=deleted))


class TtlOut(BaseModel):
    """Whether the session exists (and had its cached layers' expiry pushed back)."""

    session_id: str
    extended: bool


@router.post(
    "/sessions/{session_id}/extend-ttl",
    operation_id="extend_ttl",
    response_model=TtlOut,
    summary="Keep the session's cached layers alive for another idle period",
)
async def extend_ttl(session_id: SessionId, service: ServiceDep, user: UserDep) -> Response:
    """Push back the expiry of the session's Redis layers (embedded stores never
    expire). An unknown session, or another user's, is 404."""
    if not await service.extend_ttl(session_id, user_id=user):
        raise SessionNotFoundError(f"no session {session_id!r} for this user")
    return ModelResponse(TtlOut(session_id=session_id, extended=True))


@router.post(
    "/sessions/{session_id}/close",
    operation_id="close_session",
    response_model=SessionInfo,
    summary="Close the session",
)
async def close_session(session_id: SessionId, service: ServiceDep, user: UserDep) -> Response:
    """No more writes; the history stays readable."""
    return ModelResponse(await service.close_session(session_id, user_id=user))


@router.get(
    "/sessions",
    operation_id="list_sessions",
    response_model=SessionPage,
    summary="The caller's sessions, most recently active first",
)
async def list_sessions(
    service: ServiceDep,
    user: UserDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 20,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
) -> Response:
    """One page of sessions; ``next_offset`` is null on the last page."""
    # One extra row tells whether there is a next page without a count query.
    rows = await service.list_sessions(user_id=user, limit=min(limit + 1, 1000), offset=offset)
    more = len(rows) > limit or len(rows) == 1000
    page = SessionPage(
        sessions=rows[:limit],
        limit=limit,
        offset=offset,
        next_offset=offset + limit if more else None,
    )
    return ModelResponse(page)
