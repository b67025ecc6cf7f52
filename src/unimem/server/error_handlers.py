"""One mapping from the :mod:`unimem.errors` tree to HTTP statuses, JSON bodies
and WebSocket close codes, installed as the app's exception handlers.

Every error body has the shape of :class:`ErrorBody`: ``code``, ``message``,
and for bad input ``field`` and ``errors`` (one item per problem).
"""

from __future__ import annotations

import logging
import math
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel
from starlette.exceptions import HTTPException

from ..errors import (
    AuthError,
    ConflictError,
    ContentTooLargeError,
    InvalidInputError,
    NotFoundError,
    RateLimitedError,
    SchemaError,
    StoreUnavailableError,
    UnimemError,
)
from ..validation import MAX_JSON_DEPTH
from .log_redaction import redact

__all__ = [
    "ERROR_RESPONSES",
    "ErrorBody",
    "error_response",
    "install_error_handlers",
    "status_for",
    "unimem_error_response",
    "ws_close_code",
]

log = logging.getLogger("unimem.server")


class FieldProblem(BaseModel):
    """One problem with one field."""

    field: str | None = None
    message: str
    limit: Any = None


class ErrorBody(BaseModel):
    """The JSON body of every error response."""

    code: str
    message: str
    field: str | None = None
    limit: Any = None
    errors: list[FieldProblem] | None = None


_STATUS: tuple[tuple[type[UnimemError], int], ...] = (
    (ContentTooLargeError, 413),
    (InvalidInputError, 422),
    (NotFoundError, 404),
    (ConflictError, 409),
    (AuthError, 401),
    (RateLimitedError, 429),
    (StoreUnavailableError, 503),
    (SchemaError, 503),
)

#: Documented on every API route, so clients and schemathesis know them.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": description}
    for status, description in (
        (401, "Missing, malformed or expired token"),
        (404, "No such session for this user"),
        (409, "The session is closed"),
        (413, "Body or content too large"),
        (422, "Invalid input; `field` names it"),
        (429, "Rate limited; see Retry-After"),
        (503, "Store unavailable; see Retry-After"),
    )
}


def status_for(exc: UnimemError) -> int:
    """The HTTP status of an error of the tree (500 for anything unmapped)."""
    for kind, status in _STATUS:
        if isinstance(exc, kind):
            return status
    return 500


def ws_close_code(exc: UnimemError) -> int:
    """The WebSocket close code of an error: 4000 + its HTTP status (4404, 4401, ...)."""
    return 4000 + status_for(exc)


def error_response(exc: UnimemError) -> JSONResponse:
    """The JSON response of an error of the tree, with Retry-After / WWW-Authenticate."""
    status = status_for(exc)
    headers: dict[str, str] = {}
    if isinstance(exc, RateLimitedError | StoreUnavailableError):
        headers["Retry-After"] = str(max(1, math.ceil(exc.retry_after)))
    elif isinstance(exc, AuthError):
        headers["WWW-Authenticate"] = "Bearer"
    elif isinstance(exc, SchemaError):
        headers["Retry-After"] = "30"
    return JSONResponse(exc.to_dict(), status_code=status, headers=headers)


def unimem_error_response(exc: UnimemError, path: str) -> JSONResponse:
    """What the app answers when a handler raises an error of the tree on ``path``:
    its JSON response, and a log line (type and path with its ids masked, never
    the message) for 5xx."""
    if status_for(exc) >= 500:
        log.error("request failed: %s %s", type(exc).__name__, redact(path))
    return error_response(exc)


def _field(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc]
    if parts and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:]
    return ".".join(parts) or "(body)"


def _validation_error(exc: RequestValidationError) -> InvalidInputError:
    problems: list[dict[str, Any]] = []
    for err in exc.errors():
        item: dict[str, Any] = {"field": _field(tuple(err.get("loc", ()))), "message": err["msg"]}
        if err.get("type") == "json_invalid":
            item["message"] = f"malformed JSON: {(err.get('ctx') or {}).get('error', 'invalid')}"
            item["field"] = "(body)"
        problems.append(item)
    first = problems[0] if problems else {"field": None, "message": "invalid request"}
    detail = "; ".join(f"{p['field']}: {p['message']}" for p in problems)
    return InvalidInputError(f"invalid request: {detail}", field=first["field"], errors=problems)


_HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}


def install_error_handlers(app: FastAPI) -> None:
    """Map the error tree, request validation and routing errors to JSON responses."""

    async def on_unimem(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, UnimemError)
        return unimem_error_response(exc, request.url.path)

    async def on_validation(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return error_response(_validation_error(exc))

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 400:  # FastAPI could not parse the body (of any route)
            return error_response(
                InvalidInputError(
                    "the request body could not be parsed: send UTF-8 JSON whose objects "
                    f"and arrays nest at most {MAX_JSON_DEPTH} levels deep",
                    field="(body)",
                    limit=MAX_JSON_DEPTH,
                )
            )
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else "request failed"
        return JSONResponse(
            {"code": code, "message": message},
            status_code=exc.status_code,
            headers=dict(exc.headers or {}),
        )

    async def on_unexpected(request: Request, exc: Exception) -> Response:
        # The type only: an exception message may quote content.
        log.error("unexpected %s on %s", type(exc).__name__, redact(request.url.path))
        return JSONResponse(
            {"code": "internal_error", "message": "internal error; see the server log"},
            status_code=500,
        )

    app.add_exception_handler(UnimemError, on_unimem)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(HTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)
