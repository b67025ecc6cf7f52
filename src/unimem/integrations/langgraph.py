"""unimem as a LangGraph store: long-term memory an agent keeps across threads.

``UnimemStore`` implements LangGraph's ``BaseStore`` (``batch`` / ``abatch``
over ``GetOp``, ``PutOp``, ``SearchOp`` and ``ListNamespacesOp``), so a graph
compiled with ``store=UnimemStore(memory)`` (or an agent made by
``create_react_agent(..., store=...)``) reads and writes it through
``get_store()`` or an ``InjectedStore`` tool argument. Every item is one of
unimem's namespaced items (:mod:`unimem.service.items`): durable in whichever
store the memory uses, redacted when the user's ``anonymize_phi`` is on,
deleted with the user's memory and exported with it.

**Whose items.** Every item belongs to one unimem user, and only that user's
items are ever read:

* ``UnimemStore(memory, user_id="alice")``: every namespace is alice's (an
  agent serving one user; ``None`` is the service's default user, or the
  token's user of a :class:`~unimem.client.MemoryClient`).
* ``UnimemStore(memory, user_in_namespace=True)``: the first label of every
  namespace is the user id (LangGraph's ``(user_id, "memories")`` convention,
  one graph for many users). A search or a listing must name the user as its
  first label (no ``"*"``): a search of ``()`` is refused rather than mixed
  across users. Through a ``MemoryClient`` the first label must be the
  token's user.

**Search.** ``filter`` follows LangGraph's (equal fields, ``$eq``, ``$ne``,
``$gt``, ``$gte``, ``$lt``, ``$lte``). ``query`` ranks with unimem's recall core
(keyword BM25 over every string of the value, fused by reciprocal rank):
matches first, best first (``score`` set), then the other items, most
recently updated first. The user's pinned facts take part as read-only items
of ``facts_namespace`` (``("facts",)`` under the user's root by default;
``None`` leaves them out).

**Not supported.** No ``index`` configuration: there are no embeddings to
configure (a ``PutOp``'s ``index`` is ignored; ranking reads the whole value).
No TTL (``supports_ttl`` is false, so ``put(..., ttl=...)`` raises
``NotImplementedError``); items follow the user's ``retention_days`` instead.

The async methods work with any memory. The sync ones (``get``, ``put``,
``search`` ...) run the call on ``loop`` when given (the event loop the memory
was opened on, running in another thread); without it they run it to
completion here, which suits memory that holds no connection bound to a loop
(the in-process store, SQLite). Inside a running event loop use the async
methods (``ainvoke`` / ``astream`` of the graph).

Needs the ``langgraph`` extra: ``pip install 'unimem[langgraph]'``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable, Sequence
from typing import Any, TypeVar

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)

from ..errors import ConfigurationError, InvalidInputError
from ..models import StoredItem
from .memory_api import Memory

__all__ = ["UnimemStore"]

_T = TypeVar("_T")


def _item(stored: StoredItem) -> Item:
    return Item(
        value=stored.value,
        key=stored.key,
        namespace=tuple(stored.namespace),
        created_at=stored.created_at,
        updated_at=stored.updated_at,
    )


def _search_item(stored: StoredItem) -> SearchItem:
    return SearchItem(
        namespace=tuple(stored.namespace),
        key=stored.key,
        value=stored.value,
        created_at=stored.created_at,
        updated_at=stored.updated_at,
        score=stored.score,
    )


class UnimemStore(BaseStore):
    """A LangGraph ``BaseStore`` over unimem's namespaced items.

    Args:
        memory: a :class:`~unimem.UnifiedMemoryService` or a
            :class:`~unimem.client.MemoryClient`.
        user_id: the owner of every item (``None``: the service's default user,
            or the token's); not with ``user_in_namespace``.
        user_in_namespace: the first label of each namespace is its owner.
        facts_namespace: where the user's pinned facts appear in a search,
            under the user's root (``None``: not at all).
        loop: the event loop ``memory`` runs on, for the sync methods.
    """

    supports_ttl = False

    def __init__(
        self,
        memory: Memory,
        *,
        user_id: str | None = None,
        user_in_namespace: bool = False,
        facts_namespace: Sequence[str] | None = ("facts",),
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        if user_id is not None and user_in_namespace:
            raise ConfigurationError(
                "UnimemStore takes user_id or user_in_namespace=True, not both"
            )
        self.memory = memory
        self.user_id = user_id
        self.user_in_namespace = user_in_namespace
        self.facts_namespace = tuple(facts_namespace) if facts_namespace is not None else None
        self.loop = loop

    # ------------------------------------------------------------------ owners

    def _owner(self, namespace: Sequence[str], field: str) -> str | None:
        """The user whose items ``namespace`` (a path or a prefix) names."""
        if not self.user_in_namespace:
            return self.user_id
        if not namespace or namespace[0] == "*":
            raise InvalidInputError(
                f"{field} must start with the user id (user_in_namespace=True): "
                "one user's items are searched at a time",
                field=field,
            )
        return namespace[0]

    def _facts(self, owner: str | None) -> list[str] | None:
        if self.facts_namespace is None:
            return None
        root = [owner] if self.user_in_namespace and owner is not None else []
        return [*root, *self.facts_namespace]

    # ------------------------------------------------------------------ ops

    async def _one(self, op: Op) -> Result:
        for field in ("namespace", "namespace_prefix"):
            if isinstance(getattr(op, field, None), str):
                raise InvalidInputError(
                    f'{field} must be a tuple of labels, e.g. ("memories", "food"), not a string',
                    field=field,
                )
        validate_op_namespace(op)
        memory = self.memory
        if isinstance(op, GetOp):
            owner = self._owner(op.namespace, "namespace")
            found = await memory.get_item(list(op.namespace), op.key, user_id=owner)
            return _item(found) if found is not None else None
        if isinstance(op, PutOp):
            owner = self._owner(op.namespace, "namespace")
            if op.value is None:
                await memory.delete_item(list(op.namespace), op.key, user_id=owner)
                return None
            if op.ttl is not None:
                raise NotImplementedError(
                    "UnimemStore keeps no TTL; items follow the user's retention_days"
                )
            await memory.put_item(list(op.namespace), op.key, op.value, user_id=owner)
            return None
        if isinstance(op, SearchOp):
            owner = self._owner(op.namespace_prefix, "namespace_prefix")
            found_items = await memory.search_items(
                list(op.namespace_prefix),
                query=op.query,
                filter=op.filter,
                limit=op.limit,
                offset=op.offset,
                facts_namespace=self._facts(owner),
                user_id=owner,
            )
            return [_search_item(i) for i in found_items]
        if isinstance(op, ListNamespacesOp):
            return await self._namespaces(op)
        raise InvalidInputError(f"unknown store operation {type(op).__name__}", field="op")

    async def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefix: list[str] | None = None
        suffix: list[str] | None = None
        for condition in op.match_conditions or ():
            path = list(condition.path)
            if condition.match_type == "prefix" and prefix is None:
                prefix = path
            elif condition.match_type == "suffix" and suffix is None:
                suffix = path
            else:
                raise InvalidInputError(
                    "UnimemStore lists with at most one prefix and one suffix condition",
                    field="match_conditions",
                )
        owner = self._owner(prefix or [], "prefix")
        names = await self.memory.list_item_namespaces(
            prefix=prefix,
            suffix=suffix,
            max_depth=op.max_depth,
            limit=op.limit,
            offset=op.offset,
            user_id=owner,
        )
        return [tuple(ns) for ns in names]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order; one result each (``None`` for a put)."""
        return [await self._one(op) for op in ops]

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`abatch`, from synchronous code (see the module)."""
        return self._run(self.abatch(list(ops)))

    def _run(self, call: Coroutine[Any, Any, _T]) -> _T:
        if self.loop is not None:
            return asyncio.run_coroutine_threadsafe(call, self.loop).result()
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(call)
        call.close()
        raise ConfigurationError(
            "UnimemStore's sync methods cannot run inside a running event loop: use the "
            "async ones (aget / aput / asearch, a graph's ainvoke), or pass loop="
        )
