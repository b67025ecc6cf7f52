"""The memory service with its context builds held back: a store that is late
for a turn, to test what an adapter does when the context is not ready."""

from __future__ import annotations

import asyncio
from typing import Any

from unimem import UnifiedMemoryService


class LateContext:
    """``memory`` with the context build of each query in ``slow`` held back
    that many seconds, the (user, query) of each build noted, and the query of
    each build as it starts (``started``) and as it is stopped before its end
    (``cancelled``)."""

    def __init__(self, memory: UnifiedMemoryService, slow: dict[str, float] | None = None) -> None:
        self.memory = memory
        self.slow = dict(slow or {})
        self.built: list[tuple[str | None, str]] = []
        self.started: asyncio.Queue[str] = asyncio.Queue()
        self.cancelled: asyncio.Queue[str] = asyncio.Queue()

    async def build_llm_context(self, session_id: str, query: str, **kwargs: Any) -> Any:
        self.built.append((kwargs.get("user_id"), query))
        self.started.put_nowait(query)
        try:
            await asyncio.sleep(self.slow.get(query, 0.0))
            return await self.memory.build_llm_context(session_id, query, **kwargs)
        except asyncio.CancelledError:
            self.cancelled.put_nowait(query)
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.memory, name)
