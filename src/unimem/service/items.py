"""A user's namespaced items: the long-term memory an agent keeps as JSON
values under a namespace and a key (what LangGraph's ``BaseStore`` holds).

Every call is one user's: the store reads and writes only that user's rows,
so two users' agents using the same namespace never see each other's items.
A write goes through the owner's settings like an entry's metadata: nothing
is stored when memory is off; with ``anonymize_phi`` every string of the
value (but the structural keys of :func:`~unimem.privacy.pipeline.structural_key`)
is redacted before the store sees it. Like pinned facts, items are kept
on purpose and belong to no session, so ``cross_session`` does not hide
them. Deletion (``all``, ``day``), the retention sweep (by ``updated_at``)
and the export cover items.

A search reads the items under the prefix (the :data:`ITEM_SCAN` most
recently updated), keeps those the filter passes and, given a query, puts
first the ones the recall core ranks (:mod:`unimem.recall.items`), best
first, then the rest, most recently updated first: a query orders, the
filter selects. With ``facts_namespace`` under the prefix, the user's
pinned facts join the search as read-only items of that namespace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigurationError, InvalidInputError
from ..models import Fact, StoredItem, utcnow
from ..privacy.pipeline import structural_key
from ..recall.items import (
    check_item_filter,
    item_matches,
    item_text,
    namespace_matches,
    rank_items,
)
from ..stores.contracts import ItemStore
from ..stores.items import item_store_of
from ..validation import check_content_size, check_json, check_range
from .core import ServiceCore

__all__ = ["ITEM_SCAN", "MAX_ITEM_LIMIT", "MAX_NAMESPACE_DEPTH", "ItemOperations"]

#: Most items one search reads (the most recently updated under its prefix).
ITEM_SCAN = 10_000
#: Most labels in a namespace, characters in a label, characters in a key.
MAX_NAMESPACE_DEPTH = 16
MAX_LABEL_CHARS = 128
MAX_KEY_CHARS = 512
#: Most items (or namespaces) one search or listing returns; the furthest offset.
MAX_ITEM_LIMIT = 1000
MAX_ITEM_OFFSET = 100_000
#: Longest query (bytes of UTF-8).
MAX_QUERY_BYTES = 4096


def _labels(value: Any, field: str, *, empty: bool, wildcard: bool = False) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidInputError(
            f'{field} must be a list of labels, e.g. ["memories", "food"]', field=field
        )
    labels = list(value)
    if not labels and not empty:
        raise InvalidInputError(f"{field} must hold at least one label", field=field)
    if len(labels) > MAX_NAMESPACE_DEPTH:
        raise InvalidInputError(
            f"{field} has {len(labels)} labels; at most {MAX_NAMESPACE_DEPTH}",
            field=field,
            limit=MAX_NAMESPACE_DEPTH,
        )
    for label in labels:
        if not isinstance(label, str) or not label or len(label) > MAX_LABEL_CHARS:
            raise InvalidInputError(
                f"{field} labels must be strings of 1-{MAX_LABEL_CHARS} characters; got {label!r}",
                field=field,
            )
        if "." in label or "\x00" in label or (label == "*" and not wildcard):
            raise InvalidInputError(
                f"{field} labels may not hold '.', NUL or be '*'; got {label!r}", field=field
            )
        check_content_size(label, MAX_LABEL_CHARS * 4, field=field)  # valid UTF-8
    return labels


def _key(value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_KEY_CHARS or "\x00" in value:
        raise InvalidInputError(
            f"key must be a string of 1-{MAX_KEY_CHARS} characters without NUL", field="key"
        )
    check_content_size(value, MAX_KEY_CHARS * 4, field="key")
    return value


def _fact_item(fact: Fact, namespace: list[str]) -> StoredItem:
    when = fact.created_at or utcnow()
    return StoredItem(
        namespace=namespace,
        key=fact.id,
        value={"text": fact.text, "kind": fact.kind, "session_id": fact.session_id},
        created_at=when,
        updated_at=when,
    )


class ItemOperations:
    """The items of :class:`unimem.UnifiedMemoryService`."""

    def __init__(self, core: ServiceCore) -> None:
        self._core = core

    async def _store(self) -> ItemStore:
        found = item_store_of(await self._core.ready_store())
        if found is None:
            raise ConfigurationError("this store keeps no namespaced items")
        return found

    async def put_item(
        self,
        namespace: Sequence[str],
        key: str,
        value: Mapping[str, Any],
        *,
        user_id: str | None = None,
    ) -> StoredItem | None:
        """Store (or replace) the JSON object ``value`` under ``namespace`` and
        ``key`` among the user's items (an agent's long-term memory; see
        :mod:`unimem.service.items`); returns it as stored, or ``None`` when the
        user's memory is off (nothing stored). With ``anonymize_phi`` its strings
        are redacted first. A replaced item keeps its ``created_at``.

        Raises:
            InvalidInputError: an empty namespace, a label with ``.``, a bad key,
                or a value that is not a JSON object within the limits.
        """
        owner = self._core.user(user_id)
        labels = _labels(namespace, "namespace", empty=False)
        name = _key(key)
        if not isinstance(value, Mapping):
            raise InvalidInputError('value must be an object, e.g. {"text": "..."}', field="value")
        data = check_json(dict(value), "value")
        settings = await self._core.settings_of(owner)
        if not settings.enabled:
            return None
        durable = await self._core.ready_store()
        if settings.anonymize_phi:
            data = {
                k: v
                if structural_key(k)
                else await self._core.privacy.redact_value(v, settings, durable, None)
                for k, v in data.items()
            }
        now = utcnow()
        item = StoredItem(namespace=labels, key=name, value=data, created_at=now, updated_at=now)
        return await (await self._store()).put_item(owner, item)

    async def get_item(
        self, namespace: Sequence[str], key: str, *, user_id: str | None = None
    ) -> StoredItem | None:
        """The user's item under ``namespace`` and ``key``, or ``None``."""
        owner = self._core.user(user_id)
        labels = _labels(namespace, "namespace", empty=False)
        name = _key(key)
        if not (await self._core.settings_of(owner)).enabled:
            return None
        return await (await self._store()).get_item(owner, labels, name)

    async def delete_item(
        self, namespace: Sequence[str], key: str, *, user_id: str | None = None
    ) -> bool:
        """Delete one item of the user; whether it existed."""
        owner = self._core.user(user_id)
        labels = _labels(namespace, "namespace", empty=False)
        return await (await self._store()).delete_item(owner, labels, _key(key))

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
        """The user's items under ``namespace_prefix`` that pass ``filter``
        (LangGraph's: equal fields, ``$eq $ne $gt $gte $lt $lte``); with a
        ``query``, those its words find first, best first (``score`` set), then
        the rest, most recently updated first. ``facts_namespace``: the user's
        pinned facts take part as items of that namespace when it is under the
        prefix.

        Raises:
            InvalidInputError: a bad prefix, filter, ``limit`` (1-1,000) or
                ``offset`` (0-100,000).
        """
        owner = self._core.user(user_id)
        prefix = _labels(namespace_prefix, "namespace_prefix", empty=True)
        if query is not None:
            if not isinstance(query, str):
                raise InvalidInputError("query must be a string", field="query")
            check_content_size(query, MAX_QUERY_BYTES, field="query")
        checked = check_json(check_item_filter(filter), "filter") if filter is not None else None
        check_range(limit, "limit", 1, MAX_ITEM_LIMIT)
        check_range(offset, "offset", 0, MAX_ITEM_OFFSET)
        facts_ns = (
            _labels(facts_namespace, "facts_namespace", empty=False)
            if facts_namespace is not None
            else None
        )
        if not (await self._core.settings_of(owner)).enabled:
            return []
        found = await (await self._store()).list_items(owner, prefix, limit=ITEM_SCAN)
        if facts_ns is not None and facts_ns[: len(prefix)] == prefix:
            facts = await (await self._core.ready_store()).list_facts(owner)
            found += [_fact_item(f, facts_ns) for f in facts]
            found.sort(key=lambda i: i.updated_at, reverse=True)
        found = [i for i in found if item_matches(i.value, checked)]
        if query and query.strip():
            scores = rank_items(
                ((n, item_text(i.value)) for n, i in enumerate(found)),
                query,
                limit=offset + limit,
            )
            ranked = sorted(scores, key=lambda n: scores[n], reverse=True)
            rest = [n for n in range(len(found)) if n not in scores]
            found = [
                *(found[n].model_copy(update={"score": round(scores[n], 6)}) for n in ranked),
                *(found[n] for n in rest),
            ]
        return found[offset : offset + limit]

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
        """The namespaces holding items of the user, sorted, that start with
        ``prefix`` and end with ``suffix`` (``"*"`` matches any one label),
        cut to ``max_depth`` labels (then each once)."""
        owner = self._core.user(user_id)
        head = _labels(prefix, "prefix", empty=True, wildcard=True) if prefix is not None else None
        tail = _labels(suffix, "suffix", empty=True, wildcard=True) if suffix is not None else None
        if max_depth is not None:
            check_range(max_depth, "max_depth", 1, MAX_NAMESPACE_DEPTH)
        check_range(limit, "limit", 1, MAX_ITEM_LIMIT)
        check_range(offset, "offset", 0, MAX_ITEM_OFFSET)
        if not (await self._core.settings_of(owner)).enabled:
            return []
        names = await (await self._store()).item_namespaces(owner)
        kept = [ns for ns in names if namespace_matches(ns, head, tail)]
        if max_depth is not None:
            kept = [list(t) for t in sorted({tuple(ns[:max_depth]) for ns in kept})]
        return kept[offset : offset + limit]
