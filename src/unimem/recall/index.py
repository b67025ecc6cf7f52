"""An in-memory BM25 index of one user's entries (pure: no I/O).

The in-process store keeps one per user; SQLite (FTS5) and PostgreSQL
(tsvector) keep theirs in the database. Documents are indexed by the terms
of :func:`unimem.recall.tokens.terms`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

from .tokens import terms

__all__ = ["BM25_B", "BM25_K1", "TermIndex"]

K = TypeVar("K", bound=Hashable)

BM25_K1 = 1.2
BM25_B = 0.75


class TermIndex(Generic[K]):
    """Documents by key, searchable by BM25 over their terms."""

    def __init__(self) -> None:
        self._lengths: dict[K, int] = {}
        self._postings: dict[str, dict[K, int]] = {}
        self._terms: dict[K, tuple[str, ...]] = {}
        self._total = 0

    def __len__(self) -> int:
        return len(self._lengths)

    def __contains__(self, key: object) -> bool:
        return key in self._lengths

    def add(self, key: K, text: str) -> None:
        """Index ``text`` under ``key`` (replacing what ``key`` held)."""
        self.remove(key)
        counts = Counter(terms(text))
        length = sum(counts.values())
        self._lengths[key] = length
        self._terms[key] = tuple(counts)
        self._total += length
        for term, count in counts.items():
            self._postings.setdefault(term, {})[key] = count

    def remove(self, key: K) -> None:
        """Forget ``key`` (nothing when it is not indexed)."""
        length = self._lengths.pop(key, None)
        if length is None:
            return
        self._total -= length
        for term in self._terms.pop(key):
            posting = self._postings[term]
            del posting[key]
            if not posting:
                del self._postings[term]

    def remove_all(self, keys: Iterable[K]) -> None:
        """Forget every key of ``keys``."""
        for key in keys:
            self.remove(key)

    def search(
        self, query: Iterable[str], *, limit: int, accept: Callable[[K], bool] | None = None
    ) -> list[tuple[K, float]]:
        """The ``limit`` best keys for the query terms, best first, with their BM25
        score; ``accept`` filters keys before they are ranked."""
        count = len(self._lengths)
        if not count or limit <= 0:
            return []
        average = self._total / count or 1.0
        scores: dict[K, float] = {}
        for term in dict.fromkeys(query):
            posting = self._postings.get(term)
            if not posting:
                continue
            idf = math.log(1 + (count - len(posting) + 0.5) / (len(posting) + 0.5))
            for key, tf in posting.items():
                norm = (
                    tf
                    * (BM25_K1 + 1)
                    / (tf + BM25_K1 * (1 - BM25_B + BM25_B * self._lengths[key] / average))
                )
                scores[key] = scores.get(key, 0.0) + idf * norm
        ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
        if accept is None:
            return ranked[:limit]
        return [item for item in ranked if accept(item[0])][:limit]
