"""The HTTP side of :class:`~unimem.client.MemoryClient`: one connection pool,
the token's user, and server errors raised as the same :mod:`unimem.errors`
classes the service raises."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
import jwt
from pydantic import BaseModel, TypeAdapter

from ..config import DEFAULT_USER_ID
from ..errors import InvalidInputError, RateLimitedError, StoreUnavailableError, UnimemError

__all__ = ["Transport", "listed", "wire_value"]

_M = TypeVar("_M", bound=BaseModel)
_T = TypeVar("_T")
#: A request body past this (the server's default limit) that the connection
#: breaks on was probably refused for its size.
_LARGE_BODY = 1024 * 1024


def wire_value(value: Any) -> Any:
    """An enum's value, anything else as it is (what a query or body holds)."""
    return getattr(value, "value", value)


def listed(values: Iterable[Any] | None) -> list[Any] | None:
    """``values`` as a JSON list, ``None`` kept (the server's "not given")."""
    return list(values) if values is not None else None


def _error_classes() -> dict[str, type[UnimemError]]:
    classes: dict[str, type[UnimemError]] = {}
    pending: list[type[UnimemError]] = [UnimemError]
    while pending:
        cls = pending.pop()
        classes.setdefault(cls.code, cls)
        pending.extend(cls.__subclasses__())
    return classes


class Transport:
    """One connection pool to a unimem server, acting as its token's user (the
    arguments are :class:`~unimem.client.MemoryClient`'s)."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout: float = 10.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )
        self.user_id = self._token_user(token) if token else DEFAULT_USER_ID
        self._errors = _error_classes()

    @staticmethod
    def _token_user(token: str) -> str:
        # Read, not verified: the server verifies; this only names the user locally.
        try:
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.InvalidTokenError:
            raise InvalidInputError("token is not a JWT", field="token") from None
        return str(claims.get("sub", ""))

    # ------------------------------------------------------------------ life cycle

    async def setup(self) -> None:
        """Check that the server answers.

        Raises:
            StoreUnavailableError: the server cannot be reached.
        """
        await self._request("GET", "/healthz")

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # ------------------------------------------------------------------ requests

    def _user(self, user_id: str | None) -> None:
        if user_id is not None and user_id != self.user_id:
            raise InvalidInputError(
                f"this client acts as {self.user_id!r} (its token's user); "
                "use a token of the other user instead of user_id",
                field="user_id",
            )

    async def _request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> httpx.Response:
        query = {k: wire_value(v) for k, v in (params or {}).items() if v is not None}
        try:
            request = self._http.build_request(method, path, json=json, params=query)
        except (TypeError, ValueError) as exc:  # not JSON: NaN, a datetime, a lone surrogate
            raise InvalidInputError(
                f"the request holds a value that is not JSON ({exc}); send strings, finite "
                "numbers, booleans, null, lists and objects with string keys",
                field="(body)",
            ) from None
        try:
            response = await self._http.send(request)
        except httpx.TransportError as exc:
            size = int(request.headers.get("content-length") or 0)
            if size > _LARGE_BODY and not isinstance(
                exc, httpx.ConnectError | httpx.TimeoutException
            ):
                # a server closes the connection on a body far over its limit,
                # before the client, still sending, can read the 413
                raise StoreUnavailableError(
                    f"the unimem server at {self._http.base_url} closed the connection while a "
                    f"{size}-byte request body was sent ({type(exc).__name__}): it is probably "
                    "over the server's UNIMEM_MAX_BODY_BYTES; send less"
                ) from exc
            raise StoreUnavailableError(
                f"cannot reach the unimem server at {self._http.base_url} "
                f"({type(exc).__name__}); is `unimem serve` running?"
            ) from exc
        if response.is_success:
            return response
        raise self._error(response)

    def _error(self, response: httpx.Response) -> UnimemError:
        try:
            body = response.json()
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        message = str(body.get("message") or f"HTTP {response.status_code}")
        cls = self._errors.get(str(body.get("code")), UnimemError)
        retry = float(response.headers.get("retry-after", "1") or 1)
        if issubclass(cls, InvalidInputError):
            return cls(
                message, field=body.get("field"), limit=body.get("limit"), errors=body.get("errors")
            )
        if issubclass(cls, RateLimitedError):
            return cls(message, retry_after=retry)
        if issubclass(cls, StoreUnavailableError):
            return cls(message, retry_after=retry)
        return cls(message)

    async def _model(self, model: type[_M], method: str, path: str, **kwargs: Any) -> _M:
        """The response body as one ``model``."""
        response = await self._request(method, path, **kwargs)
        return model.model_validate_json(response.content)

    async def _adapted(self, adapter: TypeAdapter[_T], method: str, path: str, **kwargs: Any) -> _T:
        """The response body as the type ``adapter`` validates (a list of models, ...)."""
        response = await self._request(method, path, **kwargs)
        return adapter.validate_json(response.content)

    async def _deleted(self, method: str, path: str, **kwargs: Any) -> bool:
        """Whether the thing a delete request names existed (its ``deleted`` answer)."""
        response = await self._request(method, path, **kwargs)
        return bool(response.json()["deleted"])
