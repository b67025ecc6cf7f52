"""The memory service with its context builds held back: a store that is late
for a turn, to test what an adapter does when the context is not ready."""

from __future__ import annotations

import asyncio
from typing import Any

from unimem import UnifiedMemoryService


class LateContext:
    """``memory`` with the context build of each query in ``slow`` held back
    that many seconds, and the (user, query) of each build noted."""

    def __init__(self, memory: UnifiedMemoryService, slow: dict[str, float] | None = None) -> None:
        self.memory = memory
        self.slow = dict(slow or {})
        self.built: list[tuple[str | None, str]] = []

    async def build_llm_context(self, session_id: str, query: str, **kwargs: Any) -> Any:
        self.built.append((kwargs.get("user_id"), query))
        await asyncio.sleep(self.slow.get(query, 0.0))
        return await self.memory.build_llm_context(session_id, query, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.memory, name)
