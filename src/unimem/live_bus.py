"""In-process fan-out of stored entries and events to live listeners (WebSocket clients).

Each subscriber gets its own bounded queue; a subscriber too slow to keep up
is dropped rather than slowing writers down.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal

from .models import MemoryEntry, MemoryEvent

__all__ = ["LiveBus", "LiveMessage"]


@dataclass(frozen=True, slots=True)
class LiveMessage:
    """One stored item, as pushed to listeners."""

    kind: Literal["entry", "event"]
    session_id: str
    item: MemoryEntry | MemoryEvent


class LiveBus:
    """Publish/subscribe per session id, within one process."""

    def __init__(self, queue_size: int = 1000) -> None:
        self._queue_size = queue_size
        self._subscribers: dict[str, set[asyncio.Queue[LiveMessage | None]]] = defaultdict(set)

    def publish(
        self, session_id: str, kind: Literal["entry", "event"], item: MemoryEntry | MemoryEvent
    ) -> None:
        """Hand ``item`` to every subscriber of ``session_id``; never blocks."""
        queues = self._subscribers.get(session_id)
        if not queues:
            return
        message = LiveMessage(kind, session_id, item)
        for queue in list(queues):
            try:
                queue.put_nowait(message)
            except asyncio.QueueFull:
                queues.discard(queue)
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(None)

    def subscribers(self, session_id: str) -> int:
        """How many listeners the session has."""
        return len(self._subscribers.get(session_id, ()))

    @asynccontextmanager
    async def subscribe(self, session_id: str) -> AsyncIterator[asyncio.Queue[LiveMessage | None]]:
        """A queue receiving the session's messages; ``None`` means the
        subscriber fell behind and was dropped."""
        queue: asyncio.Queue[LiveMessage | None] = asyncio.Queue(self._queue_size)
        self._subscribers[session_id].add(queue)
        try:
            yield queue
        finally:
            subs = self._subscribers.get(session_id)
            if subs is not None:
                subs.discard(queue)
                if not subs:
                    del self._subscribers[session_id]
