"""A direct route for the two hottest calls, appending an entry and reading the
context, that skips FastAPI's router and dependency solver.

FastAPI spends about a third of a millisecond per request walking the route
list, building a ``Request``, solving four dependencies and validating
parameters through generic machinery; a context read by the service itself
takes less than that. This middleware (innermost of the app's own, so body
limits, metrics and the loopback guard still apply) recognises

* ``POST /v1/sessions/{id}/entries`` with a JSON object body and no query, and
* ``GET /v1/sessions/{id}/context`` with plain ``max_messages`` / ``include_rag``

and runs the very same endpoint functions with the same dependencies
(service, authenticated and rate-limited user, metrics). Anything it is not
sure about, it hands to FastAPI untouched, before any side effect: an unusual
path, query or content type, a body that does not parse or validate, a token
that does not verify. So every error response (422, 401, ...) still comes from
FastAPI and its handlers, and a request that passes here would have passed
there with the same values. Errors raised past that point (rate limit, the
service) get the same JSON response and logging as the app's handler gives.

Within it the common case is kept cheap: the usual ``?max_messages=N`` is read
without ``parse_qsl``, the body the body limit already read is taken from the
scope, JSON is read by orjson where it reads exactly what ``json.loads`` reads,
the app's state is read from its dict, and responses are written by
:mod:`unimem.encoding` (tests/test_server_perf_equiv.py compares each with the slow way).

``app.state.fast_path = False`` turns it off (the tests compare both ways).
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

import orjson
from fastapi.routing import APIRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import AuthError, UnimemError
from .errors import unimem_error_response
from .middleware import BODY_KEY
from .sessions import ID_PATTERN, add_entry, get_context, router

__all__ = ["FastPathMiddleware"]

# The id pattern of the routes' path parameter, without anchors; the router's
# own regex is [^/]+ and this class has no "/", so a match here is a match there.
_ID = ID_PATTERN.removeprefix("^").removesuffix("$")
_ENTRIES = re.compile(rf"/v1/sessions/({_ID})/entries")
_CONTEXT = re.compile(rf"/v1/sessions/({_ID})/context")
# max_messages as pydantic's int parsing surely reads it: plain digits, no sign,
# no leading zero, no blanks (anything else goes to FastAPI, which decides).
_COUNT = re.compile(r"[1-9][0-9]{0,8}")
# The query clients send, alone: parse_qsl would give just this one pair.
_PLAIN_COUNT = re.compile(rb"max_messages=([1-9][0-9]{0,8})")
_BOOLS = {"true": True, "false": False}
# orjson reads JSON as json.loads does, except integers beyond 64 bits (it
# makes them floats; json.loads keeps them exact): a body with a run of 19+
# digits is read by json.loads. What orjson refuses (NaN, a BOM, a lone
# surrogate escape, ...) is read by json.loads too.
_LONG_DIGITS = re.compile(rb"[0-9]{19}")
_DIGITS = b"0123456789"


def _route(endpoint: Any) -> APIRoute:
    for route in router.routes:
        if isinstance(route, APIRoute) and route.endpoint is endpoint:
            return route
    raise LookupError(f"no route for {endpoint.__name__}")  # pragma: no cover


def _query_limit(route: APIRoute, name: str) -> int:
    for field in route.dependant.query_params:
        if field.name == name:
            for item in field.field_info.metadata:
                if hasattr(item, "le"):
                    limit: int = item.le
                    return limit
    raise LookupError(f"no upper bound on {name}")  # pragma: no cover


class FastPathMiddleware:
    """Runs the entry append and the context read without FastAPI's per-request
    machinery when the request is plainly valid; defers to FastAPI otherwise."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._entries_route = _route(add_entry)
        self._context_route = _route(get_context)
        self._body_field = self._entries_route.body_field
        self._max_messages = _query_limit(self._context_route, "max_messages")
        #: Requests answered here (the rest went to FastAPI).
        self.served = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("root_path"):
            method = scope["method"]
            if method == "GET":
                match = _CONTEXT.fullmatch(scope["path"])
                if match is not None and await self._context(match[1], scope, receive, send):
                    return
            elif method == "POST":
                match = _ENTRIES.fullmatch(scope["path"])
                if match is not None:
                    await self._entries(match[1], scope, receive, send)
                    return
        await self.app(scope, receive, send)

    def _ready(self, scope: Scope) -> tuple[dict[str, Any], Any] | None:
        """The app's state values and the caller's user id, or ``None`` to
        defer: fast path off, service not open, or credentials FastAPI will
        refuse."""
        # The values behind Starlette's State: its attribute access is a
        # Python __getattr__ (half a microsecond each, six per request).
        state = getattr(scope["app"].state, "_state", None)
        if not isinstance(state, dict):
            return None  # pragma: no cover - another Starlette: FastAPI serves
        if not state.get("fast_path", True) or state.get("service") is None:
            return None
        header = None
        for name, value in scope["headers"]:
            if name == b"authorization":
                header = value.decode("latin-1")
                break
        try:
            user = state["auth"].user_from_header(header)
        except AuthError:
            return None
        return state, user

    async def _context(self, session_id: str, scope: Scope, receive: Receive, send: Send) -> bool:
        max_messages = 10
        include_rag = True
        raw = scope["query_string"]
        plain = _PLAIN_COUNT.fullmatch(raw) if raw else None
        if plain is not None:
            max_messages = int(plain[1])
            if max_messages > self._max_messages:
                return False
        elif raw:
            # Starlette's parsing; the last value of a repeated name wins there too.
            for name, value in parse_qsl(raw.decode("latin-1"), keep_blank_values=True):
                if name == "max_messages":
                    if _COUNT.fullmatch(value) is None:
                        return False
                    max_messages = int(value)
                elif name == "include_rag":
                    flag = _BOOLS.get(value)
                    if flag is None:
                        return False
                    include_rag = flag
            if max_messages > self._max_messages:
                return False
        ready = self._ready(scope)
        if ready is None:
            return False
        state, user = ready
        route = self._context_route
        self.served += 1
        scope["route"] = route
        scope["endpoint"] = get_context
        scope["path_params"] = {"session_id": session_id}
        try:
            state["limiter"].check(user)
            response = await get_context(
                session_id=session_id,
                service=state["service"],
                user=user,
                metrics=state["metrics"],
                max_messages=max_messages,
                include_rag=include_rag,
            )
        except UnimemError as exc:
            response = unimem_error_response(exc, scope["path"])
        await response(scope, receive, send)
        return True

    async def _entries(self, session_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        body = scope.get(BODY_KEY)
        if body is not None:
            # Read (and checked) by the body limit, whose receive() still
            # gives it to FastAPI should this request go there.
            entry = self._entry(scope, body)
            ready = self._ready(scope) if entry is not None else None
            if ready is None:
                await self.app(scope, receive, send)
                return
            await self._add_entry(session_id, entry, ready, scope, receive, send)
            return
        # The body is read here, so from now on the request must be answered
        # here or handed on with the body replayed.
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                # A disconnect: let FastAPI see it as it would have.
                await self.app(scope, _replay(chunks, receive, message), send)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        entry = self._entry(scope, body)
        ready = self._ready(scope) if entry is not None else None
        if ready is None:
            await self.app(scope, _replay(chunks, receive, None), send)
            return
        await self._add_entry(session_id, entry, ready, scope, receive, send)

    async def _add_entry(
        self,
        session_id: str,
        entry: Any,
        ready: tuple[dict[str, Any], Any],
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        state, user = ready
        self.served += 1
        scope["route"] = self._entries_route
        scope["endpoint"] = add_entry
        scope["path_params"] = {"session_id": session_id}
        try:
            state["limiter"].check(user)
            response = await add_entry(
                session_id=session_id,
                entry=entry,
                service=state["service"],
                user=user,
                trigger=None,
            )
        except UnimemError as exc:
            response = unimem_error_response(exc, scope["path"])
        await response(scope, receive, send)

    def _entry(self, scope: Scope, body: bytes) -> Any:
        """The validated entry of a plain JSON request, or ``None`` to defer."""
        if scope["query_string"] or not body:
            return None
        content_type = None
        for name, value in scope["headers"]:
            if name == b"content-type":
                content_type = value
                break
        if content_type is None or content_type.lower() not in (
            b"application/json",
            b"application/json; charset=utf-8",
        ):
            return None
        field = self._body_field
        try:
            # Counting digits first: far cheaper than the search, and few
            # bodies have 19 digits in all.
            if (
                len(body) - len(body.translate(None, _DIGITS)) < 19
                or _LONG_DIGITS.search(body) is None
            ):
                try:
                    data = orjson.loads(body)
                except orjson.JSONDecodeError:
                    data = json.loads(body)  # what Starlette's Request.json() does
            else:
                data = json.loads(body)
            if not isinstance(data, dict) or field is None:
                return None
            # FastAPI's own validation of this body parameter.
            value, errors = field.validate(data, {}, loc=("body",))
        except Exception:  # FastAPI turns these into its own responses
            return None
        return None if errors else value


def _replay(chunks: list[bytes], receive: Receive, last: Message | None) -> Receive:
    """A ``receive`` giving the body already read (then ``last``, if any), then
    the real one's messages."""
    pending: list[Message] = [
        {"type": "http.request", "body": chunk, "more_body": True} for chunk in chunks
    ]
    if last is None:
        if pending:
            pending[-1]["more_body"] = False
        else:
            pending.append({"type": "http.request", "body": b"", "more_body": False})
    else:
        pending.append(last)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
