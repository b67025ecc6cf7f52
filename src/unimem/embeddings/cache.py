"""Question embeddings kept by asker and text: the same question is embedded once.

A question's embedding is the slowest step of a dense search (tens of
milliseconds on a small CPU). :class:`QueryEmbeddings` keeps the latest ones
(least recently used dropped first) and shares a question being embedded:
a caller that asks for a text already on its way awaits the same work, so
the context builder can start the embedding as soon as the question is
known (:meth:`QueryEmbeddings.start`) and pick it up after its store reads.
A failed embedding is not kept (the next call tries again). Each
embedding is kept under its asker (``owner``, a user id) as well as its
text, so what one user asked is never served to another, and a user's
deletion drops theirs (:meth:`QueryEmbeddings.forget`); one instance serves
one embedder, so its model is part of the key too.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from .base import Embedder

__all__ = ["QUERY_CACHE_SIZE", "QueryEmbeddings"]

#: Question embeddings kept (384 floats each: 1.5 kB).
QUERY_CACHE_SIZE = 1024

_Vector = npt.NDArray[np.float32]
_Key = tuple[str, str]  # (owner, text)


class QueryEmbeddings:
    """The ``query`` embeddings of ``embedder``, the latest ``size`` kept.

    Args:
        embedder: the model.
        size: how many texts' embeddings are kept (0: none, each call embeds).
    """

    def __init__(self, embedder: Embedder, size: int = QUERY_CACHE_SIZE) -> None:
        self.embedder = embedder
        self.size = max(0, size)
        self._made: OrderedDict[_Key, asyncio.Task[_Vector]] = OrderedDict()

    def start(self, text: str, *, owner: str = "") -> asyncio.Task[_Vector]:
        """The embedding of ``owner``'s ``text``: kept, on its way, or started now."""
        loop = asyncio.get_running_loop()
        key = (owner, text)
        task = self._made.get(key)
        if task is not None and task.get_loop() is loop and not task.cancelled():
            self._made.move_to_end(key)
            return task
        task = loop.create_task(self._embed(text))
        task.add_done_callback(self._settled(key))
        if self.size:
            self._made[key] = task
            while len(self._made) > self.size:
                self._made.popitem(last=False)
        return task

    async def get(self, text: str, *, owner: str = "") -> _Vector:
        """The unit vector of ``owner``'s ``text`` (read as a question).

        The embedding goes on when the caller stops waiting (a timeout): it is
        kept for the next call.

        Raises:
            EmbeddingError: the embedder failed.
        """
        return await asyncio.shield(self.start(text, owner=owner))

    def clear(self) -> None:
        """Forget every kept embedding."""
        self._made.clear()

    def forget(self, owner: str) -> None:
        """Forget the embeddings of ``owner``'s texts."""
        for key in [k for k in self._made if k[0] == owner]:
            del self._made[key]

    async def _embed(self, text: str) -> _Vector:
        rows = await self.embedder.embed([text], kind="query")
        vector: _Vector = rows[0]
        return vector

    def _settled(self, key: _Key) -> Callable[[asyncio.Task[_Vector]], None]:
        def done(task: asyncio.Task[_Vector]) -> None:
            # a failure is read here (never "never retrieved") and not kept
            failed = task.cancelled() or task.exception() is not None
            if failed and self._made.get(key) is task:
                del self._made[key]

        return done
