"""An in-memory BM25 index of one user's entries (pure: no I/O).

The in-process store keeps one per user; SQLite (FTS5) and PostgreSQL
(tsvector) keep theirs in the database. Documents are indexed by the terms
of :func:`unimem.recall.search_terms.terms`.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

from .search_terms import terms

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
        score; ``accept`` filters keys before they are ranked.

        Terms are scored rarest first. Once ``limit`` accepted keys score more
        than any key not yet seen could still reach (the sum of the remaining
        terms' largest possible weight, ``idf * (k1 + 1)``), the commoner terms'
        postings are not walked: only the keys already found are scored for
        them (MaxScore). A key ``accept`` refuses is never scored (the
        context's recall refuses the session's own turns, the most frequent
        ones). The result is the same as scoring every posting."""
        count = len(self._lengths)
        if not count or limit <= 0:
            return []
        lists: list[tuple[float, dict[K, int]]] = []
        for term in dict.fromkeys(query):
            posting = self._postings.get(term)
            if posting:
                df = len(posting)
                lists.append((math.log(1 + (count - df + 0.5) / (df + 0.5)), posting))
        lists.sort(key=lambda item: item[0], reverse=True)
        bounds = [0.0] * (len(lists) + 1)
        for i in range(len(lists) - 1, -1, -1):
            bounds[i] = bounds[i + 1] + lists[i][0] * (BM25_K1 + 1)
        lengths = self._lengths
        flat = BM25_K1 * (1 - BM25_B)
        per_length = BM25_K1 * BM25_B / (self._total / count or 1.0)
        scores: dict[K, float] = {}  # accepted keys only
        rejected: set[K] = set()
        for i, (idf, posting) in enumerate(lists):
            if i and len(scores) >= limit and max(scores.values()) > bounds[i]:
                best = heapq.nlargest(limit, scores.values())
                if best[-1] > bounds[i]:
                    # no key unseen so far can enter the best: score the seen ones
                    for rest_idf, rest in lists[i:]:
                        gain = rest_idf * (BM25_K1 + 1)
                        for key in scores:
                            tf = rest.get(key)
                            if tf:
                                scores[key] += gain * tf / (tf + flat + per_length * lengths[key])
                    break
            gain = idf * (BM25_K1 + 1)
            for key, tf in posting.items():
                score = scores.get(key)
                if score is None:
                    # a key is tried once: it is scored from then on, or never
                    if key in rejected:
                        continue
                    if accept is not None and not accept(key):
                        rejected.add(key)
                        continue
                    score = 0.0
                scores[key] = score + gain * tf / (tf + flat + per_length * lengths[key])
        return heapq.nlargest(limit, scores.items(), key=lambda item: item[1])
