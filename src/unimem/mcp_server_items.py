"""The MCP tools over the user's namespaced items (merged into
:data:`unimem.mcp_server.TOOLS`): what an agent keeps as JSON values under a
namespace and a key (see :mod:`unimem.service.items`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .service import UnifiedMemoryService

__all__ = ["ITEM_TOOLS"]

_NAMESPACE = 'labels, e.g. ["memories", "food"]'


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PutItemArgs(_Args):
    """Store (or replace) a JSON object under a namespace and key."""

    namespace: list[str] = Field(description=_NAMESPACE)
    key: str = Field(description="the item's name within the namespace")
    value: dict[str, Any] = Field(description="a JSON object")


class ItemRefArgs(_Args):
    """One item by namespace and key."""

    namespace: list[str] = Field(description=_NAMESPACE)
    key: str


class SearchItemsArgs(_Args):
    """Search the user's items under a namespace prefix."""

    namespace_prefix: list[str] = Field(default_factory=list, description=_NAMESPACE)
    query: str | None = Field(default=None, description="words to rank the items by")
    filter: dict[str, Any] | None = Field(
        default=None, description='value fields, e.g. {"stars": {"$gte": 4}}'
    )
    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)


class ListNamespacesArgs(_Args):
    """List the namespaces holding the user's items."""

    prefix: list[str] | None = Field(default=None, description='"*" matches any label')
    suffix: list[str] | None = None
    max_depth: int | None = Field(default=None, ge=1)
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)


async def _put(service: UnifiedMemoryService, user: str, a: PutItemArgs) -> Any:
    item = await service.put_item(a.namespace, a.key, a.value, user_id=user)
    return item.model_dump(mode="json") if item is not None else {"stored": False}


async def _get(service: UnifiedMemoryService, user: str, a: ItemRefArgs) -> Any:
    item = await service.get_item(a.namespace, a.key, user_id=user)
    return {"item": item.model_dump(mode="json") if item is not None else None}


async def _delete(service: UnifiedMemoryService, user: str, a: ItemRefArgs) -> Any:
    return {"deleted": await service.delete_item(a.namespace, a.key, user_id=user)}


async def _search(service: UnifiedMemoryService, user: str, a: SearchItemsArgs) -> Any:
    found = await service.search_items(
        a.namespace_prefix,
        query=a.query,
        filter=a.filter,
        limit=a.limit,
        offset=a.offset,
        user_id=user,
    )
    return {"items": [i.model_dump(mode="json") for i in found]}


async def _namespaces(service: UnifiedMemoryService, user: str, a: ListNamespacesArgs) -> Any:
    names = await service.list_item_namespaces(
        prefix=a.prefix,
        suffix=a.suffix,
        max_depth=a.max_depth,
        limit=a.limit,
        offset=a.offset,
        user_id=user,
    )
    return {"namespaces": names}


Handler = Callable[[UnifiedMemoryService, str, Any], Awaitable[Any]]

#: name -> (arguments model, handler, description)
ITEM_TOOLS: dict[str, tuple[type[BaseModel], Handler, str]] = {
    "put_item": (PutItemArgs, _put, "Keep a JSON object under a namespace and key."),
    "get_item": (ItemRefArgs, _get, "One kept object by namespace and key."),
    "delete_item": (ItemRefArgs, _delete, "Delete one kept object."),
    "search_items": (
        SearchItemsArgs,
        _search,
        "Find kept objects under a namespace prefix: filtered by fields, ranked by words.",
    ),
    "list_item_namespaces": (
        ListNamespacesArgs,
        _namespaces,
        "The namespaces holding kept objects.",
    ),
}
