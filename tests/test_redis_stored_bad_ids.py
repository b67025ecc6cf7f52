"""A session id stored before ids were matched whole (ending in a newline) never
breaks the user's other sessions on Redis + PostgreSQL: the short-term warm-up
leaves it out instead of failing every context read of the user."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from backends import REDIS_URL, ScratchLayeredStore, layered_store
from unimem import MemoryEntry, UnifiedMemoryService
from unimem.ids import new_id
from unimem.models import utcnow

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


@pytest.fixture
async def store(request: pytest.FixtureRequest) -> AsyncIterator[ScratchLayeredStore]:
    layered = await layered_store(request.node.nodeid, REDIS_URL)
    await layered.setup()
    try:
        yield layered
    finally:
        await layered.aclose()


async def test_a_stored_newline_session_id_leaves_other_contexts_readable(
    store: ScratchLayeredStore,
) -> None:
    # written straight to PostgreSQL, as the service of an older version did
    old = MemoryEntry(
        id=new_id(),
        session_id="wsnl-x\n",
        user_id="u1",
        timestamp=utcnow(),
        role="user",
        content="from before",
    )
    await store.durable.append_entry(old)
    memory = UnifiedMemoryService(store)
    await memory.add_entry("visit-2", {"role": "user", "content": "hello"}, user_id="u1")
    await memory.add_entry("visit-3", {"role": "user", "content": "again"}, user_id="u1")
    for _ in range(2):  # the first read warms the user's short-term layer, the next reads it
        ctx = await memory.get_context("visit-3", user_id="u1")
        assert [e.content for e in ctx.messages] == ["again"]
        assert [e.content for e in ctx.recent] == ["hello"]
