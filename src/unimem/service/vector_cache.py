"""Each user's vectors as one in-memory matrix, so a dense search reads no rows.

An exact scan through the store reads every vector of the user (100,000
turns: 150 MB of rows per question). :class:`VectorCache` keeps a user's
vectors as a ``float32`` matrix, read once and kept current by a stamp the
store gives in one small read per search (:class:`~unimem.stores.vectors.VectorStamp`):
rows stored since are read and added (the indexer of any process stores
them); any deletion since (a session, a day, everything, the retention
sweep, an edited turn) reads the matrix again, so a deleted turn's vector
does not stay in this process. The few best rows are then read back through
the store with the search's filters (:meth:`~unimem.stores.vectors.VectorSnapshots.vector_entries`)
and scored again from the stored bytes: a result is always an entry the
store still holds, with its vector as stored. If one of them is gone (a
deletion between the stamp and the read) the search is answered by the
store's exact scan.

Bounded memory: at most ``max_bytes`` of matrices, the least recently
searched users' dropped first; a user whose matrix alone is larger is
scanned by the store. Searches with time, mode or language filters are
scanned by the store too (the matrix knows only each row's session and role).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..recall.hits import SearchFilters
from ..recall.vectors import from_bytes
from ..stores.search import KeywordHit
from ..stores.vectors import VectorRow, VectorSnapshots, VectorStore, vector_snapshots_of

__all__ = ["DEFAULT_CACHE_BYTES", "VectorCache"]

#: Default bound of the matrices kept (about 170,000 vectors of 384 dimensions).
DEFAULT_CACHE_BYTES = 256 * 1024 * 1024

_Key = tuple[str, int]


@dataclass(slots=True)
class _Matrix:
    """One user's vectors of one model: rows in stored order, dead rows masked."""

    dim: int
    last: int = 0
    removals: int = 0
    rows: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    count: int = 0
    keys: list[_Key] = field(default_factory=list)
    at: dict[_Key, int] = field(default_factory=dict)
    alive: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    user_role: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    session: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, np.int32))
    sessions: dict[str, int] = field(default_factory=dict)

    @property
    def nbytes(self) -> int:
        return int(self.rows.nbytes + self.alive.nbytes * 6)

    def add(self, found: Sequence[VectorRow]) -> None:
        """Append ``found`` (in row order); a key stored again replaces its old row."""
        fresh = [r for r in found if len(r.vector) == self.dim * 4]
        need = self.count + len(fresh)
        if need > self.rows.shape[0]:
            size = max(need, int(self.rows.shape[0] * 1.5), 64)
            self.rows = _grow(self.rows, size, self.dim)
            self.alive = np.resize(self.alive, size)
            self.user_role = np.resize(self.user_role, size)
            self.session = np.resize(self.session, size)
            self.alive[self.count :] = False
        for r in fresh:
            key = (r.session_id, r.seq)
            old = self.at.get(key)
            if old is not None:
                self.alive[old] = False
            i = self.count
            self.rows[i] = from_bytes(r.vector)
            self.alive[i] = True
            self.user_role[i] = r.role == "user"
            self.session[i] = self.sessions.setdefault(r.session_id, len(self.sessions))
            self.keys.append(key)
            self.at[key] = i
            self.count += 1
        if found:
            self.last = max(self.last, found[-1].row)

    def best(
        self, query: npt.NDArray[np.float32], filters: SearchFilters, limit: int
    ) -> list[_Key]:
        """The keys of the ``limit`` rows nearest ``query`` that pass ``filters``."""
        n = self.count
        if not n or limit <= 0:
            return []
        mask = self.alive[:n].copy()
        if filters.roles is not None:  # only ["user"] comes here (_store_only)
            mask &= self.user_role[:n]
        for name, keep in ((filters.session_id, True), (filters.exclude_session, False)):
            if name is None:
                continue
            code = self.sessions.get(name, -1)
            mask &= (self.session[:n] == code) if keep else (self.session[:n] != code)
        picked = np.flatnonzero(mask)
        if not picked.size:
            return []
        scores = (self.rows[:n] @ query)[picked]  # one pass over the matrix, no copy of it
        k = min(limit, picked.size)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [self.keys[int(picked[int(i)])] for i in top]


def _grow(rows: npt.NDArray[np.float32], size: int, dim: int) -> npt.NDArray[np.float32]:
    grown = np.zeros((size, dim), dtype=np.float32)
    grown[: rows.shape[0]] = rows[:, :dim] if rows.size else rows.reshape(0, dim)
    return grown


def _store_only(filters: SearchFilters) -> bool:
    """Filters the matrix cannot apply (it knows each row's session and whether
    it is a user turn): the store scans."""
    roles = filters.roles
    if roles is not None and list(roles) != ["user"]:
        return True
    return any(
        v is not None for v in (filters.since, filters.until, filters.modes, filters.languages)
    )


class VectorCache:
    """Users' vector matrices, least recently searched dropped first.

    Args:
        max_bytes: the most memory the matrices take (0: none kept, every
            search scans through the store).
    """

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.max_bytes = max(0, max_bytes)
        self._users: OrderedDict[tuple[str, str], _Matrix] = OrderedDict()
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    @property
    def nbytes(self) -> int:
        """Memory the matrices take now."""
        return sum(m.nbytes for m in self._users.values())

    def forget(self, user_id: str) -> None:
        """Drop the user's matrices (they are read again on the next search)."""
        for key in [k for k in self._users if k[0] == user_id]:
            del self._users[key]

    async def search(
        self,
        store: VectorStore,
        user_id: str,
        vector: npt.NDArray[np.float32],
        *,
        model: str,
        filters: SearchFilters,
        limit: int,
    ) -> list[KeywordHit]:
        """The user's entries nearest ``vector`` (cosine), as
        :meth:`~unimem.stores.vectors.VectorStore.vector_search` finds them."""
        snapshots = vector_snapshots_of(store)
        if snapshots is None or not self.max_bytes or _store_only(filters) or limit <= 0:
            return await store.vector_search(
                user_id, vector, model=model, filters=filters, limit=limit
            )
        try:
            matrix = await self._current(snapshots, user_id, model, vector.shape[0])
        except NotImplementedError:
            matrix = None
        if matrix is None:
            return await store.vector_search(
                user_id, vector, model=model, filters=filters, limit=limit
            )
        keys = matrix.best(vector.astype(np.float32), filters, limit)
        found = await snapshots.vector_entries(user_id, model, keys, filters)
        if len(found) < len(keys):
            # gone since the stamp (or changed): read again next time, scan now
            self.forget(user_id)
            return await store.vector_search(
                user_id, vector, model=model, filters=filters, limit=limit
            )
        query = vector.astype(np.float32)
        hits = [
            KeywordHit(entry, float(from_bytes(blob) @ query))
            for entry, blob in found
            if len(blob) == query.shape[0] * 4
        ]
        hits.sort(key=lambda h: -h.score)
        return hits[:limit]

    async def _current(
        self, store: VectorSnapshots, user_id: str, model: str, dim: int
    ) -> _Matrix | None:
        """The user's matrix brought up to the store's stamp (``None``: too big to keep)."""
        key = (user_id, model)
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            stamp = await store.vector_stamp(user_id, model)
            matrix = self._users.get(key)
            if matrix is None or matrix.removals != stamp.removals or matrix.dim != dim:
                matrix = _Matrix(dim=dim, removals=stamp.removals)
                matrix.add(await store.vector_rows(user_id, model, after=0))
            elif stamp.last > matrix.last:
                matrix.add(await store.vector_rows(user_id, model, after=matrix.last))
            self._users[key] = matrix
            self._users.move_to_end(key)
            kept: _Matrix | None = matrix
            if matrix.nbytes > self.max_bytes:
                del self._users[key]
                kept = None
            while self.nbytes > self.max_bytes and len(self._users) > 1:
                self._users.popitem(last=False)
        self._locks = {k: v for k, v in self._locks.items() if k in self._users or v.locked()}
        return kept
