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

A user with :data:`~unimem.service.vector_index.ANN_MIN_ROWS` vectors or
more is searched through an approximate index as well
(:class:`~unimem.service.vector_index.AnnIndex`: 8-bit codes grouped around
centroids, 1 ms instead of 50-150 ms at 100,000 rows), whose candidates are
scored again exactly from the matrix. The index is built in a worker thread
from the matrix (the exact scan answers until it is ready), grows with the
rows added, and is built again when the user's vectors had a deletion (the
matrix is read again then) or have doubled since it was made. Without faiss
installed every search is the exact scan.

Bounded memory: at most ``max_bytes`` of matrices and indexes, the least recently
searched users' dropped first; a user whose matrix alone is larger is
scanned by the store. Searches with time, mode or language filters are
scanned by the store too (the matrix knows only each row's session and role).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..recall.hits import SearchFilters
from ..recall.vectors import from_bytes
from ..stores.search import KeywordHit
from ..stores.vectors import VectorRow, VectorSnapshots, VectorStore, vector_snapshots_of
from .keyed_locks import KeyedLocks
from .vector_index import ANN_MIN_ROWS, AnnIndex, ann_available, nearest

__all__ = ["DEFAULT_CACHE_BYTES", "VectorCache"]

#: Default bound of the matrices kept (about 170,000 vectors of 384 dimensions).
DEFAULT_CACHE_BYTES = 256 * 1024 * 1024

log = logging.getLogger(__name__)

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
    #: the approximate index of rows ``0..index.count`` (``None``: exact scans)
    index: AnnIndex | None = None
    #: an index being built in a worker thread
    building: asyncio.Task[AnnIndex] | None = None
    #: a build failed: exact scans only, until the matrix is read again
    unindexed: bool = False

    @property
    def nbytes(self) -> int:
        made = self.index.nbytes if self.index is not None else 0
        return int(self.rows.nbytes + self.alive.nbytes * 6 + made)

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
        if self.index is not None and self.index.count == n and mask.sum() > limit * 8:
            top_rows = nearest(self.index, self.rows[:n], query, mask, limit)
            return [self.keys[int(i)] for i in top_rows]
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
        max_bytes: the most memory the matrices and indexes take (0: none
            kept, every search scans through the store).
        ann_min_rows: rows from which a user's matrix gets an approximate
            index (0: never; always 0 when faiss is not installed).
    """

    def __init__(
        self, max_bytes: int = DEFAULT_CACHE_BYTES, *, ann_min_rows: int = ANN_MIN_ROWS
    ) -> None:
        self.max_bytes = max(0, max_bytes)
        self._users: OrderedDict[tuple[str, str], _Matrix] = OrderedDict()
        self._locks: KeyedLocks[tuple[str, str]] = KeyedLocks()
        self.ann_min_rows = ann_min_rows if ann_available() else 0

    @property
    def nbytes(self) -> int:
        """Memory the matrices take now."""
        return sum(m.nbytes for m in self._users.values())

    def forget(self, user_id: str) -> None:
        """Drop the user's matrices and indexes (read again on the next search):
        the service calls it when the user's data is deleted."""
        for key in [k for k in self._users if k[0] == user_id]:
            del self._users[key]

    def indexed_rows(self, user_id: str, model: str) -> int:
        """How many of the user's rows the approximate index holds (0: exact scans)."""
        matrix = self._users.get((user_id, model))
        return matrix.index.count if matrix is not None and matrix.index is not None else 0

    async def wait_built(self) -> None:
        """Wait until the indexes being built are ready (tests, benchmarks)."""
        building = [m.building for m in self._users.values() if m.building is not None]
        await asyncio.gather(*building, return_exceptions=True)

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
        matrix = await self._current(snapshots, user_id, model, vector.shape[0])
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
        async with self._locks.hold(key):
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
            else:
                self._index(matrix)
            while self.nbytes > self.max_bytes and len(self._users) > 1:
                self._users.popitem(last=False)
        return kept

    def _index(self, matrix: _Matrix) -> None:
        """Bring the matrix's index up to its rows: take a finished build, add
        the rows stored since, start a build when there is none (or the rows
        have doubled since the one there was made)."""
        if not self.ann_min_rows or matrix.count < self.ann_min_rows or matrix.unindexed:
            return
        done = matrix.building
        if done is not None and done.done():
            matrix.building = None
            if done.cancelled() or done.exception() is not None:
                log.warning("vector index not built (%r); exact scans go on", done.exception())
                matrix.unindexed = True
                return
            matrix.index = done.result()
        index = matrix.index
        if index is not None and index.count < matrix.count:
            index.add(matrix.rows[index.count : matrix.count])
        stale = index is None or matrix.count >= 2 * index.trained_on
        if stale and matrix.building is None:
            # rows 0..count are never written again: the thread reads them as they are
            task = asyncio.ensure_future(
                asyncio.to_thread(AnnIndex.build, matrix.rows[: matrix.count])
            )
            task.add_done_callback(_settled)
            matrix.building = task


def _settled(task: asyncio.Task[AnnIndex]) -> None:
    """Read a build's failure (a matrix dropped meanwhile never reads it)."""
    if not task.cancelled():
        task.exception()
