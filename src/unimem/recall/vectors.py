"""Vectors as stored and compared (pure): ``float32`` bytes, exact top-k by cosine.

A vector is kept as its ``float32`` little-endian bytes (1,536 bytes for 384
dimensions). Every stored vector is of length one, so the dot product with a
unit query vector is the cosine; :func:`top_k` scans one user's vectors
exactly (no approximate index: a user holds thousands, not millions).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["MIN_SIMILARITY", "from_bytes", "to_bytes", "top_k"]

#: Cosine below which a turn is not taken as related at all (E5's cosines of
#: unrelated short texts sit around 0.7-0.75; related ones above 0.8).
MIN_SIMILARITY = 0.0

_DTYPE = np.dtype("<f4")


def to_bytes(vector: npt.NDArray[np.float32]) -> bytes:
    """The stored form of one vector."""
    return np.asarray(vector, dtype=_DTYPE).tobytes()


def from_bytes(blob: bytes) -> npt.NDArray[np.float32]:
    """One stored vector back as an array."""
    return np.frombuffer(blob, dtype=_DTYPE)


def top_k(
    query: npt.NDArray[np.float32], blobs: Sequence[bytes], k: int
) -> list[tuple[int, float]]:
    """``(position in blobs, cosine)`` of the ``k`` vectors nearest ``query``,
    best first; vectors of another length than the query's are skipped."""
    if k <= 0 or not blobs:
        return []
    size = query.shape[0] * _DTYPE.itemsize
    if all(len(blob) == size for blob in blobs):  # the usual case: one model, one length
        keep = list(range(len(blobs)))
        joined = b"".join(blobs)
    else:
        keep = [i for i, blob in enumerate(blobs) if len(blob) == size]
        joined = b"".join(blobs[i] for i in keep)
    if not keep:
        return []
    matrix = np.frombuffer(joined, dtype=_DTYPE).reshape(len(keep), -1)
    scores = matrix @ query.astype(np.float32)
    n = min(k, len(keep))
    best = np.argpartition(-scores, n - 1)[:n]
    best = best[np.argsort(-scores[best], kind="stable")]
    return [(keep[int(i)], float(scores[int(i)])) for i in best]
