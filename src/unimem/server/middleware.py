"""Pure ASGI middleware: request body limits and UTF-8 check, request metrics,
and the loopback-only guard of local mode.

Written as plain ASGI callables (not ``BaseHTTPMiddleware``) because they sit
on every request and must cost microseconds.
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import AuthError, ContentTooLargeError, InvalidInputError
from .auth import Authenticator
from .error_handlers import error_response
from .metrics import Metrics

__all__ = [
    "BodyLimitMiddleware",
    "ConcurrencyLimitMiddleware",
    "LoopbackOnlyMiddleware",
    "MetricsMiddleware",
]

#: Bytes past the limit of a refused body read and dropped after the 413 when
#: the request carries valid credentials, so that the client, which sends its
#: whole body before it reads the answer, gets to read it: a connection closed
#: on unread bytes is reset, and the reset discards the answer (the client sees
#: a read error). A longer body is cut off unread.
DRAIN_BYTES = 64 * 1024 * 1024
#: Seconds that dropping may take, for a request with valid credentials.
DRAIN_SECONDS = 10.0
#: Seconds that dropping may take for a request without valid credentials,
#: which may drop no more than the limit itself: refusing an anonymous body
#: then costs the server no more than reading one it accepts.
ANONYMOUS_DRAIN_SECONDS = 1.0


class BodyLimitMiddleware:
    """Reads the whole request body up front: refuses it with 413 when larger than
    ``limit`` (by Content-Length or as it streams) and with 422 when a JSON body
    is not UTF-8, so handlers never see a partial or undecodable body.

    A refused body is never kept: the 413 is sent at once, then what the client
    still sends is read and dropped before the connection closes, so the client
    reads the 413 rather than a reset. How much is dropped depends on who asks:
    up to :data:`DRAIN_BYTES` past the limit (within :data:`DRAIN_SECONDS`) when
    the ``Authorization`` header holds credentials ``auth`` accepts (or ``auth``
    is in local mode, or not given), and up to the limit again (within
    :data:`ANONYMOUS_DRAIN_SECONDS`) otherwise, so an unauthenticated client
    cannot make the server read tens of megabytes. A larger body is cut off.
    """

    def __init__(self, app: ASGIApp, limit: int, auth: Authenticator | None = None) -> None:
        self.app = app
        self.limit = limit
        self.auth = auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        # The last of repeated headers, as dict(scope["headers"]) would keep.
        declared = None
        content_type = b"json"
        authorization = None
        for name, value in scope["headers"]:
            if name == b"content-length":
                declared = value
            elif name == b"content-type":
                content_type = value
            elif name == b"authorization":
                authorization = value
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            budget = self._drain_budget(authorization)
            drain = declared.isdigit() and int(declared) <= self.limit + budget[0]
            await self._too_large(scope, receive, send, budget if drain else None)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            more = message.get("more_body", False)
            if size > self.limit:
                rest = self._drain_budget(authorization) if more else None
                await self._too_large(scope, receive, send, rest)
                return
            chunks.append(chunk)
        body = b"".join(chunks)
        if body and b"json" in content_type:
            try:
                body.decode("utf-8")
            except UnicodeDecodeError as exc:
                error = InvalidInputError(
                    f"the request body is not valid UTF-8 (byte {exc.start}); send UTF-8 JSON",
                    field="(body)",
                )
                await error_response(error)(scope, receive, send)
                return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    def _drain_budget(self, authorization: bytes | None) -> tuple[int, float]:
        """Bytes and seconds of a refused body to drop for this caller."""
        if self.auth is None or self.auth.local_mode:
            return DRAIN_BYTES, DRAIN_SECONDS
        try:
            self.auth.user_from_header(authorization.decode("latin-1") if authorization else None)
        except AuthError:
            return self.limit, ANONYMOUS_DRAIN_SECONDS
        return DRAIN_BYTES, DRAIN_SECONDS

    async def _too_large(
        self, scope: Scope, receive: Receive, send: Send, drain: tuple[int, float] | None
    ) -> None:
        """Answer 413; then, with ``drain`` (bytes, seconds), drop at most that
        much of the rest of the body before the connection closes."""
        error = ContentTooLargeError(
            f"the request body is larger than {self.limit} bytes "
            "(raise UNIMEM_MAX_BODY_BYTES, or send less)",
            field="(body)",
            limit=self.limit,
        )
        response = error_response(error)
        response.headers["Connection"] = "close"
        if drain is None:
            await response(scope, receive, send)
            return

        async def send_open(message: Message) -> None:
            # the answer goes out whole (its Content-Length tells the client so)
            # but stays open: the server reads no more once a response is complete
            if message["type"] == "http.response.body" and not message.get("more_body"):
                message = {**message, "more_body": True}
            await send(message)

        await response(scope, receive, send_open)
        limit, seconds = drain
        try:
            async with asyncio.timeout(seconds):
                await _discard(receive, limit)
        except TimeoutError:
            pass
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _discard(receive: Receive, limit: int) -> None:
    """Read and drop the rest of a request body, at most about ``limit`` bytes."""
    dropped = 0
    while dropped <= limit:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        dropped += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


class MetricsMiddleware:
    """Observes every HTTP request's latency, labelled by route template and status."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            route: Any = scope.get("route")
            template = getattr(route, "path", None)
            if not isinstance(template, str) or template == "":
                template = "<static>" if status < 400 else "<unmatched>"
            self.metrics.observe_request(
                scope["method"], template, status, time.perf_counter() - start
            )


class ConcurrencyLimitMiddleware:
    """At most ``limit`` HTTP requests of this worker run at once; the others
    wait, first come first served, before any of their work starts.

    An event loop that runs every accepted request at once shares itself out
    among all of them: each await of each request resumes only after every
    other request's next step, so a request's database connection stays
    checked out, and its Redis reply unread, for as long as that round takes.
    Past a few dozen requests the rounds outgrow the Redis command timeout
    (the cache is then set aside and every read goes to the durable store)
    and the connection pool's checkout times grow with the queue: throughput
    falls as clients are added. Waiting here instead keeps each running
    request's round trips short, and the time waited counts in the request's
    latency.

    A request holds its place until its response starts, so a streamed
    response (Server-Sent Events) does not keep others waiting while it streams.
    WebSockets and the probes (``exempt``) are never held back.
    """

    def __init__(
        self, app: ASGIApp, limit: int, exempt: frozenset[str] = frozenset({"/healthz"})
    ) -> None:
        self.app = app
        self.limit = limit
        self.exempt = exempt
        self._slots = asyncio.Semaphore(limit)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.exempt:
            await self.app(scope, receive, send)
            return
        slots = self._slots
        await slots.acquire()
        held = True

        async def send_releasing(message: Message) -> None:
            nonlocal held
            if held and message["type"] == "http.response.start":
                held = False
                slots.release()
            await send(message)

        try:
            await self.app(scope, receive, send_releasing)
        finally:
            if held:
                slots.release()


def _is_loopback(host: str) -> bool:
    # TCP peers are always IP addresses; anything else (a unix socket path, an
    # in-process test client) is on this machine by construction.
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True


class LoopbackOnlyMiddleware:
    """Local mode (no JWT secret): answer only clients on this machine.

    The CLI already refuses to bind anything but loopback; this guards servers
    started another way (``uvicorn --factory --host 0.0.0.0``). Each peer
    address is parsed once (``ipaddress`` costs microseconds a request) and its
    verdict remembered; a local server sees one or two addresses.
    """

    #: Peer addresses remembered at most (all forgotten at once past it).
    CACHE_SIZE = 256

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._verdicts: dict[Any, bool] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if scope["type"] in ("http", "websocket") and client:
            host = client[0]
            loopback = self._verdicts.get(host)
            if loopback is None:
                loopback = _is_loopback(host)
                if len(self._verdicts) >= self.CACHE_SIZE:
                    self._verdicts.clear()
                self._verdicts[host] = loopback
            if not loopback:
                error = AuthError(
                    "this server runs in local mode and only answers loopback clients; "
                    "set UNIMEM_JWT_SECRET to serve other machines"
                )
                if scope["type"] == "http":
                    await error_response(error)(scope, receive, send)
                else:
                    await send({"type": "websocket.close", "code": 4401})
                return
        await self.app(scope, receive, send)
