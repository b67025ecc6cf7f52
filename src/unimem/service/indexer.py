"""The recall indexer: embeds stored entries off the request path.

An append commits and returns as before (the store queues the entry in the
same transaction); this background task takes the queue in batches, embeds
the stored (redacted) text and stores the vectors. Its lag, the entries
waiting and the age of the oldest, is :meth:`RecallIndexer.status` (in
``GET /health`` and the ``unimem_recall_index_*`` metrics). Entries written
before vectors were on are queued by the store's migration and indexed the
same way (the backfill). A failing embedder or store is retried with a
growing pause; keyword search goes on meanwhile. While the queue holds more,
the indexer pauses after each batch for as long as the batch took
(:data:`PACE`): embedding shares the process's cores with the request path,
and under a sustained write load a queue that grows (and says so in its lag)
is better than appends that wait for the cores.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from pydantic import BaseModel, ConfigDict

from ..embeddings.base import Embedder, EmbeddingError
from ..errors import StoreUnavailableError
from ..models import utcnow
from ..recall.vectors import to_bytes
from ..stores.vectors import VectorStore, vector_store_of
from .core import ServiceCore

__all__ = ["BATCH", "PACE", "IndexStatus", "RecallIndexer"]

log = logging.getLogger(__name__)

#: Entries embedded together (one engine call; one transaction to store them).
BATCH = 32
#: Seconds between looks at an empty queue: the lag's floor when writes are rare.
IDLE_SECONDS = 0.25
#: Longest pause after failures (doubling from IDLE_SECONDS).
MAX_BACKOFF_SECONDS = 30.0
#: Seconds of pause per second a batch took, while more is queued: the
#: indexer takes at most half the time, whatever the write load.
PACE = 1.0


class IndexStatus(BaseModel):
    """How dense recall stands.

    Attributes:
        mode: ``hybrid`` (keyword and dense) or ``keyword`` (no embedder, or a
            store that keeps no vectors).
        model: the embedding model (``None`` in keyword mode).
        running: whether the background indexer runs in this process.
        pending: entries waiting for their vectors (every user's).
        oldest_pending_seconds: how long the oldest of them has waited.
        indexed: entries this process has embedded since it started.
        failures: batches that failed since it started.
        last_error: the last failure, if any (no content: the error's kind).
    """

    model_config = ConfigDict(frozen=True)

    mode: str
    model: str | None = None
    running: bool = False
    pending: int = 0
    oldest_pending_seconds: float | None = None
    indexed: int = 0
    failures: int = 0
    last_error: str | None = None


class RecallIndexer:
    """Embeds queued entries in the background (started and stopped with the service).

    Args:
        core: the service's shared state (its store).
        embedder: the model; ``None`` is keyword mode (nothing to index).
    """

    def __init__(self, core: ServiceCore, embedder: Embedder | None) -> None:
        self._core = core
        self.embedder = embedder
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.indexed = 0
        self.failures = 0
        self.last_error: str | None = None

    def _vectors(self) -> VectorStore | None:
        return vector_store_of(self._core.store) if self.embedder is not None else None

    @property
    def active(self) -> bool:
        """Whether dense recall is on: an embedder and a store that keeps vectors."""
        return self._vectors() is not None

    async def start(self) -> None:
        """Start the background task (nothing in keyword mode). Idempotent."""
        if self.active and (self._task is None or self._task.done()):
            self._task = asyncio.create_task(self._run(), name="unimem-recall-indexer")

    async def stop(self) -> None:
        """Stop the background task; what is queued stays queued."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def index_batch(self, limit: int = BATCH) -> int:
        """Embed and store one batch; returns how many entries it took off the queue.

        Raises:
            EmbeddingError: the embedder failed (the batch stays queued).
            StoreUnavailableError: the store failed.
        """
        vectors, embedder = self._vectors(), self.embedder
        if vectors is None or embedder is None:
            return 0
        async with self._lock:  # one batch at a time: the same entries are not embedded twice
            await self._core.ready_store()
            pending = await vectors.pending_vectors(limit)
            if not pending:
                return 0
            rows = await embedder.embed([p.text for p in pending], kind="passage")
            stored = await vectors.put_vectors(
                embedder.model, [(p, to_bytes(row)) for p, row in zip(pending, rows, strict=True)]
            )
        self.indexed += stored
        return len(pending)

    async def drain(self) -> int:
        """Index until nothing is queued (tests, the evaluation, a backfill);
        returns how many entries it took. Bound it with ``asyncio.timeout``."""
        total = 0
        while took := await self.index_batch():
            total += took
        return total

    async def _run(self) -> None:
        pause = IDLE_SECONDS
        while True:
            started = time.perf_counter()
            try:
                took = await self.index_batch()
            except (EmbeddingError, StoreUnavailableError) as exc:
                self.failures += 1
                self.last_error = type(exc).__name__
                log.warning("recall indexing failed (%s); retrying in %.1fs", exc, pause)
                await asyncio.sleep(pause)
                pause = min(pause * 2, MAX_BACKOFF_SECONDS)
                continue
            pause = IDLE_SECONDS
            if not took:
                await asyncio.sleep(IDLE_SECONDS)
            else:
                await asyncio.sleep((time.perf_counter() - started) * PACE)

    async def status(self) -> IndexStatus:
        """The mode, the model and the lag."""
        vectors, embedder = self._vectors(), self.embedder
        if vectors is None or embedder is None:
            return IndexStatus(mode="keyword")
        await self._core.ready_store()
        backlog = await vectors.vector_backlog()
        age = (utcnow() - backlog.oldest).total_seconds() if backlog.oldest else None
        return IndexStatus(
            mode="hybrid",
            model=embedder.model,
            running=self._task is not None and not self._task.done(),
            pending=backlog.pending,
            oldest_pending_seconds=max(0.0, age) if age is not None else None,
            indexed=self.indexed,
            failures=self.failures,
            last_error=self.last_error,
        )
