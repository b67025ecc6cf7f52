"""What an embedder is: texts in, unit vectors out (:class:`Embedder`).

Recall embeds two kinds of text: the stored turns (``passage``) and the
question (``query``); models trained for retrieval (E5) read them with
different prefixes, others ignore the kind. Vectors are ``float32``, one row
per text, of length one, so a dot product is the cosine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["EmbedKind", "Embedder", "EmbeddingError", "normalized"]

EmbedKind = Literal["query", "passage"]


class EmbeddingError(Exception):
    """The embedder could not embed (its endpoint is down or answered wrongly,
    or the model is not installed). Search goes on by keyword."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors.

    Attributes:
        model: the model's name, stored with each vector (vectors of another
            model are never compared with this one's).
        dim: the vectors' length.
    """

    model: str
    dim: int

    async def embed(self, texts: Sequence[str], *, kind: EmbedKind) -> npt.NDArray[np.float32]:
        """One unit vector per text, shape ``(len(texts), dim)``.

        Raises:
            EmbeddingError: the texts could not be embedded.
        """
        ...

    async def aclose(self) -> None:
        """Release what the embedder holds (connections)."""
        ...


def normalized(rows: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """``rows`` as ``float32`` rows of length one (a zero row stays zero)."""
    array = np.asarray(rows, dtype=np.float32)
    if array.ndim == 1:
        array = array[None, :]
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    out: npt.NDArray[np.float32] = np.divide(
        array, norms, out=np.zeros_like(array), where=norms > 0
    )
    return out
