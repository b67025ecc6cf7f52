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

from ..models import MemoryEntry
from ..recall.hits import SearchFilters
from .search import KeywordHit

__all__ = [
    "PendingEntry",
    "VectorBacklog",
    "VectorRow",
    "VectorSnapshots",
    "VectorStamp",
    "VectorStore",
    "WrapsVectorSnapshots",
    "export_vectors",
    "vector_snapshots_of",
    "vector_store_of",
]


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


@dataclass(frozen=True, slots=True)
class VectorStamp:
    """Where one user's vectors of one model stand: ``last`` is the number of the
    last row stored (rows are numbered in the order they are stored, a vector
    stored again gets a new number) and ``removals`` changes with every deletion
    of the user's vectors and never comes back to a value it had, not even
    after the user's erasure removed their count (a count, or on PostgreSQL
    the number of the latest deleting statement). Equal stamps: the same
    vectors."""

    last: int
    removals: int


@dataclass(frozen=True, slots=True)
class VectorRow:
    """One stored vector: its row number, its entry and the entry's role."""

    row: int
    session_id: str
    seq: int
    role: str
    vector: bytes


@runtime_checkable
class VectorSnapshots(Protocol):
    """A vector store whose rows a process can keep in memory and keep current:
    it reads a user's rows stored after a row number, and tells by a stamp
    whether any were deleted since (then the copy is read again). A wrapper
    (layered, timed) says through :class:`WrapsVectorSnapshots` whether the
    store it wraps can."""

    async def vector_stamp(self, user_id: str, model: str) -> VectorStamp:
        """The stamp of the user's ``model`` vectors now."""
        ...

    async def vector_rows(self, user_id: str, model: str, *, after: int) -> list[VectorRow]:
        """The user's ``model`` vectors whose row number is above ``after``, in order."""
        ...

    async def vector_entries(
        self,
        user_id: str,
        model: str,
        keys: Sequence[tuple[str, int]],
        filters: SearchFilters,
    ) -> list[tuple[MemoryEntry, bytes]]:
        """The entries at ``keys`` (session, seq) that are the user's, pass
        ``filters`` and still have a ``model`` vector, with that vector."""
        ...


@runtime_checkable
class WrapsVectorSnapshots(Protocol):
    """A store wrapping another (layered, timed): its rows are the wrapped store's."""

    def vector_snapshots(self) -> VectorSnapshots | None:
        """The :class:`VectorSnapshots` to read (``None``: the wrapped store keeps
        no rows; searches scan through :meth:`VectorStore.vector_search`)."""
        ...


def vector_snapshots_of(store: object) -> VectorSnapshots | None:
    """``store`` as :class:`VectorSnapshots` (a wrapper's answer for a wrapper),
    or ``None`` when it cannot say."""
    if isinstance(store, WrapsVectorSnapshots):
        return store.vector_snapshots()
    return store if isinstance(store, VectorSnapshots) else None


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
