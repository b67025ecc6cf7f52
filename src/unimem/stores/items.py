"""Namespaced items (:class:`~unimem.stores.contracts.ItemStore`): how every backend
writes one, and the capability check.

A namespace is kept as one text, its labels joined by ``.`` (a label never
holds one: the service refuses it), so that the items under a prefix are the
texts equal to it or between ``prefix + "."`` and ``prefix + "/"`` (``/``
follows ``.`` in code-point order): an index range, not a pattern match.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import orjson

from ..models import StoredItem
from .contracts import ItemStore

__all__ = [
    "SEPARATOR",
    "item_row",
    "item_store_of",
    "namespace_labels",
    "namespace_text",
    "prefix_range",
]

SEPARATOR = "."


def namespace_text(namespace: Sequence[str]) -> str:
    """The stored text of ``namespace``."""
    return SEPARATOR.join(namespace)


def namespace_labels(text: str) -> list[str]:
    """The labels of a stored namespace text."""
    return text.split(SEPARATOR) if text else []


def prefix_range(prefix: Sequence[str]) -> tuple[str, str, str]:
    """``(exact, low, high)``: a namespace is under ``prefix`` when its text is
    ``exact`` or ``low <= text < high``."""
    exact = namespace_text(prefix)
    return exact, exact + SEPARATOR, exact + "/"


def item_row(
    namespace: str,
    key: str,
    value: str | bytes | dict[str, Any],
    created: datetime,
    updated: datetime,
) -> StoredItem:
    """A stored row as an item (the value as written: it was validated on the way in)."""
    return StoredItem.model_construct(
        namespace=namespace_labels(namespace),
        key=key,
        value=value if isinstance(value, dict) else orjson.loads(value),
        created_at=created,
        updated_at=updated,
        score=None,
    )


def item_store_of(store: object) -> ItemStore | None:
    """``store`` as an :class:`ItemStore`, or ``None`` when it keeps no items."""
    return store if isinstance(store, ItemStore) else None
