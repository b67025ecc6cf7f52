""":class:`~unimem.client.MemoryClient`'s calls on the user's namespaced items
(what an agent keeps through LangGraph's store)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter

from ..errors import InvalidInputError
from ..models import StoredItem
from ..validation import check_json
from .transport import Transport, listed

__all__ = ["ItemCalls"]

_ITEMS = TypeAdapter(list[StoredItem])
_ITEM: TypeAdapter[StoredItem | None] = TypeAdapter(StoredItem | None)


def _address(namespace: Sequence[str], key: str) -> dict[str, Any]:
    """The body naming one item."""
    return {"namespace": list(namespace), "key": key}


class ItemCalls(Transport):
    """Put, get, delete and search the user's items, over HTTP."""

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
        body = {**_address(namespace, key), "value": check_json(dict(value), "value")}
        return await self._adapted(_ITEM, "PUT", "/v1/me/items", json=body)

    async def get_item(
        self, namespace: Sequence[str], key: str, *, user_id: str | None = None
    ) -> StoredItem | None:
        """One item, or ``None``; see :meth:`UnifiedMemoryService.get_item`."""
        self._user(user_id)
        return await self._adapted(_ITEM, "POST", "/v1/me/items/get", json=_address(namespace, key))

    async def delete_item(
        self, namespace: Sequence[str], key: str, *, user_id: str | None = None
    ) -> bool:
        """Delete one item; whether it existed."""
        self._user(user_id)
        return await self._deleted("POST", "/v1/me/items/delete", json=_address(namespace, key))

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
            "facts_namespace": listed(facts_namespace),
        }
        return await self._adapted(_ITEMS, "POST", "/v1/me/items/search", json=body)

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
            "prefix": listed(prefix),
            "suffix": listed(suffix),
            "max_depth": max_depth,
            "limit": limit,
            "offset": offset,
        }
        response = await self._request("POST", "/v1/me/items/namespaces", json=body)
        return [list(map(str, ns)) for ns in response.json()]
