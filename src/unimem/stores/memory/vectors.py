"""The in-process store's vectors: the queue of entries waiting for one, and
each user's vectors, kept in step with the entries by the store."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import count

import numpy as np
import numpy.typing as npt

from ...models import MemoryEntry, utcnow
from ...recall.hits import SearchFilters
from ...recall.vectors import top_k
from ..search import KeywordHit
from ..vectors import PendingEntry, VectorBacklog, VectorRow, VectorStamp

__all__ = ["EntryVectors"]

_Key = tuple[str, int]  # (session_id, seq)


@dataclass(slots=True)
class _Stored:
    entry: MemoryEntry
    model: str
    blob: bytes
    row: int = 0


def _key(entry: MemoryEntry) -> _Key:
    assert entry.seq is not None
    return (entry.session_id, entry.seq)


class EntryVectors:
    """Every user's entry vectors and the entries waiting for theirs."""

    def __init__(self) -> None:
        self._queue: dict[_Key, PendingEntry] = {}
        self._entries: dict[_Key, MemoryEntry] = {}
        self._users: dict[str, dict[_Key, _Stored]] = {}
        self._tickets = count(1)
        self._rows = count(1)
        #: vectors deleted per user (``VectorStamp.removals``), counted on from
        #: ``_erased``: what a user without a count reads, raised past the count
        #: of each erased user, so a user's stamp never comes back to an earlier one
        self._removals: dict[str, int] = {}
        self._erased = 0

    def add(self, entry: MemoryEntry) -> None:
        """Queue ``entry`` for a vector (again, when its text changed)."""
        key = _key(entry)
        self._drop_vector(entry.user_id, key)
        self._queue.pop(key, None)
        self._entries[key] = entry
        self._queue[key] = PendingEntry(
            entry.session_id, key[1], entry.user_id, entry.content, next(self._tickets), utcnow()
        )

    def remove(self, entries: Iterable[MemoryEntry]) -> None:
        """Forget ``entries``: their queue rows and vectors."""
        for entry in entries:
            key = _key(entry)
            self._queue.pop(key, None)
            self._entries.pop(key, None)
            self._drop_vector(entry.user_id, key)

    def erase(self, user_id: str) -> None:
        """Forget the user's deletion count (their memory was erased)."""
        count = self._removals.pop(user_id, None)
        if count is not None:
            self._erased = max(self._erased, count) + 1

    def _drop_vector(self, user_id: str, key: _Key) -> None:
        vectors = self._users.get(user_id)
        if vectors is not None and vectors.pop(key, None) is not None:
            self._removals[user_id] = self._removals.get(user_id, self._erased) + 1
            if not vectors:
                del self._users[user_id]

    def pending(self, limit: int) -> list[PendingEntry]:
        """The oldest ``limit`` queued entries."""
        out: list[PendingEntry] = []
        for item in self._queue.values():
            if len(out) >= limit:
                break
            out.append(item)
        return out

    def put(self, model: str, vectors: Sequence[tuple[PendingEntry, bytes]]) -> int:
        """Store the vectors whose queue tickets still stand."""
        stored = 0
        for pending, blob in vectors:
            key = (pending.session_id, pending.seq)
            queued = self._queue.get(key)
            if queued is None or queued.ticket != pending.ticket:
                continue
            del self._queue[key]
            entry = self._entries[key]
            mine = self._users.setdefault(entry.user_id, {})
            mine.pop(key, None)  # a new row number: the user's rows stay in row order
            mine[key] = _Stored(entry, model, blob, next(self._rows))
            stored += 1
        return stored

    def search(
        self,
        user_id: str,
        vector: npt.NDArray[np.float32],
        *,
        model: str,
        filters: SearchFilters,
        limit: int,
    ) -> list[KeywordHit]:
        """The user's nearest entries (exact scan)."""
        found = [
            s
            for s in self._users.get(user_id, {}).values()
            if s.model == model and filters.accepts(s.entry)
        ]
        best = top_k(vector, [s.blob for s in found], limit)
        return [KeywordHit(found[i].entry, score) for i, score in best]

    def stamp(self, user_id: str, model: str) -> VectorStamp:
        """Where the user's ``model`` vectors stand."""
        last = next(
            (s.row for s in reversed(self._users.get(user_id, {}).values()) if s.model == model),
            0,
        )
        return VectorStamp(last, self._removals.get(user_id, self._erased))

    def rows(self, user_id: str, model: str, after: int) -> list[VectorRow]:
        """The user's ``model`` vectors stored after row ``after``, in order."""
        newer: list[VectorRow] = []
        for (sid, seq), s in reversed(self._users.get(user_id, {}).items()):
            if s.row <= after:
                break
            if s.model == model:
                newer.append(VectorRow(s.row, sid, seq, s.entry.role.value, s.blob))
        return newer[::-1]

    def entries(
        self, user_id: str, model: str, keys: Sequence[_Key], filters: SearchFilters
    ) -> list[tuple[MemoryEntry, bytes]]:
        """The entries at ``keys`` with their vectors, as they pass ``filters``."""
        mine = self._users.get(user_id, {})
        found = (mine.get(key) for key in keys)
        return [
            (s.entry, s.blob)
            for s in found
            if s is not None and s.model == model and filters.accepts(s.entry)
        ]

    def backlog(self) -> VectorBacklog:
        """Entries waiting, and when the oldest was queued."""
        oldest = next(iter(self._queue.values()), None)
        return VectorBacklog(len(self._queue), oldest.queued_at if oldest else None)

    def export(self, user_id: str) -> list[dict[str, object]]:
        """The user's vectors, for an export."""
        return [
            {"session_id": k[0], "seq": k[1], "model": s.model, "vector": s.blob}
            for k, s in sorted(self._users.get(user_id, {}).items())
        ]
