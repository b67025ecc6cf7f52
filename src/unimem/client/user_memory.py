""":class:`~unimem.client.MemoryClient`'s calls on what is kept about the
user across sessions: facts, memory settings, search, audit, export and
deletion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter

from ..models import AuditRecord, DeletionReceipt, Fact, MemorySettings
from ..recall.hits import MemoryHit
from .transport import Transport, listed, wire_value

__all__ = ["UserMemoryCalls"]

_FACTS = TypeAdapter(list[Fact])
_AUDIT = TypeAdapter(list[AuditRecord])
_HITS = TypeAdapter(list[MemoryHit])


class UserMemoryCalls(Transport):
    """The user's facts, settings and privacy operations, over HTTP."""

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
        params: dict[str, Any] = {"include_history": include_history, "kinds": listed(kinds)}
        if reveal:
            params["reveal"] = "true"
        return await self._adapted(_FACTS, "GET", "/v1/me/facts", params=params)

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
        return await self._deleted("DELETE", f"/v1/me/facts/{fact_id}")

    async def pin_entry(
        self, session_id: str, entry_id: str, *, user_id: str | None = None
    ) -> Fact:
        """Pin an entry's content as a fact; see :meth:`UnifiedMemoryService.pin_entry`."""
        self._user(user_id)
        return await self._model(Fact, "POST", f"/v1/sessions/{session_id}/entries/{entry_id}/pin")

    # ------------------------------------------------------------------ search

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
            "modes": [wire_value(m) for m in modes] if modes is not None else None,
            "languages": listed(languages),
            "kinds": listed(kinds),
        }
        response = await self._request("GET", "/v1/me/search", params=params)
        return _HITS.validate_python(response.json()["hits"])

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
        return await self._adapted(_AUDIT, "GET", "/v1/me/audit", params={"limit": limit})

    async def export_user_memory(
        self, *, user_id: str | None = None, reveal: bool = False
    ) -> dict[str, Any]:
        """Everything stored about the user, as JSON data (with ``reveal``, PHI
        tokens replaced by their values)."""
        self._user(user_id)
        params = {"reveal": "true"} if reveal else None
        data: dict[str, Any] = (await self._request("GET", "/v1/me/export", params=params)).json()
        return data
