"""``WS /v1/sessions/{session_id}/live``: every entry and event stored in the
session is pushed to every connected client of its owner, and clients may send
entries over the socket.

Protocol (JSON text frames)::

    server → {"type": "ready", "session_id": ...}           once subscribed
    server → {"type": "entry", "item": {...MemoryEntry}}    stored entries
    server → {"type": "event", "item": {...MemoryEvent}}    stored events
    server → {"type": "memory_deleted", "item": {...}}      the owner deleted memory: reload
    client → {"type": "entry", "entry": {...}, "trigger"?: ..., "request_id"?: ...}
    server → {"type": "ack", "request_id": ..., "entry": {...}}
    server → {"type": "error", "request_id": ..., "error": {code, message, field}}
    client → {"type": "ping"}  server → {"type": "pong"}

Authentication, in order of preference: the subprotocols
``["unimem.v1", "bearer.<token>"]`` (``Sec-WebSocket-Protocol``, which a
browser's ``new WebSocket(url, protocols)`` sets; the server answers
``unimem.v1`` and never echoes the token), the ``Authorization`` header, or
``?token=`` (kept for older clients; masked in every log line, see
:mod:`unimem.server.log_redaction`). Errors that end the connection close it
with ``4000 + HTTP status`` (4401, 4429, 4422 for a bad session id).

Another user's session is served as a session never used: the client gets
``ready`` and then only what it (its user) stores there, so the socket does
not tell whether the id is taken.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from ..errors import InvalidInputError, RateLimitedError, UnimemError
from ..live_bus import LiveMessage
from ..models import MemoryEntry, MemoryEvent
from ..service import UnifiedMemoryService
from ..validation import check_id
from .auth import Authenticator, RateLimiter
from .error_handlers import ws_close_code
from .metrics import Metrics

__all__ = ["BEARER_PREFIX", "SUBPROTOCOL", "router"]

log = logging.getLogger("unimem.server")
router = APIRouter()

#: Close code for a client too slow to keep up (RFC 6455 "try again later").
SLOW_CONSUMER = 1013
#: The subprotocol the server speaks (echoed when the client offers it).
SUBPROTOCOL = "unimem.v1"
#: A subprotocol carrying the bearer token: ``bearer.<token>``.
BEARER_PREFIX = "bearer."


def _frame(kind: str, item: Any) -> str:
    return orjson.dumps({"type": kind, "item": item}, default=_dump).decode()


def _dump(value: Any) -> Any:
    return value.model_dump(mode="json")


async def _close(ws: WebSocket, exc: UnimemError) -> None:
    # The reason is limited to 123 bytes by the protocol; messages are short.
    await ws.close(code=ws_close_code(exc), reason=exc.message[:120])


@router.websocket("/v1/sessions/{session_id}/live")
async def live(ws: WebSocket, session_id: str) -> None:
    """Push the session's stored entries and events to this client; accept entries."""
    state = ws.app.state
    service: UnifiedMemoryService = state.service
    auth: Authenticator = state.auth
    limiter: RateLimiter = state.limiter
    metrics: Metrics = state.metrics
    offered: list[str] = list(ws.scope.get("subprotocols") or [])
    await ws.accept(subprotocol=SUBPROTOCOL if SUBPROTOCOL in offered else None)
    try:
        user = _user(auth, ws, offered)
        limiter.check(user)
        check_id(session_id, "session_id")
        async with service.live.subscribe(session_id) as queue:
            # Subscribed first, then checked: nothing stored in between is missed.
            await service.extend_ttl(session_id, user_id=user)  # another user's: as unused
            metrics.live_clients.inc()
            try:
                ready = {"type": "ready", "session_id": session_id}
                await ws.send_text(orjson.dumps(ready).decode())
                await _serve(ws, service, limiter, session_id, user, queue)
            finally:
                metrics.live_clients.dec()
    except UnimemError as exc:
        with contextlib.suppress(RuntimeError, WebSocketDisconnect):
            await _close(ws, exc)
    except WebSocketDisconnect:
        pass


def _user(auth: Authenticator, ws: WebSocket, offered: list[str]) -> str:
    """The caller: by a ``bearer.<token>`` subprotocol, else the
    ``Authorization`` header, else ``?token=``."""
    for protocol in offered:
        if protocol.startswith(BEARER_PREFIX):
            return auth.user_from_token(protocol.removeprefix(BEARER_PREFIX))
    header = ws.headers.get("authorization")
    token = ws.query_params.get("token")
    if token and not header:
        return auth.user_from_token(token)
    return auth.user_from_header(header)


async def _serve(
    ws: WebSocket,
    service: UnifiedMemoryService,
    limiter: RateLimiter,
    session_id: str,
    user: str,
    queue: asyncio.Queue[LiveMessage | None],
) -> None:
    async def push() -> None:
        while True:
            message = await queue.get()
            if message is None:
                await ws.close(code=SLOW_CONSUMER, reason="fell behind; reconnect")
                return
            # A session that did not exist when this client subscribed may be
            # created by another user: only the owner's items are ever sent.
            if message.item.user_id != user:
                continue
            kind: str = message.kind
            item = message.item
            if isinstance(item, MemoryEvent) and item.event_type == "memory_deleted":
                kind = "memory_deleted"  # a notice from DELETE /v1/me/memory, not stored
            await ws.send_text(_frame(kind, message.item))

    async def receive() -> None:
        while True:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(frame.get("code", 1000))
            raw = frame.get("text")
            if raw is None:
                try:
                    raw = (frame.get("bytes") or b"").decode("utf-8")
                except UnicodeDecodeError:
                    raw = ""
            await _handle(ws, service, limiter, session_id, user, raw)

    pusher = asyncio.create_task(push())
    receiver = asyncio.create_task(receive())
    try:
        done, _ = await asyncio.wait({pusher, receiver}, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            exc = task.exception()
            # A peer gone mid-send surfaces as OSError or RuntimeError; that is a disconnect.
            if exc is not None and not isinstance(
                exc, WebSocketDisconnect | OSError | RuntimeError
            ):
                raise exc
    finally:
        for task in (pusher, receiver):
            task.cancel()
        await asyncio.gather(pusher, receiver, return_exceptions=True)


async def _handle(
    ws: WebSocket,
    service: UnifiedMemoryService,
    limiter: RateLimiter,
    session_id: str,
    user: str,
    raw: str,
) -> None:
    request_id: Any = None
    try:
        try:
            message = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:  # e.g. a number out of range, 1e400
            raise InvalidInputError(f"the frame is not JSON: {exc}", field="(frame)") from None
        if not isinstance(message, dict):
            raise InvalidInputError("the frame must be a JSON object", field="(frame)")
        request_id = message.get("request_id")
        kind = message.get("type")
        if kind == "ping":
            await ws.send_text('{"type":"pong"}')
            return
        if kind != "entry":
            raise InvalidInputError("type must be 'entry' or 'ping'", field="type")
        limiter.check(user)
        payload = message.get("entry")
        if not isinstance(payload, dict):
            raise InvalidInputError("entry must be a JSON object", field="entry")
        entry = MemoryEntry.model_validate(payload)
        stored = await service.add_entry(
            session_id, entry, user_id=user, trigger=message.get("trigger")
        )
        await ws.send_text(
            orjson.dumps(
                {"type": "ack", "request_id": request_id, "entry": stored}, default=_dump
            ).decode()
        )
    except RateLimitedError as exc:
        await _close(ws, exc)
        raise WebSocketDisconnect(ws_close_code(exc)) from None
    except UnimemError as exc:
        if ws_close_code(exc) == 4404:
            await _close(ws, exc)
            raise WebSocketDisconnect(4404) from None
        error = {"type": "error", "request_id": request_id, "error": exc.to_dict()}
        await ws.send_text(orjson.dumps(error).decode())
