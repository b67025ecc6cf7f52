"""The one exception tree of unimem.

Every error the library raises on purpose is a :class:`UnimemError`::

    UnimemError
    ├── InvalidInputError          bad argument or payload (HTTP 422)
    │   └── ContentTooLargeError   content over the configured size limit (HTTP 413)
    ├── NotFoundError              (HTTP 404)
    │   ├── SessionNotFoundError   unknown session, or a session of another user
    │   ├── EntryNotFoundError
    │   └── FactNotFoundError      unknown fact, or a fact of another user
    ├── ConflictError              the request contradicts stored state (HTTP 409)
    │   └── SessionClosedError     a write to a closed session
    ├── AuthError                  missing, bad or expired credentials (HTTP 401)
    ├── RateLimitedError           too many requests for one user (HTTP 429)
    ├── ConfigurationError         a setting or URL that cannot work
    └── StoreError                 a storage backend failed
        ├── StoreUnavailableError  the backend cannot be reached (HTTP 503)
        └── SchemaError            the database schema is missing or too new

Driver exceptions are translated at the backend boundary with ``raise ... from exc``
so callers never need to import redis, asyncpg or sqlite3 to handle failures.
Messages say what was wrong and what to do about it; they never contain message
content, which may be protected health information.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AuthError",
    "ConfigurationError",
    "ConflictError",
    "ContentTooLargeError",
    "EntryNotFoundError",
    "FactNotFoundError",
    "InvalidInputError",
    "NotFoundError",
    "RateLimitedError",
    "SchemaError",
    "SessionClosedError",
    "SessionNotFoundError",
    "StoreError",
    "StoreUnavailableError",
    "UnimemError",
]


class UnimemError(Exception):
    """Base class of every error unimem raises on purpose."""

    #: Short machine-readable code, used by the HTTP API's error bodies.
    code: str = "unimem_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, Any]:
        """The error as a JSON-ready dict (``code``, ``message`` and any details)."""
        return {"code": self.code, "message": self.message}


class InvalidInputError(UnimemError):
    """An argument or payload is invalid; nothing was stored.

    ``field`` names the offending field (dotted path), ``limit`` the bound that
    was crossed when there is one, and ``errors`` lists every problem found.
    """

    code = "invalid_input"

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        limit: Any = None,
        errors: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.field = field
        self.limit = limit
        self.errors = (
            errors
            if errors is not None
            else [
                {
                    "field": field,
                    "message": message,
                    **({"limit": limit} if limit is not None else {}),
                }
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        body = super().to_dict()
        body["field"] = self.field
        if self.limit is not None:
            body["limit"] = self.limit
        body["errors"] = self.errors
        return body


class ContentTooLargeError(InvalidInputError):
    """Content is larger than the configured limit (``MemoryConfig.max_content_bytes``)."""

    code = "content_too_large"


class NotFoundError(UnimemError):
    """The thing asked for does not exist (or belongs to someone else)."""

    code = "not_found"


class SessionNotFoundError(NotFoundError):
    """No session with that id exists for this user.

    A session of another user is reported exactly like a missing one, so that
    session ids cannot be probed.
    """

    code = "session_not_found"


class EntryNotFoundError(NotFoundError):
    """No entry with that id exists in the session."""

    code = "entry_not_found"


class FactNotFoundError(NotFoundError):
    """No current fact with that id exists for this user.

    A fact of another user is reported exactly like a missing one.
    """

    code = "fact_not_found"


class ConflictError(UnimemError):
    """The request contradicts what is stored."""

    code = "conflict"


class SessionClosedError(ConflictError):
    """The session was closed; write to a new session id instead."""

    code = "session_closed"


class AuthError(UnimemError):
    """Credentials are missing, malformed, badly signed or expired."""

    code = "unauthorized"


class RateLimitedError(UnimemError):
    """The user sent more requests than allowed; retry after ``retry_after`` seconds."""

    code = "rate_limited"

    def __init__(self, message: str, *, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ConfigurationError(UnimemError):
    """A setting, URL or environment variable cannot work as given."""

    code = "configuration_error"


class StoreError(UnimemError):
    """A storage backend failed."""

    code = "store_error"


class StoreUnavailableError(StoreError):
    """A storage backend cannot be reached; nothing was half-written. Retry later."""

    code = "store_unavailable"

    def __init__(self, message: str, *, retry_after: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class SchemaError(StoreError):
    """The database schema is missing, or newer than this version of unimem knows.

    Run ``unimem migrate`` (or open the store with ``migrate=True``).
    """

    code = "schema_error"
