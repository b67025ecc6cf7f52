"""Dense-vector capability of a store: entries waiting for a vector, and the vectors.

A store that keeps vectors implements :class:`VectorStore` (checked with
``isinstance``). Each entry's append puts it in a queue (in the entry's own
transaction: a trigger on SQLite and PostgreSQL); the service's indexer takes
a batch (:meth:`~VectorStore.pending_vectors`), embeds the stored (redacted)
text off the request path and stores the vectors
(:meth:`~VectorStore.put_vectors`), which takes the entries off the queue.
A vector is stored only while its entry still exists with the text it was
made from: the queue row's ``ticket`` changes when the entry's text does, and
deleting or sweeping an entry deletes its queue row and its vector with it.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ..recall.hits import SearchFilters
from .search import KeywordHit

__all__ = ["PendingEntry", "VectorBacklog", "VectorStore", "export_vectors", "vector_store_of"]


@dataclass(frozen=True, slots=True)
class PendingEntry:
    """An entry waiting for its vector: where it is, its stored text, and the
    queue ``ticket`` the vector must be stored against."""

    session_id: str
    seq: int
    user_id: str
    text: str
    ticket: int
    queued_at: datetime


@dataclass(frozen=True, slots=True)
class VectorBacklog:
    """How far indexing is behind: entries waiting, and when the oldest was queued."""

    pending: int
    oldest: datetime | None


@runtime_checkable
class VectorStore(Protocol):
    """A store that keeps a vector per entry and finds a user's nearest entries."""

    async def pending_vectors(self, limit: int) -> list[PendingEntry]:
        """Up to ``limit`` entries waiting for a vector, oldest queued first."""
        ...

    async def put_vectors(self, model: str, vectors: Sequence[tuple[PendingEntry, bytes]]) -> int:
        """Store each vector (``float32`` bytes, :mod:`unimem.recall.vectors`) of
        ``model`` for its entry and take the entry off the queue; a vector whose
        queue ticket is gone (entry deleted or changed meanwhile) is dropped.
        Returns how many were stored."""
        ...

    async def vector_search(
        self,
        user_id: str,
        vector: npt.NDArray[np.float32],
        *,
        model: str,
        filters: SearchFilters,
        limit: int,
    ) -> list[KeywordHit]:
        """The user's entries whose ``model`` vectors are nearest ``vector`` (an exact
        scan of that user's vectors), best first, at most ``limit``, filtered by
        ``filters``; ``score`` is the cosine. Only ``user_id``'s entries, ever."""
        ...

    async def vector_backlog(self) -> VectorBacklog:
        """The entries still waiting for a vector (every user's)."""
        ...


def vector_store_of(store: object) -> VectorStore | None:
    """``store`` as a :class:`VectorStore`, or ``None`` when it keeps no vectors."""
    return store if isinstance(store, VectorStore) else None


def export_vectors(rows: Iterable[Mapping[str, object]]) -> list[dict[str, object]]:
    """Vector rows (``session_id``, ``seq``, ``model``, ``vector`` bytes) as an
    export holds them: the vector as base64 of its ``float32`` bytes."""
    out: list[dict[str, object]] = []
    for row in rows:
        blob = row["vector"]
        assert isinstance(blob, bytes)
        out.append({**row, "vector": base64.b64encode(blob).decode("ascii")})
    return out
