"""Search capability of a store: find a user's entries by their words.

A store that offers keyword search implements :class:`KeywordSearch` (checked
with ``isinstance``): the in-process store with a BM25 index in memory,
SQLite with an FTS5 table and PostgreSQL with a tsvector table, both kept by
triggers in the transaction that writes the entry, so an entry is findable
as soon as its append returns. Every backend indexes the terms of
:func:`unimem.recall.search_terms.terms` (PostgreSQL: the same rules in SQL, with a
text-search configuration per language), built from the stored, redacted
text; deleting or sweeping an entry deletes its index row with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..models import MemoryEntry
from ..recall.hits import SearchFilters

__all__ = ["KeywordHit", "KeywordSearch", "keyword_search_of"]


@dataclass(frozen=True, slots=True)
class KeywordHit:
    """An entry a keyword search found, with its score (higher is better)."""

    entry: MemoryEntry
    score: float


@runtime_checkable
class KeywordSearch(Protocol):
    """A store whose entries can be searched by keyword."""

    async def keyword_search(
        self,
        user_id: str,
        terms: Sequence[str],
        *,
        filters: SearchFilters,
        limit: int,
    ) -> list[KeywordHit]:
        """The user's entries matching any of ``terms`` (from
        :func:`unimem.recall.search_terms.terms`), best first, at most ``limit``,
        filtered by ``filters``; only ``user_id``'s entries, ever."""
        ...


def keyword_search_of(store: object) -> KeywordSearch | None:
    """``store`` as a :class:`KeywordSearch`, or ``None`` when it offers none."""
    return store if isinstance(store, KeywordSearch) else None
