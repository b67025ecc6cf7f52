"""The JSON values a user keeps under namespaces and keys."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .base import StrictModel

__all__ = ["StoredItem"]


class StoredItem(StrictModel):
    """A JSON value a user keeps under a namespace and a key (an agent's long-term
    memory, as LangGraph's ``BaseStore`` keeps it; see :mod:`unimem.service.items`).

    ``namespace`` is a path of labels (``["memories", "food"]``), ``key`` names the
    item within it; ``score`` is set on search results ranked by a query.
    """

    namespace: list[str]
    key: str
    value: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    score: float | None = None
