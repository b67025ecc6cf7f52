"""``MemoryClient``: the memory API over HTTP, with the same method names and
return types as :class:`~unimem.service.UnifiedMemoryService`, so code can move
between in-process and remote memory by changing one line::

    async with MemoryClient("http://127.0.0.1:8000", token=token) as memory:
        await memory.add_entry("visit-42", MemoryEntry(role="user", content="hi"))
        context = await memory.get_context("visit-42")

The server acts as the token's user (``local`` without a token), so the
``user_id`` arguments kept for compatibility must be ``None`` or that user.
Server errors are raised as the same :mod:`unimem.errors` classes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
import jwt
from pydantic import BaseModel, TypeAdapter

from .config import DEFAULT_USER_ID
from .context.builder import LLMContext
from .errors import (
    InvalidInputError,
    RateLimitedError,
    SessionNotFoundError,
    StoreUnavailableError,
    UnimemError,
)
from .models import (
    AuditRecord,
    ConversationContext,
    DeletionReceipt,
    EventType,
    Fact,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    Mode,
    SessionInfo,
    StoredItem,
    SwitchTrigger,
)
from .recall.hits import MemoryHit
from .validation import check_json

__all__ = ["MemoryClient"]

_M = TypeVar("_M", bound=BaseModel)
_ENTRIES = TypeAdapter(list[MemoryEntry])
_EVENTS = TypeAdapter(list[MemoryEvent])
_FACTS = TypeAdapter(list[Fact])
_ITEMS = TypeAdapter(list[StoredItem])
_ITEM: TypeAdapter[StoredItem | None] = TypeAdapter(StoredItem | None)
_AUDIT = TypeAdapter(list[AuditRecord])


def _error_classes() -> dict[str, type[UnimemError]]:
    classes: dict[str, type[UnimemError]] = {}
    pending: list[type[UnimemError]] = [UnimemError]
    while pending:
        cls = pending.pop()
        classes.setdefault(cls.code, cls)
        pending.extend(cls.__subclasses__())
    return classes


_HITS = TypeAdapter(list[MemoryHit])


def _value(value: Any) -> Any:
    return getattr(value, "value", value)


class MemoryClient:
    """Async client of a unimem server.

    Args:
        base_url: the server, e.g. ``http://127.0.0.1:8000``.
        token: a bearer token (``unimem token --user NAME``); none for a local-mode server.
        timeout: seconds per request.
        transport: an httpx transport (tests may pass ``httpx.ASGITransport``).
    """

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

    # ------------------------------------------------------------------ transport

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
        query = {k: _value(v) for k, v in (params or {}).items() if v is not None}
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
        response = await self._request(method, path, **kwargs)
        return model.model_validate_json(response.content)

    # ------------------------------------------------------------------ writes

    async def add_entry(
        self,
        session_id: str,
        entry: MemoryEntry | Mapping[str, Any],
        *,
        user_id: str | None = None,
        trigger: SwitchTrigger | str | None = None,
    ) -> MemoryEntry:
        """Store one message; see :meth:`UnifiedMemoryService.add_entry`."""
        self._user(user_id)
        body = entry.to_dict() if isinstance(entry, MemoryEntry) else dict(entry)
        if isinstance(entry, MemoryEntry) and not entry.user_id:
            body.pop("user_id", None)
        return await self._model(
            MemoryEntry,
            "POST",
            f"/v1/sessions/{session_id}/entries",
            json=body,
            params={"trigger": trigger},
        )

    async def add_event(
        self,
        session_id: str,
        event_type: EventType | str,
        data: Mapping[str, Any] | None = None,
        *,
        user_id: str | None = None,
    ) -> MemoryEvent:
        """Record an event; see :meth:`UnifiedMemoryService.add_event`."""
        self._user(user_id)
        body = {"event_type": _value(event_type), "data": dict(data or {})}
        return await self._model(
            MemoryEvent, "POST", f"/v1/sessions/{session_id}/events", json=body
        )

    async def track_language_switch(
        self,
        session_id: str,
        from_language: str,
        to_language: str,
        trigger: SwitchTrigger | str = SwitchTrigger.USER_REQUEST,
        *,
        user_id: str | None = None,
    ) -> MemoryEvent:
        """Record a language switch; see :meth:`UnifiedMemoryService.track_language_switch`."""
        self._user(user_id)
        body = {
            "from_language": from_language,
            "to_language": to_language,
            "trigger": _value(trigger),
        }
        return await self._model(
            MemoryEvent, "POST", f"/v1/sessions/{session_id}/language-switch", json=body
        )

    async def handle_mode_switch(
        self,
        session_id: str,
        from_mode: Mode | str,
        to_mode: Mode | str,
        *,
        user_id: str | None = None,
    ) -> ConversationContext:
        """Record a voice/text switch; see :meth:`UnifiedMemoryService.handle_mode_switch`."""
        self._user(user_id)
        body = {"from_mode": _value(from_mode), "to_mode": _value(to_mode)}
        return await self._model(
            ConversationContext, "POST", f"/v1/sessions/{session_id}/mode-switch", json=body
        )

    async def close_session(self, session_id: str, *, user_id: str | None = None) -> SessionInfo:
        """Close a session; see :meth:`UnifiedMemoryService.close_session`."""
        self._user(user_id)
        return await self._model(SessionInfo, "POST", f"/v1/sessions/{session_id}/close")

    async def mark_interrupted(
        self, session_id: str, entry_id: str, spoken_text: str, *, user_id: str | None = None
    ) -> MemoryEntry:
        """Keep what was heard of a cut-off answer; see
        :meth:`UnifiedMemoryService.mark_interrupted`."""
        self._user(user_id)
        return await self._model(
            MemoryEntry,
            "POST",
            f"/v1/sessions/{session_id}/entries/{entry_id}/interrupted",
            json={"spoken_text": spoken_text},
        )

    async def extend_ttl(self, session_id: str, *, user_id: str | None = None) -> bool:
        """Keep a session's cached layers alive for another idle period; whether
        the session exists. See :meth:`UnifiedMemoryService.extend_ttl`."""
        self._user(user_id)
        try:
            await self._request("POST", f"/v1/sessions/{session_id}/extend-ttl")
        except SessionNotFoundError:
            return False
        return True

    # ------------------------------------------------------------------ facts

    async def add_fact(
        self,
        text: str,
        kind: str = "note",
        *,
        user_id: str | None = None,
        session_id: str | None = None,
    ) -> Fact:
        """Pin a fact that appears in every context of the user until deleted; see
        :meth:`UnifiedMemoryService.add_fact`."""
        self._user(user_id)
        body = {"text": text, "kind": kind, "session_id": session_id}
        return await self._model(Fact, "POST", "/v1/me/facts", json=body)

    async def list_facts(
        self,
        *,
        user_id: str | None = None,
        include_history: bool = False,
        kinds: Sequence[str] | None = None,
        reveal: bool = False,
    ) -> list[Fact]:
        """The user's facts, oldest first; see :meth:`UnifiedMemoryService.list_facts`."""
        self._user(user_id)
        params: dict[str, Any] = {
            "include_history": include_history,
            "kinds": list(kinds) if kinds is not None else None,
        }
        if reveal:
            params["reveal"] = "true"
        response = await self._request("GET", "/v1/me/facts", params=params)
        return _FACTS.validate_json(response.content)

    async def confirm_fact(self, fact_id: str, *, user_id: str | None = None) -> Fact:
        """Confirm a current fact; see :meth:`UnifiedMemoryService.confirm_fact`."""
        self._user(user_id)
        return await self._model(Fact, "POST", f"/v1/me/facts/{fact_id}/confirm")

    async def correct_fact(
        self,
        fact_id: str,
        value: str,
        *,
        user_id: str | None = None,
        attributes: Mapping[str, str] | None = None,
    ) -> Fact:
        """Correct a current fact (the old one stays as history); see
        :meth:`UnifiedMemoryService.correct_fact`."""
        self._user(user_id)
        body = {"value": value, "attributes": dict(attributes) if attributes is not None else None}
        return await self._model(Fact, "POST", f"/v1/me/facts/{fact_id}/correct", json=body)

    async def delete_fact(self, fact_id: str, *, user_id: str | None = None) -> bool:
        """Delete one fact of the user (current or past); whether it existed."""
        self._user(user_id)
        response = await self._request("DELETE", f"/v1/me/facts/{fact_id}")
        return bool(response.json()["deleted"])

    async def pin_entry(
        self, session_id: str, entry_id: str, *, user_id: str | None = None
    ) -> Fact:
        """Pin an entry's content as a fact; see :meth:`UnifiedMemoryService.pin_entry`."""
        self._user(user_id)
        return await self._model(Fact, "POST", f"/v1/sessions/{session_id}/entries/{entry_id}/pin")

    async def delete_entry(
        self, session_id: str, entry_id: str, *, user_id: str | None = None
    ) -> bool:
        """Delete one message; whether it existed. See
        :meth:`UnifiedMemoryService.delete_entry`."""
        self._user(user_id)
        response = await self._request("DELETE", f"/v1/sessions/{session_id}/entries/{entry_id}")
        return bool(response.json()["deleted"])

    # ------------------------------------------------------------------ reads

    async def get_context(
        self,
        session_id: str,
        max_messages: int = 10,
        include_rag: bool = True,
        *,
        user_id: str | None = None,
    ) -> ConversationContext:
        """The context to continue a session; see :meth:`UnifiedMemoryService.get_context`."""
        self._user(user_id)
        params = {"max_messages": max_messages, "include_rag": str(include_rag).lower()}
        return await self._model(
            ConversationContext, "GET", f"/v1/sessions/{session_id}/context", params=params
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
        """Messages, oldest first (with ``reveal``, PHI tokens replaced by their
        values); see :meth:`UnifiedMemoryService.get_history`."""
        self._user(user_id)
        params: dict[str, Any] = {"max_messages": max_messages, "before_seq": before_seq}
        if reveal:
            params["reveal"] = "true"
        response = await self._request("GET", f"/v1/sessions/{session_id}/history", params=params)
        return _ENTRIES.validate_json(response.content)

    async def get_events(
        self,
        session_id: str,
        event_type: EventType | str | None = None,
        limit: int = 10,
        *,
        user_id: str | None = None,
    ) -> list[MemoryEvent]:
        """Events, newest last; see :meth:`UnifiedMemoryService.get_events`."""
        self._user(user_id)
        response = await self._request(
            "GET",
            f"/v1/sessions/{session_id}/events",
            params={"event_type": event_type, "limit": limit},
        )
        return _EVENTS.validate_json(response.content)

    async def get_session(self, session_id: str, *, user_id: str | None = None) -> SessionInfo:
        """Session metadata; see :meth:`UnifiedMemoryService.get_session`."""
        self._user(user_id)
        return await self._model(SessionInfo, "GET", f"/v1/sessions/{session_id}")

    async def list_sessions(
        self, *, user_id: str | None = None, limit: int = 20, offset: int = 0
    ) -> list[SessionInfo]:
        """The user's sessions, most recently active first."""
        self._user(user_id)
        response = await self._request(
            "GET", "/v1/sessions", params={"limit": limit, "offset": offset}
        )
        return [SessionInfo.model_validate(s) for s in response.json()["sessions"]]

    async def build_llm_context(
        self,
        session_id: str,
        current_query: str,
        rag_results: Sequence[Any] | None = None,
        max_tokens: int = 4000,
        model: str = "gpt-4o",
        budget_ms: float | None = None,
        *,
        user_id: str | None = None,
        reveal_phi: bool = False,
    ) -> LLMContext:
        """LLM-ready messages within ``max_tokens``; see
        :meth:`UnifiedMemoryService.build_llm_context` (``reveal_phi`` only where
        the server's ``UNIMEM_LLM_PHI`` is ``allowed``)."""
        self._user(user_id)
        body = {
            "current_query": current_query,
            "rag_results": list(rag_results) if rag_results is not None else None,
            "max_tokens": max_tokens,
            "model": model,
            "budget_ms": budget_ms,
            "reveal_phi": reveal_phi,
        }
        response = await self._request("POST", f"/v1/sessions/{session_id}/llm-context", json=body)
        data = response.json()
        return LLMContext(
            data["messages"],
            token_count=data["token_count"],
            degradations=data["degradations"],
            summary_used=data.get("summary_used", False),
        )

    # ------------------------------------------------------------------ settings and privacy

    async def get_settings(self, *, user_id: str | None = None) -> MemorySettings:
        """The user's memory settings."""
        self._user(user_id)
        return await self._model(MemorySettings, "GET", "/v1/me/settings")

    async def update_settings(
        self, settings: MemorySettings | Mapping[str, Any], *, user_id: str | None = None
    ) -> MemorySettings:
        """Replace the settings; a dict names only the fields to change."""
        self._user(user_id)
        if isinstance(settings, MemorySettings):
            new = settings
        else:
            current = await self.get_settings()
            new = MemorySettings.model_validate({**current.model_dump(), **dict(settings)})
        return await self._model(
            MemorySettings, "PUT", "/v1/me/settings", json=new.model_dump(mode="json")
        )

    async def delete_user_memory(
        self,
        scope: str,
        *,
        user_id: str | None = None,
        tz: str | None = None,
        session_id: str | None = None,
    ) -> DeletionReceipt:
        """Delete memory (``session``, ``day`` or ``all``); see
        :meth:`UnifiedMemoryService.delete_user_memory`."""
        self._user(user_id)
        return await self._model(
            DeletionReceipt,
            "DELETE",
            "/v1/me/memory",
            params={"scope": scope, "tz": tz, "session_id": session_id},
        )

    async def list_audit(
        self, *, user_id: str | None = None, limit: int = 100
    ) -> list[AuditRecord]:
        """The last ``limit`` audit records about the user, oldest first."""
        self._user(user_id)
        response = await self._request("GET", "/v1/me/audit", params={"limit": limit})
        return _AUDIT.validate_json(response.content)

    async def search_memory(
        self,
        query: str,
        *,
        user_id: str | None = None,
        k: int = 10,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        modes: Sequence[str] | None = None,
        languages: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
    ) -> list[MemoryHit]:
        """Search the user's memory across sessions; see
        :meth:`UnifiedMemoryService.search_memory`."""
        self._user(user_id)
        params = {
            "q": query,
            "k": k,
            "session_id": session_id,
            "since": since.isoformat() if since is not None else None,
            "until": until.isoformat() if until is not None else None,
            "modes": [_value(m) for m in modes] if modes is not None else None,
            "languages": list(languages) if languages is not None else None,
            "kinds": list(kinds) if kinds is not None else None,
        }
        response = await self._request("GET", "/v1/me/search", params=params)
        return _HITS.validate_python(response.json()["hits"])

    # ------------------------------------------------------------------ items

    async def put_item(
        self,
        namespace: Sequence[str],
        key: str,
        value: Mapping[str, Any],
        *,
        user_id: str | None = None,
    ) -> StoredItem | None:
        """Store an item; see :meth:`UnifiedMemoryService.put_item`."""
        self._user(user_id)
        if not isinstance(value, Mapping):
            raise InvalidInputError('value must be an object, e.g. {"text": "..."}', field="value")
        # checked here as the service checks it: the JSON encoder would turn
        # {1: "x"} into {"1": "x"} and refuse NaN without naming the field
        body = {"namespace": list(namespace), "key": key, "value": check_json(dict(value), "value")}
        return _ITEM.validate_json((await self._request("PUT", "/v1/me/items", json=body)).content)

    async def get_item(
        self, namespace: Sequence[str], key: str, *, user_id: str | None = None
    ) -> StoredItem | None:
        """One item, or ``None``; see :meth:`UnifiedMemoryService.get_item`."""
        self._user(user_id)
        body = {"namespace": list(namespace), "key": key}
        response = await self._request("POST", "/v1/me/items/get", json=body)
        return _ITEM.validate_json(response.content)

    async def delete_item(
        self, namespace: Sequence[str], key: str, *, user_id: str | None = None
    ) -> bool:
        """Delete one item; whether it existed."""
        self._user(user_id)
        body = {"namespace": list(namespace), "key": key}
        response = await self._request("POST", "/v1/me/items/delete", json=body)
        return bool(response.json()["deleted"])

    async def search_items(
        self,
        namespace_prefix: Sequence[str] = (),
        *,
        query: str | None = None,
        filter: Mapping[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        facts_namespace: Sequence[str] | None = None,
        user_id: str | None = None,
    ) -> list[StoredItem]:
        """Search the user's items; see :meth:`UnifiedMemoryService.search_items`."""
        self._user(user_id)
        body = {
            "namespace_prefix": list(namespace_prefix),
            "query": query,
            "filter": dict(filter) if isinstance(filter, Mapping) else filter,
            "limit": limit,
            "offset": offset,
            "facts_namespace": list(facts_namespace) if facts_namespace is not None else None,
        }
        response = await self._request("POST", "/v1/me/items/search", json=body)
        return _ITEMS.validate_json(response.content)

    async def list_item_namespaces(
        self,
        *,
        prefix: Sequence[str] | None = None,
        suffix: Sequence[str] | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
        user_id: str | None = None,
    ) -> list[list[str]]:
        """The namespaces of the user's items; see
        :meth:`UnifiedMemoryService.list_item_namespaces`."""
        self._user(user_id)
        body = {
            "prefix": list(prefix) if prefix is not None else None,
            "suffix": list(suffix) if suffix is not None else None,
            "max_depth": max_depth,
            "limit": limit,
            "offset": offset,
        }
        response = await self._request("POST", "/v1/me/items/namespaces", json=body)
        return [list(map(str, ns)) for ns in response.json()]

    async def export_user_memory(
        self, *, user_id: str | None = None, reveal: bool = False
    ) -> dict[str, Any]:
        """Everything stored about the user, as JSON data (with ``reveal``, PHI
        tokens replaced by their values)."""
        self._user(user_id)
        params = {"reveal": "true"} if reveal else None
        data: dict[str, Any] = (await self._request("GET", "/v1/me/export", params=params)).json()
        return data
