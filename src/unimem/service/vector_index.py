"""An approximate nearest-neighbour index of one user's vectors (faiss IVF, 8-bit codes).

Scanning every vector of a user is exact and cheap for a few thousand turns;
at 100,000 it reads 150 MB per question. :class:`AnnIndex` groups the
vectors around :func:`list_count` centroids (k-means on a sample) and keeps
each as 8-bit codes (one byte per dimension: 38 MB per 100,000 vectors of
384 dimensions); a search reads the :data:`NPROBE` groups nearest the
question. It gives the positions of candidates only: the caller scores
them again exactly from its ``float32`` rows and keeps the best.

faiss (``faiss-cpu``, MIT) is an optional dependency of the ``embeddings``
extra: without it (:func:`ann_available` is ``False``) every search is the
exact scan. Its calls release the GIL, so an index is built in a worker
thread while the event loop goes on; it runs one OpenMP thread (the
machine's cores serve the request path and the embedder too).
"""

from __future__ import annotations

import importlib
import math
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "ANN_MIN_ROWS",
    "CANDIDATE_FACTOR",
    "NPROBE",
    "AnnIndex",
    "ann_available",
    "list_count",
    "nearest",
]

#: Rows from which a user's vectors are searched through an index (below: the
#: exact scan, a few milliseconds).
ANN_MIN_ROWS = 20_000
#: Groups read per search (of :func:`list_count`: 32 of 316 at 100,000 rows).
NPROBE = 32
#: Training rows per centroid (k-means on a sample of the rows).
_SAMPLE_PER_LIST = 64
#: k-means rounds: the centroids need to spread the rows, not be optimal.
_TRAIN_ROUNDS = 10


@cache
def _faiss() -> Any:
    """The faiss module, or ``None`` when it is not installed (read once)."""
    try:
        return importlib.import_module("faiss")
    except ImportError:
        return None


def ann_available() -> bool:
    """Whether faiss is installed (``pip install 'unimem[embeddings]'``)."""
    return _faiss() is not None


def list_count(rows: int) -> int:
    """The groups an index of ``rows`` vectors has: about ``sqrt(rows)``, and at
    least 39 training rows each (k-means needs that many)."""
    return max(1, min(int(math.sqrt(rows)), rows // 39))


class AnnIndex:
    """The vectors at positions ``0..count`` of a user's rows, grouped for search.

    Built with :meth:`build` (blocking: run it in a worker thread); rows
    added later are placed in the group of their nearest centroid
    (:meth:`add`). ``trained_on`` is how many rows the centroids were made
    from: an index that has grown far past it is built again.
    """

    def __init__(self, index: Any, quantizer: Any, count: int, trained_on: int) -> None:
        self._index = index
        self._quantizer = quantizer  # the index reads it; kept alive with it
        self.count = count
        self.trained_on = trained_on
        self.dim = int(index.d)

    @classmethod
    def build(cls, rows: npt.NDArray[np.float32], *, seed: int = 7) -> AnnIndex:
        """An index of ``rows`` (unit ``float32`` rows; ids are their positions).

        Raises:
            RuntimeError: faiss is not installed.
        """
        faiss = _faiss()
        if faiss is None:
            raise RuntimeError("faiss is not installed: pip install 'unimem[embeddings]'")
        faiss.omp_set_num_threads(1)
        count, dim = rows.shape
        lists = list_count(count)
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFScalarQuantizer(
            quantizer, dim, lists, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
        )
        index.cp.niter = _TRAIN_ROUNDS
        index.cp.seed = seed
        sample = min(count, lists * _SAMPLE_PER_LIST)
        picked = np.random.default_rng(seed).choice(count, sample, replace=False)
        index.train(np.ascontiguousarray(rows[np.sort(picked)]))
        built = cls(index, quantizer, 0, count)
        built.add(rows)
        return built

    @property
    def nbytes(self) -> int:
        """Memory the codes, ids and centroids take (about)."""
        return self.count * (self.dim + 8) + int(self._quantizer.ntotal) * self.dim * 4

    def add(self, rows: npt.NDArray[np.float32]) -> None:
        """Add ``rows``, the positions ``count..count + len(rows)``."""
        if not len(rows):
            return
        ids = np.arange(self.count, self.count + len(rows), dtype=np.int64)
        self._index.add_with_ids(np.ascontiguousarray(rows, dtype=np.float32), ids)
        self.count += len(rows)

    def search(
        self, query: npt.NDArray[np.float32], allowed: npt.NDArray[np.bool_], limit: int
    ) -> npt.NDArray[np.int64]:
        """Positions of up to ``limit`` rows near ``query`` among those ``allowed``
        (a mask over the positions), nearest first by their 8-bit codes."""
        faiss = _faiss()
        bitmap = np.packbits(allowed[: self.count], bitorder="little")
        selector = faiss.IDSelectorBitmap(len(bitmap), faiss.swig_ptr(bitmap))
        params = faiss.SearchParametersIVF(nprobe=NPROBE, sel=selector)
        _, found = self._index.search(
            np.ascontiguousarray(query[None, :], dtype=np.float32), limit, params=params
        )
        picked: npt.NDArray[np.int64] = found[0]
        return picked[picked >= 0]


#: Candidates an index search gives per row asked for; they are scored again
#: exactly (the 8-bit codes order near rows roughly) and the best kept.
CANDIDATE_FACTOR = 4


def nearest(
    index: AnnIndex,
    rows: npt.NDArray[np.float32],
    query: npt.NDArray[np.float32],
    allowed: npt.NDArray[np.bool_],
    limit: int,
) -> npt.NDArray[np.int64]:
    """Positions of the ``limit`` best rows among the index's candidates, by
    their exact cosine to ``query`` (``rows``: the ``float32`` rows the index
    was made of), best first."""
    found = index.search(query, allowed, limit * CANDIDATE_FACTOR)
    if not found.size:
        return found
    scores = rows[found] @ query
    order = np.argsort(-scores, kind="stable")[:limit]
    best: npt.NDArray[np.int64] = found[order]
    return best
