"""Assistant replies: ``POST /v1/sessions/{session_id}/reply`` streams the
configured LLM's answer to the session's last user turn and stores it; and
``GET /v1/config``, what the web UI needs to know about the server.

The reply is Server-Sent Events (``text/event-stream``)::

    event: delta   data: {"text": "..."}            each piece as the LLM streams it
    event: done    data: {...MemoryEntry}           the stored assistant entry
    event: error   data: {"code", "message"}        the LLM failed mid-stream: nothing stored

Failures before the first piece (unreachable endpoint, HTTP error, timeout)
answer a plain JSON error (502, or 504 for a timeout) and store nothing. A
client that disconnects mid-stream (barge-in) gets what it received stored as
an interrupted assistant entry (``mark_interrupted``: content = what was
streamed, ``metadata.interrupted``, an ``interruption`` event).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator
from typing import Any

import orjson
from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import Message, Receive, Scope, Send

from ..context.llm_client import LLMEndpoint, LLMError, stream_chat
from ..errors import InvalidInputError, UnimemError
from ..models import MemoryEntry, Mode, Role
from ..privacy.vault import StreamReveal
from ..service import UnifiedMemoryService
from .deps import MetricsDep, ServiceDep, SettingsDep, UserDep
from .error_handlers import ERROR_RESPONSES, ErrorBody
from .metrics import Metrics
from .schemas import RagResults
from .sessions import SessionId

__all__ = ["ReplyIn", "ServerConfig", "router"]

log = logging.getLogger("unimem.server")
router = APIRouter(prefix="/v1", tags=["assistant"], responses=ERROR_RESPONSES)


class ReplyIn(BaseModel):
    """What to answer: by default the session's last stored user message."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    current_query: str | None = Field(default=None, max_length=65536)
    rag_results: RagResults = None
    max_tokens: int = Field(default=4000, ge=1, le=1_000_000, description="context token limit")
    budget_ms: float | None = Field(default=None, ge=0, le=60_000)


class ServerConfig(BaseModel):
    """What a client needs to know about this server."""

    llm_configured: bool
    llm_model: str | None = None
    auth: bool
    version: str


@router.get(
    "/config",
    operation_id="get_config",
    response_model=ServerConfig,
    summary="What this server offers (assistant, auth)",
)
async def get_config(settings: SettingsDep) -> ServerConfig:
    """Whether an LLM answers turns and whether a token is needed. No auth needed."""
    from .. import __version__

    return ServerConfig(
        llm_configured=settings.llm is not None,
        llm_model=settings.llm.model if settings.llm else None,
        auth=not settings.local_mode,
        version=__version__,
    )


@router.post(
    "/sessions/{session_id}/reply",
    operation_id="reply",
    summary="Stream the assistant's answer to the last user turn and store it",
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "delta, done or error events"},
        501: {"model": ErrorBody, "description": "No LLM configured (UNIMEM_LLM_BASE_URL)"},
        502: {"model": ErrorBody, "description": "The LLM endpoint failed"},
        504: {"model": ErrorBody, "description": "The LLM endpoint timed out"},
    },
)
async def reply(
    session_id: SessionId,
    body: ReplyIn,
    service: ServiceDep,
    user: UserDep,
    settings: SettingsDep,
    metrics: MetricsDep,
) -> Response:
    """Build the session's LLM context, stream the LLM's reply as Server-Sent
    Events and store it as the assistant entry (mode and language of the session)."""
    session = await service.get_session(session_id, user_id=user)  # 404 for another user
    endpoint = settings.llm
    if endpoint is None:
        return JSONResponse(
            {
                "code": "llm_not_configured",
                "message": "no assistant: set UNIMEM_LLM_BASE_URL to an OpenAI-compatible "
                "endpoint and restart the server",
            },
            status_code=501,
        )
    query = body.current_query
    if query is None:
        query = await _last_user_turn(service, session_id, user)
    # UNIMEM_LLM_PHI=allowed: the LLM sees the owner's values; tokens: it sees
    # tokens, and the owner sees its reply's tokens re-identified
    built = await service.build_llm_context(
        session_id,
        query,
        body.rag_results,
        body.max_tokens,
        "gpt-4o",
        body.budget_ms,
        user_id=user,
        reveal_phi=settings.llm_phi == "allowed",
    )
    shown = await service.reveal_stream(session_id, user_id=user)
    if built.degradations:
        metrics.count_degradations(list(built.degradations))
    pieces = stream_chat(endpoint, list(built))
    started = time.perf_counter()
    try:
        first = await anext(pieces, None)
    except LLMError as exc:
        await pieces.aclose()
        log.warning("reply: LLM failed before streaming (%s)", exc.message)
        return JSONResponse(exc.to_dict(), status_code=504 if exc.timeout else 502)
    if first is None:
        return JSONResponse(
            {"code": "llm_error", "message": "LLM endpoint streamed an empty reply"},
            status_code=502,
        )
    turn = _Turn(
        service,
        endpoint,
        metrics,
        session_id,
        user,
        session.current_mode,
        session.current_language,
        shown,
    )
    return _ReplyStream(turn, first, pieces, started)


async def _last_user_turn(service: UnifiedMemoryService, session_id: str, user: str) -> str:
    entries = await service.get_history(session_id, 20, user_id=user)
    for entry in reversed(entries):
        if entry.role is Role.USER:
            return entry.content
    raise InvalidInputError(
        "the session has no user message to answer; store one first or pass current_query",
        field="current_query",
    )


class _Turn:
    """Where and how the assistant entry of one reply is stored."""

    def __init__(
        self,
        service: UnifiedMemoryService,
        endpoint: LLMEndpoint,
        metrics: Metrics,
        session_id: str,
        user: str,
        mode: Mode | None,
        language: str | None,
        shown: StreamReveal,
    ) -> None:
        self.service = service
        #: re-identifies what the owner is shown (the reply is stored as written)
        self.shown = shown
        self.endpoint = endpoint
        self.metrics = metrics
        self.session_id = session_id
        self.user = user
        self.mode = mode or Mode.TEXT
        self.language = language

    async def audit_shown(self) -> None:
        """Record how many of the owner's values the reply showed (none: nothing)."""
        if self.shown.count:
            with contextlib.suppress(UnimemError):
                await self.service.record_audit(
                    "reveal",
                    user_id=self.user,
                    actor=self.user,
                    session_id=self.session_id,
                    details={"view": "reply", "values": self.shown.count},
                )

    async def store(self, text: str, latency_ms: float, *, interrupted: bool) -> MemoryEntry:
        """Store the reply; an interrupted one keeps only what was streamed."""
        entry = MemoryEntry(
            role=Role.ASSISTANT,
            content=text,
            mode=self.mode,
            language=self.language,
            latency_ms=latency_ms,
            metadata={"model": self.endpoint.model},
        )
        stored = await self.service.add_entry(self.session_id, entry, user_id=self.user)
        if interrupted:
            stored = await self.service.mark_interrupted(
                self.session_id, stored.id, text, user_id=self.user
            )
        return stored


def _sse(event: str, data: Any) -> bytes:
    payload = orjson.dumps(data, default=lambda v: v.model_dump(mode="json"))
    return b"event: " + event.encode() + b"\ndata: " + payload + b"\n\n"


def _body(data: bytes) -> Message:
    return {"type": "http.response.body", "body": data, "more_body": True}


class _ReplyStream(Response):
    """Streams the reply and stores it, watching for the client going away.

    Plain ASGI rather than ``StreamingResponse``: the disconnect has to be seen
    between pieces (so the partial reply is stored) instead of cancelling the
    response mid-write.
    """

    media_type = "text/event-stream"

    def __init__(
        self, turn: _Turn, first: str, pieces: AsyncGenerator[str, None], started: float
    ) -> None:
        super().__init__(status_code=200, media_type=self.media_type)
        self.turn = turn
        self.first = first
        self.pieces = pieces
        self.started = started

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        gone = asyncio.Event()

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()

        watcher = asyncio.create_task(watch())
        streamed: list[str] = []
        outcome = "done"
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"text/event-stream; charset=utf-8"),
                        (b"cache-control", b"no-cache"),
                        (b"x-accel-buffering", b"no"),
                    ],
                }
            )
            outcome = await self._pump(send, gone, streamed)
        except OSError:  # the peer went away mid-write
            outcome = "interrupted"
        finally:
            watcher.cancel()
            with contextlib.suppress(BaseException):
                await watcher
            with contextlib.suppress(Exception):
                await self.pieces.aclose()
        await self._finish(send, outcome, "".join(streamed))

    async def _pump(self, send: Send, gone: asyncio.Event, streamed: list[str]) -> str:
        piece: str | None = self.first
        while piece is not None:
            if gone.is_set():
                return "interrupted"
            text = self.turn.shown.feed(piece)
            if text:
                await send(_body(_sse("delta", {"text": text})))
            streamed.append(piece)
            step = asyncio.ensure_future(anext(self.pieces, None))
            left = asyncio.ensure_future(gone.wait())
            done, _ = await asyncio.wait({step, left}, return_when=asyncio.FIRST_COMPLETED)
            left.cancel()
            if step not in done:
                step.cancel()
                with contextlib.suppress(BaseException):
                    await step
                return "interrupted"
            try:
                piece = step.result()
            except LLMError as exc:
                log.warning("reply: LLM failed mid-stream (%s)", exc.message)
                await send(_body(_sse("error", exc.to_dict())))
                return "error"
        rest = self.turn.shown.flush()
        if rest:
            await send(_body(_sse("delta", {"text": rest})))
        return "done"

    async def _finish(self, send: Send, outcome: str, text: str) -> None:
        latency = 1e3 * (time.perf_counter() - self.started)
        stored: MemoryEntry | None = None
        if outcome != "error" and text.strip():
            try:
                stored = await self.turn.store(text, latency, interrupted=outcome != "done")
            except UnimemError as exc:
                log.warning("reply: not stored (%s)", exc.code)
                if outcome == "done":
                    outcome = "error"
                    with contextlib.suppress(OSError):
                        await send(_body(_sse("error", exc.to_dict())))
        log.info("reply: %s, %d chars in %.0f ms", outcome, len(text), latency)
        if outcome == "done" and stored is not None:
            with contextlib.suppress(OSError):
                await send(_body(_sse("done", self.turn.shown.entry(stored))))
        await self.turn.audit_shown()
        with contextlib.suppress(OSError):
            await send({"type": "http.response.body", "body": b"", "more_body": False})
