"""The in-process store's namespaced items (:class:`~unimem.stores.contracts.ItemStore`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ...models import MemorySettings, StoredItem
from ..items import namespace_labels, namespace_text, prefix_range

__all__ = ["MemoryItems"]

_Key = tuple[str, str]  # (namespace text, key)


class MemoryItems:
    """Mixin of :class:`~unimem.stores.memory.InMemoryStore`: items in a dict per user."""

    if TYPE_CHECKING:  # provided by InMemoryStore
        _items: dict[str, dict[_Key, StoredItem]]
        _settings: dict[str, MemorySettings]

    async def put_item(self, user_id: str, item: StoredItem) -> StoredItem:
        items = self._items.setdefault(user_id, {})
        key = (namespace_text(item.namespace), item.key)
        old = items.get(key)
        if old is not None:
            item = item.model_copy(update={"created_at": old.created_at})
        # kept apart from the caller's objects (as a database would), both ways
        items[key] = item.model_copy(deep=True)
        return item

    async def get_item(self, user_id: str, namespace: Sequence[str], key: str) -> StoredItem | None:
        found = self._items.get(user_id, {}).get((namespace_text(namespace), key))
        return found.model_copy(deep=True) if found is not None else None

    async def delete_item(self, user_id: str, namespace: Sequence[str], key: str) -> bool:
        items = self._items.get(user_id, {})
        return items.pop((namespace_text(namespace), key), None) is not None

    async def list_items(
        self, user_id: str, namespace_prefix: Sequence[str], *, limit: int
    ) -> list[StoredItem]:
        exact, low, high = prefix_range(namespace_prefix)
        found = [
            item
            for (ns, _), item in self._items.get(user_id, {}).items()
            if not namespace_prefix or ns == exact or low <= ns < high
        ]
        found.sort(key=lambda i: i.updated_at, reverse=True)
        return [i.model_copy(deep=True) for i in found[: max(limit, 0)]]

    async def item_namespaces(self, user_id: str) -> list[list[str]]:
        texts = {ns for ns, _ in self._items.get(user_id, {})}
        return [namespace_labels(ns) for ns in sorted(texts)]

    async def delete_user_items(self, user_id: str, *, since: datetime | None = None) -> int:
        items = self._items.get(user_id, {})
        gone = [k for k, item in items.items() if since is None or item.updated_at >= since]
        for key in gone:
            del items[key]
        if not items:
            self._items.pop(user_id, None)
        return len(gone)

    async def sweep_items(self, *, now: datetime, default_retention_days: int) -> int:
        deleted = 0
        for user_id, items in list(self._items.items()):
            settings = self._settings.get(user_id)
            days = settings.retention_days if settings else default_retention_days
            cutoff = now - timedelta(days=days)
            gone = [k for k, item in items.items() if item.updated_at < cutoff]
            for key in gone:
                del items[key]
            deleted += len(gone)
            if not items:
                del self._items[user_id]
        return deleted

    async def export_items(self, user_id: str) -> list[StoredItem]:
        found = list(self._items.get(user_id, {}).values())
        found.sort(key=lambda i: (i.created_at, namespace_text(i.namespace), i.key))
        return [i.model_copy(deep=True) for i in found]
