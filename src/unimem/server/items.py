"""The caller's namespaced items: ``/v1/me/items`` (see :mod:`unimem.service.items`).

Namespaces are lists of labels, so every call takes a JSON body; reading one
item, deleting one and listing are ``POST`` to their own paths. Another
user's items are never reachable: the user is the caller's token.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ..models import StoredItem
from .deps import ServiceDep, UserDep
from .error_handlers import ERROR_RESPONSES
from .responses import ModelResponse

__all__ = ["router"]

router = APIRouter(prefix="/v1/me/items", tags=["items"], responses=ERROR_RESPONSES)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class ItemRef(_Body):
    """One item: its namespace and key."""

    namespace: list[str] = Field(description='labels, e.g. ["memories", "food"]')
    key: str = Field(description="the item's name within the namespace")


class ItemIn(ItemRef):
    """An item to store (or replace)."""

    value: dict[str, Any] = Field(description="a JSON object")


class ItemSearch(_Body):
    """A search of the caller's items."""

    namespace_prefix: list[str] = Field(default_factory=list)
    query: str | None = Field(default=None, description="words to rank the items by")
    filter: dict[str, Any] | None = Field(
        default=None, description='value fields, e.g. {"stars": {"$gte": 4}}'
    )
    limit: int = 10
    offset: int = 0
    facts_namespace: list[str] | None = Field(
        default=None, description="the namespace the caller's pinned facts appear under"
    )


class NamespaceQuery(_Body):
    """Which of the caller's namespaces to list."""

    prefix: list[str] | None = None
    suffix: list[str] | None = None
    max_depth: int | None = None
    limit: int = 100
    offset: int = 0


class ItemDeleted(BaseModel):
    """Whether the caller had the item (and it is gone now)."""

    deleted: bool


def _item(item: StoredItem | None) -> Response:
    return ModelResponse(item) if item is not None else JSONResponse(None)


@router.put(
    "",
    operation_id="put_item",
    response_model=StoredItem | None,
    summary="Store an item of the caller",
)
async def put_item(body: ItemIn, service: ServiceDep, user: UserDep) -> Response:
    """The item as stored; ``null`` when the caller's memory is off (nothing stored)."""
    return _item(await service.put_item(body.namespace, body.key, body.value, user_id=user))


@router.post(
    "/get",
    operation_id="get_item",
    response_model=StoredItem | None,
    summary="One item of the caller",
)
async def get_item(body: ItemRef, service: ServiceDep, user: UserDep) -> Response:
    """The item, or ``null``."""
    return _item(await service.get_item(body.namespace, body.key, user_id=user))


@router.post(
    "/delete",
    operation_id="delete_item",
    response_model=ItemDeleted,
    summary="Delete one item of the caller",
)
async def delete_item(body: ItemRef, service: ServiceDep, user: UserDep) -> Response:
    """``deleted`` says whether the caller had it."""
    deleted = await service.delete_item(body.namespace, body.key, user_id=user)
    return ModelResponse(ItemDeleted(deleted=deleted))


@router.post(
    "/search",
    operation_id="search_items",
    response_model=list[StoredItem],
    summary="Search the caller's items",
)
async def search_items(body: ItemSearch, service: ServiceDep, user: UserDep) -> Response:
    """Items under the prefix passing the filter, ranked by the query."""
    found = await service.search_items(
        body.namespace_prefix,
        query=body.query,
        filter=body.filter,
        limit=body.limit,
        offset=body.offset,
        facts_namespace=body.facts_namespace,
        user_id=user,
    )
    return ModelResponse(found)


@router.post(
    "/namespaces",
    operation_id="list_item_namespaces",
    response_model=list[list[str]],
    summary="The namespaces of the caller's items",
)
async def list_item_namespaces(
    body: NamespaceQuery, service: ServiceDep, user: UserDep
) -> Response:
    """Sorted; cut to ``max_depth`` labels when given."""
    names = await service.list_item_namespaces(
        prefix=body.prefix,
        suffix=body.suffix,
        max_depth=body.max_depth,
        limit=body.limit,
        offset=body.offset,
        user_id=user,
    )
    return JSONResponse(names)
